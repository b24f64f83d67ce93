#!/usr/bin/python
"""Write several small configuration files (and directories) in one module run."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: config_files
short_description: Keep several small configuration files and directories in one module run
description:
  - Makes each file of O(files) have the given content, mode, owner and group, and each directory of
    O(directories) exist with its mode, owner and group. A file is rewritten (atomically) only when its content
    differs; attributes are set only when they differ.
  - The caller builds each file's content on the controller (the roles use pure filters for it), so a role
    keeps a dozen files with one remote module run instead of two per file (stat and copy).
  - Missing parent directories of a file are created with mode 0755.
  - Reports per-file diffs with C(--diff).
version_added: "1.0.0"
author: ONTAP AI pod bundle contributors (!UNKNOWN)
options:
  files:
    description: The files.
    type: list
    elements: dict
    default: []
    suboptions:
      dest:
        description: Absolute path of the file.
        type: path
        required: true
      content:
        description: The content of the file.
        type: str
        required: true
      mode:
        description: Mode of the file, for example C("0644").
        type: raw
  directories:
    description: Directories that must exist.
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: Absolute path.
        type: path
        required: true
      mode:
        description: Mode of the directory, for example C("0755").
        type: raw
  owner:
    description: Owner of every file and directory.
    type: str
  group:
    description: Group of every file and directory.
    type: str
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  platform:
    platforms: posix
  check_mode:
    support: full
  diff_mode:
    support: full
notes:
  - Meant for small text files (configuration, units, scripts); the content travels in the module arguments.
"""

EXAMPLES = r"""
- name: Persist the kernel tuning and a helper script
  ontap_ai.pod.config_files:
    owner: root
    group: root
    files:
      - dest: /etc/sysctl.d/90-aipod-nfs.conf
        content: "# Ansible managed\nsunrpc.tcp_max_slot_table_entries = 128\n"
        mode: "0644"
      - dest: /usr/local/sbin/aipod-roce-qos
        content: "{{ lookup('ansible.builtin.file', 'aipod-roce-qos', rstrip=false) }}"
        mode: "0755"
    directories:
      - path: /etc/aipod
        mode: "0755"
"""

RETURN = r"""
files:
  description: What happened to each file and directory - created, updated (content), attributes, or unchanged.
  returned: always
  type: dict
  sample: {/etc/sysctl.d/90-aipod-nfs.conf: unchanged, /etc/aipod: created}
"""

import os
import tempfile
from typing import Any

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_bytes, to_text

DIFF_LIMIT = 65536


def read_bytes(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def plan_file(current: bytes | None, wanted: bytes) -> str:
    """created, updated or unchanged, from the current content (None when the file is missing)."""
    if current is None:
        return "created"
    return "unchanged" if current == wanted else "updated"


def diff_of(dest: str, current: bytes | None, wanted: bytes) -> dict[str, str]:
    def text(data: bytes | None) -> str:
        if data is None:
            return ""
        if len(data) > DIFF_LIMIT or b"\0" in data:
            return "(binary or large file)\n"
        return to_text(data, errors="surrogate_or_replace")
    return {"before_header": dest, "after_header": dest, "before": text(current), "after": text(wanted)}


def write_atomically(module: AnsibleModule, dest: str, data: bytes) -> None:
    directory = os.path.dirname(dest)
    handle, temporary = tempfile.mkstemp(prefix=".config_files-", dir=directory)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        module.atomic_move(temporary, dest)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def attributes(module: AnsibleModule, path: str, mode: Any) -> dict[str, Any]:
    params = module.params
    return {"path": path, "mode": mode, "owner": params["owner"], "group": params["group"],
            "secontext": [None, None, None, None], "attributes": None}


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "files": {"type": "list", "elements": "dict", "default": [], "options": {
                "dest": {"type": "path", "required": True},
                "content": {"type": "str", "required": True, "no_log": False},
                "mode": {"type": "raw"},
            }},
            "directories": {"type": "list", "elements": "dict", "default": [], "options": {
                "path": {"type": "path", "required": True},
                "mode": {"type": "raw"},
            }},
            "owner": {"type": "str"},
            "group": {"type": "str"},
        },
        supports_check_mode=True,
    )
    outcome: dict[str, str] = {}
    diffs: list[dict[str, str]] = []
    changed = False
    for directory in module.params["directories"]:
        path = directory["path"]
        if not os.path.isdir(path):
            changed = True
            outcome[path] = "created"
            diffs.append({"before_header": path, "after_header": path, "before": "(absent)\n", "after": "(directory)\n"})
            if module.check_mode:
                continue
            os.makedirs(path, mode=0o755, exist_ok=True)
        if module.set_fs_attributes_if_different(attributes(module, path, directory["mode"]), False):
            changed = True
            outcome.setdefault(path, "attributes")
        outcome.setdefault(path, "unchanged")
    for entry in module.params["files"]:
        dest = entry["dest"]
        wanted = to_bytes(entry["content"], errors="surrogate_or_strict")
        current = read_bytes(dest)
        state = plan_file(current, wanted)
        if state != "unchanged":
            changed = True
            diffs.append(diff_of(dest, current, wanted))
            if not module.check_mode:
                os.makedirs(os.path.dirname(dest), mode=0o755, exist_ok=True)
                write_atomically(module, dest, wanted)
        if os.path.exists(dest) and module.set_fs_attributes_if_different(attributes(module, dest, entry["mode"]), False):
            changed = True
            if state == "unchanged":
                state = "attributes"
        outcome[dest] = state
    module.exit_json(changed=changed, files=outcome, diff=diffs)


if __name__ == "__main__":
    main()
