#!/usr/bin/python
"""Module: put the DataOps Toolkit's ONTAP credentials into the keyring it reads them from."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: dataops_keyring
short_description: Store the DataOps Toolkit's ONTAP account in the keyring the toolkit reads
version_added: "1.3.0"
description:
  - The NetApp DataOps Toolkit for traditional environments reads its ONTAP username and password from the OS keyring
    (service C(netapp:dataops:ontap), keys C(username) and C(password)), where its interactive C(config) command puts
    them. This module puts them there without a prompt, and only when they differ from what the keyring holds.
  - Run it with the toolkit's own interpreter (C(ansible_python_interpreter) set to its virtualenv's python), so that
    the keyring backend is the one the toolkit will use.
  - It never returns or logs the password.
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Check mode says which of the two would be set, without setting them.
  diff_mode:
    support: none
    details: The values are secrets; C(updated) names what differs.
  platform:
    platforms: posix
options:
  username:
    description: The toolkit's ONTAP account.
    type: str
    required: true
  password:
    description: Its password (from the vault).
    type: str
    required: true
  service:
    description: The keyring service the toolkit reads.
    type: str
    default: "netapp:dataops:ontap"
requirements:
  - keyring, and a backend that needs no prompt (keyrings.alt), in the interpreter that runs the module
author: ONTAP AI pod bundle contributors (!UNKNOWN)
"""

EXAMPLES = r"""
- name: Store the toolkit's account in its keyring
  ontap_ai.pod.dataops_keyring:
    username: dataops
    password: "{{ vault_ontap_dataops_password }}"
  vars:
    ansible_python_interpreter: "{{ ansible_env.HOME }}/.netapp_dataops/venv-traditional/bin/python"
  no_log: true
"""

RETURN = r"""
backend:
  description: The keyring backend that holds the credentials (its class).
  returned: always
  type: str
  sample: keyrings.alt.file.PlaintextKeyring
updated:
  description: Which of C(username) and C(password) were (or, in check mode, would be) set.
  returned: always
  type: list
  elements: str
"""

from typing import Any, Protocol

from ansible.module_utils.basic import AnsibleModule


class Keyring(Protocol):
    def get_password(self, service: str, key: str) -> str | None: ...

    def set_password(self, service: str, key: str, value: str) -> None: ...


def differing(store: Keyring, service: str, wanted: dict[str, str]) -> list[str]:
    """The keys whose stored value is not the wanted one, in the order given."""
    return [key for key, value in wanted.items() if store.get_password(service, key) != value]


def store(store_: Keyring, service: str, wanted: dict[str, str], check_mode: bool) -> list[str]:
    """Set what differs (unless in check mode); returns the keys that differed."""
    updated = differing(store_, service, wanted)
    if not check_mode:
        for key in updated:
            store_.set_password(service, key, wanted[key])
    return updated


def main() -> None:
    module = AnsibleModule(
        argument_spec={"username": {"type": "str", "required": True},
                       "password": {"type": "str", "required": True, "no_log": True},
                       "service": {"type": "str", "default": "netapp:dataops:ontap"}},
        supports_check_mode=True,
    )
    try:
        import keyring
    except ImportError:
        module.fail_json(msg="this interpreter has no keyring module: run the module with the toolkit's "
                             "virtualenv python (ansible_python_interpreter)")
    backend: Any = keyring.get_keyring()
    name = f"{type(backend).__module__}.{type(backend).__qualname__}"
    wanted = {"username": module.params["username"], "password": module.params["password"]}
    try:
        updated = store(keyring, module.params["service"], wanted, module.check_mode)
    except keyring.errors.KeyringError as error:
        module.fail_json(msg=f"keyring backend {name} refused the credentials: {type(error).__name__}: {error}", backend=name)
    module.exit_json(changed=bool(updated), updated=updated, backend=name)


if __name__ == "__main__":
    main()
