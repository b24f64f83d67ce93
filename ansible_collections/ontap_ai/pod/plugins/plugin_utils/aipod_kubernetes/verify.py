"""Verification of the Kubernetes layer: judges of the cluster's nodes, Trident backends and classes
against the model and the plan, and the layer's JSON result.
"""
from __future__ import annotations

from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes import gpu
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.apply import IMMUTABLE_CLASS_FIELDS, _is_default
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.deepops import kube_hosts, kubeconfig_source
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.trident import TRIDENT_PROVISIONER
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m


# Each judge returns checks {name, status: pass|fail|not_checked, detail}: not_checked says
# plainly why something could not be looked at, rather than passing it.
def _check(name: str, status: str, detail: str) -> dict[str, str]:
    return {"name": name, "status": status, "detail": detail}


def _condition(item: dict, kind: str) -> str | None:
    for condition in m.as_list(m.as_dict(item.get("status")).get("conditions")):
        if m.as_dict(condition).get("type") == kind:
            return m.as_str(condition.get("status"))
    return None


def schedulable_nodes(nodes: list) -> list[str]:
    """Names of nodes that are Ready and not cordoned."""
    return sorted(m.as_dict(n.get("metadata")).get("name") for n in m.as_list(nodes)
                  if isinstance(n, dict) and _condition(n, "Ready") == "True"
                  and m.as_dict(n.get("spec")).get("unschedulable") is not True)


def judge_nodes(model: dict, nodes: list) -> list[dict]:
    """Every cluster host of the model is a Ready node; every DGX worker offers all its GPUs."""
    hosts = kube_hosts(model)
    leaving = m.group_members(model, "decommission")  # on their way out of the cluster (docs/day2.md)
    wanted = []
    for host in hosts["control_plane"] + hosts["workers"]:
        if host not in wanted and host not in leaving:
            wanted.append(host)
    by_name = {m.as_dict(n.get("metadata")).get("name"): n for n in m.as_list(nodes) if isinstance(n, dict)}
    if not by_name:
        if kubeconfig_source(model)["mode"] == "deepops":
            return [_check("nodes_ready", "fail", "DeepOps deployed this cluster but it has no nodes"),
                    _check("gpus_allocatable", "fail", "no nodes, so no GPUs")]
        return [_check("nodes_ready", "not_checked",
                       "the API server has no Node objects (no kubelet has registered), so readiness cannot be checked"),
                _check("gpus_allocatable", "not_checked", "no nodes to read allocatable GPUs from")]
    missing = [h for h in wanted if h not in by_name]
    not_ready = [h for h in wanted if h in by_name and _condition(by_name[h], "Ready") != "True"]
    ready = len(wanted) - len(missing) - len(not_ready)
    detail = f"{ready}/{len(wanted)} Ready"
    if missing:
        detail += f"; not in the cluster: {', '.join(missing)}"
    if not_ready:
        detail += f"; not Ready: {', '.join(not_ready)}"
    checks = [_check("nodes_ready", "fail" if missing or not_ready else "pass", detail)]
    dgx = m.hosts_of_kind(model, "dgx")
    # A DGX cut into MIG slices advertises them as MIG resources (strategy mixed) or as more, smaller
    # nvidia.com/gpu (single): its GPU count is not what the node offers, so it is not compared.
    sliced = {host: layout for host, layout in gpu.mig_layouts(model).items() if layout != "all-disabled"}
    problems = []
    counted = 0
    for host in hosts["workers"]:
        if host not in dgx or host not in by_name or host in leaving or host in sliced:
            continue
        want = m.as_int(m.as_dict(dgx[host].get("gpus")).get("count")) or 0
        allocatable = m.as_dict(m.as_dict(by_name[host].get("status")).get("allocatable"))
        try:
            have = int(str(allocatable.get("nvidia.com/gpu", "0")))
        except ValueError:
            have = 0
        counted += have
        if have != want:
            problems.append(f"{host} offers {have} of its {want} GPUs")
    detail = "; ".join(problems) or f"{counted} GPUs allocatable (nvidia.com/gpu) on the DGX workers"
    if sliced:
        detail += "; not compared, cut into MIG slices: " + ", ".join(f"{host} ({layout})" for host, layout in sliced.items())
    checks.append(_check("gpus_allocatable", "fail" if problems else "pass", detail))
    return checks


