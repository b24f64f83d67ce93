"""GPUs in Kubernetes (the model's gpu section): the GPU Operator's values follow NVIDIA's recipe for
DGX OS, Kubespray's variables keep the nvidia runtime, and the rules refuse a MIG layout a DGX's GPUs
cannot take, each at its file and line."""
from __future__ import annotations

import copy
import dataclasses

import pytest
from project_paths import SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes import gpu, verify
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.deepops import deepops_plan
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import check_model

SITE = load_site(str(SAMPLE), decrypt=make_decryptor(SAMPLE_VAULT_PASSWORD))


def model_with(gpu_section: dict | None = None, **dgx01) -> dict:
    model = copy.deepcopy(SITE.model)
    if gpu_section is not None:
        model["gpu"] = gpu_section
    model["hosts"]["dgx01"]["dgx"].update(dgx01)
    return model


def findings(model: dict, severity: str = "error") -> list[tuple[str, str, str, str]]:
    site = dataclasses.replace(SITE, model=model, findings=[])
    return [(f.rule, f.key_path(), f.message, f.location or "") for f in check_model(site, check_files=False)
            if f.severity == severity and f.key_path().startswith(("gpu", "hosts.dgx01.dgx.model"))]


def without_gpu_section() -> dict:
    model = copy.deepcopy(SITE.model)
    model.pop("gpu", None)
    return model


def test_the_operator_is_on_by_default_for_dgx_workers_with_the_dgx_os_recipe():
    plan = gpu.operator_plan(without_gpu_section())
    values = plan["values"]
    assert plan["enabled"] is True and plan["namespace"] == "gpu-operator"
    assert plan["chart"] == {"repo": "https://helm.ngc.nvidia.com/nvidia", "name": "gpu-operator",
                             "version": gpu.GPU_OPERATOR_CHART_VERSION, "file": None}
    # Driver, toolkit and DCGM are the host's; the exporter reads the host's DCGM over localhost.
    assert (values["driver"], values["toolkit"], values["dcgm"], values["cdi"]) == (
        {"enabled": False}, {"enabled": False}, {"enabled": False}, {"enabled": True})
    assert values["dcgmExporter"]["env"] == [{"name": "DCGM_REMOTE_HOSTENGINE_INFO", "value": "localhost:5555"}]
    assert values["mig"] == {"strategy": "single"}
    assert [node["host"] for node in plan["nodes"]] == ["dgx01", "dgx02", "dgx03", "dgx04"]
    assert all(node["gpus"] == 8 and node["mig_layout"] is None for node in plan["nodes"])


def test_kubespray_declares_the_nvidia_runtime_only_when_the_bundle_runs_the_operator():
    plan = deepops_plan(without_gpu_section())
    assert plan["gpu_operator"] is True
    runtime = plan["containerd"]["containerd_additional_runtimes"][0]
    assert (plan["containerd"]["containerd_default_runtime"], plan["containerd"]["enable_cdi"]) == ("nvidia", True)
    assert (runtime["name"], runtime["type"], runtime["options"]["BinaryName"]) == (
        "nvidia", "io.containerd.runc.v2", "/usr/bin/nvidia-container-runtime")
    off = deepops_plan(model_with({"operator": {"enabled": False}}))
    assert deepops_plan(SITE.model)["containerd"] == plan["containerd"]
    assert (off["gpu_operator"], off["containerd"]) == (False, {})


def test_the_sample_cuts_one_dgx_into_mig_slices():
    plan = gpu.operator_plan(SITE.model)
    assert plan["values"]["mig"] == {"strategy": "mixed"}
    assert {node["host"]: node["mig_layout"] for node in plan["nodes"]}["dgx04"] == "all-1g.5gb"


def test_a_mirror_serves_every_image_the_operator_runs():
    values = gpu.operator_values(model_with({"operator": {"image_registry": "mirror.example.com:5000/nvcr"}}))
    assert values["dcgmExporter"]["repository"] == "mirror.example.com:5000/nvcr/nvidia/k8s"
    assert values["validator"]["repository"] == "mirror.example.com:5000/nvcr/nvidia/cloud-native"
    assert {key for key in gpu.CHART_IMAGES if values[key]["repository"].startswith("mirror.example.com")} == set(gpu.CHART_IMAGES)


