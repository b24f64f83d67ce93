"""Callback for benchmarks/profile_noop.py: the control node's CPU seconds per task of a run.

Ansible's main process reaps the workers it forks for each task and host, and they reap the
processes they start (ssh), so the CPU of the main process and its reaped children (os.times)
grows by what each task cost the control node. The linear strategy starts a task once the one
before has ended on every host: the growth between two task starts is the first task's. Written
as JSON to $AIPOD_TASK_CPU_FILE at the end of the run: [{play, task, hosts, cpu_seconds}].
"""
from __future__ import annotations

import json
import os

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
name: aipod_task_cpu
type: aggregate
short_description: CPU seconds of the control node per task (benchmarks/profile_noop.py)
description:
  - Writes, per task, the CPU seconds of ansible-playbook and its reaped workers to $AIPOD_TASK_CPU_FILE.
requirements:
  - enable it in callbacks_enabled
"""


def _cpu() -> float:
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "aipod_task_cpu"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self._rows: list[dict] = []
        self._current: dict | None = None
        self._play = ""
        self._mark = _cpu()

    def _close(self) -> None:
        now = _cpu()
        if self._current is not None:
            self._current["cpu_seconds"] = round(now - self._mark, 3)
            self._rows.append(self._current)
        else:
            self._rows.append({"play": self._play, "task": "(between tasks)", "hosts": 0, "cpu_seconds": round(now - self._mark, 3)})
        self._current, self._mark = None, now

    def v2_playbook_on_play_start(self, play):
        self._close()
        self._play = play.get_name()

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._close()
        self._current = {"play": self._play, "task": task.get_name(), "hosts": 0}

    def v2_runner_on_ok(self, result):
        if self._current is not None:
            self._current["hosts"] += 1

    v2_runner_on_skipped = v2_runner_on_ok
    v2_runner_on_failed = v2_runner_on_ok

    def v2_playbook_on_stats(self, stats):
        self._close()
        path = os.environ.get("AIPOD_TASK_CPU_FILE")
        if path:
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(self._rows, handle, indent=1)
