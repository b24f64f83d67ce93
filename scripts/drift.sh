#!/usr/bin/env bash
# Compare every device with the site model (playbooks/drift.yml, changes nothing) and exit with
# the verdict, for a nightly job:
#   0 nothing drifted, 1 something drifted, 2 something could not be compared (a device did not
#   answer, the run stopped, or validation refused the model).
# Arguments go to ansible-playbook, e.g. scripts/drift.sh -i inventories/mysite/hosts.yml.
# The JSON result is the "drift" key of reports/latest/report.json; report.md has the table.
exec "$(dirname "${BASH_SOURCE[0]}")/run-verdict.sh" drift playbooks/drift.yml drift "$@"
