"""Pending filters: a layer's pending items made in a task, read as sentences and shown as a diff
(docs: aipod_pending_item.yml, aipod_pending_lines.yml, aipod_pending_diff.yml)."""
from __future__ import annotations

from typing import Any

from ansible.errors import AnsibleFilterError

from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending


def aipod_pending_lines(items: Any) -> list[str]:
    wrong = aipod_pending.problems(items)
    if wrong:
        raise AnsibleFilterError("aipod_pending_lines: " + "; ".join(wrong[:3]))
    return aipod_pending.lines(items)


def aipod_pending_diff(items: Any) -> dict[str, dict]:
    wrong = aipod_pending.problems(items)
    if wrong:
        raise AnsibleFilterError("aipod_pending_diff: " + "; ".join(wrong[:3]))
    return aipod_pending.diff(items)


def aipod_pending_item(object_: Any, field: Any = None, before: Any = None, after: Any = None,
                       action: str = "modify", reason: Any = None) -> dict[str, Any]:
    try:
        return aipod_pending.item(object_, None if field is None else str(field), before, after, str(action),
                                  None if reason is None else str(reason))
    except ValueError as error:
        raise AnsibleFilterError(f"aipod_pending_item: {error}") from None


class FilterModule:
    """Pending filters."""

    def filters(self):
        return {"aipod_pending_lines": aipod_pending_lines, "aipod_pending_diff": aipod_pending_diff,
                "aipod_pending_item": aipod_pending_item}
