#!/usr/bin/python
"""Documentation of the run_lock action plugin (plugins/action/run_lock.py does the work)."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: run_lock
short_description: Hold the site's run lock for this run, and mark the steps a stopped run would leave armed
description:
  - One changing run per site at a time (C(docs/interrupted-runs.md)). With O(state=held) a run whose playbook changes
    the site starts a keeper process that takes an exclusive C(flock) on C(<lock_dir>/<site>.lock) for the run's main
    process (the parent of Ansible's worker) and holds it until that process and every process it left have ended.
    Beside it, C(<site>.run.json) names the run. The collection's playbooks take it in the validation play, so every
    run of them gets it, whatever callback is enabled and whatever the playbook that imports them is called.
  - Another run holding the site refuses this one at once, naming it. Processes a stopped run left (Ansible's workers
    call C(setsid); persistent connections) are waited for up to O(wait) seconds, then named with the C(kill) command.
  - A run whose compute layer started (O(state=may_arm)) may leave a DGX's storage-network rollback armed. Until a run's
    compute layer converges every DGX (O(state=resolved)), each later changing run that does not run the compute layer
    on every DGX is refused.
  - In check mode, and for a playbook that changes nothing (O(changes) empty), no lock is taken; the task warns when a
    changing run holds the site.
  - Runs on the control node only.
version_added: "1.3.0"
author: ONTAP AI pod bundle contributors (!UNKNOWN)
options:
  state:
    description:
      - V(held) takes the lock (or looks, see above). V(may_arm) records that the compute layer started. V(resolved)
        records that the compute layer converged every DGX. V(finished) records that the run reached its end.
      - V(may_arm), V(resolved) and V(finished) change only the record of the run that holds the lock, and do nothing
        in a run that holds none.
    type: str
    choices: [held, may_arm, resolved, finished]
    default: held
  site:
    description: The site's name, the model's C(pod.name), which names the lock file.
    type: str
    required: true
  changes:
    description:
      - The layers the playbook changes. Empty for a playbook that only reads (validation, verification, drift).
      - A run with V(compute) among them, no C(--limit) and the compute tag selected resolves a rollback a stopped
        run left armed.
    type: list
    elements: str
    default: []
  lock_dir:
    description:
      - Directory of the sites' run locks. Every user and control node that runs the site must use the same one.
      - Defaults to E(AIPOD_RUN_LOCK_DIR), else C(~/.ansible/ontap_ai_pod/locks).
    type: path
  slice_group:
    description:
      - With O(state=held), in a slice of a sliced job (AWX job slicing), the id the job's slices share. They hold the site
        together (a shared C(flock)), each recorded as a member of the job's record; any other run is refused, another
        sliced job's slices included. The job has finished when every slice has; a slice that reaches no end makes the
        next run report the job as stopped.
      - A slice converges its own DGX only, so a rollback an earlier stopped run left owed stays owed until a run converges
        every DGX.
    type: str
  outcome:
    description: With O(state=finished), how the run ended as its record keeps it, for example V(ok) or V(failed).
    type: str
    default: ok
  wait:
    description: Seconds to wait for processes a stopped run left before refusing. Defaults to E(AIPOD_RUN_LOCK_WAIT), else 120.
    type: int
notes:
  - Action plugin. The keeper imports nothing from Ansible; it is started with the interpreter that runs Ansible.
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Takes no lock and marks nothing; warns when a changing run holds the site.
  diff_mode:
    support: none
  platform:
    platforms: posix
"""

EXAMPLES = r"""
- name: Hold the site while this run changes it
  ontap_ai.pod.run_lock:
    site: "{{ site_validation.site_name }}"
    changes: [switches, storage, compute]
  run_once: true
  register: aipod_run_lock

- name: Record that the compute layer started
  ontap_ai.pod.run_lock:
    state: may_arm
    site: "{{ aipod_run_lock.site }}"
"""

RETURN = r"""
site:
  description: The site's name.
  returned: always
  type: str
lock:
  description: The lock file.
  returned: always
  type: str
record:
  description: The record beside the lock that names the run holding it.
  returned: always
  type: str
taken:
  description: Whether this run holds the lock now.
  returned: state is held
  type: bool
owes:
  description: The stopped run that may have left a rollback armed which no run has resolved, or empty.
  returned: state is held
  type: str
previous_interrupted:
  description: Whether the previous changing run did not reach its end.
  returned: state is held
  type: bool
run_lock:
  description: The run report's section on the lock (the previous run, waits, refusals).
  returned: state is held
  type: dict
marked:
  description: Whether the record was changed.
  returned: state is not held
  type: bool
"""
