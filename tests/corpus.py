"""The corpus of broken site models (tests/fixtures/broken/*.yml) and how to build each one.

A case names a base inventory, a list of edits and the findings it must produce. Unit tests check
the validator against every case; end-to-end tests run the real site playbook on them and check
that nothing was touched.
"""
from __future__ import annotations

import os
import pathlib
import shutil
from typing import Any

import yaml

REPO = pathlib.Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "fixtures" / "broken"


def cases() -> list[pathlib.Path]:
    return sorted(CORPUS.glob("*.yml"))


def load_case(path: pathlib.Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _walk(data: Any, path: list) -> tuple[Any, Any]:
    for key in path[:-1]:
        data = data[key]
    return data, path[-1]


def apply_edit(inventory: pathlib.Path, edit: dict[str, Any]) -> None:
    target = inventory / edit["file"]
    if edit.get("remove"):
        target.unlink()
        return
    if "write" in edit:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(edit["write"], encoding="utf-8")
        return
    if "replace" in edit:
        text = target.read_text(encoding="utf-8")
        if edit["replace"] not in text:
            raise AssertionError(f"{edit['file']}: text to replace not found: {edit['replace']!r}")
        target.write_text(text.replace(edit["replace"], edit["with"], edit.get("count", -1)), encoding="utf-8")
        return
    data = yaml.safe_load(target.read_text(encoding="utf-8")) or {}
    if "set" in edit:
        parent, key = _walk(data, edit["set"])
        if isinstance(parent, list) and key == len(parent):
            parent.append(edit["value"])
        else:
            parent[key] = edit["value"]
    elif "delete" in edit:
        parent, key = _walk(data, edit["delete"])
        del parent[key]
    elif "append" in edit:
        parent, key = _walk(data, edit["append"])
        parent[key].append(edit["value"])
    else:
        raise AssertionError(f"unknown edit {edit}")
    target.write_text("---\n" + yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def build_case(path: pathlib.Path, destination: pathlib.Path) -> pathlib.Path:
    """Copy the case's base inventory to destination/<case>/ and apply its edits; returns the inventory."""
    case = load_case(path)
    inventory = destination / path.stem
    if inventory.exists():
        shutil.rmtree(inventory)
    shutil.copytree(REPO / case["base"], inventory)
    for edit in case["edits"]:
        apply_edit(inventory, edit)
    return inventory


def lab_secret_values() -> list[str]:
    """The lab vault's secret values (for tests that prove no output leaks them)."""
    from lab_secrets import inventory_secrets

    return list(inventory_secrets(str(REPO / "inventories" / "lab")).values())


__all__ = ["CORPUS", "apply_edit", "build_case", "cases", "lab_secret_values", "load_case", "os"]
