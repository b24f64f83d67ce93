#!/usr/bin/env bash
# Builds, once, a Debian 13 root (Python 3.13) with debootstrap from Debian's archive under
# .cache/toolchains/debian13/root, and prints its path. It is where the toolchain's Python comes
# from on a control node whose own Python is older than 3.12 (scripts/bootstrap.sh), and where
# scripts/ansible-row.sh runs another row of the support matrix. Rebuilt only when the package list
# below changes. Needs root (debootstrap). A root once built is kept on the machine as a tarball
# named by its recipe (AIPOD_TOOLCHAIN_CACHE, default /var/cache/aipod-toolchain), as pip keeps its
# wheels: a new clone of the repository (CI's) unpacks it in seconds instead of building it again.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BASE="$ROOT/.cache/toolchains/debian13"
SYSROOT="$BASE/root"
MIRROR="${AIPOD_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# Python with venv and pip, TLS roots, and what the bundle calls at run time inside the root of
# scripts/ansible-row.sh: ssh for the DGX hosts, git for ansible-galaxy and pip sources, systemctl,
# ip and modprobe as the modules ask them.
PACKAGES=(python3 python3-venv python3-pip ca-certificates openssh-client git systemd iproute2 kmod)
recipe="trixie minbase ${PACKAGES[*]}"
MACHINE_CACHE="${AIPOD_TOOLCHAIN_CACHE:-/var/cache/aipod-toolchain}"
tarball="$MACHINE_CACHE/debian13-root-$(printf '%s' "$recipe" | sha256sum | cut -c1-16).tar"

if [ ! -f "$SYSROOT/.aipod-recipe" ] || [ "$(cat "$SYSROOT/.aipod-recipe")" != "$recipe" ]; then
  [ "$(id -u)" -eq 0 ] || { echo "debian13-root: debootstrap needs root" >&2; exit 2; }
  command -v debootstrap >/dev/null || { echo "debian13-root: debootstrap is not installed (apt-get install debootstrap)" >&2; exit 2; }
  rm -rf "$SYSROOT.new"
  mkdir -p "$BASE" "$SYSROOT.new"
  if [ -f "$tarball" ]; then
    printf '==> unpacking the Debian 13 root this machine built before (%s)\n' "$tarball" >&2
    tar -C "$SYSROOT.new" --numeric-owner -xpf "$tarball"
  else
    printf '==> building a Debian 13 root with debootstrap under %s (about two minutes, once)\n' "${SYSROOT#"$ROOT"/}" >&2
    debootstrap --variant=minbase --include="$(IFS=,; echo "${PACKAGES[*]}")" trixie "$SYSROOT.new" "$MIRROR" \
      >"$BASE/debootstrap.log" 2>&1 || { tail -n 30 "$BASE/debootstrap.log" >&2; exit 1; }
    echo "$recipe" >"$SYSROOT.new/.aipod-recipe"
    # Kept only if the cache is writable; a new name first, so that no reader sees half a tarball.
    if mkdir -p "$MACHINE_CACHE" 2>/dev/null && tar -C "$SYSROOT.new" --numeric-owner -cpf "$tarball.$$" . 2>/dev/null; then
      mv "$tarball.$$" "$tarball"
    else
      rm -f "$tarball.$$"
    fi
  fi
  rm -rf "$SYSROOT"
  mv "$SYSROOT.new" "$SYSROOT"
fi
echo "$SYSROOT"
