"""The bundle is the collection ontap_ai.pod: it builds, installs without Galaxy, and documents and
runs every plugin and playbook from the installed copy, outside this repository."""
from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
import tarfile

import pytest
import yaml
from project_paths import COLLECTION, REPO

BIN = pathlib.Path(sys.executable).parent
NAMESPACE, NAME = "ontap_ai", "pod"
PLUGIN_DIRECTORIES = ("modules", "filter", "action", "callback", "strategy", "module_utils")


def plugin_names(kind: str) -> list[str]:
    """Names of the collection's plugins of one kind, from its files (filters from their doc files)."""
    directory = COLLECTION / "plugins" / kind
    suffix = ".yml" if kind == "filter" else ".py"
    return sorted(path.stem for path in directory.glob(f"*{suffix}") if not path.name.startswith("_"))


def outside_the_repository(work: pathlib.Path, collections: pathlib.Path) -> dict:
    """subprocess.run arguments of a user of the installed collection: no project ansible.cfg, no ANSIBLE_* setting."""
    config = work / "ansible.cfg"
    config.write_text("[defaults]\n")
    environment = {key: value for key, value in os.environ.items() if not key.startswith("ANSIBLE_")}
    environment.update(ANSIBLE_COLLECTIONS_PATH=str(collections), ANSIBLE_CONFIG=str(config), PATH=f"{BIN}:{os.environ['PATH']}")
    return {"env": environment, "cwd": work, "capture_output": True, "text": True, "check": False}


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    """The collection built into a tarball and installed into a fresh path with its dependencies taken
    from what is already installed (no Galaxy); returns the subprocess.run arguments of a user of that copy."""
    work = tmp_path_factory.mktemp("collection")
    target = work / "installed"
    user = outside_the_repository(work, target)
    build = subprocess.run([str(BIN / "ansible-galaxy"), "collection", "build", "--output-path", str(work), str(COLLECTION)], **user)
    assert build.returncode == 0, build.stdout + build.stderr
    version = yaml.safe_load((COLLECTION / "galaxy.yml").read_text())["version"]
    tarball = work / f"{NAMESPACE}-{NAME}-{version}.tar.gz"
    assert tarball.is_file(), list(work.iterdir())
    with tarfile.open(tarball) as archive:
        members = archive.getnames()
    assert not [member for member in members if "__pycache__" in member or member.startswith("tests/output")]
    for needed in ("meta/runtime.yml", "playbooks/site.yml", "playbooks/layers/compute.yml", "roles/dgx_node/meta/argument_specs.yml",
                   "plugins/plugin_utils/aipod_site/model.py", "schemas/site.schema.json"):
        assert needed in members, needed
    install = subprocess.run([str(BIN / "ansible-galaxy"), "collection", "install", "--offline", "-p", str(target), str(tarball)], **user)
    assert install.returncode == 0, install.stdout + install.stderr
    assert (target / "ansible_collections" / NAMESPACE / NAME / "MANIFEST.json").is_file(), install.stdout
    return user


@pytest.mark.parametrize("kind", ["module", "filter", "callback", "strategy"])
def test_every_plugin_is_documented_from_the_installed_collection(installed, kind):
    directory = {"module": "modules"}.get(kind, kind)
    names = [f"{NAMESPACE}.{NAME}.{name}" for name in plugin_names(directory)]
    assert names, kind
    result = subprocess.run([str(BIN / "ansible-doc"), "-t", kind, "--json", *names], **installed)
    assert result.returncode == 0 and "WARNING" not in result.stderr, result.stderr
    docs = json.loads(result.stdout)
    assert sorted(docs) == sorted(names)
    for name in names:
        assert docs[name]["doc"]["short_description"], name
        assert installed["env"]["ANSIBLE_COLLECTIONS_PATH"] in docs[name]["doc"]["filename"], (name, docs[name]["doc"]["filename"])
        if kind in ("module", "filter"):
            assert docs[name]["examples"] and docs[name]["return"], name


