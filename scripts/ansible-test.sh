#!/usr/bin/env bash
# ansible-test on the collection ontap_ai.pod, without containers: sanity (Ansible's own rules for a
# collection: documentation, imports, pylint, pep8, validate-modules, yamllint, ...) and units (the
# tests of the code that runs on the hosts, in ansible_collections/ontap_ai/pod/tests/unit).
#   scripts/ansible-test.sh [sanity|units]...     both when none is named
# ansible-test builds its own virtual environments (--venv) from the configured pip index, and keeps
# them with its other state under .cache/ansible-test instead of ~/.ansible/test.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
COLLECTION="$ROOT/ansible_collections/ontap_ai/pod"
ANSIBLE_TEST="$ROOT/.venv/bin/ansible-test"
say() { printf '==> %s\n' "$*"; }

commands=("$@")
[ ${#commands[@]} -gt 0 ] || commands=(sanity units)

export HOME="$ROOT/.cache/ansible-test"
# ansible-test puts pip into each environment with get-pip.py from ci-files.testing.ansible.com, read
# from its cache first; the stand-in there installs pip from the interpreter's ensurepip and the index.
pip_version="$(grep -oP "pip='\K[0-9.]+" "$("$ROOT/.venv/bin/python" -c 'import ansible_test, os; print(os.path.dirname(ansible_test.__file__))')/_internal/python_requirements.py")"
mkdir -p "$HOME/.ansible/test/cache"
cp "$ROOT/scripts/ansible-test-get-pip.py" "$HOME/.ansible/test/cache/get_pip_${pip_version//./_}.py"

cd "$COLLECTION"
python_version="$("$ROOT/.venv/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
for command in "${commands[@]}"; do
  case "$command" in
    sanity) say "ansible-test sanity (Python $python_version)"
            "$ANSIBLE_TEST" sanity --venv --python "$python_version" --color no ;;
    units)  say "ansible-test units (Python $python_version)"
            "$ANSIBLE_TEST" units --venv --python "$python_version" --color no ;;
    *) echo "usage: scripts/ansible-test.sh [sanity|units]..." >&2; exit 2 ;;
  esac
done
