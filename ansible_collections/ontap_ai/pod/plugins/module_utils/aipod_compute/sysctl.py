"""Kernel parameters: which of the wanted values the running kernel lacks, and which cannot be set here.

One comparison for the module that sets them (sysctl_runtime) and for the compute layer's decision
whether a host needs converging (pending.py, from the readings of dgx_host_facts).
"""
from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

PROC_SYS = "/proc/sys"
ABSENT = "not in this kernel (or not in this network namespace)"
READ_ONLY = "/proc/sys is read-only here"
# A kernel parameter as sysctl(8) names it: two or more dot-separated words of letters, digits, '_'
# and '-'. Nothing else may become a path under /proc/sys or a line of /etc/sysctl.d.
NAME = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+\Z")
NAME_RULE = "two or more dot-separated words of letters, digits, '_' and '-' (as sysctl -a shows it)"


def name_problem(name: object) -> str | None:
    """Why `name` is not a kernel parameter's name, or None when it is one."""
    if not isinstance(name, str):
        return f"a {type(name).__name__}, not a string"
    if not NAME.match(name):
        return f"not {NAME_RULE}"
    return None


def normalise(value: Any) -> str:
    return " ".join(str(value).split())


def proc_path(name: str, root: str = PROC_SYS) -> str:
    """The file of kernel parameter `name` under root; ValueError for a name that is not one."""
    problem = name_problem(name)
    if problem:
        raise ValueError(f"kernel parameter name {name!r}: {problem}")
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
