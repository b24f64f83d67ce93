"""The Kubernetes cluster's hosts and networks, and the DeepOps inventory built from them.

Who is control plane, etcd and worker, on which address; where the cluster's kubeconfig is; the
storage networks of the workers (Trident's autoExportCIDRs); site networks that overlap the pod
and service networks DeepOps (Kubespray) uses. Defensive on malformed models, like ..model.
"""
from __future__ import annotations

import ipaddress
import re
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes import gpu
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m

# Kubespray's defaults (kube_service_addresses, kube_pods_subnet); the bundle keeps them, so a
# site network must not overlap them or pods could not reach it.
KUBESPRAY_SERVICE_CIDR = "10.233.0.0/18"
KUBESPRAY_POD_CIDR = "10.233.64.0/18"


def kube_hosts(model: dict) -> dict[str, list[str]]:
    """{control_plane, workers, etcd}: host names of the cluster (etcd runs on the control plane)."""
    control_plane = m.group_members(model, "kube_control_plane")
    return {"control_plane": control_plane, "workers": m.group_members(model, "kube_node"), "etcd": list(control_plane)}


def node_address(model: dict, host: str) -> str | None:
    """The address a Kubernetes node uses for cluster traffic: its in-band address."""
    body = m.as_dict(m.as_dict(model.get("hosts")).get(host))
    data = m.as_dict(body.get("dgx")) or m.as_dict(body.get("server"))
    return m.as_str(m.as_dict(data.get("inband")).get("address"))


def kube_node_cidrs(model: dict) -> list[str]:
    """Subnets of the storage networks the Kubernetes workers have NICs on (Trident's autoExportCIDRs)."""
    networks = m.networks_by_name(model)
    result = []
    for name in m.storage_networks_of_hosts(model, m.group_members(model, "kube_node")):
        subnet = m.parse_subnet(m.as_dict(networks.get(name)).get("subnet"))
        if subnet is not None and subnet.with_prefixlen not in result:
            result.append(subnet.with_prefixlen)
    return result


def kubeconfig_source(model: dict) -> dict[str, Any]:
    """Where the cluster's kubeconfig comes from: {mode, path (relative to the inventory) or None, context}.

    For a DeepOps deployment the path is None: the DeepOps role brings the kubeconfig back to the
    bundle's own cache (kubernetes_access decides where), never into the inventory.
    """
    kube = m.as_dict(model.get("kubernetes"))
    mode = m.as_str(kube.get("deployment")) or "existing"
    existing = m.as_dict(kube.get("existing"))
    if mode == "existing":
        return {"mode": mode, "path": m.as_str(existing.get("kubeconfig")), "context": m.as_str(existing.get("context"))}
    return {"mode": mode, "path": None, "context": None}


def deepops_plan(model: dict) -> dict[str, Any]:
    """What the DeepOps inventory and group_vars say, from the model.

    {hosts: [{name, ip}], control_plane, etcd, workers, decommission, user, group, version, release_url,
    kube_version (None: the Kubernetes release the Kubespray of that DeepOps pins), service_cidr, pod_cidr,
    gpu_operator (the bundle installs the GPU Operator, so DeepOps' own NVIDIA plays are skipped),
    gpu_nodes (the DGX workers, DeepOps' group aipod_gpu_nodes) and containerd (Kubespray's containerd
    variables for the nvidia runtime on those nodes only; {} when the bundle leaves GPUs alone)}.
    Connection settings (ansible_host, ansible_user) are not model data: the role adds them from
    the inventory's variables.
    """
    kube = m.as_dict(model.get("kubernetes"))
    members = kube_hosts(model)
    names = []
    for host in members["control_plane"] + members["workers"]:
        if host not in names:
            names.append(host)
    user = m.as_dict(kube.get("common_user"))
    user_name = m.as_str(user.get("name"))
    group_name = m.as_str(user.get("group")) or user_name
    deepops = m.as_dict(kube.get("deepops"))
    return {
        "hosts": [{"name": host, "ip": node_address(model, host)} for host in names],
        "control_plane": members["control_plane"],
        "etcd": members["etcd"],
        "workers": members["workers"],
        "user": {"username": user_name, "name": user_name, "uid": m.as_int(user.get("uid")),
                 "group": group_name, "home": f"/home/{user_name}"} if user_name else None,
        "group": {"name": group_name, "gid": m.as_int(user.get("gid"))} if group_name else None,
        # Hosts the inventory puts in the group `decommission`: still in DeepOps' inventory, so that
        # Kubespray's remove-node.yml can drain, reset and delete them (docs/day2.md).
        "decommission": [host for host in m.group_members(model, "decommission") if host in names],
        "version": m.as_str(deepops.get("version")),
        "release_url": m.as_str(deepops.get("release_url")),
        "kube_version": m.as_str(deepops.get("kube_version")),
        "service_cidr": KUBESPRAY_SERVICE_CIDR,
        "pod_cidr": KUBESPRAY_POD_CIDR,
        "gpu_operator": gpu.operator_enabled(model),
        # The nvidia runtime is the default only where its binary is: on the DGX, not the control plane.
        "gpu_nodes": [host for host in gpu.dgx_workers(model) if host in names] if gpu.operator_enabled(model) else [],
        "containerd": gpu.kubespray_runtime(model) if gpu.operator_enabled(model) else {},
    }


