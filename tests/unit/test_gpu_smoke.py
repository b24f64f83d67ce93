"""The opt-in GPU smoke test: one Job per DGX worker running nvidia-smi -L with one GPU, and how its
outcome is judged. Only a log that lists a GPU passes."""
from __future__ import annotations

import copy
import re

from project_paths import SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes import gpu_smoke
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site

SITE = load_site(str(SAMPLE), decrypt=make_decryptor(SAMPLE_VAULT_PASSWORD))
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")


def plan(**smoke) -> dict:
    """The sample's smoke test with the single MIG strategy (each DGX offers nvidia.com/gpu)."""
    model = copy.deepcopy(SITE.model)
    model.setdefault("gpu", {})["smoke_test"] = {"enabled": True, **smoke}
    model["gpu"].setdefault("mig", {})["strategy"] = "single"
    return gpu_smoke.smoke_plan(model)


def job(name: str, **status) -> dict:
    return {"metadata": {"name": name}, "status": status}


def complete(name: str) -> dict:
    return job(name, succeeded=1, conditions=[{"type": "Complete", "status": "True"}])


def failed(name: str, reason: str) -> dict:
    return job(name, failed=1, conditions=[{"type": "Failed", "status": "True", "reason": reason}])


def log(name: str, text: str) -> dict:
    return {"item": {"name": name}, "log": text, "failed": False}


def unreadable(name: str, msg: str) -> dict:
    return {"item": {"name": name}, "failed": True, "msg": msg}


def test_off_unless_the_model_opts_in():
    assert gpu_smoke.smoke_plan(SITE.model)["enabled"] is False


