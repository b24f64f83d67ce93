"""Shared fixtures: the repository, the two inventories and a vault decryptor."""
from __future__ import annotations

import os
import pathlib

import pytest
from ansible.parsing.vault import VaultLib, VaultSecret

REPO = pathlib.Path(__file__).resolve().parents[1]
SAMPLE = REPO / "inventories" / "sample"
LAB = REPO / "inventories" / "lab"
# The sample's vault password is a documented sample value; the lab's is in the repository.
SAMPLE_VAULT_PASSWORD = b"aipod-sample-vault-password"
LAB_VAULT_PASSWORD = (LAB / "vault-password.txt").read_bytes().strip()


def make_decryptor(*passwords: bytes):
    vault = VaultLib([(f"id{index}", VaultSecret(password)) for index, password in enumerate(passwords)])
    return lambda text, path: vault.decrypt(text).decode()


@pytest.fixture(scope="session")
def repo() -> pathlib.Path:
    return REPO


@pytest.fixture(scope="session")
def decrypt():
    return make_decryptor(SAMPLE_VAULT_PASSWORD, LAB_VAULT_PASSWORD)


@pytest.fixture(autouse=True)
def _run_from_repo(monkeypatch):
    """File paths in findings are relative to the working directory; tests run from the repo."""
    monkeypatch.chdir(REPO)
    os.environ.setdefault("ANSIBLE_CONFIG", str(REPO / "ansible.cfg"))
