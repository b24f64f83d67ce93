"""The site's run lock (aipod_run.lock): refusal of a second run, a killed run's lock, survivors."""
from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_run import lock as run_lock

HOLDER = textwrap.dedent("""
    import os, sys, time
    sys.path[:0] = {path!r}
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_run import lock
    run = lock.RunLock({directory!r}, "pod-a")
    outcome = run.take(lock.this_run("site.yml", sys.argv), wait_seconds=0)
    assert outcome.taken, outcome.refusal
    if {fork_survivor!r}:
        if os.fork() == 0:
            # A worker forked after the lock was taken: it holds the lock as long as it lives.
            print("survivor", os.getpid(), flush=True)
            time.sleep({survivor_seconds!r})
            os._exit(0)
        time.sleep(0.2)
    print("holding", os.getpid(), flush=True)
    time.sleep(60)
""")


def start_holder(tmp_path, fork_survivor=False, survivor_seconds=30.0):
    code = HOLDER.format(path=sys.path, directory=str(tmp_path), fork_survivor=fork_survivor,
                         survivor_seconds=survivor_seconds)
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    pids = {}
    while "holding" not in pids:
        word, pid = process.stdout.readline().split()
        pids[word] = int(pid)
    return process, pids


def me(playbook="site.yml"):
    return run_lock.this_run(playbook, ["ansible-playbook", playbook])


def test_a_free_site_is_taken_and_the_record_names_the_run(tmp_path):
    lock = run_lock.RunLock(str(tmp_path), "pod-a")
    outcome = lock.take(me(), wait_seconds=0)
    assert outcome.taken and outcome.previous is None and not outcome.previous_interrupted
    record = run_lock.read_holder(lock.record_path)
    assert record.pid == os.getpid() and record.playbook == "site.yml" and record.finished is None


def test_a_second_run_is_refused_at_once_naming_the_first(tmp_path):
    process, pids = start_holder(tmp_path)
    try:
        started = time.monotonic()
        outcome = run_lock.RunLock(str(tmp_path), "pod-a").take(me(), wait_seconds=30)
        assert time.monotonic() - started < 2
        assert not outcome.taken
        assert f"pid {pids['holding']}" in outcome.refusal and "site.yml by " in outcome.refusal
        assert "changed nothing" in outcome.refusal
    finally:
        process.kill()
        process.wait()


NESTED = textwrap.dedent("""
    import subprocess, sys
    sys.path[:0] = {path!r}
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_run import lock
    outer = lock.RunLock({directory!r}, "pod-a")
    assert outer.take(lock.this_run("converge.yml", sys.argv), wait_seconds=0).taken
    # What a task of that run does: ansible-playbook on the same site, a child of a worker.
    inner = ("import sys; sys.path[:0] = " + repr(sys.path) + "; "
             "from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_run import lock; "
             "o = lock.RunLock(" + repr({directory!r}) + ", 'pod-a').take(lock.this_run('storage.yml', sys.argv), wait_seconds=0); "
             "print(o.taken, o.nested_in.playbook if o.nested_in else None, bool(o.refusal))")
    worker = subprocess.run([sys.executable, "-c", "import subprocess, sys; subprocess.run([sys.executable, '-c', sys.argv[1]])", inner],
                            capture_output=True, text=True)
    print(worker.stdout.strip() or worker.stderr)
""")


def test_a_playbook_the_holding_run_starts_itself_runs_under_its_lock(tmp_path):
    code = NESTED.format(path=sys.path, directory=str(tmp_path))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "False converge.yml False", result.stdout + result.stderr


def test_a_killed_run_leaves_no_lock_and_the_next_run_says_it_was_interrupted(tmp_path):
    process, pids = start_holder(tmp_path)
    process.send_signal(signal.SIGKILL)
    process.wait()
    outcome = run_lock.RunLock(str(tmp_path), "pod-a").take(me(), wait_seconds=5)
    assert outcome.taken and outcome.previous_interrupted
    assert outcome.previous.pid == pids["holding"]
    assert outcome.report()["previous_run"]["interrupted"] is True


def test_a_finished_run_is_not_reported_as_interrupted(tmp_path):
    first = run_lock.RunLock(str(tmp_path), "pod-a")
    first.take(me(), wait_seconds=0)
    first.finish("ok")
    os.close(first._fd)
    outcome = run_lock.RunLock(str(tmp_path), "pod-a").take(me(), wait_seconds=0)
    assert outcome.taken and outcome.previous.outcome == "ok" and not outcome.previous_interrupted


