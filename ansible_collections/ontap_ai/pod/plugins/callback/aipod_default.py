"""Stdout callback: Ansible's default output, with the upstream deprecation warnings the bundle documents
counted and listed once at the end instead of printed at each task."""
from __future__ import annotations

DOCUMENTATION = r"""
name: aipod_default
type: stdout
short_description: Ansible's default output, with documented upstream deprecations summed up once
description:
  - Prints what C(ansible.builtin.default) prints, but for the deprecation warnings that collections the bundle uses
    raise and that the bundle cannot avoid by calling them differently (the bundle's docs/deprecations.md lists each with
    its upstream issue). A task result whose deprecations are all on that list shows none of them; the run ends with
    one line that names them and how many tasks raised them.
  - Any other deprecation, and every warning, is printed as C(ansible.builtin.default) prints it, with the listed ones of
    the same task.
  - AWX and Automation Platform jobs use their own stdout callback, which prints every deprecation.
version_added: 1.3.0
author: ONTAP AI pod bundle contributors (!UNKNOWN)
extends_documentation_fragment:
  - ansible.builtin.default_callback
  - ansible.builtin.result_format_callback
requirements:
  - set as stdout in configuration (C(stdout_callback = ontap_ai.pod.aipod_default))
"""

from collections import Counter

from ansible.plugins.callback.default import CallbackModule as DefaultCallbackModule

# Message (as the deprecation's msg starts) -> the collections that raise it. docs/deprecations.md has the same rows
# with their upstream issues; tests/unit/test_upstream_deprecations.py keeps the two equal.
UPSTREAM_DEPRECATIONS = {
    "Passing `warnings` to `exit_json` or `fail_json` is deprecated.": "cisco.nxos, ansible.posix",
    "Importing 'to_bytes' from 'ansible.module_utils._text' is deprecated.": "cisco.nxos",
    "Importing 'to_text' from 'ansible.module_utils._text' is deprecated.": "cisco.nxos",
    "The `ansible.module_utils.common._collections_compat` module is deprecated.": "cisco.nxos",
    "Importing 'to_native' from 'ansible.module_utils._text' is deprecated.": "netapp.ontap",
}


def listed_message(deprecation: object) -> str | None:
    """The UPSTREAM_DEPRECATIONS key a deprecation of a task result matches, if any."""
    message = deprecation.get("msg", "") if isinstance(deprecation, dict) else ""
    return next((known for known in UPSTREAM_DEPRECATIONS if message.startswith(known)), None)


def held_back(deprecations: list) -> list[str] | None:
    """The listed messages of a result's deprecations when every one is listed, else None (show them all)."""
    messages = [listed_message(deprecation) for deprecation in deprecations]
    return None if not messages or None in messages else messages


def summary_line(tasks: Counter) -> str:
    """The one line that sums up the held-back deprecations of a run."""
    collections = sorted({name.strip() for message in tasks for name in UPSTREAM_DEPRECATIONS[message].split(",")})
    return (f"==> upstream deprecation warnings held back: {len(tasks)} message(s) from {', '.join(collections)}, "
            f"in {sum(tasks.values())} task result(s); docs/deprecations.md lists each with its upstream issue")


class CallbackModule(DefaultCallbackModule):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "stdout"
    CALLBACK_NAME = "ontap_ai.pod.aipod_default"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._upstream_deprecations: Counter = Counter()

    def _hold_back_upstream_deprecations(self, result) -> None:
        # The default callback prints a result's deprecations only while its `deprecations` key is set.
        messages = held_back(result.result.get("deprecations") or [])
        if messages:
            result.result.pop("deprecations")
            self._upstream_deprecations.update(messages)

    def v2_runner_on_ok(self, result):
        self._hold_back_upstream_deprecations(result)
        super().v2_runner_on_ok(result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._hold_back_upstream_deprecations(result)
        super().v2_runner_on_failed(result, ignore_errors=ignore_errors)

    def v2_runner_on_skipped(self, result):
        self._hold_back_upstream_deprecations(result)
        super().v2_runner_on_skipped(result)

    def v2_runner_on_unreachable(self, result):
        self._hold_back_upstream_deprecations(result)
        super().v2_runner_on_unreachable(result)

    def v2_runner_item_on_ok(self, result):
        self._hold_back_upstream_deprecations(result)
        super().v2_runner_item_on_ok(result)

    def v2_runner_item_on_failed(self, result):
        self._hold_back_upstream_deprecations(result)
        super().v2_runner_item_on_failed(result)

    def v2_runner_item_on_skipped(self, result):
        self._hold_back_upstream_deprecations(result)
        super().v2_runner_item_on_skipped(result)

    def v2_playbook_on_stats(self, stats):
        super().v2_playbook_on_stats(stats)
        if self._upstream_deprecations:
            self._display.display(summary_line(self._upstream_deprecations))
