#!/usr/bin/python
"""Try each NFS mount once, bounded in time, and fail with a message naming what refused it."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: nfs_mount_probe
short_description: Check that the NFS server admits this host before its mounts are made persistent
description:
  - For each of O(mounts), mounts the export once on a temporary directory under C(/run) with the
    mount's own options plus C(retry=0), under C(timeout), then unmounts it. A mount that works
    changes nothing; the caller then mounts it for real (C(ansible.posix.mount)).
  - Without the probe, C(mount) of a C(hard) NFS mount whose LIF does not answer retries for minutes
    (C(mount.nfs) retries for 2 minutes in the foreground, and the kernel's C(hard) RPCs do not give
    up), and a refusal surfaces as a bare C(mount.nfs) line with nothing about the site.
  - The module fails when any mount does not work, with one line per mount that names the mount
    point, the export (C(src)), the LIF, the SVM's export policy and the client address this host
    presents on the LIF's network, and what happened - C(refused) (the server's export policy does
    not admit the client), C(timeout) (no answer within O(timeout) seconds - the storage network,
    VLAN, MTU or LIF), or C(failed) (any other error of C(mount.nfs), quoted).
version_added: "1.0.0"
author: ONTAP AI pod bundle contributors (!UNKNOWN)
options:
  mounts:
    description: The mounts to probe (entries of C(aipod_mount_plan) plus the client's address).
    type: list
    elements: dict
    required: true
    suboptions:
      path:
        description: The mount point the mount will have (only named in messages).
        type: str
        required: true
      src:
        description: The export, C(LIF:junction_path).
        type: str
        required: true
      options:
        description: The NFS mount options, as they will be in C(/etc/fstab).
        type: list
        elements: str
        required: true
      lif:
        description: Name of the data LIF (for messages).
        type: str
      export_policy:
        description: Name of the export policy of the export (for messages).
        type: str
      svm:
        description: Name of the SVM (for messages).
        type: str
      client_address:
        description: The address this host presents on the LIF's network (for messages).
        type: str
      client_device:
        description: The network device that carries the client address (for messages).
        type: str
      network:
        description: Name of the storage network (for messages).
        type: str
  timeout:
    description: Seconds one mount attempt may take before it is abandoned (C(timeout -k 5)).
    type: int
    default: 60
notes:
  - Check mode probes too (a probe mounts and unmounts a temporary directory, and leaves nothing).
  - Needs the NFS client (C(mount.nfs)) and the privilege to mount; callers run it only where
    C(dgx_host_facts) says the host can mount.
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ontap_ai.pod.attributes.reads
"""

EXAMPLES = r"""
- name: Check that the NFS server admits this host
  ontap_ai.pod.nfs_mount_probe:
    timeout: 60
    mounts:
      - path: /mnt/data
        src: 172.31.241.101:/data
        options: [vers=4.1, proto=tcp, nconnect=16, rsize=262144, wsize=262144, hard]
        lif: lab-data-01-storage-a-1
        export_policy: dgx-nodes
        svm: lab-data
        client_address: 172.31.241.11
        client_device: enp225s0f0.3111
        network: storage-a
"""

RETURN = r"""
results:
  description: One entry per mount, in the order given.
  returned: always
  type: list
  elements: dict
  sample:
    - {path: /mnt/data, src: "172.31.249.101:/data", status: refused, seconds: 0.4,
       output: "mount.nfs: access denied by server while mounting 172.31.249.101:/data"}
"""

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from typing import Any

from ansible.module_utils.basic import AnsibleModule

# timeout(1)'s exit codes: 124 when it stopped the command, 137 when it had to kill it.
TIMED_OUT = (124, 137)
REFUSAL_MARKERS = ("access denied", "permission denied", "operation not permitted")


# ----------------------------------------------------------------------------- pure functions
def probe_options(options: list[str]) -> str:
    """The mount's options for one attempt: no retry loop of mount.nfs (the timeout bounds the rest)."""
    kept = [option for option in options if not option.startswith(("retry=", "bg", "fg"))]
    return ",".join(kept + ["retry=0"])


