#!/usr/bin/env bash
# Runs a command on another row of the support matrix (docs/support-matrix.md), ansible 14
# (ansible-core 2.21) or 13 (core 2.20), in a chroot: the Debian 13 root of scripts/debian13-root.sh
# (Python 3.13), with scripts/bootstrap.sh's virtualenv of that row. CI runs row 13's tests this way. The
# repository appears in the root at its own path, with the row's virtualenv as its .venv, so every
# script and test runs unchanged; the root shares the machine's network, so the lab's endpoints on
# loopback and its hosts answer as they do outside, and the user's home comes along (SSH known
# hosts, such as the lab switches' keys). Mounts live in a private mount namespace and go away with
# the command. Needs root (debootstrap, chroot).
#
#   scripts/ansible-row.sh 14 scripts/test.sh --fast
#   scripts/ansible-row.sh 13 ansible --version
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
usage() { echo "usage: scripts/ansible-row.sh 13|14 COMMAND [ARG...]" >&2; exit 2; }
[ $# -ge 2 ] || usage
row="$1"; shift
case "$row" in 13|14) ;; *) usage ;; esac
[ "$(id -u)" -eq 0 ] || { echo "ansible-row: debootstrap, mount and chroot need root" >&2; exit 2; }

say() { printf '==> row ansible %s: %s\n' "$row" "$*"; }
BASE="$ROOT/.cache/toolchains/debian13"
VENV="$BASE/venv-ansible-$row"
SYSROOT="$("$ROOT/scripts/debian13-root.sh")"
# The machine's resolver and TLS roots (a site's proxy CA included), refreshed on every call.
cp /etc/resolv.conf "$SYSROOT/etc/resolv.conf"
mkdir -p "$SYSROOT/etc/aipod-host" "$VENV" "$ROOT/.venv" "$SYSROOT$ROOT" "$SYSROOT${HOME:-/root}"
cp /etc/ssl/certs/ca-certificates.crt "$SYSROOT/etc/aipod-host/ca-certificates.crt"
[ ! -f /etc/pip.conf ] || cp /etc/pip.conf "$SYSROOT/etc/pip.conf"

# The environment the command sees: a clean one, plus the settings of this project and of pip.
home="${HOME:-/root}"
passed=(PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" LANG=C.UTF-8 TERM="${TERM:-dumb}"
        AIPOD_ANSIBLE_ROW="$row" AIPOD_SKIP_DEBIAN_PACKAGES=1
        PIP_CERT=/etc/aipod-host/ca-certificates.crt SSL_CERT_FILE=/etc/aipod-host/ca-certificates.crt)
while IFS='=' read -r name _; do
  case "$name" in AIPOD_ANSIBLE_ROW|AIPOD_SKIP_DEBIAN_PACKAGES|PIP_CERT) ;; AIPOD_*|PIP_*|ANSIBLE_*|PYTEST_*) passed+=("$name=${!name}") ;; esac
done < <(env)

# shellcheck disable=SC2016
exec unshare --mount --propagation private -- bash -c '
  set -euo pipefail
  sysroot="$1" root="$2" venv="$3" home="$4"; shift 4
  mount --bind /proc "$sysroot/proc"
  mount --rbind /sys "$sysroot/sys"
  mount --rbind /dev "$sysroot/dev"
  mount --bind "$home" "$sysroot$home"
  mount --bind "$root" "$sysroot$root"
  mount --bind "$venv" "$sysroot$root/.venv"
  exec chroot "$sysroot" /usr/bin/env -i "$@"
' ansible-row "$SYSROOT" "$ROOT" "$VENV" "$home" "${passed[@]}" \
  bash -c 'cd "$1" && shift && scripts/bootstrap.sh >&2 && export PATH="$PWD/.venv/bin:$PATH" && exec "$@"' ansible-row "$ROOT" "$@"
