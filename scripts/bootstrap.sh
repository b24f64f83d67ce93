#!/usr/bin/env bash
# Installs the bundle's toolchain on Debian 12: the Debian packages it needs and a Python
# virtualenv in .venv with the pinned requirements. Safe to repeat: each step is skipped when
# its result is already in place. Needs only Debian's archive and PyPI.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
STAMP="$VENV/.bundle-requirements.sha256"

say() { printf '==> %s\n' "$*"; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# Debian packages: scripts/debian-packages.txt for the toolchain, plus lab/<component>/debian-packages.txt
# for each lab component (one package per line, # comments).
wanted_packages() {
  cat "$ROOT/scripts/debian-packages.txt" "$ROOT"/lab/*/debian-packages.txt 2>/dev/null \
    | sed -e 's/#.*//' -e '/^[[:space:]]*$/d' | sort -u
}
missing_packages() {
  local pkg
  for pkg in $(wanted_packages); do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || echo "$pkg"
  done
}

missing="$(missing_packages | tr '\n' ' ')"
if [ -n "${missing// /}" ]; then
  say "installing Debian packages: $missing"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  # shellcheck disable=SC2086
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
  say "Debian packages present"
fi

PYTHON="${AIPOD_PYTHON:-python3}"
if ! "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info[:2] >= (3, 11) else 1)'; then
  echo "error: Python >= 3.11 is required (ansible 12 / ansible-core 2.19); $PYTHON is $("$PYTHON" -V 2>&1)" >&2
  exit 2
fi

want="$(cat "$ROOT/requirements.txt" "$ROOT/constraints.txt" | sha256sum | cut -d' ' -f1)-$("$PYTHON" -V 2>&1)"
if [ -x "$VENV/bin/python" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
  say "Python toolchain up to date in .venv"
else
  if [ ! -x "$VENV/bin/python" ]; then
    say "creating virtualenv .venv ($("$PYTHON" -V 2>&1))"
    "$PYTHON" -m venv "$VENV"
  fi
  say "installing pinned Python requirements (ansible 12.3.0 and its collections, linters, test tools)"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r "$ROOT/requirements.txt" -c "$ROOT/constraints.txt" 2>&1 | grep -v 'is ignored: it is neither' || true
  "$VENV/bin/python" -m pip check >/dev/null
  echo "$want" > "$STAMP"
  say "Python toolchain installed"
fi
