"""The GPU layer against the lab's Kubernetes: NVIDIA's GPU Operator chart installed with the DGX OS
values, each DGX's MIG layout set, a second run changing nothing, and the operator's own controller
reconciling the ClusterPolicy the chart declares, which the verification then judges.

The chart is NVIDIA's own, packaged from the gpu-operator Go module (lab/kubernetes/gpu-operator-chart),
and the controller is built from the same module (lab/kubernetes/gpu-operator), since neither NVIDIA's
chart repository nor its registry can be reached here. KWOK plays the kubelets, so pods are scheduled
and reported Running without a container; nothing here needs a GPU. The fixtures are in conftest.py;
the opt-in smoke test is a release check (test_gpu_smoke_job.py).
"""
from __future__ import annotations

import json
import subprocess
import time

import pytest
import yaml
from kubernetes_helpers import KUBECONFIG, LAB_KUBERNETES, REPO, recap, run_playbook

pytestmark = [pytest.mark.lab, pytest.mark.slow]
HELM = LAB_KUBERNETES / "bin" / "helm"
DGX_WORKERS = {"dgx01", "dgx02", "dgx03", "dgx04"}


def kubernetes_layer(gpu_site, *extra, check=True):
    return run_playbook(gpu_site["tmp"], "-i", str(gpu_site["inventory"] / "hosts.yml"), "playbooks/kubernetes.yml",
                        "-e", f"kubernetes_gpu_helm_binary={HELM}", *extra, check=check)


def release() -> dict:
    listed = subprocess.run([str(HELM), "list", "-n", "gpu-operator", "-o", "json", "--kubeconfig", str(KUBECONFIG)],
                            capture_output=True, text=True, check=True)
    return {entry["name"]: entry for entry in json.loads(listed.stdout)}.get("gpu-operator", {})


def test_the_operator_is_installed_the_dgx_os_way_and_a_second_run_changes_nothing(gpu_site, gpu_cluster):
    first = kubernetes_layer(gpu_site)
    assert recap(first.stdout)["changed"] > 0
    installed = release()
    assert (installed.get("status"), installed.get("chart")) == ("deployed", "gpu-operator-v1.0.0-devel")
    values = json.loads(subprocess.run([str(HELM), "get", "values", "gpu-operator", "-n", "gpu-operator", "-o", "json",
                                        "--kubeconfig", str(KUBECONFIG)], capture_output=True, text=True, check=True).stdout)
    assert (values["driver"], values["toolkit"], values["dcgm"], values["cdi"]) == (
        {"enabled": False}, {"enabled": False}, {"enabled": False}, {"enabled": True})
    # The chart's ClusterPolicy carries the same choices to the operator.
    policy = gpu_cluster["custom"].get_cluster_custom_object("nvidia.com", "v1", "clusterpolicies", "cluster-policy")
    assert (policy["spec"]["driver"]["enabled"], policy["spec"]["toolkit"]["enabled"]) == (False, False)
    assert policy["spec"]["mig"]["strategy"] == "mixed"
    # The chart's pods (the operator, node feature discovery) run on the DGX node stand-ins only.
    pods = gpu_cluster["core"].list_namespaced_pod("gpu-operator").items
    assert pods and {pod.spec.node_name for pod in pods} <= DGX_WORKERS, [(p.metadata.name, p.spec.node_name) for p in pods]
    assert all(pod.status.phase == "Running" for pod in pods)
    nodes = {node.metadata.name: node.metadata.labels for node in gpu_cluster["core"].list_node().items}
    assert nodes["dgx01"].get("nvidia.com/mig.config") == "all-1g.5gb"
    assert "nvidia.com/mig.config" not in nodes["dgx02"]

    second = kubernetes_layer(gpu_site)
    assert recap(second.stdout)["changed"] == 0, second.stdout[-3000:]
    assert "Nothing differs from the model" in second.stdout


