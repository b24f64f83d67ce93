"""The chart arguments both Helm layers (the GPU Operator, kube-prometheus-stack) give
kubernetes.core.helm: a repository chart, an oci:// chart, and a chart archive beside the inventory."""
from __future__ import annotations

import pytest

from ansible_collections.ontap_ai.pod.plugins.filter.aipod_kubernetes import aipod_helm_chart_arguments
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.helm import chart_arguments

CHART = {"name": "gpu-operator", "version": "v26.7.0", "repo": "https://helm.ngc.nvidia.com/nvidia", "file": None}


def test_a_repository_chart_is_named_with_its_repository_and_version():
    assert chart_arguments(CHART, None) == {"chart_ref": "gpu-operator", "chart_repo_url": "https://helm.ngc.nvidia.com/nvidia",
                                            "chart_version": "v26.7.0"}


def test_an_oci_repository_is_part_of_the_reference():
    chart = dict(CHART, repo="oci://registry.example.net/charts/")
    assert chart_arguments(chart, None) == {"chart_ref": "oci://registry.example.net/charts/gpu-operator", "chart_repo_url": None,
                                            "chart_version": "v26.7.0"}


def test_a_chart_archive_beside_the_inventory_replaces_repository_and_version(tmp_path):
    archive = tmp_path / "charts" / "gpu-operator-v26.7.0.tgz"
    archive.parent.mkdir()
    archive.write_bytes(b"archive")
    chart = dict(CHART, file="charts/gpu-operator-v26.7.0.tgz")
    assert aipod_helm_chart_arguments(chart, str(tmp_path)) == {"chart_ref": str(archive), "chart_repo_url": None,
                                                                "chart_version": None}


def test_anything_but_a_plans_chart_is_refused():
    with pytest.raises(Exception, match="expected a plan's chart"):
        aipod_helm_chart_arguments({"version": "1"}, "/tmp")