def test_survivors_of_a_killed_run_are_named_when_they_outlast_the_wait(tmp_path):
    process, pids = start_holder(tmp_path, fork_survivor=True, survivor_seconds=30)
    try:
        process.kill()
        process.wait()
        outcome = run_lock.RunLock(str(tmp_path), "pod-a").take(me(), wait_seconds=1.5)
        assert not outcome.taken
        assert [survivor.pid for survivor in outcome.survivors] == [pids["survivor"]]
        assert f"kill {pids['survivor']}" in outcome.refusal and "was stopped" in outcome.refusal
    finally:
        os.kill(pids["survivor"], signal.SIGKILL)


def test_the_next_run_waits_for_survivors_that_end(tmp_path):
    process, pids = start_holder(tmp_path, fork_survivor=True, survivor_seconds=2)
    process.kill()
    process.wait()
    said = []
    outcome = run_lock.RunLock(str(tmp_path), "pod-a").take(me(), wait_seconds=20, progress=said.append)
    assert outcome.taken and outcome.previous_interrupted
    assert outcome.waited_seconds >= 0.5
    assert said and str(pids["survivor"]) in said[0]


def test_a_recycled_pid_is_not_taken_for_a_live_holder():
    this = me()
    assert run_lock.holder_alive(this, this.host, this.boot_id) is True
    recycled = run_lock.Holder(**{**this.__dict__, "start_ticks": this.start_ticks + 1})
    assert run_lock.holder_alive(recycled, this.host, this.boot_id) is False
    rebooted = run_lock.Holder(**{**this.__dict__, "boot_id": "another-boot"})
    assert run_lock.holder_alive(rebooted, this.host, this.boot_id) is False
    elsewhere = run_lock.Holder(**{**this.__dict__, "host": "other-controller"})
    assert run_lock.holder_alive(elsewhere, this.host, this.boot_id) is None


def test_a_read_only_run_sees_the_changing_run(tmp_path):
    assert run_lock.RunLock(str(tmp_path), "pod-a").held_by_other() is None
    process, pids = start_holder(tmp_path)
    try:
        holder = run_lock.RunLock(str(tmp_path), "pod-a").held_by_other()
        assert holder.pid == pids["holding"]
    finally:
        process.kill()
        process.wait()


def test_persistent_connections_of_a_dead_run_are_found():
    # Ansible starts them as `ansible-connection <run pid> <task uuid>`.
    sleeper = subprocess.Popen(["/usr/bin/ansible-connection", "4242"], executable="/bin/sleep")
    try:
        for _ in range(50):
            found = run_lock.orphaned_connections(4242)
            if found:
                break
            time.sleep(0.05)
        assert [process.pid for process in found] == [sleeper.pid]
        assert run_lock.orphaned_connections(4243) == []
    finally:
        sleeper.kill()
        sleeper.wait()


@pytest.mark.parametrize("lives, taken", [(30, False), (1, True)])
def test_persistent_connections_of_a_killed_run_are_waited_for_then_named(tmp_path, lives, taken):
    process, pids = start_holder(tmp_path)
    process.kill()
    process.wait()
    # `sleep` shown as `ansible-connection <dead run pid>`: what Ansible's network_cli leaves behind.
    connection = subprocess.Popen(["/usr/bin/ansible-connection", str(pids["holding"])], executable="/bin/sleep")
    ends = threading.Timer(lives, connection.kill)
    ends.start()
    try:
        for _ in range(50):
            if run_lock.orphaned_connections(pids["holding"]):
                break
            time.sleep(0.05)
        outcome = run_lock.RunLock(str(tmp_path), "pod-a").take(me(), wait_seconds=3)
        assert outcome.taken is taken, outcome.refusal
        if not taken:
            assert [survivor.pid for survivor in outcome.survivors] == [connection.pid]
            assert f"kill {connection.pid}" in outcome.refusal and "persistent connections" in outcome.refusal
            # the record still names the killed run, so the run after this one is told too
            assert run_lock.read_holder(str(tmp_path / "pod-a.run.json")).pid == pids["holding"]
        else:
            assert outcome.previous_interrupted
    finally:
        ends.cancel()
        connection.kill()
        connection.wait()


@pytest.mark.parametrize("site, expected", [("aipod-lab", "aipod-lab"), ("../../etc/passwd", "etc-passwd"),
                                            ("pod a;reboot", "pod-a-reboot"), ("", "site"), ("..", "site")])
def test_a_site_name_never_becomes_a_path(site, expected):
    assert run_lock.site_file_name(site) == expected


