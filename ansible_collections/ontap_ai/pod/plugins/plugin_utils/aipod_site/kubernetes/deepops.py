"""The Kubernetes cluster's hosts and networks, and the DeepOps inventory built from them.

Who is control plane, etcd and worker, on which address; where the cluster's kubeconfig is; the
storage networks of the workers (Trident's autoExportCIDRs); site networks that overlap the pod
and service networks DeepOps (Kubespray) uses. Defensive on malformed models, like ..model.
"""
from __future__ import annotations

import ipaddress
from typing import Any

from .. import model as m

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

    {hosts: [{name, ip}], control_plane, etcd, workers, user, group, version, release_url, service_cidr, pod_cidr}.
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
        "version": m.as_str(deepops.get("version")),
        "release_url": m.as_str(deepops.get("release_url")),
        "service_cidr": KUBESPRAY_SERVICE_CIDR,
        "pod_cidr": KUBESPRAY_POD_CIDR,
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
