"""The run lock through ansible-playbook: a second run refused at once, a killed run's survivors
named, the next run after them told that the previous one did not reach its end; with the progress
callback and without it. No lab needed."""
from __future__ import annotations

import contextlib
import datetime
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest
from project_paths import REPO

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_run import lock as run_lock

pytestmark = pytest.mark.slow
PLAYBOOK = REPO / "tests" / "fixtures" / "playbooks" / "hold_site.yml"
BIN = os.path.dirname(sys.executable)


@pytest.fixture
def site(tmp_path):
    inventory = tmp_path / "inventory"
    (inventory / "group_vars" / "all").mkdir(parents=True)
    (inventory / "hosts.yml").write_text("all:\n  hosts:\n    localhost:\n      ansible_connection: local\n"
                                         "      ansible_python_interpreter: \"{{ ansible_playbook_python }}\"\n")
    name = f"lock-test-{os.getpid()}"
    (inventory / "group_vars" / "all" / "pod.yml").write_text(f"pod:\n  name: {name}\n")
    env = {**os.environ, "AIPOD_RUN_LOCK_DIR": str(tmp_path / "locks"), "AIPOD_REPORT_ROOT": str(tmp_path / "reports"),
           "ANSIBLE_NOCOLOR": "1"}
    return {"inventory": inventory / "hosts.yml", "env": env, "lock": run_lock.RunLock(str(tmp_path / "locks"), name),
            "reports": tmp_path / "reports"}


def kill_what_holds_the_lock(site) -> None:
    """Kills what a run left and the keeper that holds the lock for it; a process listed may end
    before its kill arrives."""
    holder = run_lock.read_holder(site["lock"].record_path)
    left = run_lock.left_by(holder, site["lock"].path) if holder else []
    for process in left + run_lock.processes_holding(site["lock"].path):
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGKILL)


def start(site, *extra, **env):
    return subprocess.Popen([f"{BIN}/ansible-playbook", "-i", str(site["inventory"]), str(PLAYBOOK), *extra],
                            cwd=REPO, env={**site["env"], **env}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)