def test_one_job_per_dgx_worker_with_one_gpu_pinned_to_its_node_unprivileged():
    smoke = plan()
    assert smoke["enabled"] and [j["host"] for j in smoke["jobs"]] == ["dgx01", "dgx02", "dgx03", "dgx04"]
    manifest = smoke["jobs"][0]["manifest"]
    pod = manifest["spec"]["template"]["spec"]
    assert manifest["metadata"] == {"name": "aipod-gpu-smoke-dgx01", "namespace": "gpu-operator",
                                    "labels": {"app.kubernetes.io/managed-by": "aipod", "ontap-ai.pod/check": "gpu-smoke"}}
    assert pod["nodeSelector"] == {"kubernetes.io/hostname": "dgx01"}
    [container] = pod["containers"]
    assert container["command"] == ["nvidia-smi", "-L"] and container["resources"] == {"limits": {"nvidia.com/gpu": 1}}
    assert container["image"] == "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04"
    assert pod["securityContext"]["runAsNonRoot"] is True and container["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    assert manifest["spec"]["activeDeadlineSeconds"] == 300 and manifest["spec"]["backoffLimit"] == 0


def test_the_image_follows_the_mirror_and_the_model_sets_namespace_and_timeout():
    model = copy.deepcopy(SITE.model)
    model["gpu"] = {"operator": {"image_registry": "mirror.example.com:5000/nvcr"},
                    "smoke_test": {"enabled": True, "namespace": "gpu-checks", "timeout": 120}}
    smoke = gpu_smoke.smoke_plan(model)
    assert smoke["image"] == "mirror.example.com:5000/nvcr/nvidia/cuda:12.4.1-base-ubuntu22.04"
    assert smoke["namespace"] == "gpu-checks" and smoke["jobs"][0]["manifest"]["spec"]["activeDeadlineSeconds"] == 120


def test_a_host_name_that_is_no_dns_label_gets_a_name_that_is_and_stays_distinct():
    names = {gpu_smoke.job_name(host) for host in ("DGX_01", "dgx-01", "dgx.01", "x" * 80, "x" * 81)}
    assert len(names) == 5 and all(DNS_LABEL.match(name) for name in names), names
    assert gpu_smoke.job_name("dgx01") == "aipod-gpu-smoke-dgx01"


def test_a_log_that_lists_a_gpu_passes():
    smoke = plan()
    name = smoke["jobs"][0]["name"]
    checks = gpu_smoke.judge_smoke(smoke, [complete(name)],
                                   [log(name, "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-5b4c5f1e-aaaa-bbbb-cccc-1234567890ab)\n")])
    assert checks[0] == {"name": "gpu_smoke:dgx01", "status": "pass",
                         "detail": "nvidia-smi in a pod sees 1 GPU: NVIDIA H100 80GB HBM3"}


def test_a_completed_job_whose_log_cannot_be_read_proves_nothing():
    smoke = plan()
    name = smoke["jobs"][0]["name"]
    [check, *_] = gpu_smoke.judge_smoke(smoke, [complete(name)], [unreadable(name, "Failed to get logs: connection refused")])
    assert check["status"] == "not_checked" and "log could not be read: Failed to get logs" in check["detail"]
    [check, *_] = gpu_smoke.judge_smoke(smoke, [complete(name)], [log(name, "")])
    assert check["status"] == "not_checked" and "lists no GPU" in check["detail"]


def test_a_failed_nvidia_smi_fails_and_no_free_gpu_is_not_a_failure():
    smoke = plan()
    first, second, third, fourth = (j["name"] for j in smoke["jobs"])
    checks = gpu_smoke.judge_smoke(
        smoke, [failed(first, "BackoffLimitExceeded"), failed(second, "DeadlineExceeded"), job(third, active=1)],
        [log(first, "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.")])
    by_host = {c["name"]: c for c in checks}
    assert by_host["gpu_smoke:dgx01"]["status"] == "fail" and "couldn't communicate" in by_host["gpu_smoke:dgx01"]["detail"]
    assert by_host["gpu_smoke:dgx02"]["status"] == "not_checked" and "did not finish within 300 s" in by_host["gpu_smoke:dgx02"]["detail"]
    assert by_host["gpu_smoke:dgx03"]["status"] == "not_checked" and "had not finished" in by_host["gpu_smoke:dgx03"]["detail"]
    assert by_host["gpu_smoke:dgx04"] == {"name": "gpu_smoke:dgx04", "status": "fail",
                                          "detail": f"Job {fourth} was not created"}


def test_finished_waits_for_every_job_and_not_run_says_why():
    smoke = plan()
    names = [j["name"] for j in smoke["jobs"]]
    assert not gpu_smoke.finished(smoke, [complete(n) for n in names[:3]])
    assert gpu_smoke.finished(smoke, [complete(n) for n in names[:3]] + [failed(names[3], "DeadlineExceeded")])
    checks = gpu_smoke.judge_smoke(smoke, [], [], not_run="check mode creates nothing")
    assert {c["status"] for c in checks} == {"not_checked"} and checks[0]["detail"] == "not run: check mode creates nothing"


def test_the_image_is_listed_for_an_air_gapped_site_only_when_opted_in():
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_report import airgap

    assert airgap.gpu_smoke_artifacts(gpu_smoke.smoke_plan(SITE.model)) == []
    [image] = airgap.gpu_smoke_artifacts(plan())
    assert (image["name"], image["version"], image["source"]) == (
        "cuda", "12.4.1-base-ubuntu22.04", "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04")
    [image] = airgap.gpu_smoke_artifacts(plan(image="mirror:5000/nvidia/cuda@sha256:abc"))
    assert (image["name"], image["version"]) == ("cuda", "sha256:abc")


def test_a_job_that_did_not_finish_says_where_its_pod_waits():
    smoke = plan()
    name = smoke["jobs"][0]["name"]
    pending = {"metadata": {"labels": {"job-name": name}}, "status": {"phase": "Pending", "conditions": [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
         "message": "0/4 nodes are available: 4 Insufficient nvidia.com/gpu."}]}}
    [check, *_] = gpu_smoke.judge_smoke(smoke, [job(name, active=1)], [], pods=[pending])
    assert check["status"] == "not_checked"
    assert "(pod Pending (Unschedulable: 0/4 nodes are available: 4 Insufficient nvidia.com/gpu.))" in check["detail"]
    deadline = job(name, conditions=[{"type": "FailureTarget", "status": "True", "reason": "DeadlineExceeded"}])
    assert gpu_smoke.finished({"jobs": smoke["jobs"][:1]}, [deadline])


