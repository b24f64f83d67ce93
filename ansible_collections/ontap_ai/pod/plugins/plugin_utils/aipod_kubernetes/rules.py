"""Rules of the Kubernetes layer: cluster hosts, the deployment mode, and DeepOps' pod and service networks."""
from __future__ import annotations

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.deepops import KUBESPRAY_POD_CIDR, KUBESPRAY_SERVICE_CIDR, overlapping_networks
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import KUBE_GROUPS
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.rule_context import Context


def kubernetes(ctx: Context) -> None:
    """Kubernetes hosts are declared DGX or servers; the deployment mode has what it needs."""
    kube = m.as_dict(ctx.model.get("kubernetes"))
    for group in KUBE_GROUPS:
        for host in ctx.site.groups.get(group, []):
            if host not in ctx.dgx and host not in ctx.servers:
                ctx.error("dangling-reference", ("groups", group), f"{host} in {group} is not a declared DGX or server",
                          f"add {host} to group dgx or servers with its model in host_vars/{host}.yml")
    control_plane = ctx.site.groups.get("kube_control_plane", [])
    if kube.get("deployment") == "deepops":
        if not control_plane:
            ctx.error("kubernetes", ("groups", "kube_control_plane"), "DeepOps needs at least one control-plane host",
                      "list hosts under kube_control_plane in hosts.yml")
        elif len(control_plane) % 2 == 0:
            ctx.warning("kubernetes", ("groups", "kube_control_plane"),
                        f"{len(control_plane)} control-plane hosts: etcd needs an odd number for quorum", "use 1, 3 or 5")
        if "deepops" not in kube:
            ctx.error("kubernetes", ("kubernetes",), "deployment is deepops but the deepops section is missing", "add kubernetes.deepops.version")
        if "common_user" not in kube:
            ctx.error("kubernetes", ("kubernetes",), "DeepOps needs a common user with the same uid/gid on all nodes",
                      "add kubernetes.common_user {name, uid, gid}")
    if kube.get("deployment") == "existing":
        existing = m.as_dict(kube.get("existing"))
        if not existing:
            ctx.error("kubernetes", ("kubernetes",), "deployment is existing but no kubeconfig is given", "add kubernetes.existing.kubeconfig")
        # Where the kubeconfig lies and what it holds: rules.secrets.files.
    if not ctx.site.groups.get("kube_node"):
        ctx.warning("kubernetes", ("groups", "kube_node"), "no Kubernetes worker hosts", "list the DGX nodes under kube_node")
    decommission(ctx)


def decommission(ctx: Context) -> None:
    """The group decommission names Kubernetes workers to remove (docs/day2.md); never a control-plane host or a stranger."""
    workers = ctx.site.groups.get("kube_node", [])
    leaving = ctx.site.groups.get("decommission", [])
    for host in leaving:
        if host in ctx.site.groups.get("kube_control_plane", []):
            ctx.error("kubernetes", ("groups", "decommission"), f"{host} in decommission is a control-plane host",
                      "decommission removes workers; replace a control-plane host with Kubespray's documented procedure, "
                      "then take it out of kube_control_plane")
        elif host not in workers:
            ctx.error("dangling-reference", ("groups", "decommission"), f"{host} in decommission is not a kube_node host",
                      f"keep {host} in kube_node until it has been removed from the cluster, or take it out of decommission")
    if workers and leaving and not [host for host in workers if host not in leaving]:
        ctx.warning("kubernetes", ("groups", "decommission"), "every Kubernetes worker is being decommissioned",
                    "the cluster will have no worker left for the training jobs")


def kubernetes_networks(ctx: Context) -> None:
    """A DeepOps cluster's pod and service networks (Kubespray's defaults) overlap no site network."""
    if m.as_dict(ctx.model.get("kubernetes")).get("deployment") != "deepops":
        return
    for label, cidr in (("service", KUBESPRAY_SERVICE_CIDR), ("pod", KUBESPRAY_POD_CIDR)):
        for name in overlapping_networks(ctx.model, cidr):
            index = next(i for i, n in enumerate(m.as_list(ctx.model.get("networks"))) if m.as_dict(n).get("name") == name)
            ctx.error("kubernetes", ("networks", index, "subnet"),
                      f"network '{name}' overlaps the Kubernetes {label} network {cidr} that DeepOps (Kubespray) uses",
                      f"renumber '{name}'; the cluster's {label} network is Kubespray's default")
