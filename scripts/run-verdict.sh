#!/usr/bin/env bash
# Run a judging playbook and exit with the verdict it wrote to the run report, not with
# ansible-playbook's code. Used by scripts/verify.sh and scripts/drift.sh:
#   scripts/run-verdict.sh NAME PLAYBOOK SECTION [ansible-playbook arguments]
# SECTION is the key of reports/latest/report.json holding {exit_code, ...}: 0, 1 or 2 as that
# playbook defines them. No result from this run (validation refused the model, the run stopped
# before judging, a device did not answer) exits 2.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
name="$1" playbook="$2" section="$3"
shift 3
export PATH="$ROOT/.venv/bin:$PATH" ANSIBLE_CONFIG="$ROOT/ansible.cfg"
[ -x .venv/bin/ansible-playbook ] || scripts/bootstrap.sh || exit 2
# shellcheck source=scripts/site-environment.sh
. "$ROOT/scripts/site-environment.sh"
site_environment "$@"
marker="$(mktemp)"
trap 'rm -f "$marker"' EXIT
ansible-playbook "$playbook" "$@"
playbook_rc=$?
python3 - "$marker" "$playbook_rc" "$name" "$section" <<'PY'
import json, os, sys
marker, playbook_rc, name, section = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
report = os.path.join(os.environ.get("AIPOD_REPORT_ROOT", "reports"), "latest", "report.json")
if not os.path.exists(report) or os.path.getmtime(report) < os.path.getmtime(marker):
    print(f"==> {name}: no result from this run (ansible-playbook exited {playbook_rc}): could not check", file=sys.stderr)
    sys.exit(2)
result = (json.load(open(report)) or {}).get(section)
if not isinstance(result, dict) or result.get("exit_code") not in (0, 1, 2):
    print(f"==> {name}: the run stopped before its result (ansible-playbook exited {playbook_rc}): could not check", file=sys.stderr)
    sys.exit(2)
verdicts = {"verification": {0: "pass", 1: "a check failed", 2: "could not check everything"},
            "drift": {0: "nothing drifted", 1: "drifted from the site model", 2: "could not check everything"},
            "acceptance": {0: "the reads meet the demand", 1: "the data path falls short", 2: "could not measure everything"}}
verdict = verdicts.get(section, {}).get(result["exit_code"], str(result["exit_code"]))
print(f"==> {name}: {verdict} (exit {result['exit_code']}); result: {report}")
sys.exit(result["exit_code"])
PY
