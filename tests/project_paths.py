"""Where the repository, its collection, its two inventories and their vault passwords are.

A plain module (not conftest.py) so that test modules can import it by name:
pytest loads every directory's conftest.py as a module called ``conftest``,
and importing that name picks whichever one was loaded first.
"""
from __future__ import annotations

import pathlib

from ansible.parsing.vault import VaultLib, VaultSecret

REPO = pathlib.Path(__file__).resolve().parents[1]
# The collection ontap_ai.pod: roles, plugins, playbooks and the site model's schemas.
COLLECTION = REPO / "ansible_collections" / "ontap_ai" / "pod"
SAMPLE = REPO / "inventories" / "sample"
LAB = REPO / "inventories" / "lab"
# The sample's vault password is a documented sample value; the lab's is in the repository.
SAMPLE_VAULT_PASSWORD = b"aipod-sample-vault-password"
LAB_VAULT_PASSWORD = (LAB / "vault-password.txt").read_bytes().strip()


def make_decryptor(*passwords: bytes):
    vault = VaultLib([(f"id{index}", VaultSecret(password)) for index, password in enumerate(passwords)])
    return lambda text, path: vault.decrypt(text).decode()