def overlapping_networks(model: dict, cidr: str) -> list[str]:
    """Names of site networks overlapping a CIDR (loopback-only lab networks excluded)."""
    target = ipaddress.IPv4Network(cidr)
    found = []
    for name, network in m.networks_by_name(model).items():
        subnet = m.parse_subnet(network.get("subnet"))
        if subnet is not None and not subnet.is_loopback and subnet.overlaps(target):
            found.append(name)
    return found


KUBESPRAY_DIR = "submodules/kubespray"


def minor_version(version: Any) -> tuple[int, int] | None:
    """(major, minor) of a release such as v2.31.0 (a Kubespray tag) or 1.35.2 (Kubernetes); None when it is not one."""
    parts = str(version or "").strip().lstrip("v").split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (ValueError, IndexError):
        return None


def upgrade_refusal(deployed: str, wanted: str) -> str:
    """Why Kubespray cannot go from the deployed release to the wanted one ('' when it can).

    Kubespray upgrades one minor release at a time and never downgrades (its docs: "skipping
    releases is not supported"); a DeepOps release pins its Kubespray, so the pair moves together.
    """
    have, want = minor_version(deployed), minor_version(wanted)
    if have is None or want is None or have == want:
        return ""
    if want < have:
        return f"Kubespray {wanted} is older than the deployed {deployed}: Kubespray does not downgrade a cluster"
    if want[0] != have[0] or want[1] > have[1] + 1:
        step = f"v{have[0]}.{have[1] + 1}"
        return (f"Kubespray {deployed} -> {wanted} skips minor releases: Kubespray upgrades one minor release at a time "
                f"(first the DeepOps release that pins Kubespray {step}.x)")
    return ""


