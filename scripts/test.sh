#!/usr/bin/env bash
# The whole test suite on the default row (ansible 14): install the toolchain, lint (yamllint,
# ruff), then the lab tests and the molecule scenarios under molecule/, but the heavy proofs
# scripts/release-check.sh runs before a release. Beside the lab, which leaves the CPU idle while it
# waits on its hosts, the jobs that need no lab run at a lower priority: the tests that need no lab,
# ansible-lint, ansible-test sanity and units, the DeepOps release stand-in and row 13's offline
# tests (docs/support-matrix.md). Their output goes to .cache/ci/beside-the-lab.log; the suite fails
# if one of them does. Safe to repeat; stops at the first failing stage. It ends, pass or fail, with
# a table of its stages, their seconds and the CPU seconds their processes used, and the machine's
# busy CPU seconds over the whole run (also written to .cache/ci/stages.tsv, which benchmarks/ci.py
# reads). On two cores the lanes share the CPU, so a stage's CPU shows a regression its seconds hide.
# Options: --fast (no molecule, no row 13), --offline (lint + the tests that need no lab: what the
# other rows run), --beside-the-lab (only the jobs that run beside the lab, on an installed
# toolchain), --molecule NAME (only that scenario after the rest).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
say() { printf '==> [%dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }
CI_DIR="$ROOT/.cache/ci"
BESIDE_LOG="$CI_DIR/beside-the-lab.log" BESIDE_TSV="$CI_DIR/beside-the-lab.tsv"
BESIDE_STATUS="$CI_DIR/beside-the-lab.status"
mkdir -p "$CI_DIR"

# CPU milliseconds (user + system) of this shell's children that have ended, from the builtin
# `times`, into CPU_MS. Run in this shell, never in $(...): a subshell counts only its own children.
milliseconds() {  # 1m2.345s -> 62345, into MS
  local minutes="${1%%m*}" seconds="${1#*m}"; seconds="${seconds%s}"
  MS=$((10#$minutes * 60000 + 10#${seconds%.*} * 1000 + 10#${seconds#*.}))
}
children_cpu_ms() {
  local user system total
  times >"$CI_DIR/.times"
  read -r user system < <(tail -n 1 "$CI_DIR/.times")
  milliseconds "$user"; total=$MS
  milliseconds "$system"; CPU_MS=$((total + MS))
}
# Busy CPU seconds of the whole machine (every lane, the lab's hosts and services), from /proc/stat.
machine_busy_s() {
  local _cpu user nice system _idle _iowait irq softirq steal _rest
  read -r _cpu user nice system _idle _iowait irq softirq steal _rest </proc/stat
  echo $(((user + nice + system + irq + softirq + steal) / $(getconf CLK_TCK)))
}

fast=0; offline=0; beside=0; only=""
# What the other rows run: every test that needs no lab, but the DeepOps release stand-in, which
# drives DeepOps' own virtualenv (the same on every row) and takes minutes. They share no state, so
# they run on every core (pytest-xdist), a file per worker so that a module's fixture (a playbook
# run, most of them) runs once, not once per worker; the lab tests share one lab and run one at a time.
OFFLINE_TESTS=(-n auto --dist loadfile -m "not lab" tests --deselect tests/kubernetes/test_deepops_release.py)
# Lab proofs too heavy for CI's budget run before a release (scripts/release-check.sh): the tests
# marked release_check and these molecule scenarios. --molecule NAME still runs a named one here.
RELEASE_CHECK_SCENARIOS=(vm)
while [ $# -gt 0 ]; do
  case "$1" in
    --fast) fast=1 ;;
    --offline) offline=1 ;;
    --beside-the-lab) beside=1 ;;
    --molecule) only="$2"; shift ;;
    *) echo "usage: scripts/test.sh [--fast | --offline | --beside-the-lab] [--molecule NAME]" >&2; exit 2 ;;
  esac
  shift
done

