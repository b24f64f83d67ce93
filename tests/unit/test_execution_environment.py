"""The execution environment (execution-environment.yml) installs the tested toolchain, and only what runs at playbook time.

requirements-ee.txt is the closure of requirements.txt's runtime packages, every pin equal to
constraints.txt's; the collections are requirements.yml's exact pins and cover every collection the
bundle's YAML names; bindep.txt's Debian entries are what scripts/bootstrap.sh installs;
ansible-builder (a pinned test tool) renders the build context from the file, offline.
"""
from __future__ import annotations

import importlib.metadata
import pathlib
import re
import subprocess
import sys

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from project_paths import COLLECTION, REPO

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?==(\S+)$")
TEST_TOOLS_HEADING = "# Tests and linters"


def read_pins(path: pathlib.Path, stop_at: str | None = None) -> dict[str, str]:
    """canonical name -> version of every requirement line; every one must be an exact pin."""
    pins: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if stop_at is not None and line.strip() == stop_at:
            break
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = PIN.match(line)
        assert match, f"{path.name}: '{line}' is not an exact pin (name==version)"
        pins[canonicalize_name(match.group(1))] = match.group(3)
    return pins


def ee_definition() -> dict:
    return yaml.safe_load((REPO / "execution-environment.yml").read_text())


def runtime_packages() -> dict[str, str]:
    """requirements.txt above its test-tools section, without the `ansible` collection bundle."""
    text = (REPO / "requirements.txt").read_text()
    assert TEST_TOOLS_HEADING in text.splitlines(), f"requirements.txt lost its '{TEST_TOOLS_HEADING}' section"
    pins = read_pins(REPO / "requirements.txt", stop_at=TEST_TOOLS_HEADING)
    pins.pop("ansible")
    return pins


def closure(names: list[str]) -> set[str]:
    """The installed distributions these need (markers evaluated without extras)."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = canonicalize_name(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        for line in importlib.metadata.distribution(name).requires or []:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return seen


def test_definition_uses_the_repository_files_with_schema_3():
    definition = ee_definition()
    assert definition["version"] == 3
    assert definition["images"]["base_image"]["name"]
    dependencies = definition["dependencies"]
    assert (dependencies["python"], dependencies["galaxy"], dependencies["system"]) == ("requirements-ee.txt", "requirements.yml", "bindep.txt")
    core = read_pins(REPO / "requirements.txt")["ansible-core"]
    assert dependencies["ansible_core"]["package_pip"] == f"ansible-core=={core}"
    assert re.fullmatch(r"ansible-runner==[0-9.]+", dependencies["ansible_runner"]["package_pip"])
    for entry in definition.get("additional_build_files", []):
        assert (REPO / entry["src"]).is_file(), f"additional_build_files names a missing {entry['src']}"


def test_ee_requirements_are_the_runtime_closure_pinned_as_constraints():
    ee = read_pins(REPO / "requirements-ee.txt")
    constraints = read_pins(REPO / "constraints.txt")
    runtime = runtime_packages()
    assert runtime and set(runtime) <= set(ee), f"runtime packages missing from requirements-ee.txt: {set(runtime) - set(ee)}"
    wrong = {name: (version, constraints.get(name)) for name, version in ee.items() if constraints.get(name) != version}
    assert not wrong, f"requirements-ee.txt pins that differ from constraints.txt (ee, constraints): {wrong}"
    needed = closure(list(runtime))
    assert set(ee) == needed, f"missing: {sorted(needed - set(ee))}; not needed at run time: {sorted(set(ee) - needed)}"


def test_no_test_tool_reaches_the_execution_environment():
    tools = set(read_pins(REPO / "requirements.txt")) - set(read_pins(REPO / "requirements.txt", stop_at=TEST_TOOLS_HEADING))
    assert {"pytest", "molecule", "ansible-lint", "yamllint"} <= tools
    assert not tools & set(read_pins(REPO / "requirements-ee.txt"))
    assert "ansible" not in read_pins(REPO / "requirements-ee.txt")


def test_closure_check_can_fail():
    assert "markupsafe" in closure(["jinja2"]) and "pytest" not in closure(["jinja2"])


def test_collections_are_bounded():
    for entry in yaml.safe_load((REPO / "requirements.yml").read_text())["collections"]:
        assert re.fullmatch(r">=[0-9.]+,<[0-9.]+", str(entry["version"])), f"{entry['name']}: {entry['version']} has no lower and upper bound"


FQCN_KEY = re.compile(r"^\s*(?:- )?([a-z][a-z0-9_]*)\.([a-z][a-z0-9_]*)\.[a-z][a-z0-9_]*:", re.M)
FQCN_JINJA = re.compile(r"(?:lookup\(\s*['\"]|query\(\s*['\"]|\|\s*|group/|\bis\s+)([a-z][a-z0-9_]*)\.([a-z][a-z0-9_]*)\.[a-z][a-z0-9_]*\b")


def used_collections() -> dict[str, str]:
    """Collections named by the bundle's roles and playbooks (module keys, module_defaults groups, lookups, filters)."""
    found: dict[str, str] = {}
    tasks = [*COLLECTION.glob("roles/*/tasks/*.yml"), *COLLECTION.glob("roles/*/handlers/*.yml"), *COLLECTION.glob("playbooks/**/*.yml")]
    for path in sorted([*tasks, *COLLECTION.glob("roles/*/defaults/*.yml"), *COLLECTION.glob("roles/*/templates/*")]):
        text = path.read_text()
        # Module keys only where tasks are (defaults hold data keys such as sysctl names).
        for match in [*(FQCN_KEY.finditer(text) if path in tasks else []), *FQCN_JINJA.finditer(text)]:
            found.setdefault(f"{match.group(1)}.{match.group(2)}", str(path.relative_to(REPO)))
    return found


