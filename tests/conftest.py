"""Shared fixtures: the repository, the two inventories and a vault decryptor."""
from __future__ import annotations

import os
import pathlib
import shutil

import pytest
from project_paths import LAB, LAB_VAULT_PASSWORD, REPO, SAMPLE_VAULT_PASSWORD, make_decryptor

# ansible.cfg names no vault password; the tests run the lab's inventory with the lab's vault id, as
# scripts/site.sh does (runs of the sample pass --vault-id sample@... themselves).
os.environ.setdefault("ANSIBLE_VAULT_IDENTITY_LIST", f"lab@{LAB / 'vault-password.txt'}")


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


@pytest.fixture
def sample_copy(tmp_path) -> pathlib.Path:
    """A copy of inventories/sample that a test may edit (with inventory_edits.edit_inventory)."""
    copy = tmp_path / "sample"
    shutil.copytree(pathlib.Path(__file__).resolve().parents[1] / "inventories" / "sample", copy)
    return copy

