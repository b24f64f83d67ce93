"""Shared fixtures: the repository, the two inventories and a vault decryptor."""
from __future__ import annotations

import os
import pathlib

import ansible.module_utils
import pytest
from project_paths import LAB_VAULT_PASSWORD, REPO, SAMPLE_VAULT_PASSWORD, make_decryptor

# Modules import the project's module_utils as ansible.module_utils.<package>, which ansible.cfg's
# module_utils path provides when Ansible runs them; the unit tests import the modules directly.
ansible.module_utils.__path__.append(str(REPO / "plugins" / "module_utils"))


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
