#!/usr/bin/env bash
# Verify the pod against its site model (playbooks/verify.yml) and exit with its verdict:
#   0 every check passed (or did not apply), 1 a check failed, 2 something could not be checked
#   (a host did not answer, the run stopped before the checks, or validation refused the model).
# Arguments go to ansible-playbook, e.g. scripts/verify.sh -i inventories/mysite --limit dgx01.
# The JSON result is the "verification" key of reports/latest/report.json.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$ROOT/.venv/bin:$PATH" ANSIBLE_CONFIG="$ROOT/ansible.cfg"
[ -x .venv/bin/ansible-playbook ] || scripts/bootstrap.sh || exit 2
# shellcheck source=scripts/site-environment.sh
. "$ROOT/scripts/site-environment.sh"
site_environment "$@"
marker="$(mktemp)"
trap 'rm -f "$marker"' EXIT
ansible-playbook playbooks/verify.yml "$@"
playbook_rc=$?
python3 - "$marker" "$playbook_rc" <<'PY'
import json, os, sys
marker, playbook_rc = sys.argv[1], int(sys.argv[2])
report = os.path.join(os.environ.get("AIPOD_REPORT_ROOT", "reports"), "latest", "report.json")
if not os.path.exists(report) or os.path.getmtime(report) < os.path.getmtime(marker):
    print(f"==> verify: no result from this run (ansible-playbook exited {playbook_rc}): could not check", file=sys.stderr)
    sys.exit(2)
result = (json.load(open(report)) or {}).get("verification")
if not isinstance(result, dict):
    print(f"==> verify: the run stopped before the checks (ansible-playbook exited {playbook_rc}): could not check", file=sys.stderr)
    sys.exit(2)
verdict = {0: "pass", 1: "a check failed", 2: "could not check everything"}[result["exit_code"]]
print(f"==> verify: {verdict} (exit {result['exit_code']}); result: {report}")
sys.exit(result["exit_code"])
PY