def wait_for_holder(site, process, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        holder = run_lock.read_holder(site["lock"].record_path)
        # The keeper holds the lock; the worker of the task after it is forked a moment later, and
        # the keeper notes it within a second.
        if (holder and holder.pid == process.pid and run_lock.processes_holding(site["lock"].path)
                and run_lock.children_of(process.pid)):
            time.sleep(1.5)
            return holder
        time.sleep(0.2)
    raise AssertionError("the first run never took the lock")


def finish(process, seconds=120):
    output, _ = process.communicate(timeout=seconds)
    return process.returncode, output


def test_a_second_run_is_refused_then_survivors_are_named_then_the_site_is_taken_over(site):
    first = start(site)
    try:
        wait_for_holder(site, first)
        started = time.monotonic()
        rc, output = finish(start(site, "-e", "hold_seconds=1"))
        refused_after = time.monotonic() - started
        assert rc == 2, output
        assert "refused: another run" in output and f"pid {first.pid}" in output and "hold_site.yml by" in output
        assert "Work for a while" not in output
        assert refused_after < 20

        # Check mode changes nothing: it runs, and says the site is being changed.
        rc, output = finish(start(site, "--check", "-e", "hold_seconds=0"))
        assert rc == 0, output
        assert "is being changed by hold_site.yml" in output

        # Kill the run's process group, as a cancelled job is: its worker (setsid) lives on.
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
        deadline = time.monotonic() + 10
        while not (survivors := run_lock.processes_of_run(run_lock.read_holder(site["lock"].record_path))):
            assert time.monotonic() < deadline, "the worker was expected to survive the kill, and the keeper to note it"
            time.sleep(0.2)
        rc, output = finish(start(site, "-e", "hold_seconds=0", AIPOD_RUN_LOCK_WAIT="3"))
        assert rc == 2, output
        killed = re.search(r"\(kill ([\d ]+)\)", " ".join(output.split()))
        assert "was stopped" in output and killed, output
        assert {process.pid for process in survivors} & {int(pid) for pid in killed.group(1).split()}, output
    finally:
        kill_what_holds_the_lock(site)
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()

    rc, output = finish(start(site, "-e", "hold_seconds=0"))
    assert rc == 0, output
    assert "did not reach its end" in output
    report = json.loads((site["reports"] / "latest" / "report.json").read_text())
    assert report["run_lock"]["previous_run"]["interrupted"] is True
    assert report["run_lock"]["previous_run"]["pid"] == first.pid
    assert "Found from an earlier run" in (site["reports"] / "latest" / "report.md").read_text()
    assert run_lock.read_holder(site["lock"].record_path).outcome == "ok"


def test_ctrl_c_ends_the_run_frees_the_site_and_the_next_run_says_so(site):
    """An operator's Ctrl-C: the terminal sends SIGINT to the whole foreground process group."""
    first = start(site)
    try:
        holder = wait_for_holder(site, first)
        assert holder.started, "the lock record must say when the run started"
        rc, output = finish(start(site, "-e", "hold_seconds=0"))
        started = datetime.datetime.fromtimestamp(holder.started, datetime.UTC).strftime("started %Y-%m-%d %H:%M:%S UTC")
        assert rc == 2 and f"pid {first.pid}" in output and started in " ".join(output.split()), output
        os.killpg(first.pid, signal.SIGINT)
        rc, output = finish(first, seconds=60)
        assert rc != 0 and "Work for a while" in output, output
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()
    deadline = time.monotonic() + 30
    while run_lock.processes_holding(site["lock"].path):
        assert time.monotonic() < deadline, "a process of the interrupted run still holds the lock"
        time.sleep(0.2)
    rc, output = finish(start(site, "-e", "hold_seconds=0"))
    assert rc == 0, output
    assert "did not reach its end" in output, output
    assert run_lock.read_holder(site["lock"].record_path).outcome == "ok"


def test_a_lock_directory_that_cannot_be_written_refuses_the_run(site, tmp_path):
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the lock directory should be\n")
    rc, output = finish(start(site, "-e", "hold_seconds=0", AIPOD_RUN_LOCK_DIR=str(blocked / "locks")))
    assert rc == 2, output
    assert "cannot be taken" in output and "AIPOD_RUN_LOCK_DIR" in output
    assert "Work for a while" not in output


def test_without_the_progress_callback_the_lock_is_taken_and_a_second_run_refused(site, tmp_path):
    """The lock is the playbooks' own task: a configuration that enables no callback of ours keeps it."""
    config = tmp_path / "plain.cfg"
    config.write_text("\n".join(line for line in (REPO / "ansible.cfg").read_text().splitlines()
                                if not line.startswith(("callbacks_enabled", "stdout_callback")))
                      .replace("collections_path = .:collections", f"collections_path = {REPO}:{REPO / 'collections'}")
                      .replace("local_tmp = .ansible/tmp", f"local_tmp = {tmp_path / 'tmp'}") + "\n")
    first = start(site, ANSIBLE_CONFIG=str(config))
    try:
        holder = wait_for_holder(site, first)
        assert holder.playbook == "hold_site.yml" and holder.finished is None
        rc, output = finish(start(site, "-e", "hold_seconds=0", ANSIBLE_CONFIG=str(config)))
        assert rc == 2, output
        assert "refused: another run is changing the site" in output and f"pid {first.pid}" in output
        assert "Work for a while" not in output
        rc, output = finish(first)
        assert rc == 0, output
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()
    assert run_lock.read_holder(site["lock"].record_path).outcome == "ok"


ARMED = REPO / "tests" / "fixtures" / "playbooks" / "armed"


def run(site, playbook, *extra, **env):
    process = subprocess.Popen([f"{BIN}/ansible-playbook", "-i", str(site["inventory"]), str(ARMED / playbook), *extra],
                               cwd=REPO, env={**site["env"], **env}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, start_new_session=True)
    return process


def test_a_run_killed_in_the_compute_layer_is_owed_a_resolution_by_every_later_run(site):
    """Issue 23: a rollback armed by a killed run must not fire after a later run reported success.
    Until compute.yml (or site.yml) runs on every DGX, other changing runs are refused."""
    first = run(site, "compute.yml")
    try:
        deadline = time.monotonic() + 60
        while not (holder := run_lock.read_holder(site["lock"].record_path)) or not holder.may_arm:
            assert time.monotonic() < deadline, "the compute stand-in never started a task"
            time.sleep(0.2)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    finally:
        kill_what_holds_the_lock(site)
    time.sleep(0.5)

    for playbook, extra in (("switches.yml", ()), ("compute.yml", ("--limit", "localhost")),
                            ("compute.yml", ("--tags", "switches")), ("compute.yml", ("--skip-tags", "compute"))):
        rc, output = finish(run(site, playbook, "-e", "hold_seconds=0", *extra))
        assert rc == 2, (playbook, extra, output)
        assert "storage-network rollback" in output and f"pid {first.pid}" in output and "Change nothing" not in output
        holder = run_lock.read_holder(site["lock"].record_path)
        assert holder.outcome == "refused" and f"pid {first.pid}" in holder.owes

    # Check mode takes no lock and is not refused: it previews.
    rc, output = finish(run(site, "switches.yml", "--check"))
    assert rc == 0, output

    # A site's own playbook, named as it likes, that imports the compute layer resolves it.
    deploy = site["inventory"].parent / "deploy.yml"
    deploy.write_text(f"---\n- name: Our pod\n  ansible.builtin.import_playbook: {ARMED / 'compute.yml'}\n")
    process = subprocess.Popen([f"{BIN}/ansible-playbook", "-i", str(site["inventory"]), str(deploy), "-e", "hold_seconds=0"],
                               cwd=REPO, env=site["env"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    rc, output = finish(process)
    assert rc == 0, output
    assert run_lock.read_holder(site["lock"].record_path).playbook == "deploy.yml"
    report = json.loads((site["reports"] / "latest" / "report.json").read_text())
    assert f"pid {first.pid}" in report["run_lock"]["owes"]
    assert run_lock.read_holder(site["lock"].record_path).owes == ""

    rc, output = finish(run(site, "switches.yml"))
    assert rc == 0, output


def test_a_run_killed_before_its_compute_layer_owes_nothing(site):
    first = run(site, "switches.yml", "-e", "unused=1")
    first.wait()
    # A switches run that was killed: its record never reached the compute layer.
    record = run_lock.read_holder(site["lock"].record_path)
    record.finished, record.outcome = None, ""
    run_lock.write_holder(site["lock"].record_path, record)
    rc, output = finish(run(site, "switches.yml"))
    assert rc == 0, output
    assert "did not reach its end" in output