def test_a_call_the_cluster_refused_fails_every_check_of_the_test():
    checks = gpu_smoke.judge_smoke(plan(), [], [], failed="Start a smoke Job on each DGX worker: Forbidden")
    assert {c["status"] for c in checks} == {"fail"} and len(checks) == 4
    assert checks[0]["detail"] == "the smoke test could not run: Start a smoke Job on each DGX worker: Forbidden"


def test_a_dgx_cut_into_mig_slices_with_the_mixed_strategy_is_named_not_waited_for():
    model = copy.deepcopy(SITE.model)
    model["gpu"] = {"mig": {"strategy": "mixed", "layouts": {"dgx04": "all-1g.10gb"}}, "smoke_test": {"enabled": True}}
    smoke = gpu_smoke.smoke_plan(model)
    assert [j["host"] for j in smoke["jobs"]] == ["dgx01", "dgx02", "dgx03"]
    checks = {c["name"]: c for c in gpu_smoke.judge_smoke(smoke, [], [], not_run="check mode creates nothing")}
    assert checks["gpu_smoke:dgx04"]["status"] == "not_checked" and "MIG slices (all-1g.10gb" in checks["gpu_smoke:dgx04"]["detail"]


def test_an_image_that_cannot_be_pulled_fails_instead_of_waiting():
    smoke = plan()
    name = smoke["jobs"][0]["name"]
    stuck = {"metadata": {"labels": {"job-name": name}}, "status": {"phase": "Pending", "containerStatuses": [
        {"state": {"waiting": {"reason": "ImagePullBackOff", "message": "Back-off pulling image"}}}]}}
    [check, *_] = gpu_smoke.judge_smoke(smoke, [failed(name, "DeadlineExceeded")], [], pods=[stuck])
    assert check["status"] == "fail" and "cannot start" in check["detail"] and "ImagePullBackOff" in check["detail"]


def test_each_job_follows_its_dgxs_node_on_an_adopted_cluster_and_a_missing_node_gets_none():
    """An adopted cluster names its nodes by FQDN: the Job is pinned by the hostname label that Node carries."""
    model = copy.deepcopy(SITE.model)
    model.setdefault("gpu", {})["smoke_test"] = {"enabled": True}
    model["gpu"].setdefault("mig", {})["strategy"] = "single"
    nodes = [{"metadata": {"name": f"{host}.example.net", "labels": {"kubernetes.io/hostname": f"{host}.example.net"}}}
             for host in ("dgx01", "dgx02", "dgx03")]
    smoke = gpu_smoke.smoke_plan(model, nodes)
    assert [(j["host"], j["manifest"]["spec"]["template"]["spec"]["nodeSelector"]["kubernetes.io/hostname"]) for j in smoke["jobs"]] == [
        ("dgx01", "dgx01.example.net"), ("dgx02", "dgx02.example.net"), ("dgx03", "dgx03.example.net")]
    assert smoke["skipped"] == [{"host": "dgx04", "reason": "it is no node of the cluster"}]
    checks = {c["name"]: c for c in gpu_smoke.judge_smoke(smoke, [], [], not_run="check mode creates nothing")}
    assert checks["gpu_smoke:dgx04"]["status"] == "not_checked" and "no node of the cluster" in checks["gpu_smoke:dgx04"]["detail"]


def test_an_opted_in_test_that_can_place_no_job_still_reports_each_dgx():
    model = copy.deepcopy(SITE.model)
    model.setdefault("gpu", {})["smoke_test"] = {"enabled": True}
    model["gpu"].setdefault("mig", {})["strategy"] = "single"
    smoke = gpu_smoke.smoke_plan(model, [])  # a cluster that has none of the DGX as a Node
    assert smoke["enabled"] and smoke["jobs"] == [] and len(smoke["skipped"]) == 4
    checks = gpu_smoke.judge_smoke(smoke, [], [], not_run="no DGX worker could take a Job")
    assert sorted(c["name"] for c in checks) == [f"gpu_smoke:dgx0{n}" for n in range(1, 5)]
    assert all(c["status"] == "not_checked" and "no node of the cluster" in c["detail"] for c in checks)
