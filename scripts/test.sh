#!/usr/bin/env bash
# The whole test suite: install the toolchain, then lint (yamllint, ansible-lint, ruff, ansible-test
# sanity), ansible-test units, the other rows of the support matrix (docs/support-matrix.md: lint
# and the offline tests on ansible 14, the offline tests on ansible 13, each in a Debian 13 root),
# the project's unit, property and lab tests, and every molecule scenario under molecule/. Safe to
# repeat; stops at the first failing stage. It ends, pass or fail, with a table of its stages and
# their seconds (also written to .cache/ci/stages.tsv, which benchmarks/ci.py reads).
# Options: --fast (lint + pytest only), --offline (lint + the tests that need no lab: what the
# other rows run), --molecule NAME (only that scenario after the rest).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
say() { printf '==> [%dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }
# Stages: stage NAME starts one (and ends the one before); the table is printed on exit.
stage_names=() stage_seconds=() stage_name="" stage_started=0
end_stage() {
  [ -n "$stage_name" ] || return 0
  stage_names+=("$stage_name"); stage_seconds+=($((SECONDS - stage_started))); stage_name=""
}
stage() { end_stage; stage_name="$1"; stage_started=$SECONDS; say "$1"; }
stage_table() {
  local status=$? i
  end_stage
  mkdir -p "$ROOT/.cache/ci"
  : >"$ROOT/.cache/ci/stages.tsv"
  printf '\n==> stages (%s, %d s in all)\n' "$([ "$status" -eq 0 ] && echo passed || echo "failed, exit $status")" "$SECONDS"
  for i in "${!stage_names[@]}"; do
    printf '    %-72s %6d s\n' "${stage_names[$i]}" "${stage_seconds[$i]}"
    printf '%s\t%s\n' "${stage_names[$i]}" "${stage_seconds[$i]}" >>"$ROOT/.cache/ci/stages.tsv"
  done
  printf 'total\t%s\t%s\n' "$SECONDS" "$status" >>"$ROOT/.cache/ci/stages.tsv"
}
fast=0; offline=0; only=""
# What the other rows run: every test that needs no lab, but the DeepOps release stand-in, which
# drives DeepOps' own virtualenv (the same on every row) and takes minutes. They share no state, so
# they run on every core (pytest-xdist); the lab tests share one lab and run one at a time.
OFFLINE_TESTS=(-n auto -m "not lab" tests --deselect tests/kubernetes/test_deepops_release.py)
while [ $# -gt 0 ]; do
  case "$1" in
    --fast) fast=1 ;;
    --offline) offline=1 ;;
    --molecule) only="$2"; shift ;;
    *) echo "usage: scripts/test.sh [--fast | --offline] [--molecule NAME]" >&2; exit 2 ;;
  esac
  shift
done

trap stage_table EXIT
stage "toolchain"
scripts/bootstrap.sh
export PATH="$ROOT/.venv/bin:$PATH" ANSIBLE_CONFIG="$ROOT/ansible.cfg"
started=$SECONDS

stage "yamllint"
yamllint --strict .
stage "ansible-lint (production profile)"
ansible-lint --offline -q
stage "ruff (Python lint)"
ruff check .
if [ "$offline" -eq 1 ]; then
  stage "pytest (the tests that need no lab) on $(ansible --version | head -n 1)"
  pytest -q -p no:cacheprovider "${OFFLINE_TESTS[@]}"
  say "lint and offline tests passed in $((SECONDS - started)) s"
  exit 0
fi
stage "ansible-test sanity and units"
scripts/ansible-test.sh sanity units
if [ "$fast" -eq 0 ]; then
  stage "row ansible 14 (ansible-core 2.21, Python 3.13): lint and the offline tests"
  scripts/ansible-row.sh 14 scripts/test.sh --offline
  stage "row ansible 13 (ansible-core 2.20, Python 3.13): the offline tests"
  scripts/ansible-row.sh 13 pytest -q -p no:cacheprovider "${OFFLINE_TESTS[@]}"
fi
stage "pytest: the tests that need no lab, on every core"
# A run that collects no tests exits 5; like any non-zero code it fails this script.
pytest -q -p no:cacheprovider -n auto -m "not lab" tests
stage "pytest: the lab tests (tests/e2e/test_newest_row.py runs the site on ansible 14)"
pytest -q -p no:cacheprovider --durations=30 -m lab tests

if [ "$fast" -eq 0 ]; then
  for scenario_file in molecule/*/molecule.yml; do
    [ -e "$scenario_file" ] || continue
    scenario="$(basename "$(dirname "$scenario_file")")"
    [ -z "$only" ] || [ "$only" = "$scenario" ] || continue
    stage "molecule test -s $scenario"
    molecule test -s "$scenario"
  done
fi
end_stage
say "all tests passed in $((SECONDS - started)) s"
