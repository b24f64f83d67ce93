"""Shared fixtures: the repository, the two inventories and a vault decryptor; the lab tests' proof handoff."""
from __future__ import annotations

import atexit
import os
import pathlib
import shutil
import tempfile

import lab_support
import pytest
from hypothesis import settings
from project_paths import LAB, LAB_VAULT_PASSWORD, REPO, SAMPLE_VAULT_PASSWORD, make_decryptor

# ansible.cfg names no vault password; the tests run the lab's inventory with the lab's vault id, as
# scripts/site.sh does (runs of the sample pass --vault-id sample@... themselves).
os.environ.setdefault("ANSIBLE_VAULT_IDENTITY_LIST", f"lab@{LAB / 'vault-password.txt'}")
# Every run that changes a site takes the site's run lock (docs/interrupted-runs.md), in one directory
# per test process: the workers of pytest-xdist, and a second checkout's tests on the same machine,
# run playbooks on the same sample site at once and must not refuse each other. A worker inherits
# the directory of the process that started it and takes a subdirectory of its own.
if "AIPOD_RUN_LOCK_DIR" not in os.environ:
    os.environ["AIPOD_RUN_LOCK_DIR"] = tempfile.mkdtemp(prefix="aipod-run-locks-")
    atexit.register(shutil.rmtree, os.environ["AIPOD_RUN_LOCK_DIR"], ignore_errors=True)
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["AIPOD_RUN_LOCK_DIR"] = os.path.join(os.environ["AIPOD_RUN_LOCK_DIR"], os.environ["PYTEST_XDIST_WORKER"])
# Hypothesis' deadline is wall time per example (200 ms by default): CI runs these tests at nice 10
# beside the lab, where a pure function can wait longer than that for a core. No property here is
# about speed; where one must bound a cost, it bounds CPU time (test_site_field_mutations).
settings.register_profile("aipod", deadline=None)
settings.load_profile("aipod")


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



def pytest_runtest_setup(item) -> None:
    """A lab test that starts voids a proof of convergence its predecessor did not hand on (lab_support)."""
    if item.get_closest_marker("lab"):
        lab_support.lab_test_starts()


def pytest_collection_modifyitems(session, config, items) -> None:
    """The lab tests begin with the one that builds the pod from factory state (test_default_run): the
    others then start from a converged lab, and the first of them from the proof it hands on."""
    first = [item for item in items if item.module.__name__ == "test_default_run"]
    items[:] = first + [item for item in items if item.module.__name__ != "test_default_run"]
