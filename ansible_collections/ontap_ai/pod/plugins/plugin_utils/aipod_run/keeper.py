"""The keeper of a run's lock: takes the site's lock for a run's main process and holds it until the
run and every process it left have ended.

Started by the run_lock action in a session of its own, so that killing the run's process group
does not end it:

    python -m ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_run.keeper '<request JSON>'

The request names the lock directory, the site, the run's main process id, its playbook, how long
to wait for what a stopped run left and, for a slice of a sliced job, the job (slice_group). The keeper writes one JSON line per event to its standard
output - ``{"progress": text}`` while it waits, then ``{"outcome": {...}}`` - and closes it. When the
lock is taken it stays, holding it, until the main process has ended (pidfd) and no
process of the run is left. While the main process lives, the keeper notes its children (Ansible's
workers) and the pipes it holds every second; once it is gone, the workers still there (a worker
forked since the last look holds those pipes), and what runs in their sessions, are what the run
left. A run that reached its end (its record says so) leaves nothing to wait for. It imports nothing from Ansible.
"""
from __future__ import annotations

import json
import os
import select
import sys
import time
from dataclasses import asdict

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_run import lock as run_lock

LEFTOVER_POLL_SECONDS = 1.0


def _emit(kind: str, value) -> None:
    sys.stdout.write(json.dumps({kind: value}) + "\n")
    sys.stdout.flush()


def outcome_message(outcome: run_lock.Outcome) -> dict:
    """The outcome as the action reads it."""
    return {"taken": outcome.taken, "refusal": outcome.refusal, "report": outcome.report(),
            "previous_interrupted": outcome.previous_interrupted, "owes": outcome.owes,
            "previous": asdict(outcome.previous) if outcome.previous else None,
            "previous_described": outcome.previous.describe() if outcome.previous else "",
            "nested_in": outcome.nested_in.describe() if outcome.nested_in else ""}


def watch_until_exit(pid: int, ticks: int) -> dict[int, int]:
    """Wait for the process ``pid`` (started at ``ticks``) to end; then {pid: start ticks} of the
    run's workers still there. While it lives, its children are noted every second, and so are the
    pipes it holds beyond its standard streams: a worker forked since the last look holds them."""
    seen: dict[int, int] = {}
    pipes: set[str] = set()
    # Pipes the run got from whatever started it are not the run's own.
    parent = run_lock.parent_pid(pid)
    inherited = run_lock.shared_pipes(parent) if parent else set()
    try:
        descriptor = os.pidfd_open(pid)
    except OSError:
        descriptor = None
    try:
        while run_lock.start_ticks(pid) == ticks:
            seen.update(run_lock.children_of(pid))
            pipes |= run_lock.shared_pipes(pid) - inherited
            if descriptor is not None:
                # A pidfd becomes readable when the process ends.
                select.select([descriptor], [], [], LEFTOVER_POLL_SECONDS)
            else:
                time.sleep(LEFTOVER_POLL_SECONDS)
    finally:
        if descriptor is not None:
            os.close(descriptor)
    alive = {child: started for child, started in seen.items() if run_lock.start_ticks(child) == started}
    return {**alive, **run_lock.holding_any(pipes)}


def keep(lock: run_lock.RunLock, holder: run_lock.Holder) -> None:
    """Hold the lock until the run's main process and whatever it left have ended."""
    workers = watch_until_exit(holder.pid, holder.start_ticks)
    if lock.finished_for(holder):
        return  # it reached its end: its workers are done, its connections idle
    holder.left = [[pid, ticks] for pid, ticks in sorted(workers.items())]
    if holder.left:
        lock.record_left(dict(map(tuple, holder.left)))
    while run_lock.processes_of_run(holder) or run_lock.orphaned_connections(holder.pid):
        time.sleep(LEFTOVER_POLL_SECONDS)


def main(argv: list[str]) -> int:
    request = json.loads(argv[1])
    pid = int(request["pid"])
    lock = run_lock.RunLock(request["lock_dir"], request["site"])
    me = run_lock.this_run(request["playbook"], run_lock.command_line(pid), pid=pid)
    if not me.start_ticks:
        _emit("outcome", {"taken": False, "refusal": f"the run's main process {pid} is gone", "report": {}})
        return 1
    try:
        if request.get("slice_group"):
            outcome = lock.take_slice(me, str(request["slice_group"]), float(request["wait_seconds"]),
                                      progress=lambda line: _emit("progress", line))
        else:
            outcome = lock.take(me, float(request["wait_seconds"]), progress=lambda line: _emit("progress", line))
    except OSError as error:
        _emit("outcome", {"taken": False, "error": error.strerror or str(error), "report": {}})
        return 1
    if outcome.taken and outcome.owes and not request.get("resolves_armed"):
        lock.finish("refused")
        outcome.taken, outcome.refusal = False, run_lock.owed_refusal(outcome.owes)
    _emit("outcome", outcome_message(outcome))
    if not outcome.taken:
        return 0
    # Nothing more to say: the action has its answer and the run goes on.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    keep(lock, me)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