# The jobs beside the lab, one after another, each timed into .cache/ci/beside-the-lab.tsv with
# the lines of the log it wrote, so that a failure shows its own output, not the next job's.
log_lines() { if [ -f "$BESIDE_LOG" ]; then wc -l <"$BESIDE_LOG"; else echo 0; fi; }
beside_step() {
  local name="$1" started=$SECONDS cpu_before status=0 first_line; shift
  children_cpu_ms; cpu_before=$CPU_MS
  say "$name"
  first_line=$(($(log_lines) + 1))
  "$@" || status=$?
  children_cpu_ms
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" $((SECONDS - started)) "$status" $(((CPU_MS - cpu_before) / 1000)) \
    "$first_line" "$(log_lines)" >>"$BESIDE_TSV"
  return "$status"
}
if [ "$beside" -eq 1 ]; then
  # With the kernel's autogroups, this session (setsid) is a scheduling group of its own, weighed
  # against the lab's as an equal whatever its processes' nice says. The group's own nice puts the
  # lab lane, which is the wall time, first; these jobs take the cores the lab leaves idle.
  if [ "$(ps -o sid= -p $$)" -eq $$ ] && { echo 10 >/proc/self/autogroup; } 2>/dev/null; then
    say "this session's scheduling group: $(cat /proc/self/autogroup)"
  fi
  export PATH="$ROOT/.venv/bin:$PATH" ANSIBLE_CONFIG="$ROOT/ansible.cfg"
  # Their playbook runs report elsewhere: the lab tests read reports/latest, which must be their own run.
  export AIPOD_REPORT_ROOT="$CI_DIR/beside-the-lab-reports"
  : >"$BESIDE_TSV"
  trap 'echo $? >"$BESIDE_STATUS"' EXIT
  # Every job runs, whichever failed before it, so that the table says how each one ended; any
  # failure fails the suite. A run that collects no tests exits 5, which is a failure too.
  failed=0
  beside_step "the tests that need no lab (ansible 14), on every core" \
    pytest -q -p no:cacheprovider "${OFFLINE_TESTS[@]}" || failed=1
  beside_step "ansible-lint (production profile)" ansible-lint --offline -q || failed=1
  beside_step "ansible-test sanity and units" scripts/ansible-test.sh sanity units || failed=1
  beside_step "the DeepOps release stand-in" pytest -q -p no:cacheprovider tests/kubernetes/test_deepops_release.py || failed=1
  if [ "$fast" -eq 0 ]; then
    beside_step "row ansible 13 (ansible-core 2.20, Python 3.13): the offline tests" \
      scripts/ansible-row.sh 13 pytest -q -p no:cacheprovider "${OFFLINE_TESTS[@]}" || failed=1
  fi
  exit "$failed"
fi

