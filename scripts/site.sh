#!/usr/bin/env bash
# Main job: install the toolchain, bring up the lab, and run playbooks/site.yml against the lab
# pod (inventories/lab). Safe to repeat. Extra arguments go to ansible-playbook, e.g.
#   scripts/site.sh --check --diff        preview
#   scripts/site.sh -i inventories/mysite/hosts.yml  a real site (then the lab is not started)
# AIPOD_SKIP_LAB_START=1 leaves the lab as it is (scripts/ansible-row.sh runs this inside a root that
# cannot start it; the machine's lab/lab does).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
say() { printf '==> %s\n' "$*"; }

say "toolchain"
scripts/bootstrap.sh
export PATH="$ROOT/.venv/bin:$PATH" ANSIBLE_CONFIG="$ROOT/ansible.cfg"

if [[ " $* " != *" -i "* && " $* " != *" --inventory"* && "${AIPOD_SKIP_LAB_START:-0}" != 1 ]]; then
  say "lab: starting the endpoints and hosts inventories/lab describes"
  lab/lab start
fi
# shellcheck source=scripts/site-environment.sh
. "$ROOT/scripts/site-environment.sh"
site_environment "$@"
say "site: ansible-playbook playbooks/site.yml $*"
exec ansible-playbook playbooks/site.yml "$@"
