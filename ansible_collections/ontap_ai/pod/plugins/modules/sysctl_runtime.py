#!/usr/bin/python
"""Set kernel parameters in the running kernel where this host can, and say where it cannot."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: sysctl_runtime
short_description: Apply kernel parameters to the running kernel where they exist and can be written
description:
  - Sets each of O(settings) in C(/proc/sys) when its current value differs, in one module run.
  - A parameter this kernel does not have (for example C(sunrpc.*) before the NFS client is loaded, or a
    global parameter inside a network namespace) or cannot write (a read-only C(/proc/sys)) is not an
    error - it is listed in C(unavailable) with the reason, so the caller can report it. Persisting the
    values (C(/etc/sysctl.d)) is the caller's job; this module changes only the running kernel.
  - Values are compared with whitespace normalised (C(4096 87380 134217728) equals the tab-separated form).
version_added: "1.0.0"
author: ONTAP AI pod bundle contributors (!UNKNOWN)
options:
  settings:
    description: Parameter name (dotted, e.g. C(net.core.rmem_max)) to value.
    type: dict
    required: true
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ontap_ai.pod.attributes.writes
"""

EXAMPLES = r"""
- name: Apply the NFS tuning to the running kernel where possible
  ontap_ai.pod.sysctl_runtime:
    settings:
      net.core.rmem_max: 268435456
      sunrpc.tcp_max_slot_table_entries: 128
  register: runtime
"""

RETURN = r"""
applied:
  description: Parameters whose running value was changed (or would be, in check mode), with before and after.
  returned: always
  type: dict
  sample: {net.core.rmem_max: {before: "212992", after: "268435456"}}
unavailable:
  description: Parameters that could not be applied here, with the reason.
  returned: always
  type: dict
  sample: {sunrpc.tcp_max_slot_table_entries: "not in this kernel (or not in this network namespace)"}
"""

import errno
import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ontap_ai.pod.plugins.module_utils.aipod_compute.sysctl import READ_ONLY, name_problem, normalise, plan, proc_path

__all__ = ["normalise", "plan", "proc_path"]


def _read(name: str) -> str | None:
    try:
        with open(proc_path(name), encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return None


def _writable(name: str) -> bool:
    return os.access(proc_path(name), os.W_OK)


def main() -> None:
    module = AnsibleModule(argument_spec={"settings": {"type": "dict", "required": True}}, supports_check_mode=True)
    refused = {str(name): problem for name in module.params["settings"] if (problem := name_problem(name))}
    if refused:  # before anything is read or written
        module.fail_json(msg="not kernel parameter names: " + "; ".join(f"{name!r}: {why}" for name, why in sorted(refused.items())),
                         refused=sorted(refused))
    changes, unavailable = plan(module.params["settings"], _read, _writable)
    if not module.check_mode:
        for name, change in list(changes.items()):
            try:
                with open(proc_path(name), "w", encoding="utf-8") as handle:
                    handle.write(change["after"])
            except OSError as error:
                if error.errno in (errno.EROFS, errno.EPERM, errno.EACCES):
                    unavailable[name] = READ_ONLY
                    del changes[name]
                    continue
                module.fail_json(msg=f"cannot set {name} to {change['after']}: {error}", applied=changes)
    diff = {"before": "".join(f"{n} = {c['before']}\n" for n, c in changes.items()),
            "after": "".join(f"{n} = {c['after']}\n" for n, c in changes.items())}
    module.exit_json(changed=bool(changes), applied=changes, unavailable=unavailable, diff=diff)


if __name__ == "__main__":
    main()