def lifecycle_steps(plan: dict, deployed: dict | None, current: dict) -> dict[str, Any]:
    """What DeepOps must run to bring the cluster it deployed to the plan, and why.

    plan: deepops_plan (workers, control_plane, hosts, decommission); deployed: the record of the last
    successful run ({deepops, kubespray, config, control_plane, workers, hosts}) or None; current:
    {deepops, kubespray, config, serial, cluster_playbook, unreachable} of this run (config: the
    fingerprint of the generated group_vars; serial: Kubespray's upgrade batch; cluster_playbook:
    DeepOps' cluster playbook; unreachable: decommissioned hosts that are dead, removed without a
    drain or reset).
    Returns {steps: [{playbook, args, reason}], refused: reason or '', workers_after}.

    Kubespray's own paths, as DeepOps documents them: the cluster playbook for a first deployment and
    for any change of the control plane or the configuration; scale.yml limited to the new workers
    (after facts.yml for every host) to add workers; remove-node.yml with node=<names> to remove
    decommissioned ones; upgrade-cluster.yml (rolling, drained, serial) for a new release.
    """
    decommission = list(plan.get("decommission") or [])
    workers = [h for h in plan.get("workers") or [] if h not in decommission]
    unreachable = list(current.get("unreachable") or [])
    strangers = [h for h in unreachable if h not in decommission]
    if strangers:
        return {"steps": [], "workers_after": workers, "refused": (
            f"{', '.join(strangers)} in deepops_cluster_remove_unreachable {'is' if len(strangers) == 1 else 'are'} not in the "
            "group decommission: only a host being decommissioned is removed without a drain or reset")}
    addresses = {h["name"]: h.get("ip") for h in plan.get("hosts") or []}
    had = list((deployed or {}).get("workers") or [])
    # A decommissioned worker stays in the record until remove-node.yml has run for it: a run that
    # takes another path first (upgrade, new configuration) leaves its removal to the next run.
    still_there = [h for h in decommission if h in had]
    result: dict[str, Any] = {"steps": [], "refused": "", "workers_after": workers + still_there}
    cluster = {"playbook": current.get("cluster_playbook") or "playbooks/k8s-cluster.yml", "args": []}
    # A dead host fails every Kubespray playbook that gathers facts from it (any_errors_fatal): it
    # leaves first and alone, and whatever else is pending waits for the next run, by which time
    # the operator has taken it out of the inventory (docs/day2.md).
    dead = [h for h in still_there if h in unreachable]
    if deployed and dead:
        result["steps"] = [{"playbook": f"{KUBESPRAY_DIR}/remove-node.yml",
                            "args": ["-e", f"node={','.join(dead)}",
                                     "-e", '{"skip_confirmation": true, "reset_nodes": false, "allow_ungraceful_removal": true}'],
                            "reason": f"decommissioned and not reachable: {', '.join(dead)} (deleted from the cluster without "
                                      "a drain or reset, as Kubespray documents for a dead node; anything else waits for "
                                      "the next run, once it has left the inventory)"}]
        result["workers_after"] = [h for h in had if h not in dead]
        return result
    if not deployed:
        result["steps"] = [{**cluster, "reason": "it has not run successfully here yet"}]
        return result
    if (deployed.get("deepops"), deployed.get("kubespray")) != (current.get("deepops"), current.get("kubespray")):
        refusal = upgrade_refusal(str(deployed.get("kubespray") or ""), str(current.get("kubespray") or ""))
        if refusal:
            result["refused"] = refusal
            return result
        result["steps"] = [{"playbook": f"{KUBESPRAY_DIR}/upgrade-cluster.yml", "args": ["-e", f"serial={current.get('serial', 1)}"],
                            "reason": (f"DeepOps {deployed.get('deepops')} (Kubespray {deployed.get('kubespray')}) -> "
                                       f"{current.get('deepops')} (Kubespray {current.get('kubespray')}): rolling upgrade, "
                                       "each node drained")}]
        return result
    if list(deployed.get("control_plane") or []) != list(plan.get("control_plane") or []):
        result["steps"] = [{**cluster, "reason": "the control plane changed"}]
        return result
    if deployed.get("config") != current.get("config"):
        result["steps"] = [{**cluster, "reason": "the generated configuration changed"}]
        return result
    moved = [h for h in had if h in addresses and (deployed.get("hosts") or {}).get(h) not in (None, addresses[h])]
    if moved:
        result["steps"] = [{**cluster, "reason": f"the address of {', '.join(moved)} changed"}]
        return result
    removed = still_there
    added = [h for h in workers if h not in had]
    result["workers_after"] = workers
    # Booleans as JSON: under ansible-core 2.19 Kubespray's conditionals refuse the string "true".
    if removed:
        result["steps"].append({"playbook": f"{KUBESPRAY_DIR}/remove-node.yml",
                                "args": ["-e", f"node={','.join(removed)}", "-e", '{"skip_confirmation": true}'],
                                "reason": f"decommissioned: {', '.join(removed)} (drained, reset and deleted by Kubespray)"})
    if added:
        result["steps"].append({"playbook": f"{KUBESPRAY_DIR}/playbooks/facts.yml", "args": [],
                                "reason": "facts of every host, which scale.yml limited to the new nodes needs"})
        result["steps"].append({"playbook": f"{KUBESPRAY_DIR}/scale.yml", "args": [f"--limit={','.join(added)}"],
                                "reason": f"new worker(s): {', '.join(added)}; the others are not touched"})
    return result


INI_TOKEN = re.compile(r"[A-Za-z0-9_/~][A-Za-z0-9._:/@+~-]*")


def ini_token(value: Any, name: str) -> str:
    """`value` as one token of an Ansible INI inventory line (a host name or a `key=value` value).

    The generated DeepOps inventory is read by Ansible's INI parser, which splits a line on blanks
    and reads `key=value` pairs and `#` comments: a value with a blank, a quote, `=`, `#`, `;` or a
    control character would add variables, hosts or groups. Validation refuses such text in the
    model; this refuses it again where the file is written (ValueError naming the variable).
    """
    text = str(value)
    if not INI_TOKEN.fullmatch(text):
        raise ValueError(f"{name} {text!r} cannot be written into the DeepOps inventory as one INI token "
                         "(letters, digits and . _ : / @ + ~ - only)")
    return text