def test_an_unreadable_record_is_not_trusted(tmp_path):
    record = tmp_path / "pod-a.run.json"
    record.write_text("{not json")
    assert run_lock.read_holder(str(record)) is None
    record.write_text('{"pid": 1}')
    assert run_lock.read_holder(str(record)) is None


def test_extra_variables_never_reach_the_record():
    argv = ["ansible-playbook", "-e", "ontap_password=s3cret", "--extra-vars=token=abc", "-eadmin=pw", "site.yml"]
    shown = run_lock.shown_command(argv)
    assert "s3cret" not in shown and "abc" not in shown and "pw" not in shown
    assert shown.endswith("site.yml")


def test_a_rollback_armed_is_owed_until_a_run_resolves_it(tmp_path):
    lock = run_lock.RunLock(str(tmp_path), "pod-a")
    assert lock.take(me(), wait_seconds=0).owes == ""
    lock.mark_may_arm()
    lock.finish("failed")  # failed, not killed: still owed, the rollback may be armed all the same
    lock.release()
    later = run_lock.RunLock(str(tmp_path), "pod-a")
    outcome = later.take(me("switches.yml"), wait_seconds=0)
    assert f"pid {os.getpid()}" in outcome.owes
    later.finish("refused")
    later.release()
    assert run_lock.owed_by(run_lock.read_holder(later.record_path)) == outcome.owes  # carried on
    resolving = run_lock.RunLock(str(tmp_path), "pod-a")
    assert resolving.take(me("compute.yml"), wait_seconds=0).owes == outcome.owes
    resolving.mark_may_arm()
    resolving.mark_resolved()
    assert run_lock.owed_by(run_lock.read_holder(resolving.record_path)) == ""


def test_a_step_of_another_run_is_not_marked(tmp_path):
    lock = run_lock.RunLock(str(tmp_path), "pod-a")
    lock.take(me(), wait_seconds=0)
    other = run_lock.RunLock(str(tmp_path), "pod-a")
    assert not other.adopt(os.getppid())
    assert other.adopt(os.getpid())
    other.mark_may_arm()
    assert run_lock.read_holder(lock.record_path).may_arm


@pytest.mark.parametrize(("argv", "expected"), [
    (["python3", "/v/bin/ansible-playbook", "-i", "inv/hosts.yml", "playbooks/site.yml", "-e", "x=y.yml"], "site.yml"),
    (["ansible-playbook", "ontap_ai.pod.compute", "--check", "--limit", "dgx01"], "ontap_ai.pod.compute"),
    (["ansible-playbook", "--extra-vars=@vars.yml", "deploy.yaml"], "deploy.yaml"),
])
def test_the_playbook_is_read_from_the_command_line(argv, expected):
    assert run_lock.playbooks_of(argv) == expected


RUN_WITH_A_WORKER = textwrap.dedent("""
    import os, subprocess, sys, time
    if os.fork() == 0:
        os.setsid()  # as Ansible's workers do
        subprocess.Popen(["sleep", "30"])
        time.sleep(30)
        os._exit(0)
    print("ready", flush=True)
    time.sleep(30)
""")


def test_the_workers_a_killed_run_left_are_found_with_what_runs_in_their_sessions():
    run = subprocess.Popen([sys.executable, "-c", RUN_WITH_A_WORKER], stdout=subprocess.PIPE, text=True)
    again = None
    try:
        assert run.stdout.readline().strip() == "ready"
        time.sleep(0.3)
        holder = run_lock.this_run("site.yml", run_lock.command_line(run.pid), pid=run.pid)
        holder.left = [[pid, ticks] for pid, ticks in run_lock.children_of(run.pid).items()]  # as the keeper notes them
        run.kill()
        run.wait()
        # The same command again at once, as a test or a retry does: another run, not one of its processes.
        again = subprocess.Popen([sys.executable, "-c", RUN_WITH_A_WORKER], stdout=subprocess.PIPE, text=True)
        assert again.stdout.readline().strip() == "ready"
        left = run_lock.processes_of_run(holder)
        commands = [process.command for process in left]
        assert len(left) == 2 and any(command.startswith("sleep") for command in commands), commands
        assert not {again.pid, *run_lock.children_of(again.pid)} & {process.pid for process in left}
    finally:
        for process in run_lock.processes_of_run(holder):
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGKILL)
        if again is not None:
            for pid in [*run_lock.children_of(again.pid), again.pid]:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


