"""The lab's Kubernetes modules (lab/kubernetes/modules/v<version>/): what lab/kubernetes/build relies on.

k8s.io/kubernetes names its staging modules at v0.0.0 in its own go.mod; the proxy serves them
only at v0.<minor>.<patch>. A module that requires one release and maps the staging modules to
another builds a server whose parts disagree, or fails in the middle of a long build.
"""
from __future__ import annotations

import re

import pytest
from project_paths import REPO

MODULES = REPO / "lab" / "kubernetes" / "modules"
VERSIONS = sorted(path.name for path in MODULES.glob("v*") if (path / "go.mod").is_file())
ETCD_MODULES = sorted(MODULES.glob("etcd-v*"))
COMMANDS = ("kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl")


def test_there_is_a_module_for_a_current_kubernetes():
    assert any(tuple(int(part) for part in version.lstrip("v").split(".")[:2]) >= (1, 34) for version in VERSIONS), VERSIONS


@pytest.mark.parametrize("version", VERSIONS)
def test_the_module_requires_its_release_and_maps_every_staging_module_to_it(version):
    text = (MODULES / version / "go.mod").read_text()
    major, minor, patch = version.lstrip("v").split(".")
    assert re.search(rf"^require k8s\.io/kubernetes {re.escape(version)}$", text, re.MULTILINE), "the release is not required"
    replaces = dict(re.findall(r"^replace (k8s\.io/\S+) => \1 (\S+)$", text, re.MULTILINE))
    assert len(replaces) >= 30, f"only {len(replaces)} staging modules are mapped"
    wrong = {name: to for name, to in replaces.items() if to != f"v0.{minor}.{patch}"}
    assert not wrong, f"staging modules mapped to another release than v0.{minor}.{patch}: {wrong}"
    for required in ("k8s.io/api", "k8s.io/apiserver", "k8s.io/client-go", "k8s.io/kubectl", "k8s.io/kube-scheduler"):
        assert required in replaces, f"{required} is not mapped"


@pytest.mark.parametrize("version", VERSIONS)
def test_go_sum_pins_the_release_and_tools_go_names_what_the_build_builds(version):
    go_sum = (MODULES / version / "go.sum").read_text()
    assert f"k8s.io/kubernetes {version} h1:" in go_sum
    assert f"k8s.io/api v0.{version.split('.')[1]}.{version.split('.')[2]} h1:" in go_sum
    tools = (MODULES / version / "tools.go").read_text()
    build = (REPO / "lab" / "kubernetes" / "build").read_text()
    for command in COMMANDS:
        assert f'"k8s.io/kubernetes/cmd/{command}"' in tools
        assert f"k8s.io/kubernetes/cmd/{command}" in build


def test_the_etcd_module_the_build_names_requires_its_release():
    """The build picks etcd's module by ETCD_VERSION; its go.mod requires etcd's server module at that release."""
    build = (REPO / "lab" / "kubernetes" / "build").read_text()
    (version,) = re.findall(r"^ETCD_VERSION=(\S+)$", build, re.MULTILINE)
    assert [path.name for path in ETCD_MODULES] == [f"etcd-v{version}"]
    text = (ETCD_MODULES[0] / "go.mod").read_text()
    assert re.search(rf"^\s+go\.etcd\.io/etcd/server/v3 v{re.escape(version)}$", text, re.MULTILINE), "etcd's server is not required"
    assert f"go.etcd.io/etcd/server/v3 v{version} h1:" in (ETCD_MODULES[0] / "go.sum").read_text()
