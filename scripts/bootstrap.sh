#!/usr/bin/env bash
# Installs the bundle's toolchain on Debian: the Debian packages it needs and a Python virtualenv
# in .venv with the pinned requirements of the newest row of the support matrix
# (docs/support-matrix.md: requirements.txt, ansible 14). It needs Python >= 3.12; where the machine
# has none (Debian 12), it runs the Python of a Debian 13 root, built once with debootstrap.
# AIPOD_ANSIBLE_ROW=13 asks for row 13; AIPOD_PYTHON names the Python; AIPOD_SKIP_DEBIAN_PACKAGES=1
# leaves apt alone (the Debian 13 root of scripts/ansible-row.sh brings its own). Safe to repeat: each step is skipped
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

# The Python of the toolchain. Every row needs Python >= 3.12: AIPOD_PYTHON when set, else the first
# of python3, python3.14, python3.13 and python3.12 that runs and is new enough. A control node with
# none (Debian 12's Python is 3.11) runs the Python of a Debian 13 root (scripts/debian13-root.sh)
# on this machine: .venv/bin/python starts it with the root's own dynamic loader and libraries, so
# the toolchain is the root's while the lab, podman, QEMU and SSH stay the machine's.
python_minor() { "$1" -c 'import sys; print(sys.version_info[1] if sys.version_info[0] == 3 else 0)' 2>/dev/null || echo 0; }
PYTHON="" root_python=""
if [ -n "${AIPOD_PYTHON:-}" ]; then
  PYTHON="$AIPOD_PYTHON"
  if [ "$(python_minor "$PYTHON")" -lt 12 ]; then
    echo "error: AIPOD_PYTHON=$PYTHON is $("$PYTHON" -V 2>&1); the toolchain needs Python >= 3.12 (docs/support-matrix.md)" >&2
    exit 2
  fi
else
  for candidate in python3 python3.14 python3.13 python3.12; do
    if command -v "$candidate" >/dev/null && [ "$(python_minor "$candidate")" -ge 12 ]; then PYTHON="$candidate"; break; fi
  done
fi
if [ -z "$PYTHON" ]; then
  sysroot="$("$ROOT/scripts/debian13-root.sh")"
  root_python="$(cd "$sysroot/usr/bin" && ls python3.[0-9]* | grep -E '^python3\.[0-9]+$' | sort -V | tail -n 1)"
  case "$(uname -m)" in
    x86_64) loader="$sysroot/lib64/ld-linux-x86-64.so.2" triplet=x86_64-linux-gnu ;;
    aarch64) loader="$sysroot/lib/ld-linux-aarch64.so.1" triplet=aarch64-linux-gnu ;;
    *) echo "error: no Python >= 3.12 here, and the Debian 13 root's Python runs on x86_64 and aarch64 only" >&2; exit 2 ;;
  esac
  say "this machine's python3 is $(python3 -V 2>&1 | cut -d' ' -f2); the toolchain runs on the ${root_python/python/Python } of a Debian 13 root (.cache/toolchains/debian13)"
fi

# The row: 14 (ansible-core 2.21) by default, 13 (core 2.20) on request. Row 12 (core 2.19, end of
# life) is no longer supported.
row="${AIPOD_ANSIBLE_ROW:-14}"
case "$row" in
  14) requirements="$ROOT/requirements.txt"; constraints="$ROOT/constraints.txt" ;;
  13) requirements="$ROOT/requirements/ansible-$row.txt"; constraints="$ROOT/requirements/ansible-$row.constraints.txt" ;;
  *) echo "error: AIPOD_ANSIBLE_ROW=$row: the supported rows are 13 and 14 (docs/support-matrix.md)" >&2; exit 2 ;;
esac