def test_the_next_run_with_the_same_command_is_not_held_up_by_the_last_one(tmp_path):
    """CI's race: a finished run, then the same command at once. The keeper of the first must
    let go as soon as its run has ended."""
    first = subprocess.Popen(["sleep", "60"])  # ends when the test says, not before a busy machine starts the keeper
    request = {"lock_dir": str(tmp_path), "site": "pod-a", "pid": first.pid, "playbook": "site.yml", "wait_seconds": 0}
    keeper = start_keeper(request)
    try:
        assert json.loads(keeper.stdout.readline())["outcome"]["taken"]
        first.terminate()
        first.wait()
        second = subprocess.Popen(["sleep", "1"])
        started = time.monotonic()
        lock = run_lock.RunLock(str(tmp_path), "pod-a")
        outcome = lock.take(run_lock.this_run("site.yml", ["sleep", "1"], pid=second.pid), wait_seconds=10)
        assert outcome.taken and time.monotonic() - started < 5, outcome
        second.wait()
    finally:
        first.kill()
        keeper.kill()


def start_keeper(request: dict) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", f"ansible_collections.ontap_ai.pod.plugins.plugin_utils.{run_lock.KEEPER_MODULE}",
                             json.dumps(request)], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})


def test_the_keeper_holds_the_lock_for_the_run_until_it_ends(tmp_path):
    run = subprocess.Popen(["sleep", "30"])
    request = {"lock_dir": str(tmp_path), "site": "pod-a", "pid": run.pid, "playbook": "site.yml", "wait_seconds": 0}
    keeper = start_keeper(request)
    try:
        answer = json.loads(keeper.stdout.readline())["outcome"]
        assert answer["taken"], answer
        assert run_lock.read_holder(str(tmp_path / "pod-a.run.json")).pid == run.pid
        assert not run_lock.RunLock(str(tmp_path), "pod-a").take(me(), wait_seconds=0).taken
        run.kill()
        run.wait()
        assert keeper.wait(timeout=10) == 0
        assert run_lock.RunLock(str(tmp_path), "pod-a").take(me(), wait_seconds=0).taken
    finally:
        run.kill()
        keeper.kill()


RUN_THAT_FORKS_AS_IT_DIES = textwrap.dedent("""
    import os, sys, time
    read, write = os.pipe()  # as Ansible's result queue: every worker forked after it holds it
    print("ready", flush=True)
    sys.stdin.readline()
    if os.fork() == 0:
        os.setsid()
        time.sleep(30)
        os._exit(0)
    os._exit(0)  # the main process ends at once: the keeper never sees the worker as its child
""")


def test_a_worker_forked_just_before_the_run_ended_is_still_found(tmp_path):
    run = subprocess.Popen([sys.executable, "-c", RUN_THAT_FORKS_AS_IT_DIES], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, text=True)
    request = {"lock_dir": str(tmp_path), "site": "pod-a", "pid": run.pid, "playbook": "site.yml", "wait_seconds": 0}
    assert run.stdout.readline().strip() == "ready"
    keeper = start_keeper(request)
    holder = None
    try:
        assert json.loads(keeper.stdout.readline())["outcome"]["taken"]
        time.sleep(1.5)  # the keeper has looked at the run at least once
        run.stdin.write("go\n")
        run.stdin.flush()
        run.wait()
        deadline = time.monotonic() + 10
        while not (holder := run_lock.read_holder(str(tmp_path / "pod-a.run.json"))).left:
            assert time.monotonic() < deadline, "the keeper recorded no worker"
            time.sleep(0.2)
        assert run_lock.processes_of_run(holder), holder.left
        assert not run_lock.RunLock(str(tmp_path), "pod-a").take(me(), wait_seconds=0).taken
    finally:
        for process in run_lock.processes_of_run(holder) if holder else []:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGKILL)
        keeper.kill()


def slice_run(pid, playbook="compute.yml"):
    """The record of a slice whose main process is ``pid`` (each slice is its own ansible-playbook)."""
    return run_lock.this_run(playbook, ["ansible-playbook", playbook], pid=pid)


@contextlib.contextmanager
def sleepers(count):
    """Live processes standing in for the main processes of concurrent slices."""
    processes = [subprocess.Popen(["sleep", "60"]) for _ in range(count)]
    try:
        time.sleep(0.05)
        yield [process.pid for process in processes]
    finally:
        for process in processes:
            process.kill()
            process.wait()


