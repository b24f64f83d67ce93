#!/usr/bin/env bash
# Runs a command on another row of the support matrix (docs/support-matrix.md): ansible 14
# (ansible-core 2.21) or 13 (core 2.20), which need Python >= 3.12, on a machine whose own Python is
# older. The row runs in a Debian 13 root (Python 3.13) built with debootstrap from Debian's archive
# under .cache/toolchains/debian13, with scripts/bootstrap.sh's virtualenv of that row. The
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
SYSROOT="$BASE/root"
VENV="$BASE/venv-ansible-$row"
MIRROR="${AIPOD_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# Python with venv and pip, TLS roots, and what the bundle calls at run time: ssh for the DGX
# hosts, git for ansible-galaxy and pip sources, systemctl, ip and modprobe as the modules ask them.
PACKAGES=(python3 python3-venv python3-pip ca-certificates openssh-client git systemd iproute2 kmod)
recipe="trixie minbase ${PACKAGES[*]}"

if [ ! -f "$SYSROOT/.aipod-recipe" ] || [ "$(cat "$SYSROOT/.aipod-recipe")" != "$recipe" ]; then
  command -v debootstrap >/dev/null || { echo "ansible-row: debootstrap is not installed: run scripts/bootstrap.sh" >&2; exit 2; }
  say "building a Debian 13 root with debootstrap (about a minute)"
  rm -rf "$SYSROOT.new"
  mkdir -p "$BASE"
  debootstrap --variant=minbase --include="$(IFS=,; echo "${PACKAGES[*]}")" trixie "$SYSROOT.new" "$MIRROR" \
    >"$BASE/debootstrap.log" 2>&1 || { tail -n 30 "$BASE/debootstrap.log" >&2; exit 1; }
  echo "$recipe" >"$SYSROOT.new/.aipod-recipe"
  rm -rf "$SYSROOT"
  mv "$SYSROOT.new" "$SYSROOT"
fi
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
