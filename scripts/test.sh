#!/usr/bin/env bash
# The whole test suite: install the toolchain, then lint (yamllint, ansible-lint, ruff, ansible-test
# sanity), ansible-test units, the project's unit, property and lab tests, and every
# molecule scenario under molecule/. Safe to repeat; stops at the first failing stage.
# Options: --fast (lint + pytest only), --molecule NAME (only that scenario after the rest).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
say() { printf '==> %s\n' "$*"; }
fast=0; only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --fast) fast=1 ;;
    --molecule) only="$2"; shift ;;
    *) echo "usage: scripts/test.sh [--fast] [--molecule NAME]" >&2; exit 2 ;;
  esac
  shift
done

say "toolchain"
scripts/bootstrap.sh
export PATH="$ROOT/.venv/bin:$PATH" ANSIBLE_CONFIG="$ROOT/ansible.cfg"
started=$SECONDS

say "yamllint"
yamllint --strict .
say "ansible-lint (production profile)"
ansible-lint --offline -q
say "ruff (Python lint)"
ruff check .
scripts/ansible-test.sh sanity units
say "pytest (unit, property and lab tests)"
# A run that collects no tests exits 5; like any non-zero code it fails this script.
pytest -q -p no:cacheprovider tests

if [ "$fast" -eq 0 ]; then
  for scenario_file in molecule/*/molecule.yml; do
    [ -e "$scenario_file" ] || continue
    scenario="$(basename "$(dirname "$scenario_file")")"
    [ -z "$only" ] || [ "$only" = "$scenario" ] || continue
    say "molecule test -s $scenario"
    molecule test -s "$scenario"
  done
fi
say "all tests passed in $((SECONDS - started)) s"
