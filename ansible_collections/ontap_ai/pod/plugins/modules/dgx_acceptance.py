#!/usr/bin/python
"""The data path's acceptance test on one DGX: fio over every given NFS mount at once, with the
mounts' per-transport counters read around each phase."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: dgx_acceptance
short_description: Measure a DGX's NFS read and write throughput over every mount at once with fio
description:
  - Runs fio in phases (sequential large reads, the training pattern; random reads; writes), each phase
    on every given mount at the same time, with direct I/O so that the page cache is not measured.
  - Lays out the read phases' files first, untimed, then waits for O(start_at), so that the timed phases of
    every DGX of the run overlap; a host that is late says by how much (C(late_start_seconds)).
  - Works only inside C(<mount>/.aipod-acceptance/<host>), its own directory on a file system every DGX mounts,
    which it creates and always removes, also when fio fails (fio runs its jobs as threads of one process, killed when
    it overstays). The shared C(.aipod-acceptance) must be a directory of the mounted file system, not a link. A
    directory a stopped run of this host left is removed first and reported (C(leftovers)); one it could not remove
    is reported in C(scratch_left).
  - Reads C(/proc/self/mountstats) before and after each phase for the bytes that went over the wire per mount
    and the sends of each transport (nconnect opens several), proof that the connections carry traffic.
  - fio's working directory is the scratch directory and its files are named relatively, so no path reaches
    fio's option parser. A mount without enough free space, or that is not mounted, is not measured and says why.
  - Leaves nothing on the host; it reports changed only when it removed a stopped run's scratch directory.
    In check mode it measures nothing and returns the fio command it would run.
version_added: "1.1.0"
author: ONTAP AI pod bundle contributors (!UNKNOWN)
options:
  mounts:
    description: The mounts to measure, each with C(path) (the mount point) and C(lif) (the data LIF address it mounts from).
    type: list
    elements: dict
    required: true
  host:
    description: The inventory name of this DGX; its scratch directory is named after it.
    type: str
    required: true
  start_at:
    description: Epoch seconds at which the timed phases start on every DGX (the files are laid out before).
    type: float
  shared_paths:
    description:
      - The mount points every DGX of the run measures, one entry per DGX and mount; the free space a mount needs is this
        host's files times the DGX that write to it.
    type: list
    elements: str
    default: []
  phases:
    description: The phases to run, in order; seqread, which the verdict judges, is required.
    type: list
    elements: str
    choices: [seqread, randread, write]
    default: [seqread, randread, write]
  duration:
    description: Seconds each phase runs.
    type: int
    default: 30
  size_mb:
    description: MiB of each fio job's file (the reads loop over it for the phase's duration).
    type: int
    default: 1024
  jobs:
    description: fio jobs (processes) per mount.
    type: int
    default: 4
  iodepth:
    description: Requests in flight per job (libaio).
    type: int
    default: 8
  block_kb:
    description: KiB per request; 1024 reads and writes 1 MiB at a time, as training loaders do.
    type: int
    default: 1024
  timeout:
    description: Seconds a phase may take beyond its duration (laying out the files first) before fio is stopped.
    type: int
    default: 600
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: In check mode no fio runs and nothing is measured.
  diff_mode:
    support: none
  platform:
    platforms: posix
"""

EXAMPLES = r"""
- name: Measure every healthy mount of the DGX
  ontap_ai.pod.dgx_acceptance:
    mounts:
      - {path: /mnt/data, lif: 100.127.111.101}
    host: "{{ inventory_hostname }}"
    duration: 30
    size_mb: 1024
"""

RETURN = r"""
measured:
  description: Whether fio ran on at least one mount.
  type: bool
  returned: always
reason:
  description: Why nothing was measured (fio missing, check mode, no mount could be measured).
  type: str
  returned: when measured is false
mounts:
  description:
    - Mount point -> C(lif), C(measured), C(reason) when not measured, and C(phases) phase -> C(mb_s), C(iops),
      C(lat_mean_ms), C(lat_p99_ms), C(read_bytes), C(write_bytes), C(addr) (the server address the kernel uses),
      C(transports_used), C(transports_total), C(transports) (per transport C(protocol), C(sends), C(recvs)).
  type: dict
  returned: always
leftovers:
  description: Scratch directories of a stopped run that were removed first.
  type: list
  elements: str
  returned: always
scratch_left:
  description: Scratch directories that could not be removed, each with the reason.
  type: list
  elements: str
  returned: when fio ran
late_start_seconds:
  description: How long after O(start_at) the timed phases started (0 when on time).
  type: float
  returned: when fio ran
clock_skew_seconds:
  description: How far O(start_at) lay ahead of this host's clock when that is more than O(timeout) (it then started at once).
  type: float
  returned: when fio ran
fio:
  description: In check mode, the fio command line of each phase (run in each mount's scratch directory).
  type: dict
  returned: in check mode
"""

