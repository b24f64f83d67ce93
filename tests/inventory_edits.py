"""Edits that tests make to a copy of an inventory (see the sample_copy fixture)."""
from __future__ import annotations

import pathlib


def edit_inventory(inventory: pathlib.Path, relative: str, old: str, new: str) -> None:
    """Replace the first `old` in one file of an inventory copy; `old` must be there."""
    path = inventory / relative
    content = path.read_text(encoding="utf-8")
    assert old in content, (relative, old)
    path.write_text(content.replace(old, new, 1), encoding="utf-8")


def as_afx(ontap: dict, trident: dict) -> None:
    """A site's `ontap` and `trident` sections made an AFX 1K on ONTAP 9.17.1: no aggregates and no
    constituents_per_aggregate (ONTAP places the FlexGroups), REST for Trident's ONTAP backends."""
    ontap["platform"] = "AFX 1K"
    ontap["version"] = "9.17.1"
    for node in ontap["nodes"]:
        node.pop("aggregates")
    for svm in ontap["svms"]:
        svm.pop("aggregates")
        for flexgroup in svm.get("flexgroups", []):
            flexgroup.pop("constituents_per_aggregate")
    for backend in trident["backends"]:
        if backend["driver"].startswith("ontap"):
            backend["use_rest"] = True