def test_every_collection_the_bundle_uses_is_in_requirements_yml():
    """The EE gets requirements.yml's collections only (not the `ansible` bundle), so nothing may be missing."""
    listed = {entry["name"] for entry in yaml.safe_load((REPO / "requirements.yml").read_text())["collections"]}
    used = used_collections()
    assert {"netapp.ontap", "kubernetes.core", "cisco.nxos"} <= set(used), used
    missing = {name: where for name, where in used.items() if name not in listed and not name.startswith("ansible.builtin")
               and name not in ("ansible.legacy", "ontap_ai.pod")}
    assert not missing, f"collections used but not in requirements.yml: {missing}"


def bindep_entries() -> list[tuple[str, str]]:
    entries = []
    for line in (REPO / "bindep.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            match = re.fullmatch(r"([a-z0-9][a-z0-9.+-]*)(?:\s+\[([^\]]+)\])?", line)
            assert match, f"bindep.txt: unreadable line '{line}'"
            entries.append((match.group(1), match.group(2) or ""))
    return entries


def test_bindep_covers_the_control_node_tools_and_matches_debian_packages():
    entries = bindep_entries()
    rpm = {name for name, profile in entries if profile in ("", "platform:rpm")}
    dpkg = {name for name, profile in entries if profile in ("", "platform:dpkg")}
    assert {"openssh-clients", "git", "tar", "graphviz"} <= rpm
    debian = {line.split("#", 1)[0].strip() for line in (REPO / "scripts" / "debian-packages.txt").read_text().splitlines()} - {""}
    assert dpkg <= debian, f"bindep.txt's Debian packages that scripts/debian-packages.txt does not install: {dpkg - debian}"


@pytest.fixture(scope="module")
def build_context(tmp_path_factory) -> pathlib.Path:
    context = tmp_path_factory.mktemp("ee") / "context"
    builder = pathlib.Path(sys.executable).parent / "ansible-builder"
    # A Containerfile whether or not podman is on this machine (builder writes a Dockerfile without it).
    subprocess.run([str(builder), "create", "-f", str(REPO / "execution-environment.yml"), "-c", str(context), "--output-filename", "Containerfile"],
                   cwd=REPO, check=True, capture_output=True, text=True, timeout=120)
    return context


def test_ansible_builder_renders_the_build_context(build_context):
    containerfile = (build_context / "Containerfile").read_text()
    base = ee_definition()["images"]["base_image"]["name"]
    assert f'ARG EE_BASE_IMAGE="{base}"' in containerfile
    core = read_pins(REPO / "requirements.txt")["ansible-core"]
    assert f"ansible-core=={core}" in containerfile
    assert (build_context / "_build" / "requirements.txt").read_text() == (REPO / "requirements-ee.txt").read_text()
    assert (build_context / "_build" / "requirements.yml").read_text() == (REPO / "requirements.yml").read_text()
    assert (build_context / "_build" / "bindep.txt").read_text() == (REPO / "bindep.txt").read_text()
    assert (build_context / "_build" / "exclude-collections.txt").read_text().split() == ["netapp.ontap"]
    assert (build_context / "_build" / "scripts" / "ee-install-helm.sh").is_file()
    assert "ARG HELM_BASE_URL=" in containerfile and "ee-install-helm.sh" in containerfile
    assert "/usr/share/ansible/collections/ansible_collections" in containerfile  # linked into site-packages