# Stages: stage NAME starts one (and ends the one before); the table is printed on exit.
stage_names=() stage_seconds=() stage_cpu=() stage_name="" stage_started=0 stage_cpu_started=0 beside_pid=""
machine_started=$(machine_busy_s)
beside_cpu_counted=0
end_stage() {
  [ -n "$stage_name" ] || return 0
  local beside_ms=0 cpu
  children_cpu_ms
  # bash reaps the jobs beside the lab as soon as they end, which adds their CPU to this shell's
  # children: the stage during which they ended does not count it (their own rows do).
  if [ -n "$beside_pid" ] && [ "$beside_cpu_counted" -eq 0 ] && ! kill -0 "$beside_pid" 2>/dev/null; then
    while IFS=$'\t' read -r _ _ _ cpu _; do beside_ms=$((beside_ms + cpu * 1000)); done <"$BESIDE_TSV"
    beside_cpu_counted=1
  fi
  stage_names+=("$stage_name"); stage_seconds+=($((SECONDS - stage_started)))
  stage_cpu+=($(((CPU_MS - stage_cpu_started - beside_ms) / 1000))); stage_name=""
}
stage() { end_stage; stage_name="$1"; stage_started=$SECONDS; children_cpu_ms; stage_cpu_started=$CPU_MS; say "$1"; }
# The jobs beside the lab: their rows join the stage table; one that failed fails the suite.
end_beside() {
  local name seconds status cpu first_line last_line failed=0
  [ -n "$beside_pid" ] || return 0
  say "waiting for the jobs beside the lab ($BESIDE_LOG)"
  # Their exit status comes from the file they write: in a long run the kernel's process ids wrap,
  # and bash forgets a finished job's status once a later child of this shell takes its id.
  wait "$beside_pid" 2>/dev/null || true
  beside_pid=""
  failed=$(cat "$BESIDE_STATUS" 2>/dev/null || echo 1)
  while IFS=$'\t' read -r name seconds status cpu first_line last_line; do
    stage_names+=("beside the lab: $name$([ "$status" -eq 0 ] || echo " (failed, exit $status)")")
    stage_seconds+=("$seconds") stage_cpu+=("$cpu")
    if [ "$status" -ne 0 ] && [ "$last_line" -ge "$first_line" ]; then
      say "the end of what \"$name\" printed (lines $first_line-$last_line of $BESIDE_LOG):"
      sed -n "${first_line},${last_line}p" "$BESIDE_LOG" | tail -n 60
    elif [ "$status" -ne 0 ]; then
      say "\"$name\" failed and printed nothing"
    fi
  done <"$BESIDE_TSV"
  if [ "$failed" -ne 0 ]; then
    say "a job beside the lab failed; its whole output: $BESIDE_LOG"
    return "$failed"
  fi
}
stage_table() {
  local status=$? i
  end_stage
  if [ -n "$beside_pid" ]; then  # the suite stopped early: stop the jobs beside it too
    kill -- -"$beside_pid" 2>/dev/null || true
    end_beside || true
  fi
  local busy=$(($(machine_busy_s) - machine_started)) cores
  cores=$(nproc)
  : >"$CI_DIR/stages.tsv"
  printf '\n==> stages (%s, %d s in all)\n' "$([ "$status" -eq 0 ] && echo passed || echo "failed, exit $status")" "$SECONDS"
  printf '    %-72s %8s %8s\n' "stage" "seconds" "CPU s"
  for i in "${!stage_names[@]}"; do
    printf '    %-72s %8d %8d\n' "${stage_names[$i]}" "${stage_seconds[$i]}" "${stage_cpu[$i]}"
    printf '%s\t%s\t%s\n' "${stage_names[$i]}" "${stage_seconds[$i]}" "${stage_cpu[$i]}" >>"$CI_DIR/stages.tsv"
  done
  # The lab's hosts and services are not this script's children: only the machine's count has them.
  printf '    the machine was busy %d CPU s of %d (%d cores for %d s)\n' "$busy" $((cores * SECONDS)) "$cores" "$SECONDS"
  printf 'machine busy CPU s\t%s\t%s\n' "$SECONDS" "$busy" >>"$CI_DIR/stages.tsv"
  printf 'total\t%s\t%s\n' "$SECONDS" "$status" >>"$CI_DIR/stages.tsv"
}

trap stage_table EXIT
stage "toolchain"
scripts/bootstrap.sh
export PATH="$ROOT/.venv/bin:$PATH" ANSIBLE_CONFIG="$ROOT/ansible.cfg"
started=$SECONDS

stage "yamllint"
yamllint --strict .
stage "ruff (Python lint)"
ruff check .
if [ "$offline" -eq 1 ]; then
  stage "ansible-lint (production profile)"
  ansible-lint --offline -q
  stage "pytest: the tests that need no lab, on every core"
  # A run that collects no tests exits 5; like any non-zero code it fails this script.
  pytest -q -p no:cacheprovider "${OFFLINE_TESTS[@]}"
  end_stage
  say "lint and offline tests passed in $((SECONDS - started)) s"
  exit 0
fi

# In a process group of their own (setsid), so that an early stop ends all of them.
fast_flag=(); [ "$fast" -eq 0 ] || fast_flag=(--fast)
rm -f "$BESIDE_STATUS"
nice -n 10 setsid scripts/test.sh --beside-the-lab "${fast_flag[@]}" </dev/null >"$BESIDE_LOG" 2>&1 &
beside_pid=$!
say "beside the lab: the offline tests, ansible-lint, ansible-test, the DeepOps release stand-in$([ "$fast" -eq 1 ] || echo ", row 13"); output in $BESIDE_LOG"

stage "pytest: the lab tests (but the release checks)"
pytest -q -p no:cacheprovider --durations=40 -m "lab and not release_check" tests

if [ "$fast" -eq 0 ]; then
  for scenario_file in molecule/*/molecule.yml; do
    [ -e "$scenario_file" ] || continue
    scenario="$(basename "$(dirname "$scenario_file")")"
    [ -z "$only" ] || [ "$only" = "$scenario" ] || continue
    [ -n "$only" ] || [[ " ${RELEASE_CHECK_SCENARIOS[*]} " != *" $scenario "* ]] || continue
    stage "molecule test -s $scenario"
    molecule test -s "$scenario"
  done
fi
end_stage
end_beside
say "all tests passed in $((SECONDS - started)) s"
