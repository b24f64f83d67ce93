"""The pinned toolchain: the installed collections satisfy requirements.yml (Galaxy is not used here)."""
from __future__ import annotations

import importlib.util
import json
import pathlib
import re

import yaml
from ansible.module_utils.compat.version import LooseVersion
from ansible.release import __version__ as ansible_core_version
from project_paths import REPO


def installed_collection_version(name: str) -> str:
    namespace, collection = name.split(".")
    spec = importlib.util.find_spec(f"ansible_collections.{namespace}.{collection}")
    assert spec and spec.submodule_search_locations, f"collection {name} is not installed"
    manifest = pathlib.Path(list(spec.submodule_search_locations)[0]) / "MANIFEST.json"
    return json.loads(manifest.read_text())["collection_info"]["version"]


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


def test_ansible_core_is_the_pinned_2_19():
    pins = dict(line.split("==") for line in (REPO / "requirements.txt").read_text().splitlines()
                if "==" in line and not line.startswith("#"))
    assert pins["ansible"] == "12.3.0"
    assert ansible_core_version == pins["ansible-core"] and ansible_core_version.startswith("2.19.")
