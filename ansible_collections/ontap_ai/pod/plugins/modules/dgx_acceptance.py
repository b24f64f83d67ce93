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
  - Works only inside C(<mount>/.aipod-acceptance), which it creates and always removes, also when fio fails.
    A scratch directory a stopped run left is removed first and reported (C(leftovers)).
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
  phases:
    description: The phases to run, in order.
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
"""

EXAMPLES = r"""
- name: Measure every healthy mount of the DGX
  ontap_ai.pod.dgx_acceptance:
    mounts:
      - {path: /mnt/data, lif: 100.127.111.101}
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
fio:
  description: In check mode, the fio command line of each phase (run in each mount's scratch directory).
  type: dict
  returned: in check mode
"""

import os
import shutil
import subprocess
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ontap_ai.pod.plugins.module_utils.aipod_compute import acceptance


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


def _prepare(mount: dict, needed: int) -> str | None:
    """Why the mount cannot be measured, or None once its scratch directory exists."""
    path = mount["path"]
    if not os.path.ismount(path):
        return f"{path} is not mounted"
    stats = os.statvfs(path)
    if stats.f_bavail * stats.f_frsize < needed:
        return f"{path} has {stats.f_bavail * stats.f_frsize // 2**20} MiB free, the test needs {needed // 2**20} MiB"
    os.mkdir(os.path.join(path, acceptance.SCRATCH), 0o700)
    return None


def _run_phase(module: AnsibleModule, fio: str, phase: str, ready: list[dict]) -> dict[str, dict]:
    """One phase on every ready mount at once; mount path -> result."""
    params = module.params
    argv = acceptance.fio_argv(fio, phase, params["duration"], params["size_mb"], params["jobs"], params["iodepth"],
                               params["block_kb"])
    before = _mountstats()
    processes = {}
    for mount in ready:
        processes[mount["path"]] = subprocess.Popen(argv, cwd=os.path.join(mount["path"], acceptance.SCRATCH),
                                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + params["duration"] + params["timeout"]
    outputs = {}
    for path, process in processes.items():
        try:
            outputs[path] = process.communicate(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            outputs[path] = (None, f"fio did not finish within {params['duration'] + params['timeout']} s")
    after = _mountstats()
    results = {}
    for path, (stdout, stderr) in outputs.items():
        result: dict = acceptance.mountstats_delta(before.get(path), after.get(path))
        if stdout is None or processes[path].returncode != 0:
            result["error"] = (stderr or "").strip()[-300:] or f"fio exited {processes[path].returncode}"
        else:
            try:
                result.update(acceptance.parse_fio(stdout, phase))
            except ValueError as error:
                result["error"] = f"fio's output could not be read: {error}"
        results[path] = result
    return results


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "mounts": {"type": "list", "elements": "dict", "required": True},
            "phases": {"type": "list", "elements": "str", "choices": list(acceptance.PHASES),
                       "default": list(acceptance.PHASES)},
            "duration": {"type": "int", "default": 30},
            "size_mb": {"type": "int", "default": 1024},
            "jobs": {"type": "int", "default": 4},
            "iodepth": {"type": "int", "default": 8},
            "block_kb": {"type": "int", "default": 1024},
            "timeout": {"type": "int", "default": 600},
        },
        supports_check_mode=True,
    )
    params = module.params
    for key in ("duration", "size_mb", "jobs", "iodepth", "block_kb"):
        if params[key] < 1:
            module.fail_json(msg=f"{key} must be at least 1, not {params[key]}")
    mounts = [{"path": str(m.get("path") or ""), "lif": m.get("lif")} for m in params["mounts"]]
    for mount in mounts:
        if not os.path.isabs(mount["path"]) or os.path.normpath(mount["path"]) != mount["path"]:
            module.fail_json(msg=f"mount path {mount['path']!r} is not an absolute, normalised path")
    results = {m["path"]: {"lif": m["lif"], "measured": False, "phases": {}} for m in mounts}
    fio = module.get_bin_path("fio")
    if module.check_mode or not fio:
        reason = "check mode: nothing measured" if fio else "fio is not installed on this host (install the fio package)"
        commands = {}
        for phase in params["phases"]:
            commands[phase] = acceptance.fio_argv("fio", phase, params["duration"], params["size_mb"], params["jobs"],
                                                  params["iodepth"], params["block_kb"])
        extra = {"fio": commands}
        module.exit_json(changed=False, measured=False, reason=reason, mounts=results, leftovers=[], **extra)

    leftovers, ready = [], []
    writes = "write" in params["phases"]
    needed = params["jobs"] * params["size_mb"] * 2**20 * (2 if writes else 1)
    try:
        for mount in mounts:
            scratch = os.path.join(mount["path"], acceptance.SCRATCH)
            try:
                if os.path.lexists(scratch):
                    _remove(scratch)
                    leftovers.append(scratch)
                reason = _prepare(mount, needed)
            except OSError as error:
                reason = f"{mount['path']}: {error.strerror or error}"
            if reason:
                results[mount["path"]]["reason"] = reason
            else:
                ready.append(mount)
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
        for mount in ready:
            try:
                _remove(os.path.join(mount["path"], acceptance.SCRATCH))
            except OSError as error:
                results[mount["path"]].setdefault("reason", f"the scratch directory could not be removed: {error}")
    measured = any(r["measured"] for r in results.values())
    extra = {} if measured else {"reason": "no mount could be measured"}
    module.exit_json(changed=bool(leftovers), measured=measured, mounts=results, leftovers=leftovers, **extra)


if __name__ == "__main__":
    main()
