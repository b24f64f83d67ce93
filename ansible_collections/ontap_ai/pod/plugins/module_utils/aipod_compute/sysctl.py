"""Kernel parameters: which of the wanted values the running kernel lacks, and which cannot be set here.

One comparison for the module that sets them (sysctl_runtime) and for the compute layer's decision
whether a host needs converging (pending.py, from the readings of dgx_host_facts).
"""
from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

PROC_SYS = "/proc/sys"
ABSENT = "not in this kernel (or not in this network namespace)"
READ_ONLY = "/proc/sys is read-only here"


def normalise(value: Any) -> str:
    return " ".join(str(value).split())


def proc_path(name: str, root: str = PROC_SYS) -> str:
    return os.path.join(root, *name.split("."))


def plan(settings: dict[str, Any], read: Callable[[str], str | None],
         writable: Callable[[str], bool]) -> tuple[dict[str, dict], dict[str, str]]:
    """(changes {name: {before, after}}, unavailable {name: reason}) for settings, given a reader and a writability test."""
    changes: dict[str, dict] = {}
    unavailable: dict[str, str] = {}
    for name, value in sorted(settings.items()):
        current = read(name)
        if current is None:
            unavailable[name] = ABSENT
            continue
        wanted = normalise(value)
        if normalise(current) == wanted:
            continue
        if not writable(name):
            unavailable[name] = READ_ONLY
            continue
        changes[name] = {"before": normalise(current), "after": wanted}
    return changes, unavailable