import contextlib
import os
import re
import shutil
import stat
import subprocess
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ontap_ai.pod.plugins.module_utils.aipod_compute import acceptance

HOST_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,252}")


def _mountstats() -> dict:
    try:
        with open("/proc/self/mountstats", encoding="utf-8", errors="replace") as handle:
            return acceptance.parse_mountstats(handle.read())
    except OSError:
        return {}


def _remove(path: str) -> None:
    if os.path.islink(path) or os.path.isfile(path):
        os.unlink(path)
    elif os.path.isdir(path):
        shutil.rmtree(path)


def _scratch(mount: dict, host: str) -> str:
    return os.path.join(mount["path"], acceptance.SCRATCH, host)


def _shared_parent_problem(path: str) -> str | None:
    """The shared <mount>/.aipod-acceptance must be a real directory of that file system: anyone who can
    write the volume could make it a link, and root would then delete and write on the DGX's own disk."""
    parent = os.path.join(path, acceptance.SCRATCH)
    if not os.path.lexists(parent):
        return None
    found = os.lstat(parent)
    if stat.S_ISLNK(found.st_mode) or not stat.S_ISDIR(found.st_mode) or found.st_dev != os.stat(path).st_dev:
        return f"{parent} is not a directory of the mounted file system (a link, a file or another mount); nothing was touched"
    return None


def _prepare(mount: dict, host: str, needed: int) -> str | None:
    """Why the mount cannot be measured, or None once this host's scratch directory exists."""
    path = mount["path"]
    stats = os.statvfs(path)
    if stats.f_bavail * stats.f_frsize < needed:
        return (f"{path} has {stats.f_bavail * stats.f_frsize // 2**20} MiB free, the test needs {needed // 2**20} MiB "
                "(every DGX of the run that mounts it writes its files there)")
    for _attempt in range(2):
        # Another DGX that finished may remove the shared parent between these two calls: once more then.
        os.makedirs(os.path.join(path, acceptance.SCRATCH), mode=0o755, exist_ok=True)
        try:
            os.mkdir(_scratch(mount, host), 0o700)
            return None
        except FileNotFoundError:
            continue
    return f"{path}: the scratch directory could not be created"