def classify(returncode: int, output: str) -> str:
    """ok, refused, timeout or failed, from mount(8)'s exit code and messages under timeout(1)."""
    if returncode == 0:
        return "ok"
    if returncode in TIMED_OUT:
        return "timeout"
    if any(marker in output.lower() for marker in REFUSAL_MARKERS):
        return "refused"
    return "failed"


def describe(mount: dict[str, Any], result: dict[str, Any], timeout: int) -> str:
    """One line for a mount that did not work: what, where from, as whom, what happened and what to check."""
    client = mount.get("client_address") or "its address"
    where = f" ({mount['client_device']} on {mount['network']})" if mount.get("client_device") and mount.get("network") else ""
    lif = f"LIF {mount['lif']}, " if mount.get("lif") else ""
    policy = f"export policy {mount['export_policy']}" if mount.get("export_policy") else "its export policy"
    svm = f" of SVM {mount['svm']}" if mount.get("svm") else ""
    head = f"{mount['path']} <- {mount['src']} ({lif}{policy}{svm})"
    said = " ".join(result["output"].split()) or "no message"
    if result["status"] == "refused":
        return (f"{head}: REFUSED by the NFS server for client {client}{where}: {policy} does not admit this "
                f"client. Add the client's network to a rule of {policy}, or fix the host's storage_nics. "
                f"Output: {said}")
    if result["status"] == "timeout":
        return (f"{head}: NO ANSWER within {timeout} s from client {client}{where}: check the storage network "
                f"(link, VLAN, MTU) and that the LIF is up. Output: {said}")
    return f"{head}: mount FAILED from client {client}{where}: {said}"


def probe(mount: dict[str, Any], timeout: int, run: Callable[[list[str]], tuple[int, str]], directory: str) -> dict[str, Any]:
    command = ["timeout", "-k", "5", str(timeout), "mount", "-t", "nfs", "-o", probe_options(mount["options"]),
               mount["src"], directory]
    started = time.monotonic()
    returncode, output = run(command)
    status = classify(returncode, output)
    return {"path": mount["path"], "src": mount["src"], "status": status,
            "seconds": round(time.monotonic() - started, 1), "output": output.strip()}


# ----------------------------------------------------------------------------- the host
def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "mounts": {"type": "list", "elements": "dict", "required": True, "options": {
                "path": {"type": "str", "required": True},
                "src": {"type": "str", "required": True},
                "options": {"type": "list", "elements": "str", "required": True},
                "lif": {"type": "str"},
                "export_policy": {"type": "str"},
                "svm": {"type": "str"},
                "client_address": {"type": "str"},
                "client_device": {"type": "str"},
                "network": {"type": "str"},
            }},
            "timeout": {"type": "int", "default": 60},
        },
        supports_check_mode=True,
    )
    timeout = module.params["timeout"]
    if not shutil.which("timeout") or not module.get_bin_path("mount.nfs", opt_dirs=["/sbin", "/usr/sbin"]):
        module.fail_json(msg="nfs_mount_probe needs timeout(1) and mount.nfs (package nfs-common)")

    def run(command: list[str]) -> tuple[int, str]:
        rc, out, err = module.run_command(command)
        return rc, (out or "") + (err or "")

    results = []
    for mount in module.params["mounts"]:
        directory = tempfile.mkdtemp(prefix="aipod-nfs-probe.", dir="/run" if os.path.isdir("/run") else None)
        try:
            results.append(probe(mount, timeout, run, directory))
        finally:
            if os.path.ismount(directory):
                module.run_command(["umount", directory])
            if os.path.ismount(directory):
                module.run_command(["umount", "-l", directory])
            with contextlib.suppress(OSError):
                os.rmdir(directory)
    problems = [describe(mount, result, timeout)
                for mount, result in zip(module.params["mounts"], results) if result["status"] != "ok"]
    if problems:
        module.fail_json(msg=" | ".join(problems) + " | Nothing was mounted and /etc/fstab was not changed.",
                         results=results)
    module.exit_json(changed=False, results=results)


if __name__ == "__main__":
    main()
