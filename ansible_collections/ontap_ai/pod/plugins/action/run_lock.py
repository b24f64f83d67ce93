"""Action plugin: the site's run lock, taken for the run's main process by a keeper process."""
from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_run import lock as run_lock

DOCUMENTATION = "see plugins/modules/run_lock.py"

display = Display()
DEFAULT_LOCK_DIR = "~/.ansible/ontap_ai_pod/locks"
DEFAULT_WAIT_SECONDS = 120
# The directory that holds ansible_collections/, for the keeper's imports.
COLLECTIONS_ROOT = os.path.abspath(os.path.join(os.path.dirname(run_lock.__file__), *[os.pardir] * 6))
STATES = ("held", "may_arm", "resolved", "finished")


def lock_dir(value: str | None) -> str:
    return value or os.environ.get("AIPOD_RUN_LOCK_DIR") or DEFAULT_LOCK_DIR


def wait_seconds(value) -> float:
    return float(value if value is not None else os.environ.get("AIPOD_RUN_LOCK_WAIT") or DEFAULT_WAIT_SECONDS)


def resolves_armed(changes: list, task_vars: dict) -> bool:
    """Whether this run resolves a rollback a stopped run left armed: its compute layer runs on
    every DGX (no --limit; --tags, if any, with compute; compute not skipped)."""
    tags = set(task_vars.get("ansible_run_tags") or ["all"])
    skipped = set(task_vars.get("ansible_skip_tags") or [])
    return ("compute" in changes and not task_vars.get("ansible_limit")
            and bool(tags & {"all", "compute"}) and "compute" not in skipped)


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(("state", "site", "changes", "lock_dir", "wait", "outcome", "slice_group"))

    def run(self, tmp=None, task_vars=None):
        task_vars = task_vars or {}
        result = super().run(tmp, task_vars)
        args = self._task.args
        state = args.get("state", "held")
        if state not in STATES:
            raise AnsibleActionFail(f"run_lock: state must be one of {', '.join(STATES)}, not {state!r}")
        site = args.get("site")
        if not isinstance(site, str) or not site:
            raise AnsibleActionFail("run_lock: site (the pod's name) is required")
        lock = run_lock.RunLock(lock_dir(args.get("lock_dir")), site)
        result.update(changed=False, site=site, lock=lock.path, record=lock.record_path)
        if state != "held":
            return self._mark(lock, state, result)
        changes = list(args.get("changes") or [])
        if not changes or self._task.check_mode:
            return self._look(lock, result)
        return self._hold(lock, changes, task_vars, result)

    def _mark(self, lock: run_lock.RunLock, state: str, result: dict) -> dict:
        """A step of a run that holds the lock: may_arm, resolved or finished. Runs that hold no
        lock (check mode, read-only, nested in another run) have nothing to mark."""
        if self._task.check_mode or not lock.adopt(os.getppid()):
            result["marked"] = False
            return result
        {"may_arm": lock.mark_may_arm, "resolved": lock.mark_resolved,
         "finished": lambda: lock.finish(str(self._task.args.get("outcome") or "ok"))}[state]()
        result["marked"] = True
        return result

    def _look(self, lock: run_lock.RunLock, result: dict) -> dict:
        """Check mode, or a playbook that changes nothing: take no lock, say who changes the site now."""
        try:
            holder = lock.held_by_other()
        except OSError:
            holder = None
        if holder is not None:
            result["warnings"] = [f"site '{lock.site}' is being changed by {holder.describe()}: what this run reads "
                                  "may be mid-change"]
        result.update(taken=False, owes=run_lock.owed_by(run_lock.read_holder(lock.record_path)), previous_interrupted=False,
                      run_lock={"site": lock.site, "lock": lock.path, "taken": False})
        return result

    def _hold(self, lock: run_lock.RunLock, changes: list, task_vars: dict, result: dict) -> dict:
        main_pid = os.getppid()  # Ansible forks its workers from the run's main process
        request = {"lock_dir": lock.directory, "site": lock.site, "pid": main_pid,
                   "playbook": run_lock.playbooks_of(run_lock.command_line(main_pid)) or "ansible-playbook",
                   "wait_seconds": wait_seconds(self._task.args.get("wait")),
                   "resolves_armed": resolves_armed(changes, task_vars),
                   "slice_group": str(self._task.args.get("slice_group") or "")}
        answer = self._start_keeper(request)
        result["run_lock"] = answer.get("report") or {}
        if answer.get("error"):
            result.update(failed=True, msg=(
                f"refused: the run lock of site '{lock.site}' cannot be taken in {lock.directory}: {answer['error']}. "
                "Set AIPOD_RUN_LOCK_DIR (or the task's lock_dir) to a directory this user can write. Nothing was changed."))
            return result
        if answer.get("keeper_failed"):
            result.update(failed=True, msg=f"refused: the run lock of site '{lock.site}': {answer['keeper_failed']}. Nothing was changed.")
            return result
        if answer.get("nested_in"):
            result.update(taken=False, owes="", previous_interrupted=False, nested_in=answer["nested_in"])
            display.display(f"run lock: started by {answer['nested_in']}, which holds the site's lock")
            return result
        if not answer.get("taken"):
            result.update(failed=True, msg=f"refused: {answer.get('refusal') or 'the run lock was not taken'}")
            return result
        result.update(taken=True, owes=answer.get("owes") or "", previous_interrupted=bool(answer.get("previous_interrupted")))
        if answer.get("owes"):
            result["warnings"] = [
                f"the run {answer['owes']} may have left a storage-network rollback armed on site '{lock.site}', and no run "
                "has resolved it since. This run's compute layer resolves it before it changes anything "
                "(docs/interrupted-runs.md)."]
        elif answer.get("previous_interrupted"):
            result["warnings"] = [
                f"the previous run on site '{lock.site}', {answer.get('previous_described')}, did not reach its end "
                "(stopped, or failed before its last play). This run resolves what it may have left before it changes "
                "anything (docs/interrupted-runs.md)."]
        return result

    @staticmethod
    def _start_keeper(request: dict) -> dict:
        """Start the keeper in a session of its own and read its answer (progress lines first)."""
        environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [COLLECTIONS_ROOT, os.environ.get("PYTHONPATH")]))}
        # -P: the working directory is not searched for modules, so no other ansible_collections there
        # stands in for this one.
        keeper = subprocess.Popen(  # noqa: S603 - our own module, arguments as a list
            [sys.executable, "-P", "-m", f"ansible_collections.ontap_ai.pod.plugins.plugin_utils.{run_lock.KEEPER_MODULE}",
             json.dumps(request)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environment,
            start_new_session=True, cwd=COLLECTIONS_ROOT)
        deadline = time.monotonic() + request["wait_seconds"] + 60
        pending = b""
        try:
            while time.monotonic() < deadline:
                ready = select.select([keeper.stdout], [], [], max(0.0, deadline - time.monotonic()))[0]
                if not ready:
                    break
                chunk = os.read(keeper.stdout.fileno(), 65536)
                if not chunk:
                    return {"keeper_failed": f"its keeper ({run_lock.KEEPER_MODULE}) ended without an answer, exit status {keeper.wait()}"}
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    message = json.loads(line)
                    if "progress" in message:
                        display.display(f"run lock: {message['progress']}")
                    elif "outcome" in message:
                        return message["outcome"]
        finally:
            keeper.stdout.close()
        keeper.kill()
        return {"keeper_failed": f"its keeper ({run_lock.KEEPER_MODULE}) gave no answer in time"}
