# Shared by lab/kubernetes/{up,down,status} (sourced, not run): where the component keeps its
# state and how it finds its processes. Everything listens on 127.0.0.1 only.
ROOT="${AIPOD_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
LAB_DIR="${AIPOD_LAB_DIR:-$ROOT/.lab}"
STATE="$LAB_DIR/kubernetes"
API_PORT="${AIPOD_LAB_KUBE_API_PORT:-16443}"
ETCD_PORT="${AIPOD_LAB_KUBE_ETCD_PORT:-23790}"
ETCD_PEER_PORT="${AIPOD_LAB_KUBE_ETCD_PEER_PORT:-23800}"
KCM_PORT="${AIPOD_LAB_KUBE_KCM_PORT:-16257}"
SCHEDULER_PORT="${AIPOD_LAB_KUBE_SCHEDULER_PORT:-16259}"
KWOK_PORT="${AIPOD_LAB_KWOK_PORT:-16260}"
KUBECONFIG_FILE="$STATE/kubeconfig"
# process name -> the executable its /proc/<pid>/cmdline must start with (guards against PID reuse)
declare -A EXECUTABLE=([etcd]=etcd [kube-apiserver]=kube-apiserver [kube-controller-manager]=kube-controller-manager
                       [kube-scheduler]=kube-scheduler [kwok]=kwok [nodes]=nodes.py)
# Every process the component may run, newest first (the order lab/kubernetes/down stops them in).
ALL_PROCESSES=(nodes kwok kube-scheduler kube-controller-manager kube-apiserver etcd)

# The processes of the lab's Kubernetes for the binaries in $STATE/bin, in start order. A version
# built from Go modules has the real kube-scheduler, and KWOK plays the kubelets' API side; the
# older recipe has neither, and nodes.py plays both.
processes() {
  if [ -x "$STATE/bin/kwok" ]; then
    echo etcd kube-apiserver kube-controller-manager kube-scheduler kwok nodes
  else
    echo etcd kube-apiserver kube-controller-manager nodes
  fi
}

say() { printf 'lab kubernetes: %s\n' "$*"; }
die() { printf 'lab kubernetes: error: %s\n' "$*" >&2; exit 1; }

# The PID of one of our processes if it runs, else nothing.
running_pid() {
  local name="$1" file="$STATE/run/$1.pid" pid
  [ -f "$file" ] || return 1
  pid="$(cat "$file")"
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  # The executable, or for the Python agent the script its interpreter runs: any word of the command
  # line, since the toolchain's Python may be started through the Debian 13 root's loader.
  tr '\0' '\n' < "/proc/$pid/cmdline" | grep -qE "(^|/)${EXECUTABLE[$name]}\$" || return 1
  echo "$pid"
}

api_ready() {
  [ -f "$STATE/pki/token" ] || return 1
  curl -fsS --max-time 3 --cacert "$STATE/pki/ca.crt" -H "Authorization: Bearer $(cat "$STATE/pki/token")" \
    "https://127.0.0.1:$API_PORT/readyz" >/dev/null 2>&1
}

# The Prometheus Operator's module: its CRDs stand for a cluster's own monitoring stack
# (inventories/lab: monitoring.stack.install false). v0.85.0 is the newest the proxy lists.
PROMETHEUS_OPERATOR_MODULE=github.com/prometheus-operator/prometheus-operator
PROMETHEUS_OPERATOR_VERSION=v0.85.0
prometheus_operator_source() {
  command -v go >/dev/null || die "go not found: the Prometheus Operator's CRDs come from its Go module"
  GOFLAGS=-mod=mod GOTOOLCHAIN=local go mod download -json "$PROMETHEUS_OPERATOR_MODULE@$PROMETHEUS_OPERATOR_VERSION" \
    | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'
}
# NVIDIA's GPU Operator, the one commit of its repository the Go module proxy serves: the chart
# (gpu-operator-chart) and the controller (gpu-operator) both come from it.
GPU_OPERATOR_MODULE=github.com/NVIDIA/gpu-operator
GPU_OPERATOR_VERSION=v0.0.0-20250917190837-d73a0086a6ba
# The module's source directory (downloaded once and checked against the Go checksum database).
gpu_operator_source() {
  command -v go >/dev/null || die "go not found: the GPU Operator's chart and manifests come from its Go module"
  GOFLAGS=-mod=mod GOTOOLCHAIN=local go mod download -json "$GPU_OPERATOR_MODULE@$GPU_OPERATOR_VERSION" \
    | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'
}
