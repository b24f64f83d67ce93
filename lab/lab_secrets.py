"""Read secret values of an inventory (for the lab, which creates its endpoints with them; not part of the collection).

Secrets are `vault_*` variables in group_vars, either in a whole-file vault or as inline
`!vault` values. Roles get them from Ansible; this reader exists for the lab components and the
tests, which run outside Ansible. Values are returned, never printed.
"""
from __future__ import annotations

import glob
import os
from typing import Any

import yaml

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.yamlload import VAULT_HEADER


def _vault(password_file: str):
    from ansible.parsing.vault import VaultLib, VaultSecret

    with open(password_file, "rb") as handle:
        return VaultLib([("default", VaultSecret(handle.read().strip()))])


def inventory_secrets(inventory: str, password_file: str | None = None) -> dict[str, str]:
    """Every vault_* variable of the inventory's group_vars, decrypted with the inventory's vault password.

    password_file defaults to <inventory>/vault-password.txt (the lab keeps its password there).
    """
    vault = _vault(password_file or os.path.join(inventory, "vault-password.txt"))

    class Loader(yaml.SafeLoader):
        pass

    def inline(loader: yaml.SafeLoader, node: yaml.Node) -> str:
        return vault.decrypt(loader.construct_scalar(node).encode()).decode()

    Loader.add_constructor("!vault", inline)
    Loader.add_constructor("!unsafe", lambda loader, node: str(loader.construct_scalar(node)))
    found: dict[str, str] = {}
    for path in sorted(glob.glob(os.path.join(inventory, "group_vars", "**", "*.y*ml"), recursive=True)):
        with open(path, "rb") as handle:
            raw = handle.read()
        text = vault.decrypt(raw).decode() if raw.lstrip().startswith(VAULT_HEADER.encode()) else raw.decode()
        data: Any = yaml.load(text, Loader=Loader)  # noqa: S506 - SafeLoader subclass with two tags added
        if isinstance(data, dict):
            for key, value in data.items():
                if isinstance(key, str) and key.startswith("vault_") and value is not None:
                    found.setdefault(key, str(value))
    return found


def inventory_secret(inventory: str, name: str, password_file: str | None = None) -> str:
    secrets = inventory_secrets(inventory, password_file)
    if name not in secrets:
        raise KeyError(f"{name} is not defined in {inventory}/group_vars")
    return secrets[name]
