"""The newest row of the support matrix (docs/support-matrix.md) on the lab: ansible 14
(ansible-core 2.21, Python 3.13, in the Debian 13 root of scripts/ansible-row.sh) runs
playbooks/site.yml from factory state against the same endpoints and hosts, then again with
nothing left to change, printing no deprecation warning that docs/deprecations.md does not list."""
from __future__ import annotations

import os
import re
import subprocess

import pytest
from deprecation_table import unexplained_deprecations, warning_lines
from lab_support import lab, recap
from project_paths import REPO

pytestmark = [pytest.mark.lab, pytest.mark.slow]
ROW = "14"


def in_row(*command: str, timeout: int = 3600) -> subprocess.CompletedProcess:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("ANSIBLE_")}
    environment.update(AIPOD_SKIP_LAB_START="1", ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0")
    return subprocess.run([str(REPO / "scripts" / "ansible-row.sh"), ROW, *command], cwd=REPO, env=environment,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def runs():
    # Factory state: blank switches, a fresh ONTAP endpoint and fresh DGX stand-ins.
    stopped = lab("stop")
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    started = lab("start", env={"AIPOD_LAB_NXOS_WRITE_ERASE": "1", "AIPOD_LAB_ONTAP_FACTORY": "1"})
    assert started.returncode == 0, started.stdout + started.stderr
    version = in_row("ansible", "--version", timeout=900)
    first = in_row("scripts/site.sh")
    second = in_row("scripts/site.sh")
    # ansible-playbook itself, as AWX runs it: no fact cache (scripts/site.sh keeps one per inventory).
    compute = in_row("ansible-playbook", "--vault-id", "lab@inventories/lab/vault-password.txt", "playbooks/compute.yml")
    return {"version": version, "first": first, "second": second, "compute": compute}


def test_the_row_is_ansible_14_on_python_3_13(runs):
    output = runs["version"].stdout
    assert runs["version"].returncode == 0, runs["version"].stderr[-2000:]
    assert re.search(r"ansible \[core 2\.21\.\d+\]", output), output
    assert re.search(r"python version = 3\.13\.", output), output


def test_the_first_run_builds_the_pod_from_factory_state(runs):
    output = runs["first"].stdout + runs["first"].stderr
    assert runs["first"].returncode == 0, output[-4000:]
    assert re.search(r"layer switches: done: [1-9][0-9]* changed", output), "the switches were not configured"
    assert re.search(r"layer storage: done: [1-9][0-9]* changed", output), "the storage was not configured"
    assert re.search(r"layer compute: done: [1-9][0-9]* changed", output), "the DGX were not configured"
    assert "site.yml: SUCCESS" in output


def test_the_second_run_changes_nothing(runs):
    output = runs["second"].stdout + runs["second"].stderr
    assert runs["second"].returncode == 0, output[-4000:]
    hosts = recap(output)
    assert hosts and all(counts["changed"] == 0 and counts["failed"] == 0 for counts in hosts.values()), hosts


def test_every_dgx_is_compared_with_its_own_reading(runs):
    """On ansible-core 2.21 a run_once set_fact makes the hosts of a batch share ansible_facts
    (ansible/ansible#87148): a DGX compared with ansible_facts would see the reading of the host that
    answered last, differ, and be drained and rolled on every run. Without a fact cache, nothing changes."""
    output = runs["compute"].stdout + runs["compute"].stderr
    assert runs["compute"].returncode == 0, output[-4000:]
    hosts = recap(output)
    assert hosts and all(counts["changed"] == 0 for counts in hosts.values()), hosts
    assert output.count("already as the model says; nothing to change") == 4, output[-4000:]
    assert "disruptive changes pending" not in output and "Rolling" not in output, output[-4000:]


def test_no_deprecation_warning_but_the_documented_upstream_ones(runs):
    for name in ("first", "second"):
        unexplained = unexplained_deprecations(runs[name].stdout + runs[name].stderr)
        assert not unexplained, (name, unexplained)


@pytest.mark.parametrize("name", ["first", "second"])
def test_a_run_prints_no_warning_line(runs, name):
    """The first run from factory state and the no-op run print no [WARNING] and no [DEPRECATION WARNING]
    line: the deprecations docs/deprecations.md lists are summed up in one line at the end."""
    output = runs[name].stdout + runs[name].stderr
    assert warning_lines(output) == []
    assert "==> upstream deprecation warnings held back:" in output