@pytest.mark.parametrize(("gpu_model", "dgx_model", "kind"), [
    ("NVIDIA A100-SXM4-40GB", "DGX A100", "A100-40GB"),
    ("NVIDIA A100-SXM4-80GB", "DGX A100", "A100-80GB"),
    (None, "DGX A100", "A100"),
    ("NVIDIA H100 80GB HBM3", "DGX H100", "H100"),
    (None, "DGX H200", "H200"),
    (None, "DGX B200", "B200"),
    (None, "DGX B300", "B300"),
    (None, "DGX-1", "V100"),
    (None, "a box", None),
])
def test_the_gpu_kind_comes_from_the_gpu_or_the_system(gpu_model, dgx_model, kind):
    gpus = {"count": 8, **({"model": gpu_model} if gpu_model else {})}
    assert gpu.gpu_kind({"model": dgx_model, "gpus": gpus}) == kind


@pytest.mark.parametrize(("kind", "layout", "refused"), [
    ("A100-40GB", "all-1g.5gb", False),
    ("A100-40GB", "all-1g.10gb", False),
    ("A100-40GB", "all-7g.80gb", True),
    ("A100-80GB", "all-7g.80gb", False),
    ("H100", "all-3g.40gb", False),
    ("H100", "all-1g.5gb", True),
    ("H200", "all-7g.141gb", False),
    ("B200", "all-2g.45gb", False),
    ("B200", "all-balanced", False),
    ("V100", "all-disabled", False),
    ("V100", "all-balanced", True),
    ("B300", "all-1g.36gb", False),  # not known to the bundle: a warning, not a refusal
])
def test_a_layout_is_refused_only_where_the_gpu_cannot_take_it(kind, layout, refused):
    assert bool(gpu.mig_layout_refusal(kind, layout)) is refused


def test_a_layout_the_gpus_cannot_take_is_refused_at_its_line():
    errors = findings(model_with({"mig": {"strategy": "mixed", "layouts": {"dgx01": "all-1g.18gb", "dgx02": "all-1g.10gb"}}},
                                 model="DGX H100", gpus={"count": 8, "model": "NVIDIA H100 80GB HBM3"}))
    assert [(rule, key) for rule, key, _message, _where in errors] == [("gpu", "gpu.mig.layouts.dgx01")]
    assert "H100 GPUs take the MIG layouts" in errors[0][2] and "all-1g.10gb" in errors[0][2]


def test_a_layout_for_a_host_that_is_no_dgx_worker_is_a_dangling_reference():
    errors = findings(model_with({"mig": {"layouts": {"k8s-cp01": "all-disabled", "dgx99": "all-disabled"}}}))
    assert sorted(key for _rule, key, _message, _where in errors) == ["gpu.mig.layouts.dgx99", "gpu.mig.layouts.k8s-cp01"]
    assert {rule for rule, *_rest in errors} == {"dangling-reference"}


def test_an_unknown_gpu_is_a_warning_and_the_schema_holds_the_layout_form():
    warnings = findings(model_with({"mig": {"layouts": {"dgx01": "all-1g.36gb"}}}, model="DGX B300",
                                   gpus={"count": 8}), "warning")
    assert [(rule, key) for rule, key, *_rest in warnings] == [("gpu", "gpu.mig.layouts.dgx01")]
    schema_errors = findings(model_with({"mig": {"strategy": "all", "layouts": {"dgx01": "1g.10gb; reboot"}}}))
    assert {key for _rule, key, *_rest in schema_errors} >= {"gpu.mig.strategy", "gpu.mig.layouts.dgx01"}


def test_two_chart_sources_are_refused():
    errors = findings(model_with({"operator": {"chart_repo": "https://helm.ngc.nvidia.com/nvidia",
                                               "chart_file": "files/gpu-operator-v26.7.0.tgz"}}))
    assert [(rule, key) for rule, key, *_rest in errors] == [("gpu", "gpu.operator.chart_file")]


def node(name: str, **labels) -> dict:
    return {"metadata": {"name": name, "labels": labels}}


