"""The opt-in GPU smoke test: one Job per DGX worker that runs `nvidia-smi -L` in a pod holding one GPU.

It proves the path a training job takes (scheduler, device plugin, container runtime, host driver)
on each DGX, as DeepOps' `validate_k8s.py --cuda-smoke` does for one node. Only a log that lists a
GPU passes: a Job reported complete whose log cannot be read proves nothing, and is "not checked".
A live pod's GPUs may all be in use; a Job that never gets one is "not checked" too, never a failure.
"""
from __future__ import annotations

import hashlib
import re
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes import gpu, verify
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.trident import MANAGED_BY_LABEL
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m

# DeepOps' image for its CUDA smoke pod (scripts/validation/validate_k8s.py); its path under nvcr.io.
SMOKE_IMAGE_PATH = "nvidia/cuda"
SMOKE_IMAGE_TAG = "12.4.1-base-ubuntu22.04"
SMOKE_TIMEOUT = 300
JOB_PREFIX = "aipod-gpu-smoke-"
CHECK_LABEL = "ontap-ai.pod/check"
SELECTOR = f"app.kubernetes.io/managed-by=aipod,{CHECK_LABEL}=gpu-smoke"
_GPU_LINE = re.compile(r"^GPU \d+: (?P<name>.+?)(?: \(UUID: [^)]*\))?$")
_NOT_DNS = re.compile(r"[^a-z0-9-]+")


def smoke_section(model: dict) -> dict:
    return m.as_dict(gpu.gpu_section(model).get("smoke_test"))


def job_name(host: str) -> str:
    """A Job name (a DNS-1123 label) for a host; a name that had to change carries a hash of the host's."""
    plain = _NOT_DNS.sub("-", host.lower()).strip("-")
    name = JOB_PREFIX + plain
    if plain == host and len(name) <= 63:
        return name
    digest = hashlib.sha256(host.encode()).hexdigest()[:8]
    return f"{name[:54].rstrip('-')}-{digest}"


def smoke_image(model: dict) -> str:
    given = m.as_str(smoke_section(model).get("image"))
    if given:
        return given
    registry = m.as_str(m.as_dict(gpu.gpu_section(model).get("operator")).get("image_registry"))
    return f"{(registry or 'nvcr.io').rstrip('/')}/{SMOKE_IMAGE_PATH}:{SMOKE_IMAGE_TAG}"


def job_manifest(name: str, node: str, namespace: str, image: str, timeout: int) -> dict[str, Any]:
    """One GPU, on this node only, as an unprivileged user: what a data scientist's pod gets."""
    labels = {**MANAGED_BY_LABEL, CHECK_LABEL: "gpu-smoke"}
    return {
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "namespace": namespace, "labels": labels},
        "spec": {
            "backoffLimit": 0,
            "activeDeadlineSeconds": timeout,
            "ttlSecondsAfterFinished": 3600,  # a run that stops before its clean-up leaves nothing for long
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "restartPolicy": "Never",
                    "nodeSelector": {"kubernetes.io/hostname": node},
                    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                    "securityContext": {"runAsNonRoot": True, "runAsUser": 65534, "seccompProfile": {"type": "RuntimeDefault"}},
                    "containers": [{
                        "name": "nvidia-smi", "image": image, "command": ["nvidia-smi", "-L"],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                        "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}},
                    }],
                },
            },
        },
    }


def _node_hostnames(nodes: list | None, hosts: list[str]) -> dict[str, str]:
    """host -> the kubernetes.io/hostname its Node carries (an adopted cluster may name it dgx05.example.net)."""
    by_name = {m.as_str(m.as_dict(n.get("metadata")).get("name")): n for n in nodes or [] if isinstance(n, dict)}
    found = {}
    for host, node in verify.nodes_of_hosts(nodes or [], hosts).items():
        labels = m.as_dict(m.as_dict(m.as_dict(by_name.get(node["name"])).get("metadata")).get("labels"))
        found[host] = m.as_str(labels.get("kubernetes.io/hostname")) or node["name"]
    return found


