#!/usr/bin/env bash
# The release checks: lab proofs too heavy for CI's 40 minutes (docs/benchmarks.md, "Release
# checks"), run before a release and after a change to what they prove. The pytest tests marked
# release_check (adding and decommissioning a DGX, the brownfield start, the rolling change with its
# drain and health gate, drift, the Spectrum pair, faults and secrets, the execution environment as
# an AWX job, the VMs' data path) and the
# molecule scenario vm. Stops at the first failure. The longer sweeps stay separate scripts:
# scripts/kill-sweep.py (about 35 minutes) and scripts/vm-bond-check.py (about 4).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
say() { printf '==> [%dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }
scripts/bootstrap.sh
export PATH="$ROOT/.venv/bin:$PATH" ANSIBLE_CONFIG="$ROOT/ansible.cfg"
say "pytest: the lab tests marked release_check"
pytest -q -p no:cacheprovider --durations=20 -m "lab and release_check" tests
for scenario in $(sed -n 's/^RELEASE_CHECK_SCENARIOS=(\(.*\))$/\1/p' scripts/test.sh); do
  say "molecule test -s $scenario"
  molecule test -s "$scenario"
done
say "release checks passed in $SECONDS s"