def test_a_layout_changed_by_hand_is_previewed_then_put_back(gpu_site, gpu_cluster):
    gpu_cluster["core"].patch_node("dgx01", {"metadata": {"labels": {"nvidia.com/mig.config": "all-disabled"}}})
    preview = kubernetes_layer(gpu_site, "--check", "--diff")
    assert "node dgx01: nvidia.com/mig.config is all-disabled, the model says all-1g.5gb" in preview.stdout, preview.stdout[-3000:]
    assert gpu_cluster["core"].read_node("dgx01").metadata.labels["nvidia.com/mig.config"] == "all-disabled"
    kubernetes_layer(gpu_site)
    assert gpu_cluster["core"].read_node("dgx01").metadata.labels["nvidia.com/mig.config"] == "all-1g.5gb"


def test_new_values_upgrade_the_release(gpu_site, gpu_cluster):
    path = gpu_site["inventory"] / "group_vars" / "all" / "gpu.yml"
    data = yaml.safe_load(path.read_text())
    data["gpu"]["dcgm_exporter"] = False
    path.write_text(yaml.safe_dump(data))
    revision = release()["revision"]
    changed = kubernetes_layer(gpu_site)
    assert recap(changed.stdout)["changed"] > 0
    assert int(release()["revision"]) == int(revision) + 1
    policy = gpu_cluster["custom"].get_cluster_custom_object("nvidia.com", "v1", "clusterpolicies", "cluster-policy")
    assert policy["spec"]["dcgmExporter"]["enabled"] is False
    assert recap(kubernetes_layer(gpu_site).stdout)["changed"] == 0


def test_the_operators_controller_reconciles_the_policy_and_verification_judges_it(gpu_site, gpu_cluster, tmp_path):
    """The controller NVIDIA's image runs, against what the layer installed: it labels the GPU nodes (the
    stand-ins carry node feature discovery's NVIDIA PCI label) and deploys its operands there; with the
    driver and toolkit left to DGX OS it deploys neither."""
    started = subprocess.run([str(REPO / "lab" / "kubernetes" / "gpu-operator"), "start"], capture_output=True, text=True, timeout=1200)
    assert started.returncode == 0, started.stdout + started.stderr
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:  # the operator reconciles in a few tens of seconds
        policy = gpu_cluster["custom"].get_cluster_custom_object("nvidia.com", "v1", "clusterpolicies", "cluster-policy")
        if policy.get("status", {}).get("state") == "ready":
            break
        time.sleep(3)
    report = tmp_path / "kubernetes-verify.json"
    result = run_playbook(gpu_site["tmp"], "-i", str(gpu_site["inventory"] / "hosts.yml"), "playbooks/verify_kubernetes.yml",
                          "-e", f"verify_kubernetes_report={report}",
                          # This site's data sets have no claims (the Trident layer did not run): do not wait for them.
                          "-e", "verify_kubernetes_claim_timeout=2", check=False)
    checks = {c["name"]: c for c in json.loads(report.read_text())["checks"]}
    assert checks["gpu_operator_ready"] == {"name": "gpu_operator_ready", "status": "pass", "detail": "ClusterPolicy ready"}, \
        result.stdout[-3000:]
    assert checks["gpu_operands_on_dgx"]["status"] == "pass", checks["gpu_operands_on_dgx"]
    daemonsets = {ds.metadata.name: ds for ds in gpu_cluster["apps"].list_namespaced_daemon_set("gpu-operator").items}
    assert {"nvidia-device-plugin-daemonset", "nvidia-operator-validator", "gpu-feature-discovery"} <= set(daemonsets)
    # DGX OS brings the driver and the toolkit: the operator deploys neither.
    assert not [name for name in daemonsets if "driver" in name or "container-toolkit" in name]
    # The DCGM exporter reads the host's DCGM over localhost, so the operator gives it the host network.
    assert daemonsets.get("nvidia-dcgm-exporter") is None or daemonsets["nvidia-dcgm-exporter"].spec.template.spec.host_network is True
    labels = gpu_cluster["core"].read_node("dgx02").metadata.labels
    assert labels.get("nvidia.com/gpu.deploy.device-plugin") == "true"