def smoke_plan(model: dict, nodes: list | None = None) -> dict[str, Any]:
    """{enabled, namespace, image, timeout, jobs [{host, name, manifest}], skipped [{host, reason}]}: one Job per
    DGX worker. nodes: the cluster's Node objects, to pin each Job to its DGX's Node by the hostname label the
    Node carries (None: the inventory name); a DGX that is no Node of the cluster gets no Job."""
    section = smoke_section(model)
    operator = gpu.operator_plan(model)
    namespace = m.as_str(section.get("namespace")) or operator["namespace"]
    timeout = section.get("timeout")
    timeout = timeout if isinstance(timeout, int) and not isinstance(timeout, bool) and timeout > 0 else SMOKE_TIMEOUT
    image = smoke_image(model)
    # With the mixed strategy, a DGX cut into MIG slices offers nvidia.com/mig-<profile>, no whole nvidia.com/gpu.
    mixed = m.as_str(m.as_dict(gpu.gpu_section(model).get("mig")).get("strategy")) == "mixed"
    sliced = {node["host"] for node in operator["nodes"] if mixed and node.get("mig_layout") not in (None, "all-disabled")}
    hosts = [node["host"] for node in operator["nodes"]]
    hostnames = {host: host for host in hosts} if nodes is None else _node_hostnames(nodes, hosts)
    jobs = [{"host": host, "name": job_name(host), "manifest": job_manifest(job_name(host), hostnames[host], namespace, image, timeout)}
            for host in hosts if host not in sliced and host in hostnames]
    skipped = [{"host": node["host"], "reason": f"its GPUs are MIG slices ({node['mig_layout']}, mixed strategy): no whole "
                "nvidia.com/gpu to hold"} for node in operator["nodes"] if node["host"] in sliced]
    skipped += [{"host": host, "reason": "it is no node of the cluster"} for host in hosts if host not in sliced and host not in hostnames]
    # Opted in with DGX workers: each gets a check, a Job's or a skipped one's (no Job at all is said too).
    return {"enabled": section.get("enabled") is True and bool(hosts), "namespace": namespace, "image": image,
            "timeout": timeout, "jobs": jobs, "skipped": skipped, "selector": SELECTOR}


def _job_state(job: dict) -> str:
    """succeeded, failed or running, from the Job's status as the Job controller writes it."""
    status = m.as_dict(job.get("status"))
    conditions = {c.get("type"): c for c in m.as_list(status.get("conditions")) if isinstance(c, dict) and c.get("status") == "True"}
    if "Complete" in conditions or (status.get("succeeded") or 0) > 0:
        return "succeeded"
    # FailureTarget: the Job has failed and waits for its pods to end (Kubernetes 1.31 and later).
    failure = conditions.get("Failed") or conditions.get("FailureTarget")
    if failure or (status.get("failed") or 0) > 0:
        return "failed:" + (m.as_str(m.as_dict(failure).get("reason")) or "")
    return "running"


# A pod that waits for one of these will never run: the image or its configuration is wrong, not the GPU busy.
BROKEN_WAITS = ("ErrImagePull", "ImagePullBackOff", "InvalidImageName", "CreateContainerConfigError", "CreateContainerError")


def _pods_of(pods: list, job: str) -> list[dict]:
    return [p for p in m.as_list(pods) if isinstance(p, dict)
            and m.as_dict(m.as_dict(p.get("metadata")).get("labels")).get("job-name") == job]


def _pod_broken(pods: list, job: str) -> bool:
    return any(m.as_dict(m.as_dict(m.as_dict(c).get("state")).get("waiting")).get("reason") in BROKEN_WAITS
               for pod in _pods_of(pods, job) for c in m.as_list(m.as_dict(pod.get("status")).get("containerStatuses")))


def _pod_state(pods: list, job: str) -> str:
    """Where a Job's pod stands, as kubectl describe would say it: its phase and why it waits."""
    mine = _pods_of(pods, job)
    if not mine:
        return "no pod"
    pod = mine[-1]
    status = m.as_dict(pod.get("status"))
    reasons = [f"{c.get('reason')}: {c.get('message')}" for c in m.as_list(status.get("conditions"))
               if isinstance(c, dict) and c.get("status") == "False" and c.get("message")]
    for container in m.as_list(status.get("containerStatuses")):
        waiting = m.as_dict(m.as_dict(m.as_dict(container).get("state")).get("waiting"))
        if waiting:
            reasons.append(f"{waiting.get('reason')}: {waiting.get('message') or ''}".rstrip(": "))
    node = m.as_str(m.as_dict(pod.get("spec")).get("nodeName"))
    where = f" on {node}" if node else ""
    return f"pod {m.as_str(status.get('phase')) or 'Unknown'}{where}" + (f" ({'; '.join(reasons)[:300]})" if reasons else "")


