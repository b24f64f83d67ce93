#!/usr/bin/env bash
# Measure reads from every DGX over every mount at once and judge them against the sizing
# (playbooks/acceptance.yml), and exit with its verdict:
#   0 the measured reads meet the demand, 1 a DGX, a LIF or the total falls short (named),
#   2 something could not be measured (no healthy mount, fio missing, a host did not answer).
# Arguments go to ansible-playbook, e.g. scripts/acceptance.sh -i inventories/mysite/hosts.yml
#   -e acceptance_duration_seconds=60. The result is the "acceptance" key of reports/latest/report.json.
exec "$(dirname "${BASH_SOURCE[0]}")/run-verdict.sh" acceptance playbooks/acceptance.yml acceptance "$@"
