"""The one shape of a difference between a device and the site model, in every layer.

Each device role's ``compare`` entry point sets ``<role>_pending``: a list of items

    {"object": "Ethernet1/2", "field": "mtu", "before": 1500, "after": 9216,
     "action": "modify", "reason": None}

- ``object``: what differs, named as the device names it (an interface, a volume, a file);
- ``field``: the setting that differs, or None when the whole object does;
- ``before`` / ``after``: the device's value and the model's (None where one side has none);
- ``action``: what the role does about it: ``create`` (the device lacks the object), ``modify``,
  ``delete`` (the model no longer has it), ``refuse`` (left to an operator: the role will not
  change it) or ``unread`` (that part of the device could not be read, so it is not checked);
- ``reason``: words for what the fields cannot say (why an object is refused, a file's content
  that differs), else None.

An empty list means the device is as the model says. Verification, drift and ``--check --diff``
read these lists as they are; ``describe`` gives the sentence a person reads.

This lives in module_utils, the lowest floor, so that a module can build items on the host too.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

ACTIONS = ("create", "modify", "delete", "refuse", "unread")
KEYS = ("object", "field", "before", "after", "action", "reason")


def item(object_: Any, field: str | None = None, before: Any = None, after: Any = None,
         action: str = "modify", reason: str | None = None) -> dict[str, Any]:
    """One pending item; refuses an action outside ACTIONS (a programming error)."""
    if action not in ACTIONS:
        raise ValueError(f"pending action {action!r}: one of {', '.join(ACTIONS)}")
    return {"object": str(object_), "field": field, "before": before, "after": after, "action": action, "reason": reason}


def changes(object_: Any, fields: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One modify item per field of {field: {before, after}}, in field order."""
    return [item(object_, field, change.get("before"), change.get("after")) for field, change in sorted(fields.items())]


def problems(items: Any) -> list[str]:
    """What keeps a value from being a pending list; [] when it is one."""
    if not isinstance(items, list):
        return [f"expected a list of pending items, got {type(items).__name__}"]
    found = []
    for index, entry in enumerate(items):
        if not isinstance(entry, Mapping) or set(entry) != set(KEYS):
            found.append(f"item {index}: expected the keys {', '.join(KEYS)}, got {entry!r}")
        elif entry["action"] not in ACTIONS or not isinstance(entry["object"], str) or not entry["object"]:
            found.append(f"item {index}: object must be a name and action one of {', '.join(ACTIONS)}: {entry!r}")
        elif entry["action"] in ("refuse", "unread") and not entry["reason"]:
            found.append(f"item {index}: a {entry['action']} item says why in reason: {entry!r}")
    return found


def shown(value: Any) -> str:
    """A value as a sentence shows it: a word as it is, anything else as JSON (no repr quotes, which
    YAML output would double)."""
    if value is None:
        return "none"
    if isinstance(value, str) and value and not any(ch.isspace() or ch in "\"'," for ch in value):
        return value
    return json.dumps(value, default=str)


def difference(entry: Mapping[str, Any]) -> str:
    """What differs, in words, without the object (a table shows the object in a column of its own)."""
    field, action, reason = entry.get("field"), entry["action"], entry.get("reason")
    if action == "refuse":
        return f"left to an operator: {reason}"
    if action == "unread":
        return f"not read ({reason})"
    if reason:
        return str(reason)
    if action == "create":
        return "missing" + (f", the model sets {field} {shown(entry.get('after'))}" if field else "")
    if action == "delete":
        return "present, the model no longer has it"
    return f"{field or 'it'} is {shown(entry.get('before'))}, the model says {shown(entry.get('after'))}"


def describe(entry: Mapping[str, Any]) -> str:
    """The sentence a person reads for one item."""
    return f"{entry['object']}: {difference(entry)}"


def lines(items: Iterable[Mapping[str, Any]]) -> list[str]:
    return [describe(entry) for entry in items]


def diff(items: Iterable[Mapping[str, Any]]) -> dict[str, dict]:
    """{before, after} for ansible.utils.fact_diff: per object, its fields' values on each side
    (an object created or deleted shows as present on one side only); refusals and unread parts
    are not changes and are left out."""
    before: dict[str, Any] = {}
    after: dict[str, Any] = {}
    for entry in items:
        name, action, field = entry["object"], entry["action"], entry.get("field")
        if action == "create":
            after[name] = {field: entry.get("after")} if field else "present"
        elif action == "delete":
            before[name] = "present"
        elif action == "modify":
            key = field or "value"
            before.setdefault(name, {})[key] = entry.get("before") if field or not entry.get("reason") else "differs"
            after.setdefault(name, {})[key] = entry.get("after") if field or not entry.get("reason") else entry.get("reason")
    return {"before": before, "after": after}
