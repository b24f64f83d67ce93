"""The run lock through ansible-playbook: a second run refused at once, a killed run's survivors
named, the next run after them told that the previous one did not finish. No lab needed."""
from __future__ import annotations

import contextlib
import datetime
import json
import os
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
    """Kills what still holds the run lock; a process listed may end before its kill arrives."""
    for process in run_lock.processes_holding(site["lock"].path):
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
        if holder and holder.pid == process.pid and run_lock.processes_holding(site["lock"].path):
            # The task's worker is forked once the play starts: wait for it too.
            if len(run_lock.processes_holding(site["lock"].path)) >= 2:
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
        assert "REFUSED" in output and f"pid {first.pid}" in output and "hold_site.yml by" in output
        assert "Work for a while" not in output
        assert refused_after < 20

        # Check mode changes nothing: it runs, and says the site is being changed.
        rc, output = finish(start(site, "--check", "-e", "hold_seconds=0"))
        assert rc == 0, output
        assert "is being changed by hold_site.yml" in output

        # Kill the run's process group, as a cancelled job is: its worker (setsid) lives on.
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
        survivors = run_lock.processes_holding(site["lock"].path)
        assert survivors, "the worker was expected to survive the kill"
        rc, output = finish(start(site, "-e", "hold_seconds=0", AIPOD_RUN_LOCK_WAIT="3"))
        assert rc == 2, output
        assert "was stopped" in output and f"kill {survivors[0].pid}" in output.replace("\n", " ")
    finally:
        kill_what_holds_the_lock(site)
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()

    rc, output = finish(start(site, "-e", "hold_seconds=0"))
    assert rc == 0, output
    assert "did not finish" in output
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
    assert "did not finish" in output or "interrupted" in output, output
    assert run_lock.read_holder(site["lock"].record_path).outcome == "ok"


def test_a_lock_directory_that_cannot_be_written_refuses_the_run(site, tmp_path):
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the lock directory should be\n")
    rc, output = finish(start(site, "-e", "hold_seconds=0", AIPOD_RUN_LOCK_DIR=str(blocked / "locks")))
    assert rc == 2, output
    assert "cannot be taken" in output and "AIPOD_RUN_LOCK_DIR" in output
    assert "Work for a while" not in output


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

    rc, output = finish(run(site, "compute.yml", "-e", "hold_seconds=0"))
    assert rc == 0, output
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
    assert "did not finish" in output
