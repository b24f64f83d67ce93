"""How switch_cumulus applies NVUE: stage, diff, apply only on a difference; model text stays data.

No Cumulus switch can run here, so the switch is the control node itself (connection local)
with the lab's `nv` (lab/nvue/nv.py): NVUE's object model, which takes the commands NVUE takes,
refuses what it refuses and keeps applied and pending revisions (docs/lab-nvue-endpoint.md).
Check mode, hand drift and a brownfield pair are proven over SSH on the lab's Spectrum pair
(tests/e2e/test_spectrum_pair.py).
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

import pytest
import yaml
from project_paths import REPO
from switch_test_support import vault_password_file, write_cumulus_sample


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    work = tmp_path_factory.mktemp("cumulus-apply")
    inventory = write_cumulus_sample(work / "inventories" / "sample-cumulus")
    (inventory / "group_vars" / "switches.yml").write_text(yaml.safe_dump({
        "ansible_connection": "local", "ansible_python_interpreter": str(REPO / ".venv" / "bin" / "python")}))
    vault = vault_password_file(work)
    state = work / "nvue" / "state.json"
    bin_dir = work / "bin"
    bin_dir.mkdir()
    (bin_dir / "nv").write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "{REPO / "lab" / "nvue" / "nv.py"}" "$@"\n')
    (bin_dir / "nv").chmod(0o755)

    def playbook(*args: str) -> tuple[int, str]:
        env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1", NVUE_STATE=str(state),
                   NVUE_PORTS="32", NVUE_HOSTNAME="n3232c-a", PATH=f"{bin_dir}:{REPO / '.venv' / 'bin'}:{os.environ['PATH']}")
        result = subprocess.run([str(REPO / ".venv/bin/ansible-playbook"), "-i", str(inventory / "hosts.yml"),
                                 "--vault-id", f"sample@{vault}", "--limit", "n3232c-a,localhost",
                                 str(REPO / "playbooks" / "switches.yml"), *args],
                                cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]
        changed = int(re.search(r"n3232c-a\s+: ok=\d+\s+changed=(\d+)", result.stdout).group(1))
        return changed, result.stdout

    playbook.state = state
    playbook.inventory = inventory
    return playbook


def switch_state(state: pathlib.Path) -> dict:
    return json.loads(state.read_text()) if state.exists() else {"applied": {}, "pending": None}


def applied(state: pathlib.Path) -> dict:
    return switch_state(state)["applied"]


def write_state(state: pathlib.Path, data: dict) -> None:
    state.write_text(json.dumps(data))


@pytest.mark.slow
def test_first_run_applies_then_a_second_run_changes_nothing(run):
    changed, _ = run()
    assert changed == 1
    state = applied(run.state)
    assert state["interface"]["swp1"]["link"]["mtu"] == 9216
    assert state["qos"]["pfc"]["default-global"]["switch-priority"] == {"3": {}}
    assert state["interface"]["bond11"]["bond"]["mlag"]["id"] == 11
    assert set(state["interface"]["peerlink"]["bond"]["member"]) == {"swp31", "swp32"}
    changed, output = run()
    assert changed == 0
    assert "NVUE: nothing to change" in output


@pytest.mark.slow
def test_a_description_full_of_shell_syntax_reaches_nv_as_one_argument(run):
    """Model text is data: staged as an argument list, no shell reads it, nothing in it runs."""
    marker = pathlib.Path(tempfile.gettempdir()) / f"aipod-nv-{os.getpid()}"  # short: a description holds 254
    marker.unlink(missing_ok=True)
    description = f"dgx01 $(touch {marker}) ; touch {marker} && echo `id` \"q\" 'x' ~ $HOME | cat > {marker}"
    assert len(description) <= 254
    host_vars = run.inventory / "host_vars" / "n3232c-a.yml"
    data = yaml.safe_load(host_vars.read_text())
    port = next(port for port in data["switch"]["ports"] if port["name"] == "swp1")
    port["description"] = description
    host_vars.write_text("---\n" + yaml.safe_dump(data, sort_keys=False))
    changed, _ = run()
    assert changed == 1
    assert applied(run.state)["interface"]["swp1"]["description"] == description
    assert not marker.exists()


@pytest.mark.slow
def test_a_revision_a_stopped_run_left_pending_is_dropped_and_said(run):
    """The NVUE window of docs/interrupted-runs.md: a run stopped between staging and applying
    leaves a pending revision. The next run drops it before staging, says so, and applies only the model."""
    run()  # converged, whatever the tests before left
    data = switch_state(run.state)
    before = data["applied"]
    stale = json.loads(json.dumps(before))
    stale["interface"]["swp30"] = {"type": "swp", "description": "half-done"}
    data["pending"] = {"rev_id": data["next_rev"], "config": stale, "state": "pending", "user": "cumulus", "message": ""}
    data["next_rev"] += 1
    write_state(run.state, data)
    changed, output = run()
    assert changed == 0, "the pending revision was not the model's to apply"
    assert applied(run.state) == before
    assert switch_state(run.state)["pending"] is None
    assert re.search(r"n3232c-a: pending NVUE revision: a pending revision that was never applied \(\d+ line\(s\) of diff\)", output)


@pytest.mark.slow
def test_a_vlan_dropped_from_the_model_leaves_the_port(run):
    """NVUE's nv set adds to a collection: the role unsets what the model owns before setting it.
    (Runs after the tests above, which leave the switch converged.)"""
    data = switch_state(run.state)
    data["applied"]["interface"]["swp9"]["bridge"]["domain"]["br_default"]["vlan"]["3112"] = {}  # a VLAN the model lacks
    data["applied"]["interface"]["bond11"]["bond"]["member"]["swp20"] = {}                      # and a member
    write_state(run.state, data)
    changed, _ = run()
    assert changed == 1
    swp9 = applied(run.state)["interface"]["swp9"]["bridge"]["domain"]["br_default"]
    assert swp9["vlan"] == {"3111": {}}
    assert set(applied(run.state)["interface"]["bond11"]["bond"]["member"]) == {"swp13"}
    assert run()[0] == 0