# A virtualenv on the root's Python. The root's interpreter runs here as
# .cache/toolchains/debian13/host-python/bin/python3.N, a small script that starts it with the root's
# loader and libraries; --argv0 keeps sys.executable at the path it was called by. Beside it,
# lib/python3.N holds the root's standard library, so that this directory is the interpreter's prefix:
# Python finds its virtualenvs from there, and console scripts, subprocesses and virtualenvs made
# from it (ansible-test's) come back through the script. share/python-wheels is the root's pip wheel,
# which scripts/ansible-test-get-pip.py puts into ansible-test's virtualenvs.
make_root_venv() {
  local prefix host_python wheel
  prefix="$(dirname "$sysroot")/host-python"
  host_python="$prefix/bin/$root_python"
  rm -rf "$prefix"
  mkdir -p "$prefix/bin" "$prefix/lib"
  # The standard library, entry by entry, but for its build settings: they name the wheel directory
  # of ensurepip, which must be the root's (Debian 12's pip in /usr/share/python-wheels cannot run
  # on the root's Python), so that `python3 -m venv` works with this interpreter too.
  local lib="$prefix/lib/$root_python" entry name
  mkdir -p "$lib/__pycache__"
  for entry in "$sysroot/usr/lib/$root_python"/* "$sysroot/usr/lib/$root_python"/__pycache__/*; do
    name="${entry#"$sysroot/usr/lib/$root_python/"}"
    case "$name" in
      __pycache__) ;;
      _sysconfigdata_*.py) sed "s|'WHEEL_PKG_DIR': '/usr/share/python-wheels/'|'WHEEL_PKG_DIR': '$prefix/share/python-wheels/'|" \
                             "$entry" >"$lib/$name" ;;
      __pycache__/_sysconfigdata_*) ;;
      *) ln -s "$entry" "$lib/$name" ;;
    esac
  done
  mkdir -p "$prefix/share"
  ln -s "$sysroot/usr/share/python-wheels" "$prefix/share/python-wheels"
  cat >"$host_python" <<WRAPPER
#!/bin/sh
# The $root_python of the Debian 13 root $sysroot, run on this machine (scripts/bootstrap.sh).
exec "$loader" --library-path "$sysroot/lib/$triplet:$sysroot/usr/lib/$triplet" --argv0 "\$0" "$sysroot/usr/bin/$root_python" "\$@"
WRAPPER
  chmod 755 "$host_python"
  ln -s "$root_python" "$prefix/bin/python3"
  "$host_python" -m venv --clear --without-pip "$VENV"
  wheel="$(ls "$sysroot"/usr/share/python-wheels/pip-*.whl | sort -V | tail -n 1)"
  "$VENV/bin/python" "$wheel/pip" install --quiet --disable-pip-version-check --no-index "$wheel"
}
# The root's interpreter as make_root_venv lays it out: a change to that function makes .venv anew.
interpreter() { if [ -n "$root_python" ]; then echo "root $sysroot $root_python $(declare -f make_root_venv | sha256sum | cut -c1-12)"; else "$PYTHON" -c 'import sys; print(sys.executable, sys.version)'; fi; }

# The DataOps Toolkit, a test dependency the same on every row, goes in without its declared
# dependencies (requirements/dataops-traditional.txt says why and which ones it leaves out).
dataops="$ROOT/requirements/dataops-traditional.txt"
want="row $row $(cat "$requirements" "$constraints" "$dataops" | sha256sum | cut -d' ' -f1) $(interpreter)"
if [ -x "$VENV/bin/python" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
  say "Python toolchain up to date in .venv"
else
  if [ -n "$root_python" ]; then
    say "creating virtualenv .venv on the Debian 13 root's $root_python"
    make_root_venv
  elif [ ! -x "$VENV/bin/python" ] || [ "$("$VENV/bin/python" -c 'import sys; print(sys._base_executable)' 2>/dev/null)" != \
       "$("$PYTHON" -c 'import sys; print(sys._base_executable)')" ]; then
    # A new virtualenv, or a control node that moved to another Python: the old one cannot take it.
    say "creating virtualenv .venv ($("$PYTHON" -V 2>&1))"
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
