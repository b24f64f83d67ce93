"""Fixtures of the GPU layer's lab tests (test_gpu_operator.py in CI, test_gpu_smoke_job.py as a release
check): a fresh lab API server, and a copy of inventories/lab with NVIDIA's GPU Operator chart on."""
from __future__ import annotations

import subprocess

import pytest
import yaml
from kubernetes_helpers import KUBECONFIG, REPO, lab, lab_site_copy


@pytest.fixture(scope="module")
def gpu_cluster():
    """A fresh lab API server, stopped afterwards (or started fresh again when it was running): the
    GPU Operator's objects must not reach the next whole-site run."""
    was_running = lab("status", "kubernetes").returncode == 0
    ontap_was_running = lab("status", "ontap").returncode == 0
    assert lab("start", "ontap").returncode == 0  # validation reads the ONTAP endpoint's CA
    assert lab("stop", "kubernetes").returncode == 0
    started = lab("start", "kubernetes")
    assert started.returncode == 0, started.stdout + started.stderr
    from kubernetes import client, config

    api = config.new_client_from_config(str(KUBECONFIG))
    yield {"core": client.CoreV1Api(api), "custom": client.CustomObjectsApi(api), "apps": client.AppsV1Api(api),
           "batch": client.BatchV1Api(api)}
    subprocess.run([str(REPO / "lab" / "kubernetes" / "gpu-operator"), "stop"], check=False)
    assert lab("stop", "kubernetes").returncode == 0
    if was_running:
        assert lab("start", "kubernetes").returncode == 0
    if not ontap_was_running:
        lab("stop", "ontap")


@pytest.fixture(scope="module")
def gpu_site(tmp_path_factory, gpu_cluster):
    """A copy of inventories/lab with the GPU Operator on, from the chart archive the lab packages."""
    made = subprocess.run([str(REPO / "lab" / "kubernetes" / "gpu-operator-chart")], capture_output=True, text=True, timeout=900)
    assert made.returncode == 0, made.stdout + made.stderr
    chart = made.stdout.strip().splitlines()[-1]
    root = tmp_path_factory.mktemp("site")
    inventory = lab_site_copy(root)
    gpu = {"operator": {"enabled": True, "chart_file": chart, "chart_version": "v1.0.0-devel"},
           "mig": {"strategy": "mixed", "layouts": {"dgx01": "all-1g.5gb"}}}
    (inventory / "group_vars" / "all" / "gpu.yml").write_text(yaml.safe_dump({"gpu": gpu}))
    return {"inventory": inventory, "tmp": root}