# The GPU Operator's operands: the pods it runs on GPU nodes (node feature discovery's worker runs on every node).
OPERAND_PREFIXES = ("nvidia-", "gpu-feature-discovery-")


def judge_gpu_operator(plan: dict, policies: list, pods: list) -> list[dict]:
    """The GPU Operator reports its ClusterPolicy ready, and its operands run on the DGX workers, each of which has a
    device plugin. No check when the bundle does not install the operator."""
    if not plan.get("enabled"):
        return []
    policy = next((p for p in m.as_list(policies) if isinstance(p, dict)), None)
    if policy is None:
        checks = [_check("gpu_operator_ready", "fail", "no ClusterPolicy: the GPU Operator's chart is not installed")]
    else:
        status = m.as_dict(policy.get("status"))
        state = m.as_str(status.get("state"))
        error = next((m.as_str(c.get("message")) for c in m.as_list(status.get("conditions"))
                      if isinstance(c, dict) and c.get("type") == "Error" and c.get("status") == "True"), None)
        if state == "ready":
            checks = [_check("gpu_operator_ready", "pass", "ClusterPolicy ready")]
        else:
            checks = [_check("gpu_operator_ready", "fail",
                             f"ClusterPolicy {state or 'without a state'}: " + (error or "the operator has reported nothing; is its pod running?"))]
    dgx = [node["host"] for node in plan.get("nodes") or []]
    operands = [p for p in m.as_list(pods) if isinstance(p, dict)
                and (m.as_str(m.as_dict(p.get("metadata")).get("name")) or "").startswith(OPERAND_PREFIXES)]
    placed = {(m.as_str(m.as_dict(p.get("metadata")).get("name")) or ""): m.as_str(m.as_dict(p.get("spec")).get("nodeName"))
              for p in operands}
    astray = sorted(f"{name} on {node or 'no node'}" for name, node in placed.items() if node not in dgx)
    plugins = {node for name, node in placed.items() if name.startswith("nvidia-device-plugin-daemonset")}
    without = [host for host in dgx if host not in plugins]
    problems = ([f"not on a DGX worker: {', '.join(astray)}"] if astray else []) + (
        [f"no device plugin on {', '.join(without)}"] if without else [])
    checks.append(_check("gpu_operands_on_dgx", "fail" if problems else "pass",
                         "; ".join(problems) or f"{len(operands)} operand pods, on the DGX workers only, a device plugin on each"))
    return checks


def judge_backends(plan: dict, configs: list, backends: list, controller_running: bool) -> list[dict]:
    """Every planned TridentBackendConfig exists, is Bound with a successful last operation, and its backend is online."""
    by_name = {m.as_dict(c.get("metadata")).get("name"): c for c in m.as_list(configs) if isinstance(c, dict)}
    states = {m.as_str(b.get("backendName")): m.as_str(b.get("state")) for b in m.as_list(backends) if isinstance(b, dict)}
    checks = []
    for backend in plan.get("backends", []):
        name = backend["name"]
        config = by_name.get(name)
        check_name = f"backend_online:{name}"
        if config is None:
            checks.append(_check(check_name, "fail", f"TridentBackendConfig {name} is not in namespace {plan.get('namespace')}"))
            continue
        status = m.as_dict(config.get("status"))
        if not status:
            if controller_running:
                checks.append(_check(check_name, "fail", f"Trident's controller runs but has reported no status for {name}"))
            else:
                checks.append(_check(check_name, "not_checked",
                                     f"no Trident controller runs in namespace {plan.get('namespace')}, so nothing has "
                                     f"reported the status of {name}; its spec is declared"))
            continue
        phase, last = m.as_str(status.get("phase")), m.as_str(status.get("lastOperationStatus"))
        state = states.get(name)
        ok = phase == "Bound" and last == "Success" and state == "online"
        detail = f"phase {phase}, last operation {last}, backend state {state or 'unknown'}"
        if not ok and m.as_str(status.get("message")):
            detail += f": {status['message']}"
        checks.append(_check(check_name, "pass" if ok else "fail", detail))
    return checks