def test_the_slices_of_one_job_share_the_lock_and_refuse_any_other_run(tmp_path):
    with sleepers(3) as (first, second, third):
        one = run_lock.RunLock(str(tmp_path), "pod-a")
        two = run_lock.RunLock(str(tmp_path), "pod-a")
        assert one.take_slice(slice_run(first), "1842", wait_seconds=0).taken
        assert two.take_slice(slice_run(second), "1842", wait_seconds=0).taken
        record = run_lock.read_holder(one.record_path)
        assert record.slice_group == "1842" and len(record.members) == 2 and record.pid == first
        # An unrelated run, and the slices of another sliced job, are refused at once, naming the job.
        plain = run_lock.RunLock(str(tmp_path), "pod-a").take(me("storage.yml"), wait_seconds=30)
        other_job = run_lock.RunLock(str(tmp_path), "pod-a").take_slice(slice_run(third), "1900", wait_seconds=30)
        for refused in (plain, other_job):
            assert not refused.taken and "sliced job 1842" in refused.refusal and "changed nothing" in refused.refusal
        # The lock is held while any slice holds it.
        one.release()
        assert not run_lock.RunLock(str(tmp_path), "pod-a").take(me(), wait_seconds=0).taken
        two.release()
        assert run_lock.RunLock(str(tmp_path), "pod-a").take(me(), wait_seconds=0).taken


def test_a_sliced_job_is_finished_only_when_every_slice_is(tmp_path):
    with sleepers(2) as (first, second):
        one, two = run_lock.RunLock(str(tmp_path), "pod-a"), run_lock.RunLock(str(tmp_path), "pod-a")
        one.take_slice(slice_run(first), "7", wait_seconds=0)
        two.take_slice(slice_run(second), "7", wait_seconds=0)
        one.finish("ok")
        assert run_lock.read_holder(one.record_path).finished is None
        one.release()
        two.release()  # the second slice was killed: it never reached its end
        outcome = run_lock.RunLock(str(tmp_path), "pod-a").take(me(), wait_seconds=0)
        assert outcome.taken and outcome.previous_interrupted


def test_a_slice_steps_are_marked_on_its_own_member(tmp_path):
    with sleepers(2) as (first, second):
        one, two = run_lock.RunLock(str(tmp_path), "pod-a"), run_lock.RunLock(str(tmp_path), "pod-a")
        one.take_slice(slice_run(first), "7", wait_seconds=0)
        two.take_slice(slice_run(second), "7", wait_seconds=0)
        # A worker of the second slice marks its step: it adopts the member of its main process.
        worker = run_lock.RunLock(str(tmp_path), "pod-a")
        assert worker.adopt(second) and not run_lock.RunLock(str(tmp_path), "pod-a").adopt(os.getpid())
        worker.mark_may_arm()
        assert run_lock.read_holder(one.record_path).may_arm
        one.finish("ok")
        worker.mark_resolved()
        worker.finish("ok")
        record = run_lock.read_holder(one.record_path)
        assert not record.may_arm and record.finished is not None and record.outcome == "ok"


def test_a_slice_never_clears_what_an_earlier_stopped_run_left_owed(tmp_path):
    stopped = run_lock.RunLock(str(tmp_path), "pod-a")
    stopped.take(me(), wait_seconds=0)
    stopped.mark_may_arm()
    stopped.release()
    with sleepers(2) as (first, second):
        one, two = run_lock.RunLock(str(tmp_path), "pod-a"), run_lock.RunLock(str(tmp_path), "pod-a")
        owed = one.take_slice(slice_run(first), "7", wait_seconds=0).owes
        assert owed and two.take_slice(slice_run(second), "7", wait_seconds=0).owes == owed
        for lock in (one, two):
            lock.mark_may_arm()
            lock.mark_resolved()
            lock.finish("ok")
            lock.release()
        # Each slice converged its share: only a run over every DGX clears what the stopped run left.
        assert run_lock.owed_by(run_lock.read_holder(one.record_path)) == owed


def test_a_read_only_run_sees_a_sliced_job_and_a_finished_one_does_not_block(tmp_path):
    with sleepers(1) as (first,):
        one = run_lock.RunLock(str(tmp_path), "pod-a")
        one.take_slice(slice_run(first), "7", wait_seconds=0)
        holder = run_lock.RunLock(str(tmp_path), "pod-a").held_by_other()
        assert holder is not None and holder.slice_group == "7"
        one.finish("ok")
        one.release()
        assert run_lock.RunLock(str(tmp_path), "pod-a").held_by_other() is None
    # A reader's probe of a finished sliced job's lock holds it a moment: a run waits, it is not refused.
    reader = run_lock.RunLock(str(tmp_path), "pod-a")
    assert reader._try(exclusive=False)
    timer = threading.Timer(0.5, reader.release)
    timer.start()
    outcome = run_lock.RunLock(str(tmp_path), "pod-a").take(me(), wait_seconds=5)
    timer.join()
    assert outcome.taken, outcome.refusal