def _run(module: AnsibleModule, argv: list[str], ready: list[dict], seconds: float) -> dict[str, tuple]:
    """argv on every ready mount at once, each in its scratch directory; mount path -> (stdout, stderr, rc)."""
    processes = {}
    for mount in ready:
        # fio runs its jobs as threads (--thread): one process, which stays in the module's process group,
        # so Ansible's async timeout ends it with the module.
        processes[mount["path"]] = subprocess.Popen(argv, cwd=_scratch(mount, module.params["host"]), stdout=subprocess.PIPE,
                                                    stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + seconds
    outputs = {}
    for path, process in processes.items():
        try:
            stdout, stderr = process.communicate(timeout=max(1.0, deadline - time.monotonic()))
            outputs[path] = (stdout, stderr, process.returncode)
        except subprocess.TimeoutExpired:
            process.kill()
            # A fio stuck on a hung NFS mount may not even die at once: do not wait for it for ever.
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.communicate(timeout=30)
            outputs[path] = (None, f"fio did not finish within {seconds:.0f} s and was stopped", process.returncode)
    return outputs


def _run_phase(module: AnsibleModule, fio: str, phase: str, ready: list[dict]) -> dict[str, dict]:
    """One phase on every ready mount at once; mount path -> result."""
    params = module.params
    argv = acceptance.fio_argv(fio, phase, params["duration"], params["size_mb"], params["jobs"], params["iodepth"],
                               params["block_kb"])
    before = _mountstats()
    outputs = _run(module, argv, ready, params["duration"] + params["timeout"])
    after = _mountstats()
    results = {}
    for path, (stdout, stderr, rc) in outputs.items():
        result: dict = acceptance.mountstats_delta(before.get(path), after.get(path))
        if stdout is None or rc != 0:
            result["error"] = (stderr or "").strip()[-300:] or f"fio exited {rc}"
        else:
            try:
                result.update(acceptance.parse_fio(stdout, phase))
            except ValueError as error:
                result["error"] = f"fio's output could not be read: {error}"
        results[path] = result
    return results


def _lay_out(module: AnsibleModule, fio: str, ready: list[dict], results: dict) -> list[dict]:
    """Write the read phases' files on every ready mount (untimed); the mounts where that worked."""
    params = module.params
    argv = acceptance.layout_argv(fio, params["size_mb"], params["jobs"], params["block_kb"])
    outputs = _run(module, argv, ready, params["timeout"])
    laid_out = []
    for mount in ready:
        _stdout, stderr, rc = outputs[mount["path"]]
        if rc == 0:
            laid_out.append(mount)
        else:
            results[mount["path"]]["reason"] = "laying out the files failed: " + ((stderr or "").strip()[-300:] or f"fio exited {rc}")
    return laid_out


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "mounts": {"type": "list", "elements": "dict", "required": True},
            "host": {"type": "str", "required": True},
            "phases": {"type": "list", "elements": "str", "choices": list(acceptance.PHASES),
                       "default": list(acceptance.PHASES)},
            "duration": {"type": "int", "default": 30},
            "size_mb": {"type": "int", "default": 1024},
            "jobs": {"type": "int", "default": 4},
            "iodepth": {"type": "int", "default": 8},
            "block_kb": {"type": "int", "default": 1024},
            "timeout": {"type": "int", "default": 600},
            "start_at": {"type": "float"},
            "shared_paths": {"type": "list", "elements": "str", "default": []},
        },
        supports_check_mode=True,
    )
    params = module.params
    for key in ("duration", "size_mb", "jobs", "iodepth", "block_kb"):
        if params[key] < 1:
            module.fail_json(msg=f"{key} must be at least 1, not {params[key]}")
    if "seqread" not in params["phases"]:
        module.fail_json(msg="phases must include seqread: the sequential reads are what the verdict judges")
    if not HOST_NAME.fullmatch(params["host"]):
        module.fail_json(msg="host must be an inventory host name (letters, digits, '.', '_', '-')")
    mounts = [{"path": str(m.get("path") or ""), "lif": m.get("lif")} for m in params["mounts"]]
    for mount in mounts:
        if not os.path.isabs(mount["path"]) or os.path.normpath(mount["path"]) != mount["path"]:
            module.fail_json(msg=f"mount path {mount['path']!r} is not an absolute, normalised path")
    results = {m["path"]: {"lif": m["lif"], "measured": False, "phases": {}} for m in mounts}
    fio = module.get_bin_path("fio")
    if module.check_mode or not fio:
        reason = "check mode: nothing measured" if fio else "fio is not installed on this host (install the fio package)"
        commands = {"layout": acceptance.layout_argv("fio", params["size_mb"], params["jobs"], params["block_kb"])}
        for phase in params["phases"]:
            commands[phase] = acceptance.fio_argv("fio", phase, params["duration"], params["size_mb"], params["jobs"],
                                                  params["iodepth"], params["block_kb"])
        module.exit_json(changed=False, measured=False, reason=reason, mounts=results, leftovers=[], fio=commands)

    leftovers, ready, prepared, scratch_left = [], [], [], []
    writes = "write" in params["phases"]
    per_host = params["jobs"] * params["size_mb"] * 2**20 * (2 if writes else 1)
    late, skew = 0.0, 0.0
    try:
        for mount in mounts:
            scratch = _scratch(mount, params["host"])
            # Every DGX of the run that measures this mount writes its files to it.
            sharing = max(1, params["shared_paths"].count(mount["path"]))
            try:
                if not os.path.ismount(mount["path"]):
                    reason = f"{mount['path']} is not mounted"
                else:
                    reason = _shared_parent_problem(mount["path"])
                if reason is None:
                    if os.path.lexists(scratch):
                        _remove(scratch)
                        leftovers.append(scratch)
                    reason = _prepare(mount, params["host"], per_host * sharing)
            except OSError as error:
                reason = f"{mount['path']}: {error.strerror or error}"
            if reason:
                results[mount["path"]]["reason"] = reason
            else:
                ready.append(mount)
        prepared = list(ready)
        ready = _lay_out(module, fio, ready, results) if ready else []
        if ready and params["start_at"]:
            # Every DGX starts its timed phases at the moment the controller chose, so the reads overlap.
            wait = params["start_at"] - time.time()
            if wait > params["timeout"]:
                skew = round(wait, 1)     # this host's clock is behind the controller's: start now
            elif wait > 0:
                time.sleep(wait)
            else:
                late = round(-wait, 1)
        for phase in params["phases"] if ready else []:
            for path, result in _run_phase(module, fio, phase, ready).items():
                results[path]["phases"][phase] = result
        for mount in ready:
            phases = results[mount["path"]]["phases"]
            errors = [f"{phase}: {r['error']}" for phase, r in phases.items() if r.get("error")]
            results[mount["path"]]["measured"] = not errors
            if errors:
                results[mount["path"]]["reason"] = "; ".join(errors)
    finally:
        for mount in mounts:
            scratch = _scratch(mount, params["host"])
            if mount not in prepared:
                continue
            try:
                _remove(scratch)
                with contextlib.suppress(OSError):   # other DGX may still work in the shared parent
                    os.rmdir(os.path.dirname(scratch))
            except OSError as error:
                scratch_left.append(f"{scratch}: {error.strerror or error}")
    measured = any(r["measured"] for r in results.values())
    extra = {} if measured else {"reason": "no mount could be measured"}
    module.exit_json(changed=bool(leftovers), measured=measured, mounts=results, leftovers=leftovers,
                     scratch_left=scratch_left, late_start_seconds=late, clock_skew_seconds=skew, **extra)


if __name__ == "__main__":
    main()