def test_the_release_and_the_mig_labels_are_compared_as_pending_items():
    plan = gpu.operator_plan(SITE.model)
    nodes = [node("dgx01"), node("dgx04", **{"nvidia.com/mig.config": "all-1g.5gb"})]
    release = {"status": "deployed", "chart": "gpu-operator-v26.7.0", "release_values": plan["values"]}
    assert gpu.operator_pending(plan, release, nodes) == []
    assert [(i["field"], i["action"]) for i in gpu.operator_pending(plan, None, nodes)] == [(None, "create")]
    older = dict(release, chart="gpu-operator-v26.3.3", release_values={"driver": {"enabled": True}})
    assert [(i["field"], i["before"], i["action"]) for i in gpu.operator_pending(plan, older, nodes)][:1] == [
        ("chart", "gpu-operator-v26.3.3", "modify")]
    assert "values" in [i["field"] for i in gpu.operator_pending(plan, older, nodes)]
    stuck = gpu.operator_pending(plan, dict(release, status="pending-upgrade"), nodes)
    assert [(i["action"], i["field"]) for i in stuck] == [("refuse", "status")] and "helm rollback gpu-operator" in stuck[0]["reason"]
    relabelled = gpu.operator_pending(plan, release, [node("dgx04", **{"nvidia.com/mig.config": "all-disabled"})])
    assert [(i["object"], i["before"], i["after"]) for i in relabelled] == [("node dgx04", "all-disabled", "all-1g.5gb")]
    # A node not in the cluster yet cannot be labelled; a label the model does not name is not compared.
    assert [i["action"] for i in gpu.operator_pending(plan, release, [node("dgx01", **{"nvidia.com/mig.config": "x"})])] == ["refuse"]
    assert gpu.operator_pending(dict(plan, enabled=False), None, []) == []


def pod(name: str, node_name: str | None) -> dict:
    return {"metadata": {"name": name}, "spec": {"nodeName": node_name}}


def test_the_operator_passes_when_its_policy_is_ready_and_its_operands_run_on_the_dgx_only():
    plan = gpu.operator_plan(SITE.model)
    ready = [{"metadata": {"name": "cluster-policy"}, "status": {"state": "ready"}}]
    pods = [pod(f"nvidia-device-plugin-daemonset-{host}", host) for host in ("dgx01", "dgx02", "dgx03", "dgx04")] + [
        pod("gpu-operator-node-feature-discovery-worker-x", "k8s-cp01"), pod("gpu-feature-discovery-a", "dgx01")]
    checks = verify.judge_gpu_operator(plan, ready, pods)
    assert [(c["name"], c["status"]) for c in checks] == [("gpu_operator_ready", "pass"), ("gpu_operands_on_dgx", "pass")]
    failing = [{"status": {"state": "notReady", "conditions": [
        {"type": "Error", "status": "True", "message": "Failed to reconcile state-dcgm-exporter"}]}}]
    checks = verify.judge_gpu_operator(plan, failing, pods[1:] + [pod("nvidia-dcgm-exporter-q", "k8s-cp02")])
    assert checks[0] == {"name": "gpu_operator_ready", "status": "fail",
                         "detail": "ClusterPolicy notReady: Failed to reconcile state-dcgm-exporter"}
    assert checks[1]["detail"] == "not on a DGX worker: nvidia-dcgm-exporter-q on k8s-cp02; no device plugin on dgx01"
    assert "is its pod running" in verify.judge_gpu_operator(plan, [{"status": {}}], pods)[0]["detail"]
    assert verify.judge_gpu_operator(plan, [], pods)[0]["detail"].startswith("no ClusterPolicy")
    assert verify.judge_gpu_operator(dict(plan, enabled=False), [], []) == []


def test_a_gpu_operator_installed_otherwise_is_refused_never_replaced():
    plan = gpu.operator_plan(SITE.model)
    deepops = {"metadata": {"name": "cluster-policy", "annotations": {"meta.helm.sh/release-name": "nvidia-gpu-operator",
                                                                      "meta.helm.sh/release-namespace": "gpu-operator"}}}
    refused = gpu.operator_pending(plan, None, [], [deepops])
    assert [(i["action"], i["field"]) for i in refused][:1] == [("refuse", None)]
    assert "helm release nvidia-gpu-operator in gpu-operator" in refused[0]["reason"] and "gpu.operator.enabled: false" in refused[0]["reason"]
    assert "not installed by helm" in gpu.operator_pending(plan, None, [], [{"metadata": {"name": "cluster-policy"}}])[0]["reason"]
    ours = {"metadata": {"name": "cluster-policy", "annotations": {"meta.helm.sh/release-name": "gpu-operator",
                                                                   "meta.helm.sh/release-namespace": "gpu-operator"}}}
    assert [i["action"] for i in gpu.operator_pending(plan, None, [], [ours])][:1] == ["create"]


def test_a_dgx_being_decommissioned_is_no_gpu_worker():
    model = copy.deepcopy(SITE.model)
    model["hosts"]["dgx04"].setdefault("groups", []).append("decommission")
    assert "dgx04" not in gpu.dgx_workers(model) and "dgx03" in gpu.dgx_workers(model)