def judge_classes(plan: dict, classes: list, snapshot_classes: list) -> list[dict]:
    """The planned StorageClasses exist as planned; exactly one default, the planned one; the snapshot class exists."""
    by_name = {m.as_dict(c.get("metadata")).get("name"): c for c in m.as_list(classes) if isinstance(c, dict)}
    problems = []
    for planned in plan.get("storage_classes", []):
        name = planned["metadata"]["name"]
        found = by_name.get(name)
        if found is None:
            problems.append(f"{name} is missing")
            continue
        for key in ("provisioner", "parameters", "mountOptions", "reclaimPolicy", "volumeBindingMode"):
            if (found.get(key) or IMMUTABLE_CLASS_FIELDS.get(key)) != (planned.get(key) or IMMUTABLE_CLASS_FIELDS.get(key)):
                problems.append(f"{name} has {key} {found.get(key)!r}, the model says {planned.get(key)!r}")
    checks = [_check("storage_classes", "fail" if problems else "pass",
                     "; ".join(problems) or f"{len(plan.get('storage_classes', []))} StorageClasses as the model declares")]
    defaults = sorted(name for name, c in by_name.items() if _is_default(c))
    want = plan.get("default_class")
    if want is None:
        status = "pass" if len(defaults) <= 1 else "fail"
        detail = f"the model names no default; the cluster marks {', '.join(defaults) or 'none'}"
    else:
        status = "pass" if defaults == [want] else "fail"
        detail = f"default: {', '.join(defaults) or 'none'} (the model says {want})"
    checks.append(_check("one_default_class", status, detail))
    snapshot = plan.get("snapshot_class", {})
    wanted = m.as_dict(snapshot.get("metadata")).get("name")
    found = next((c for c in m.as_list(snapshot_classes) if m.as_dict(m.as_dict(c).get("metadata")).get("name") == wanted), None)
    if found is None:
        checks.append(_check("snapshot_class", "fail", f"VolumeSnapshotClass {wanted} is missing"))
    elif found.get("driver") != TRIDENT_PROVISIONER:
        checks.append(_check("snapshot_class", "fail", f"VolumeSnapshotClass {wanted} uses driver {found.get('driver')}"))
    else:
        checks.append(_check("snapshot_class", "pass", f"VolumeSnapshotClass {wanted} for {TRIDENT_PROVISIONER}"))
    return checks


def verification_result(checks: list) -> dict[str, Any]:
    """The layer's JSON result: ok (no check failed), the checks, the failures and what could not be checked."""
    checks = [c for c in m.as_list(checks) if isinstance(c, dict)]
    failures = [c for c in checks if c.get("status") == "fail"]
    return {"layer": "kubernetes", "ok": not failures, "checks": checks, "failures": failures,
            "not_checked": [c for c in checks if c.get("status") == "not_checked"],
            "counts": {status: sum(1 for c in checks if c.get("status") == status) for status in ("pass", "fail", "not_checked")}}


def nodes_of_hosts(nodes: Any, hosts: Any) -> dict[str, dict]:
    """Which Node each inventory host is, for the hosts that still are one.

    nodes: Node objects (k8s_info resources); hosts: inventory names. A Node is the host's when its
    name or its kubernetes.io/hostname label is the host's name, alone or as the first label of a
    fully qualified name (an adopted cluster may name nodes dgx05.example.net). Returns
    host -> {name, ready}; a host without a Node is left out.
    """
    result: dict[str, dict] = {}
    for host in [str(h) for h in hosts or []]:
        for node in nodes or []:
            if not isinstance(node, dict):
                continue
            metadata = node.get("metadata") or {}
            names = [str(metadata.get("name") or ""), str((metadata.get("labels") or {}).get("kubernetes.io/hostname") or "")]
            if any(name == host or name.startswith(host + ".") for name in names if name):
                conditions = (node.get("status") or {}).get("conditions") or []
                ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions if isinstance(c, dict))
                result[host] = {"name": metadata.get("name"), "ready": ready}
                break
    return result
