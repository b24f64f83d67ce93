"""Findings of site validation: what is wrong, where (file, line, key path) and how to fix it."""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

Path = tuple  # a key path into the model, e.g. ("ontap", "svms", 0, "name")


@dataclasses.dataclass(frozen=True)
class Location:
    """Where a value of the model was written: a file (relative to the working directory) and a line."""

    file: str
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


@dataclasses.dataclass(frozen=True)
class Finding:
    """One problem of the site model. severity is 'error' (stops the run) or 'warning'."""

    rule: str
    severity: str
    path: Path
    message: str
    hint: str
    location: Location

    def key_path(self) -> str:
        return format_path(self.path)

    def as_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "file": self.location.file,
            "line": self.location.line,
            "key": self.key_path(),
            "message": self.message,
            "hint": self.hint,
        }

    def __str__(self) -> str:
        text = f"{self.location}: {self.key_path()}: {self.message}"
        if self.hint:
            text += f" (fix: {self.hint})"
        return text


def format_path(path: Sequence[Any]) -> str:
    """('hosts', 'dgx01', 'dgx', 'storage_nics', 0, 'address') -> 'dgx01: dgx.storage_nics[0].address'."""
    prefix = ""
    parts = list(path)
    if len(parts) >= 2 and parts[0] == "hosts":
        prefix = f"{parts[1]}: "
        parts = parts[2:]
    elif len(parts) >= 2 and parts[0] == "groups":
        prefix = "inventory groups: "
        parts = parts[1:]
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + str(part)
    return prefix + (text or "(top level)")


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Errors first, then by file and line, so a report reads top to bottom like the inventory."""
    return sorted(
        findings,
        key=lambda f: (f.severity != "error", f.location.file, f.location.line or 0, format_path(f.path), f.message),
    )
