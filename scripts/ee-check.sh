#!/usr/bin/env bash
# Release check of the execution environment (docs/execution-environment.md, "Release check"):
# builds it offline from execution-environment.yml and runs the site in it as an AWX job does.
# Options: --playbook PLAYBOOK (default playbooks/site.yml), --skip-build, --keep.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
scripts/bootstrap.sh >/dev/null
exec "$ROOT/.venv/bin/python" "$ROOT/lab/ee/ee_check.py" "$@"
