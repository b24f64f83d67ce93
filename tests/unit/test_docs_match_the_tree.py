"""The docs name only what exists: the collection README lists every role and playbook, with the
role's own short description; every repository path a doc names in backticks, and every relative
link, resolves; the README leads to the day-2 runbook and the drift report."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from project_paths import COLLECTION, REPO

DOCS = sorted([*REPO.glob("docs/**/*.md"), REPO / "README.md", COLLECTION / "README.md"])
ROLES = sorted(path.name for path in (COLLECTION / "roles").iterdir() if (path / "meta" / "argument_specs.yml").exists())
PLAYBOOKS = sorted(path.stem for path in (COLLECTION / "playbooks").glob("*.yml"))
# Paths that docs name in another project's tree, or as a site's own file: they cannot exist here.
ELSEWHERE = {
    "playbooks/ansible_version.yml": "Kubespray's Ansible version gate",
    "playbooks/k8s-cluster.yml": "DeepOps' cluster playbook",
    "scripts/setup.sh": "DeepOps' control-node setup",
    "docs/operations/upgrades.md": "Kubespray's upgrade guide",
    "roles/requirements.yml": "DeepOps' Galaxy requirements",
    "plugins/cliconf/nxos.py": "cisco.nxos's cliconf plugin",
    "inventories/mysite/files/ontap-ca.pem": "an example of a site's own file",
}
# Backticked text is a path of this tree when it starts at one of these top-level names.
TOP_LEVEL = {path.name for path in REPO.iterdir()} | {path.name for path in COLLECTION.iterdir()}
# Made by runs (the top-level entries of .gitignore): docs describe what appears there, and a fresh
# clone has none of them.
NOT_IN_GIT = {line.strip("/") for line in (REPO / ".gitignore").read_text().splitlines()
              if line.startswith("/") and line.count("/") <= 2}
BACKTICKED = re.compile(r"`([A-Za-z0-9_.\-/]+)`")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def resolves(text: str) -> bool:
    """In the project, in the collection, or role-relative (`meta/argument_specs.yml` of a role)."""
    text = text.rstrip("/")
    return any((base / text).exists()
               for base in (REPO, COLLECTION, *(COLLECTION / "roles" / role for role in ROLES)))


def named_paths(doc: Path) -> list[str]:
    paths = []
    for match in BACKTICKED.finditer(doc.read_text()):
        text = match.group(1)
        top = text.split("/")[0]
        if "/" in text and top in TOP_LEVEL and top not in NOT_IN_GIT:
            paths.append(text)
    return paths


@pytest.mark.parametrize("doc", DOCS, ids=lambda path: str(path.relative_to(REPO)))
def test_every_path_a_doc_names_exists(doc):
    missing = sorted({path for path in named_paths(doc) if not resolves(path) and path not in ELSEWHERE})
    assert not missing, f"{doc.relative_to(REPO)} names paths that do not exist: {missing}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda path: str(path.relative_to(REPO)))
def test_every_relative_link_resolves(doc):
    links = [link for link in LINK.findall(doc.read_text()) if "://" not in link and not link.startswith("mailto:")]
    missing = sorted({link for link in links if not (doc.parent / link).exists()})
    assert not missing, f"{doc.relative_to(REPO)} links to nothing: {missing}"


def test_the_paths_named_elsewhere_are_still_named():
    """An entry of ELSEWHERE that no doc names any more is dropped, so the list stays short."""
    named = {path for doc in DOCS for path in named_paths(doc)}
    assert set(ELSEWHERE) <= named, sorted(set(ELSEWHERE) - named)


def test_the_collection_readme_lists_every_role_with_its_own_description():
    readme = (COLLECTION / "README.md").read_text()
    rows = dict(re.findall(r"^\| `ontap_ai\.pod\.(\w+)` \| (.+?) \|$", readme, re.M))
    assert sorted(rows) == ROLES
    for role in ROLES:
        specs = yaml.safe_load((COLLECTION / "roles" / role / "meta" / "argument_specs.yml").read_text())
        assert rows[role] == specs["argument_specs"]["main"]["short_description"], role


def test_the_collection_readme_lists_every_playbook():
    readme = (COLLECTION / "README.md").read_text()
    section = readme.split("## Playbooks", 1)[1].split("\n## ", 1)[0]
    assert sorted(re.findall(r"`ontap_ai\.pod\.(\w+)`", section)) == PLAYBOOKS


@pytest.mark.parametrize("target", ["docs/day2.md", "docs/day2.md#check-for-drift-nightly"])
def test_the_readme_leads_to_the_day2_runbook_and_the_drift_report(target):
    assert f"]({target})" in (REPO / "README.md").read_text()
