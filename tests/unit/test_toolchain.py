"""The pinned toolchain of the row that runs: its core, and the collections Ansible loads satisfy requirements.yml."""
from __future__ import annotations

import importlib.metadata
import re
import sys

import yaml
from ansible.module_utils.compat.version import LooseVersion
from ansible.release import __version__ as ansible_core_version
from project_paths import REPO
from provide_collections import loaded_version

ROWS = {"14": REPO / "requirements.txt", "13": REPO / "requirements" / "ansible-13.txt"}


def pins(path) -> dict[str, str]:
    return dict(line.split("==", 1) for line in path.read_text().splitlines() if "==" in line and not line.startswith("#"))


def installed_collection_version(name: str) -> str:
    version = loaded_version(name)
    assert version, f"collection {name} is not installed"
    return version


def satisfies(version: str, requirement: str) -> bool:
    for clause in requirement.split(","):
        match = re.match(r"^\s*(==|!=|>=|<=|>|<)?\s*([0-9][0-9a-z.+-]*)\s*$", clause)
        assert match, f"unreadable requirement {requirement!r}"
        operator, wanted = match.group(1) or "==", LooseVersion(match.group(2))
        have = LooseVersion(version)
        if not {"==": have == wanted, "!=": have != wanted, ">=": have >= wanted, "<=": have <= wanted,
                ">": have > wanted, "<": have < wanted}[operator]:
            return False
    return True


def test_installed_collections_satisfy_requirements_yml():
    requirements = yaml.safe_load((REPO / "requirements.yml").read_text())["collections"]
    names = {entry["name"] for entry in requirements}
    assert {"netapp.ontap", "cisco.nxos", "kubernetes.core", "ansible.posix", "ansible.utils",
            "ansible.netcommon", "community.general", "containers.podman"} <= names
    problems = []
    for entry in requirements:
        version = installed_collection_version(entry["name"])
        if not satisfies(version, str(entry["version"])):
            problems.append(f"{entry['name']}: installed {version}, required {entry['version']}")
    assert not problems, problems


def test_requirement_check_can_fail():
    assert satisfies("23.2.0", ">=23.0.0,<24.0.0") and not satisfies("22.9.1", "23.2.0")


def test_the_installed_core_and_package_are_one_row_of_the_matrix():
    """Whatever row runs (scripts/bootstrap.sh picks it by Python), it is installed as that row pins it."""
    package = importlib.metadata.version("ansible")
    rows = [row for row, path in ROWS.items() if pins(path)["ansible"] == package]
    assert rows, f"ansible {package} is no row of the support matrix {sorted(ROWS)}"
    row = rows[0]
    assert ansible_core_version == pins(ROWS[row])["ansible-core"]
    assert ansible_core_version.startswith({"14": "2.21.", "13": "2.20."}[row])
    # Both rows need Python >= 3.12 (scripts/bootstrap.sh finds one, or runs a Debian 13 root's).
    assert sys.version_info >= (3, 12)


def test_the_rows_differ_only_in_ansible_and_its_core():
    """The test tools and runtime libraries are pinned alike on every row, so a difference between
    rows comes from Ansible."""
    sets = {row: {k: v for k, v in pins(path).items() if k not in ("ansible", "ansible-core")} for row, path in ROWS.items()}
    assert sets["14"] == sets["13"]
    for row, path in ROWS.items():
        constraints = path.with_name(path.name.replace(".txt", ".constraints.txt")) if row != "14" else REPO / "constraints.txt"
        frozen = pins(constraints)
        assert frozen["ansible"] == pins(path)["ansible"] and frozen["ansible-core"] == pins(path)["ansible-core"], constraints


def test_requirements_yml_gives_bounds_below_the_next_major():
    for entry in yaml.safe_load((REPO / "requirements.yml").read_text())["collections"]:
        match = re.fullmatch(r">=([0-9]+)\.([0-9]+)\.([0-9]+),<([0-9]+)\.0\.0", str(entry["version"]))
        assert match, f"{entry['name']}: {entry['version']} is not '>=X.Y.Z,<X+1.0.0'"
        assert int(match.group(4)) == int(match.group(1)) + 1, entry


def test_the_dataops_toolkit_pins_are_frozen_alike_on_every_row():
    """requirements/dataops-traditional.txt is installed with --no-deps on every row (scripts/bootstrap.sh),
    so each pin that applies to a row's Python must be in that row's frozen constraints, at the same version."""
    from packaging.markers import Marker

    def normalised(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()

    toolkit = []
    for line in (REPO / "requirements" / "dataops-traditional.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            pin, _, marker = line.partition(";")
            name, version = pin.strip().split("==")
            toolkit.append((normalised(name), version, Marker(marker) if marker.strip() else None))
    assert ("netapp-dataops-traditional", "3.1.0", None) in toolkit
    row_python = {"14": "3.13", "13": "3.13"}
    for row, path in ROWS.items():
        constraints = path.with_name(path.name.replace(".txt", ".constraints.txt")) if row != "14" else REPO / "constraints.txt"
        frozen = {normalised(name): version for name, version in pins(constraints).items()}
        for name, version, marker in toolkit:
            if marker is None or marker.evaluate({"python_version": row_python[row], "sys_platform": "linux"}):
                assert frozen.get(name) == version, (constraints.name, name, version)
            else:
                assert name not in frozen, (constraints.name, name)