def finished(plan: dict, jobs: list) -> bool:
    """Every planned Job has succeeded or failed (the wait's end)."""
    states = {m.as_str(m.as_dict(j.get("metadata")).get("name")): _job_state(j) for j in m.as_list(jobs) if isinstance(j, dict)}
    return all(states.get(job["name"], "running") != "running" for job in plan.get("jobs") or [])


def logs_by_job(results: list) -> dict[str, dict[str, str]]:
    """k8s_log's loop results (item.name, and log, or msg when the log could not be read) by Job name."""
    logs = {}
    for result in m.as_list(results):
        name = m.as_str(m.as_dict(m.as_dict(result).get("item")).get("name"))
        if name:
            read = m.as_dict(result)
            logs[name] = ({"log": m.as_str(read.get("log")) or ""} if not read.get("failed") and "log" in read
                          else {"error": (m.as_str(read.get("msg")) or "no answer")[:300]})
    return logs


def judge_smoke(plan: dict, jobs: list, log_results: list, not_run: str = "", pods: list | None = None,
                failed: str = "") -> list[dict[str, str]]:
    """One check per DGX worker: gpu_smoke:<host>. log_results are k8s_log's loop results; pods (the
    Jobs' pods) say where an unfinished Job stands; not_run says why no Job was made (every check is
    then not_checked); failed, which call of the test the cluster refused (every check then fails)."""
    skipped = [{"name": f"gpu_smoke:{entry['host']}", "status": "not_checked", "detail": f"not run on {entry['host']}: {entry['reason']}"}
               for entry in plan.get("skipped") or []]
    if not_run or failed:
        status, detail = ("not_checked", f"not run: {not_run}") if not_run else ("fail", f"the smoke test could not run: {failed}")
        return [{"name": f"gpu_smoke:{job['host']}", "status": status, "detail": detail} for job in plan.get("jobs") or []] + skipped
    logs = logs_by_job(log_results)
    by_name = {m.as_str(m.as_dict(j.get("metadata")).get("name")): j for j in m.as_list(jobs) if isinstance(j, dict)}
    checks = []
    for job in plan.get("jobs") or []:
        name, host = job["name"], job["host"]
        found = by_name.get(name)
        read = m.as_dict(logs.get(name))
        text = m.as_str(read.get("log")) or ""
        gpus = [match["name"] for match in (_GPU_LINE.match(line.strip()) for line in text.splitlines()) if match]
        tail = " | ".join(text.strip().splitlines()[-3:])
        state = _job_state(found) if found else "missing"
        if state == "missing":
            status, detail = "fail", f"Job {name} was not created"
        elif state == "succeeded" and gpus:
            status, detail = "pass", f"nvidia-smi in a pod sees {len(gpus)} GPU: {gpus[0]}"
        elif state == "succeeded":
            why = m.as_str(read.get("error")) or f"it lists no GPU ({tail or 'empty'})"
            status, detail = "not_checked", f"Job {name} completed but nvidia-smi's output is unknown: its log could not be read: {why}"
        elif state != "succeeded" and _pod_broken(pods or [], name):
            status, detail = "fail", f"the smoke pod on {host} cannot start: {_pod_state(pods or [], name)}"
        elif state == "failed:DeadlineExceeded":
            status, detail = "not_checked", (f"Job {name} did not finish within {plan.get('timeout')} s, so nothing was "
                                             f"judged ({_pod_state(pods or [], name)}): no GPU of {host} free, the node "
                                             "not schedulable, or nvidia-smi hung")
        elif state.startswith("failed"):
            status, detail = "fail", f"nvidia-smi failed in a pod on {host}: {tail or m.as_str(read.get('error')) or state}"
        else:
            status, detail = "not_checked", (f"Job {name} had not finished within {plan.get('timeout')} s "
                                             f"({_pod_state(pods or [], name)})")
        checks.append({"name": f"gpu_smoke:{host}", "status": status, "detail": detail})
    return checks + skipped
