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
  - Each write goes to a temporary file (C(.config_files-*)) beside its destination, renamed into place. A run
    killed between the two leaves that temporary file; the next run removes it from the directories of O(files)
    and from O(exclusive_directories), and reports it in C(removed). Runs that write the same directory at the
    same time are not supported (the bundle's run lock prevents them).
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
  exclusive_directories:
    description:
      - Directories that hold only files of O(files). Any other file or symbolic link in them (staged by an older
        model, or by a run that was stopped) is removed; subdirectories are left alone.
    type: list
    elements: path
    default: []
  owner:
    description: Owner of every file and directory.
    type: str
  group:
    description: Group of every file and directory.
    type: str
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ontap_ai.pod.attributes.writes
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
  sample: {/etc/sysctl.d/90-aipod-nfs.conf: unchanged, /etc/aipod: created, /etc/aipod/old.conf: removed}
removed:
  description:
    - The files removed (or, in check mode, that would be) - those of O(exclusive_directories) not in O(files),
      and the temporary files interrupted writes left.
  returned: always
  type: list
  elements: str
  sample: [/etc/aipod/storage-net/60-aipod-ens1.network, /etc/sysctl.d/.config_files-k2j4a9]
"""

import contextlib
import os
import tempfile
import unicodedata
from typing import Any

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_bytes, to_text

from ansible_collections.ontap_ai.pod.plugins.module_utils.aipod_compute.leftovers import TEMPORARY_PREFIX, leftovers

DIFF_LIMIT = 65536


def path_problem(path: Any) -> str | None:
    """Why a path the role hands over must not be written: the second wall behind validation's grammar
    for paths. Absolute, normalised (no '..', '.' or '//'), and no control or invisible character."""
    if not isinstance(path, str) or not path:
        return "is not a path"
    hidden = [char for char in path if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp")]
    if hidden:
        return "holds " + ", ".join(sorted({f"U+{ord(char):04X}" for char in hidden}))
    if not path.startswith("/") or path.startswith("//") or os.path.normpath(path) != path:
        return "is not an absolute, normalised path"
    return None


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
    handle, temporary = tempfile.mkstemp(prefix=TEMPORARY_PREFIX, dir=directory)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        module.atomic_move(temporary, dest)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def files_and_links(directory: str) -> list[str]:
    """Names of the regular files and symbolic links of a directory ([] when it does not exist)."""
    try:
        with os.scandir(directory) as entries:
            return [entry.name for entry in entries if entry.is_symlink() or entry.is_file(follow_symlinks=False)]
    except FileNotFoundError:
        return []


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
            "exclusive_directories": {"type": "list", "elements": "path", "default": []},
            "owner": {"type": "str"},
            "group": {"type": "str"},
        },
        supports_check_mode=True,
    )
    outcome: dict[str, str] = {}
    diffs: list[dict[str, str]] = []
    changed = False
    paths = ([d["path"] for d in module.params["directories"]] + [f["dest"] for f in module.params["files"]]
             + list(module.params["exclusive_directories"]))
    refused = [f"{path!r} {problem}" for path in paths if (problem := path_problem(path))]
    if refused:
        module.fail_json(msg="refused before any change: " + "; ".join(refused))
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
    exclusive = {os.path.normpath(path) for path in module.params["exclusive_directories"]}
    wanted = {os.path.normpath(entry["dest"]) for entry in module.params["files"]}
    directories = sorted(exclusive | {os.path.dirname(path) for path in wanted})
    removed = leftovers({directory: files_and_links(directory) for directory in directories}, wanted, exclusive)
    for path in removed:
        changed = True
        outcome[path] = "removed"
        diffs.append({"before_header": path, "after_header": path, "before": "(file)\n", "after": "(absent)\n"})
        if not module.check_mode:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
    module.exit_json(changed=changed, files=outcome, removed=removed, diff=diffs)


if __name__ == "__main__":
    main()
