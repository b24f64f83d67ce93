"""The README's command on its defaults (ansible 14, ansible-core 2.21: the default row of
docs/support-matrix.md): scripts/site.sh against the lab from factory state builds the pod, a second
run changes nothing, and neither prints a [WARNING] or [DEPRECATION WARNING] line (the deprecations
docs/deprecations.md lists are summed up in one line at the end). Both run on mechanisms
ansible-core supports (its own strategy, network_cli over libssh). Then ansible-playbook alone, as
AWX runs it (no fact cache), finds every DGX as the model says."""
from __future__ import annotations

import os
import re
import subprocess

import pytest
from deprecation_table import documented_upstream_deprecations, unexplained_deprecations, warning_lines
from lab_support import BIN, hand_on_converged, lab, recap
from project_paths import REPO

pytestmark = [pytest.mark.lab, pytest.mark.slow]


def as_a_user(*command: str, lab_started: bool = True) -> subprocess.CompletedProcess:
    """A command in the repository with the toolchain on PATH and no ANSIBLE_* setting of the test run;
    scripts/site.sh starts the lab first unless it is known to be started."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith("ANSIBLE_")}
    environment.update(PATH=f"{BIN}:{os.environ['PATH']}", ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0",
                       AIPOD_SKIP_LAB_START="1" if lab_started else "0")
    return subprocess.run(list(command), cwd=REPO, env=environment, capture_output=True, text=True, timeout=3600)


@pytest.fixture(scope="module")
def runs():
    # Factory state: blank switches, a fresh ONTAP endpoint and fresh DGX stand-ins.
    stopped = lab("stop")
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    started = lab("start", env={"AIPOD_LAB_NXOS_WRITE_ERASE": "1", "AIPOD_LAB_ONTAP_FACTORY": "1"})
    assert started.returncode == 0, started.stdout + started.stderr
    return {
        "version": as_a_user(str(BIN / "ansible"), "--version"),
        "first": as_a_user(str(REPO / "scripts" / "site.sh"), lab_started=False),  # as the README says
        # -vvvv: the connection plugins name themselves (ssh type, strategy).
        "second": as_a_user(str(REPO / "scripts" / "site.sh"), "-vvvv"),
        "compute": as_a_user(str(BIN / "ansible-playbook"), "--vault-id", "lab@inventories/lab/vault-password.txt",
                             "playbooks/compute.yml"),
    }


def test_deprecation_table_is_read():
    assert "Passing warnings to exit_json or fail_json is deprecated." in documented_upstream_deprecations()


def test_the_default_row_is_ansible_14_on_python_3_13_or_newer(runs):
    output = runs["version"].stdout
    assert runs["version"].returncode == 0, runs["version"].stderr[-2000:]
    assert re.search(r"ansible \[core 2\.21\.\d+\]", output), output
    assert re.search(r"python version = 3\.1[3-9]\.", output), output


def test_the_first_run_builds_the_pod_from_factory_state(runs):
    output = runs["first"].stdout + runs["first"].stderr
    assert runs["first"].returncode == 0, output[-4000:]
    for layer in ("switches", "storage", "compute"):
        assert re.search(rf"layer {layer}: done: [1-9][0-9]* changed", output), f"the {layer} layer was not configured"
    assert "site.yml: SUCCESS" in output


def test_the_second_run_changes_nothing(runs):
    output = runs["second"].stdout + runs["second"].stderr
    assert runs["second"].returncode == 0, output[-4000:]
    hosts = recap(output)
    assert hosts and all(counts["changed"] == 0 and counts["failed"] == 0 for counts in hosts.values()), hosts


def test_the_run_uses_ansible_core_mechanisms(runs):
    output = runs["second"].stdout + runs["second"].stderr
    assert "ssh type is set to libssh" in output
    assert "ssh type is set to paramiko" not in output
    assert "mitogen" not in output.lower()


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


@pytest.mark.parametrize("name", ["first", "second"])
def test_no_deprecation_warning_but_the_documented_upstream_ones(runs, name):
    unexplained = unexplained_deprecations(runs[name].stdout + runs[name].stderr)
    assert not unexplained, unexplained


@pytest.mark.parametrize("name", ["first", "second"])
def test_a_run_prints_no_warning_line(runs, name):
    output = runs[name].stdout + runs[name].stderr
    assert warning_lines(output) == []
    assert "==> upstream deprecation warnings held back:" in output


def test_the_pod_is_left_converged_for_the_next_test(runs):
    """The second site run and compute.yml changed nothing: the next lab test need not converge again."""
    for name in ("second", "compute"):
        assert runs[name].returncode == 0, runs[name].stdout[-4000:]
        hosts = recap(runs[name].stdout)
        assert hosts and not any(c["changed"] or c["failed"] or c["unreachable"] for c in hosts.values()), hosts
    hand_on_converged("test_default_run: the second site run and compute.yml changed nothing")