def test_every_playbook_is_callable_by_its_fully_qualified_name(installed):
    playbooks = sorted(path.stem for path in (COLLECTION / "playbooks").glob("*.yml"))
    assert {"site", "validate", "switches", "storage", "compute", "kubernetes", "trident", "verify"} <= set(playbooks)
    result = subprocess.run([str(BIN / "ansible-playbook"), "--syntax-check", "-i", "localhost,",
                             *[f"{NAMESPACE}.{NAME}.{name}" for name in playbooks]], **installed)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def test_every_role_is_found_by_its_fully_qualified_name(installed):
    roles = [f"{NAMESPACE}.{NAME}.{path.name}" for path in sorted((COLLECTION / "roles").iterdir()) if path.is_dir()]
    result = subprocess.run([str(BIN / "ansible-doc"), "-t", "role", "--json", *roles], **installed)
    # ansible-core 2.21's ansible-doc warns about its own internal collection on every role lookup
    # (docs/support-matrix.md, "Warnings that are not ours"); any other warning fails.
    warnings = [line for line in result.stderr.splitlines()
                if "WARNING" in line and "/ansible/_internal/ansible_collections/ansible/_protomatter'" not in line]
    assert result.returncode == 0 and not warnings, result.stderr
    docs = json.loads(result.stdout)
    assert sorted(docs) == sorted(roles)
    for role in roles:
        assert docs[role]["entry_points"]["main"]["short_description"], role


def test_the_project_entry_points_import_the_collection_playbooks():
    wrappers = sorted((REPO / "playbooks").glob("*.yml"))
    assert sorted(path.stem for path in wrappers) == sorted(path.stem for path in (COLLECTION / "playbooks").glob("*.yml"))
    for path in wrappers:
        plays = yaml.safe_load(path.read_text())
        assert [play.get("ansible.builtin.import_playbook") for play in plays] == [f"{NAMESPACE}.{NAME}.{path.stem}"], path


def test_the_entry_points_find_the_collection_whatever_collections_path_says():
    """AWX sets ANSIBLE_COLLECTIONS_PATH for its jobs; the collections directory beside the playbooks still holds ontap_ai.pod."""
    environment = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_COLLECTIONS_PATH="/nonexistent")
    result = subprocess.run([str(BIN / "ansible-playbook"), "--syntax-check", "-i", str(REPO / "inventories" / "sample"), "playbooks/site.yml"],
                            cwd=REPO, env=environment, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr[-3000:]


def test_no_plugin_changes_the_import_path():
    offenders = [f"{path.relative_to(COLLECTION)}:{number}" for path in (COLLECTION / "plugins").rglob("*.py")
                 for number, line in enumerate(path.read_text().splitlines(), 1) if re.search(r"\bsys\.path\b", line)]
    assert not offenders, offenders


def test_playbooks_and_roles_call_the_collection_plugins_by_fqcn():
    """A short name would resolve as ansible.legacy.* outside this project, or not at all."""
    modules = plugin_names("modules")
    filters = plugin_names("filter")
    roles = [path.name for path in (COLLECTION / "roles").iterdir() if path.is_dir()]
    short = re.compile(r"^\s*(?:- )?(?:%s):" % "|".join(modules), re.M)
    short_filter = re.compile(r"\|\s*(?:%s)\b" % "|".join(filters))
    short_role = re.compile(r"(?:^\s*- role: |_role:\s*\n\s*name: )(?:%s)\s*$" % "|".join(roles), re.M)
    offenders = []
    for path in [*COLLECTION.glob("roles/*/tasks/*.yml"), *COLLECTION.glob("roles/*/handlers/*.yml"), *COLLECTION.glob("playbooks/**/*.yml"),
                 *REPO.glob("molecule/*/*.yml")]:
        text = path.read_text()
        for pattern in (short, short_filter, short_role):
            offenders += [f"{path.relative_to(REPO)}: {match.group(0).strip()}" for match in pattern.finditer(text)]
    assert not offenders, offenders


def test_requires_ansible_matches_the_oldest_supported_core():
    runtime = yaml.safe_load((COLLECTION / "meta" / "runtime.yml").read_text())
    assert runtime["requires_ansible"] == ">=2.20.0"
