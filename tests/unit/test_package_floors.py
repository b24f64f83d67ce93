"""The plugin_utils packages stand on floors: the site model's ground, the layers, then validation and
the reports. No package imports one above it, the layers import each other without a loop, and
module_utils (which runs on the managed hosts) imports none of them."""
from __future__ import annotations

import ast
from pathlib import Path

from project_paths import REPO

PLUGINS = REPO / "ansible_collections" / "ontap_ai" / "pod" / "plugins"
PREFIX = "ansible_collections.ontap_ai.pod.plugins.plugin_utils."
# A new package declares its floor here.
FLOORS = {
    "aipod_site": 1, "aipod_run": 1,  # the model: loading, schema, derived values, findings; the run lock
    "aipod_network": 2, "aipod_ontap": 2, "aipod_compute": 2, "aipod_kubernetes": 2, "aipod_datasets": 2,
    "aipod_monitoring": 2,  # the layers
    "aipod_validation": 3, "aipod_report": 3,  # what stands on every layer
}


def imported_packages(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.level:
            raise AssertionError(f"{path}: a relative import; name the package (from {PREFIX}...)")
        found |= {name[len(PREFIX):].split(".")[0] for name in names if name.startswith(PREFIX)}
    return found


def package_imports() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for path in sorted((PLUGINS / "plugin_utils").rglob("*.py")):
        package = path.relative_to(PLUGINS / "plugin_utils").parts[0]
        edges.setdefault(package, set()).update(imported_packages(path) - {package})
    return edges


def test_every_package_has_a_floor():
    assert set(package_imports()) <= set(FLOORS), set(package_imports()) - set(FLOORS)


def test_no_package_imports_one_above_it():
    upward = [(package, other) for package, others in package_imports().items() for other in others
              if FLOORS[other] > FLOORS[package]]
    assert not upward, upward


def test_the_packages_import_each_other_without_a_loop():
    edges = package_imports()

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})) for nxt in edges.get(start, ()))

    assert not [package for package in edges if reaches(package, package, {package})]


def test_module_utils_import_no_plugin_utils():
    offenders = [str(path.relative_to(PLUGINS)) for path in (PLUGINS / "module_utils").rglob("*.py") if imported_packages(path)]
    assert not offenders, offenders


def test_the_floors_catch_an_import_from_above(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(f"from {PREFIX}aipod_validation.validate import validate_site\n")
    assert imported_packages(sample) == {"aipod_validation"}
    assert FLOORS["aipod_validation"] > FLOORS["aipod_site"]
