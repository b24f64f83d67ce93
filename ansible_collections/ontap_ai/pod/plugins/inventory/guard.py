"""Inventory plugin: keep Ansible from reading an inventory source it cannot read safely."""
from __future__ import annotations

DOCUMENTATION = r"""
---
name: guard
version_added: "1.1.0"
short_description: Refuse an inventory source that is too large, not a regular file or nested too deep, unread
description:
  - Listed first in C(enable_plugins) (the project's C(ansible.cfg)), so that it judges every inventory source, and each
    entry of a directory source, before the C(yaml) and C(ini) plugins read it.
  - It claims only a source that is not safe to read - a FIFO or device (reading blocks or never ends), a file over
    8 MiB, or YAML that expands to more values, aliases or nesting than the site model's own files may hold (nesting
    thousands of levels deep crashes Python's YAML parser). The same limits bound the site model's files.
  - A claimed source is not parsed, and nothing is run - C(ansible-playbook), C(ansible-inventory) or an ad-hoc command
    ends at once with exit status 2, naming the source and why. Leaving the source out and going on would give an
    inventory without its hosts, which an inventory sync would take for the site. Every other source is left to the
    next plugin.
author: ONTAP AI pod bundle contributors (!UNKNOWN)
"""

EXAMPLES = r"""
# ansible.cfg
# [inventory]
# enable_plugins = ontap_ai.pod.guard, ansible.builtin.host_list, ansible.builtin.yaml, ansible.builtin.ini
"""

from ansible.plugins.inventory import BaseInventoryPlugin
from ansible.utils.display import Display

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import sources

display = Display()


class InventoryModule(BaseInventoryPlugin):
    NAME = "ontap_ai.pod.guard"

    def __init__(self) -> None:
        super().__init__()
        self._why: dict[str, str] = {}

    def verify_file(self, path: str) -> bool:
        why = sources.unsafe_source(path)
        if why is None:
            return False
        self._why[path] = why
        return True

    def parse(self, inventory, loader, path, cache=True) -> None:
        super().parse(inventory, loader, path, cache)
        why = self._why.get(path) or sources.unsafe_source(path) or f"{path}: refused"
        display.error(f"inventory source not read: {why}", wrap_text=False)
        display.display("==> REFUSED: an inventory source cannot be read safely; nothing was run", color="bright red",
                        stderr=True)
        # Not an AnsibleError: Ansible would hand the source to the next plugin, which would read it.
        raise SystemExit(2)
