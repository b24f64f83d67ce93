"""Edits that tests make to a copy of an inventory (see the sample_copy fixture)."""
from __future__ import annotations

import pathlib


def edit_inventory(inventory: pathlib.Path, relative: str, old: str, new: str) -> None:
    """Replace the first `old` in one file of an inventory copy; `old` must be there."""
    path = inventory / relative
    content = path.read_text(encoding="utf-8")
    assert old in content, (relative, old)
    path.write_text(content.replace(old, new, 1), encoding="utf-8")
