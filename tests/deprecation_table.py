"""The deprecation warnings docs/deprecations.md explains (they come from collections the bundle
uses); any other printed by a run is the bundle's own and fails the tests that read runs."""
from __future__ import annotations

import re

from project_paths import REPO

DEPRECATION = re.compile(r"\[DEPRECATION WARNING\]: (.*)")
WARNING_LINE = re.compile(r"^\[(?:DEPRECATION )?WARNING\]:.*$", re.M)


def warning_lines(output: str) -> list[str]:
    """Every [WARNING] and [DEPRECATION WARNING] line of a run's output."""
    return WARNING_LINE.findall(output)


def documented_upstream_deprecations() -> list[str]:
    """The messages of the table in docs/deprecations.md (first column, without Markdown backquotes)."""
    rows = [line for line in (REPO / "docs" / "deprecations.md").read_text().splitlines() if line.startswith("| ")]
    messages = [row.split("|")[1].strip().replace("`", "") for row in rows[1:]]
    assert messages, "docs/deprecations.md lists no warning"
    return messages


def unexplained_deprecations(output: str) -> list[str]:
    """Deprecation warnings in a run's output that docs/deprecations.md does not list."""
    allowed = documented_upstream_deprecations()
    printed = {match.group(1).strip().replace("`", "") for match in DEPRECATION.finditer(output)}
    return sorted(message for message in printed if not any(message.startswith(known) for known in allowed))

