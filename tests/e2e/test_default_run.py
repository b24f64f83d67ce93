"""The README's command on its defaults: scripts/site.sh against the lab prints no deprecation
warning except those docs/deprecations.md lists as coming from a collection the bundle uses, and
runs on mechanisms ansible-core supports (its own strategy, network_cli over libssh)."""
from __future__ import annotations

import os
import re
import subprocess

import pytest
from deprecation_table import documented_upstream_deprecations, unexplained_deprecations, warning_lines
from lab_support import BIN, lab
from project_paths import REPO

pytestmark = [pytest.mark.lab, pytest.mark.slow]


def test_deprecation_table_is_read():
    assert "Passing warnings to exit_json or fail_json is deprecated." in documented_upstream_deprecations()


@pytest.fixture(scope="module")
def site_run():
    started = lab("start")
    assert started.returncode == 0, started.stdout + started.stderr
    # A switch from factory state, so that the run configures it (the configuring tasks print their
    # warnings only when they run), and the rest of the lab as the other tests left it.
    for command in (("stop", "nxos"), ("start", "nxos")):
        if command[0] == "start":
            for state in (REPO / ".lab" / "nxos").glob("*/state.json"):
                state.unlink()
        result = lab(*command)
        assert result.returncode == 0, result.stdout + result.stderr
    environment = {key: value for key, value in os.environ.items() if not key.startswith("ANSIBLE_")}
    environment.update(PATH=f"{BIN}:{os.environ['PATH']}", ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0")
    result = subprocess.run([str(REPO / "scripts" / "site.sh"), "-vvvv"], cwd=REPO, env=environment, capture_output=True,
                            text=True, timeout=3600)
    return result


def test_the_site_run_succeeds_and_configures_the_switches(site_run):
    output = site_run.stdout + site_run.stderr
    assert site_run.returncode == 0, output[-4000:]
    assert re.search(r"layer switches: done: [1-9][0-9]* changed", output), "the switches were not configured from factory state"


def test_no_deprecation_warning_but_the_documented_upstream_ones(site_run):
    unexplained = unexplained_deprecations(site_run.stdout + site_run.stderr)
    assert not unexplained, unexplained


def test_the_run_uses_ansible_core_mechanisms(site_run):
    output = site_run.stdout + site_run.stderr
    assert "ssh type is set to libssh" in output
    assert "ssh type is set to paramiko" not in output
    assert "mitogen" not in output.lower()


def test_the_run_prints_no_warning_line(site_run):
    """No [WARNING] and no [DEPRECATION WARNING] line: the deprecations docs/deprecations.md lists are
    summed up in one line at the end (ontap_ai.pod.aipod_default)."""
    output = site_run.stdout + site_run.stderr
    assert warning_lines(output) == []
    assert "==> upstream deprecation warnings held back:" in output
