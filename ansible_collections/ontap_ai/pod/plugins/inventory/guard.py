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
  - It also reads the site model's own files behind each source of the command line (C(group_vars), C(host_vars)) as
    validation does, and refuses the same way a file over those limits (an alias bomb, say) or a vault file the run's
    vault ids cannot decrypt, each named with its line and fix. A file that is not YAML is named, with its line, before
    Ansible stops on it.
author: ONTAP AI pod bundle contributors (!UNKNOWN)
"""

EXAMPLES = r"""
# ansible.cfg
# [inventory]
# enable_plugins = ontap_ai.pod.guard, ansible.builtin.host_list, ansible.builtin.yaml, ansible.builtin.ini
"""

import os

from ansible import context
from ansible.plugins.inventory import BaseInventoryPlugin
from ansible.utils.display import Display

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_run.vault import run_decryptor
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import sources

display = Display()


class InventoryModule(BaseInventoryPlugin):
    NAME = "ontap_ai.pod.guard"
    # The site files behind each inventory source named on the command line, judged once per run.
    _judged: dict[str, tuple[list, list]] = {}

    def __init__(self) -> None:
        super().__init__()
        self._why: dict[str, list[str]] = {}

    def verify_file(self, path: str) -> bool:
        why = sources.unsafe_source(path)
        if why is not None:
            self._why[path] = [f"inventory source not read: {why}"]
            return True
        refused = self._unreadable_site_files(path)
        if refused:
            self._why[path] = [f"site model file not read: {finding}" for finding in refused]
            return True
        return False

    def _unreadable_site_files(self, path: str) -> list:
        """Why the site files (group_vars, host_vars) behind the source holding `path` must not be read.

        Read here, before Ansible's own loader: it would expand an alias bomb wherever a task used the
        variable, and its C composer kills the interpreter on a value nested tens of thousands deep.
        """
        source = _command_line_source(path)
        if source is None:
            return []
        if source not in self._judged:
            # A vault file is judged only when the command reads variables: a syntax check or a listing of
            # hosts reads none, and Ansible would not stop on it.
            decrypt = run_decryptor() if _reads_variables() else None
            self._judged[source] = sources.unreadable_site_files(source, decrypt)
            for finding in self._judged[source][1]:  # Ansible stops on these too, without the line
                display.error(f"site model: {finding}", wrap_text=False)
        return self._judged[source][0]

    def parse(self, inventory, loader, path, cache=True) -> None:
        super().parse(inventory, loader, path, cache)
        for why in self._why.get(path) or [f"inventory source not read: {path}: refused"]:
            display.error(why, wrap_text=False)
        display.display("==> REFUSED: the inventory cannot be read safely; nothing was run", color="bright red",
                        stderr=True)
        # Not an AnsibleError: Ansible would hand the source to the next plugin, which would read it.
        raise SystemExit(2)


def _command_line_source(path: str) -> str | None:
    """The inventory source of the command line (-i, or the configured one) that is `path` or holds it."""
    path = os.path.abspath(path)
    for source in context.CLIARGS.get("inventory") or ():
        source = os.path.abspath(str(source))
        if path == source or path.startswith(source.rstrip(os.sep) + os.sep):
            return source
    return None


def _reads_variables() -> bool:
    """Whether this command reads the inventory's variables (a run, an ad-hoc command, a listing with vars)."""
    listing = ("syntax", "listhosts", "listtasks", "listtags", "graph")
    return not any(context.CLIARGS.get(option) for option in listing) or bool(context.CLIARGS.get("show_vars"))
