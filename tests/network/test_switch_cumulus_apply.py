"""How switch_cumulus applies NVUE: stage, diff, apply only on a difference, nothing in check mode.

No Cumulus switch can run here, so the switch is the control node itself (connection local)
with a stand-in `nv` (tests/fixtures/fake_nvue/nv) that keeps applied and pending revisions.
This tests the role's mechanics, not NVUE's object model (see docs/network.md).
"""
from __future__ import annotations

import os
import pathlib
import re
import subprocess
import tempfile

import pytest
import yaml
from project_paths import REPO
from switch_test_support import vault_password_file, write_cumulus_sample

FAKE_NV = REPO / "tests" / "fixtures" / "fake_nvue"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    work = tmp_path_factory.mktemp("cumulus-apply")
    inventory = write_cumulus_sample(work / "inventories" / "sample-cumulus")
    (inventory / "group_vars" / "switches.yml").write_text(yaml.safe_dump({
        "ansible_connection": "local", "ansible_python_interpreter": str(REPO / ".venv" / "bin" / "python")}))
    vault = vault_password_file(work)
    state = work / "nvue"
    state.mkdir()

    def playbook(*args: str) -> tuple[int, str]:
        env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1", FAKE_NVUE_DIR=str(state),
                   PATH=f"{FAKE_NV}:{REPO / '.venv' / 'bin'}:{os.environ['PATH']}")
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


def applied(state):
    path = state / "applied.tsv"
    lines = path.read_text().splitlines() if path.exists() else []
    return dict(line.split("\t", 1) for line in lines)


def write_applied(state, data):
    (state / "applied.tsv").write_text("".join(f"{path}\t{line}\n" for path, line in data.items()))


@pytest.mark.slow
def test_check_mode_previews_and_applies_nothing(run):
    changed, output = run("--check", "--diff")
    assert changed == 0
    assert applied(run.state) == {}
    assert not (run.state / "pending.tsv").exists()          # the staged revision was discarded
    assert "NVUE diff to apply:" in output and "- set: interface swp1 link mtu 9216" in output


@pytest.mark.slow
def test_first_run_applies_then_a_second_run_changes_nothing(run):
    changed, _ = run()
    assert changed == 1
    state = applied(run.state)
    assert state["interface swp1 link mtu"] == "interface swp1 link mtu 9216"
    assert state["qos pfc default-global switch-priority"] == "qos pfc default-global switch-priority 3"
    assert "interface bond11 bond mlag id" in state
    changed, output = run()
    assert changed == 0
    assert "NVUE: nothing to change" in output


@pytest.mark.slow
def test_drift_on_the_switch_is_put_back(run):
    state = applied(run.state)
    state["interface swp1 link mtu"] = "interface swp1 link mtu 1500"
    write_applied(run.state, state)
    changed, _ = run()
    assert changed == 1
    assert applied(run.state)["interface swp1 link mtu"] == "interface swp1 link mtu 9216"


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
    assert applied(run.state)["interface swp1 description"] == f"interface swp1 description {description}"
    assert not marker.exists()


@pytest.mark.slow
def test_a_revision_a_stopped_run_left_pending_is_dropped_and_said(run):
    """The NVUE window of docs/interrupted-runs.md: a run stopped between staging and applying
    leaves a pending revision. The next run drops it before staging, says so, and applies only the model."""
    run()  # converged, whatever the tests before left
    before = applied(run.state)
    stale = dict(before, **{"interface swp30 description": "interface swp30 description half-done"})
    (run.state / "pending.tsv").write_text("".join(f"{path}\t{line}\n" for path, line in stale.items()))
    changed, output = run()
    assert changed == 0, "the pending revision was not the model's to apply"
    assert applied(run.state) == before
    assert not (run.state / "pending.tsv").exists()
    assert "n3232c-a: pending NVUE revision: a pending revision that was never applied (1 line(s) of diff)" in output
