#!/usr/bin/env bash
# Installs the bundle's toolchain on Debian: the Debian packages it needs and a Python virtualenv
# in .venv with the pinned requirements of one row of the support matrix (docs/support-matrix.md),
# picked by the Python it finds: Python >= 3.12 gets the newest row (requirements.txt, ansible 14),
# Python 3.11 gets ansible 12 (requirements/ansible-12.txt), whose core is end of life.
# AIPOD_ANSIBLE_ROW=12|13|14 asks for a row; AIPOD_SKIP_DEBIAN_PACKAGES=1 leaves apt alone (the
# Debian 13 root of scripts/ansible-row.sh brings its own). Safe to repeat: each step is skipped
# when its result is already in place. Needs only Debian's archive and PyPI.
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

missing=""
[ "${AIPOD_SKIP_DEBIAN_PACKAGES:-0}" = 1 ] || missing="$(missing_packages | tr '\n' ' ')"
if [ "${AIPOD_SKIP_DEBIAN_PACKAGES:-0}" = 1 ]; then
  say "Debian packages: left alone (AIPOD_SKIP_DEBIAN_PACKAGES=1)"
elif [ -n "${missing// /}" ]; then
  say "installing Debian packages: $missing"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  # shellcheck disable=SC2086
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
  say "Debian packages present"
fi

PYTHON="${AIPOD_PYTHON:-python3}"
python_minor="$("$PYTHON" -c 'import sys; print(sys.version_info[1] if sys.version_info[0] == 3 else 0)' 2>/dev/null || echo 0)"
if [ "$python_minor" -lt 11 ]; then
  echo "error: Python >= 3.11 is required; $PYTHON is $("$PYTHON" -V 2>&1)" >&2
  exit 2
fi
# The row: ansible 14 (core 2.21) and 13 (core 2.20) need Python >= 3.12; 12 (core 2.19) runs on 3.11.
row="${AIPOD_ANSIBLE_ROW:-}"
[ -n "$row" ] || { if [ "$python_minor" -ge 12 ]; then row=14; else row=12; fi; }
case "$row" in
  14) requirements="$ROOT/requirements.txt"; constraints="$ROOT/constraints.txt" ;;
  12|13) requirements="$ROOT/requirements/ansible-$row.txt"; constraints="$ROOT/requirements/ansible-$row.constraints.txt" ;;
  *) echo "error: AIPOD_ANSIBLE_ROW=$row: the supported rows are 12, 13 and 14 (docs/support-matrix.md)" >&2; exit 2 ;;
esac
if [ "$row" != 12 ] && [ "$python_minor" -lt 12 ]; then
  echo "error: ansible $row needs Python >= 3.12; $PYTHON is $("$PYTHON" -V 2>&1). Use scripts/ansible-row.sh $row, or AIPOD_PYTHON=<python3.12+>" >&2
  exit 2
fi
if [ "$row" = 12 ]; then
  echo "warning: ansible 12 (ansible-core 2.19) is end of life since November 2026 and gets no fixes. Move to" >&2
  echo "         ansible 14: a control node with Python >= 3.12 (Debian 13, Ubuntu 24.04, RHEL 9 with python3.12)" >&2
  echo "         gets it from this script; on this one, scripts/ansible-row.sh 14 runs the toolchain in a Debian 13 root." >&2
fi

# The DataOps Toolkit, a test dependency the same on every row, goes in without its declared
# dependencies (requirements/dataops-traditional.txt says why and which ones it leaves out).
dataops="$ROOT/requirements/dataops-traditional.txt"
want="row $row $(cat "$requirements" "$constraints" "$dataops" | sha256sum | cut -d' ' -f1)-$("$PYTHON" -V 2>&1)"
if [ -x "$VENV/bin/python" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
  say "Python toolchain up to date in .venv"
else
  if [ ! -x "$VENV/bin/python" ]; then
    say "creating virtualenv .venv ($("$PYTHON" -V 2>&1))"
    "$PYTHON" -m venv "$VENV"
  elif [ "$("$VENV/bin/python" -V 2>&1)" != "$("$PYTHON" -V 2>&1)" ]; then
    # A control node moved to a newer Python (row 12 -> 14): the old virtualenv cannot take the new row.
    say "recreating virtualenv .venv: $("$VENV/bin/python" -V 2>&1) -> $("$PYTHON" -V 2>&1)"
    "$PYTHON" -m venv --clear "$VENV"
  fi
  say "installing the pinned Python requirements of row ansible $row ($(grep -m1 '^ansible==' "$requirements"): collections, linters, test tools)"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r "$requirements" -c "$constraints" 2>&1 | grep -v 'is ignored: it is' || true
  if ! installed="$("$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
      -r "$dataops" -c "$constraints" 2>&1)"; then
    printf '%s\n' "$installed" | grep -v 'is ignored: it is' >&2
    exit 1
  fi
  # pip check, but for the two dependencies the toolkit declares and requirements/dataops-traditional.txt
  # leaves out on purpose: those, and only those, may be reported missing.
  broken="$("$VENV/bin/python" -m pip check 2>&1 \
    | grep -Ev '^(No broken requirements found\.|netapp-dataops-traditional [0-9.]+ requires (fastmcp|boto3), which is not installed\.)$' || true)"
  if [ -n "$broken" ]; then
    echo "error: pip check: $broken" >&2
    exit 1
  fi
  echo "$want" > "$STAMP"
  say "Python toolchain installed"
fi

# The collections of requirements.yml, on every row (docs/support-matrix.md).
"$VENV/bin/python" "$ROOT/scripts/provide_collections.py"
