#!/usr/bin/env bash
# Verify the pod against its site model (playbooks/verify.yml) and exit with its verdict:
#   0 every check passed (or did not apply), 1 a check failed, 2 something could not be checked
#   (a host did not answer, the run stopped before the checks, or validation refused the model).
# Arguments go to ansible-playbook, e.g. scripts/verify.sh -i inventories/mysite/hosts.yml --limit dgx01.
# The JSON result is the "verification" key of reports/latest/report.json.
exec "$(dirname "${BASH_SOURCE[0]}")/run-verdict.sh" verify playbooks/verify.yml verification "$@"
