"""Filters of the compute layer: per-host values the dgx_* roles derive from the site model.

Docs: aipod_host_storage_plan.yml, aipod_compute_plans.yml, aipod_storage_network_files.yml,
aipod_tuning_files.yml, aipod_roce_unit.yml, aipod_ring_settings.yml, aipod_mounts_pending.yml, aipod_compute_pending.yml,
aipod_compute_disruptive.yml, aipod_sysctl_unavailable.yml and aipod_dgx_in_service.yml
beside this file. The derivation itself lives in
plugins/plugin_utils/aipod_site/model.py with the others (one place for every derived value).
"""
from __future__ import annotations

from collections.abc import Mapping

from ansible.errors import AnsibleFilterError

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_compute import files as compute_files
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_compute import pending as compute_pending
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes import gpu
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as site_model
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.slices import OTHER_SLICES_GROUP


def _model(model: Mapping, name: str) -> dict:
    if not isinstance(model, Mapping) or "hosts" not in model:
        raise AnsibleFilterError(f"{name}: expected the site model (hostvars | ontap_ai.pod.aipod_model(groups)), got {type(model).__name__}")
    return dict(model)


def aipod_host_storage_plan(model: Mapping, host: str) -> list[dict]:
    """The storage NICs of one DGX or server as its OS configures them (device, address, MTU, routes)."""
    checked = _model(model, "aipod_host_storage_plan")
    if host not in site_model.hosts_of_kind(checked, "dgx") and host not in site_model.hosts_of_kind(checked, "server"):
        raise AnsibleFilterError(f"aipod_host_storage_plan: {host!r} is not a DGX or server of the site model")
    return site_model.host_storage_plan(checked, host)


def aipod_compute_plans(model: Mapping, hosts: list) -> dict[str, dict]:
    """Per DGX of hosts: {nics (host_storage_plan), storage_networks, mounts (mount_plan), mount_points, roce, gpus, common_user,
    nfs_module (the NFS client module's parameters, compute.nfs_client), containerd_by_kubespray (Kubespray's
    variables declare containerd's nvidia runtime on this host, so the role leaves containerd's configuration alone)}.

    Computed once per play for every host (the role reads its own entry), because a per-host
    task costs a worker process per host. common_user is kubernetes.common_user on kube_node
    hosts and {} elsewhere.
    """
    checked = _model(model, "aipod_compute_plans")
    dgx = site_model.hosts_of_kind(checked, "dgx")
    common_user = dict(((checked.get("kubernetes") or {}).get("common_user")) or {})
    nfs_module = dict(((checked.get("compute") or {}).get("nfs_client")) or {})
    kubespray_runtime = (((checked.get("kubernetes") or {}).get("deployment")) == "deepops"
                         and gpu.operator_enabled(checked))
    plans = {}
    for host in hosts or []:
        if host not in dgx:
            raise AnsibleFilterError(f"aipod_compute_plans: {host!r} is not a DGX of the site model")
        groups = (checked["hosts"].get(host) or {}).get("groups") or []
        nics = site_model.host_storage_plan(checked, host)
        mounts = site_model.mount_plan(checked, host)
        plans[host] = {
            "nics": nics,
            "storage_networks": site_model.storage_destinations(nics),
            "mounts": mounts,
            "mount_points": [{"path": mount["path"]} for mount in mounts],
            "roce": dgx[host].get("roce") is True,
            "gpus": dict(dgx[host].get("gpus") or {}),
            "common_user": common_user if "kube_node" in groups else {},
            "nfs_module": nfs_module,
            "containerd_by_kubespray": kubespray_runtime and bool({"kube_node", "kube_control_plane"} & set(groups)),
        }
    return plans


PROBE_KEYS = ("path", "src", "options", "lif", "export_policy", "svm", "network")


def aipod_mounts_pending(mounts: list, active: Mapping, nics: list) -> list[dict]:
    """The mounts of aipod_mount_plan that are not active with their planned source, for nfs_mount_probe.

    active is dgx_host_facts' nfs.mounts (mount point -> {src, ...}); nics is this host's
    aipod_host_storage_plan. Each entry keeps what the probe needs and names the client side: the
    host's address and device on the mount's network (client_address, client_device).
    """
    if not isinstance(mounts, list) or not isinstance(nics, list):
        raise AnsibleFilterError("aipod_mounts_pending: expected the mount plan and the storage NIC plan (lists)")
    active = active if isinstance(active, Mapping) else {}
    pending = []
    for mount in mounts:
        current = active.get(mount.get("path"))
        if isinstance(current, Mapping) and current.get("src") == mount.get("src"):
            continue
        nic = next((nic for nic in nics if nic.get("network") == mount.get("network")), {})
        entry = {key: mount.get(key) for key in PROBE_KEYS}
        entry.update({"client_address": nic.get("address"), "client_device": nic.get("device")})
        pending.append(entry)
    return pending


def aipod_storage_network_files(nics: list, renderer: str, directory: str, host: str, managed: str = "Ansible managed") -> list[dict]:
    """The files that configure the storage NICs (from aipod_host_storage_plan) with this renderer.

    config_files entries {dest, content, mode}, dest in directory (the text: plugin_utils/aipod_compute/files.py).
    """
    if renderer not in compute_files.RENDERERS:
        raise AnsibleFilterError(f"aipod_storage_network_files: renderer must be netplan or networkd, got {renderer!r}")
    if not isinstance(nics, list):
        raise AnsibleFilterError(f"aipod_storage_network_files: expected the list of aipod_host_storage_plan, got {type(nics).__name__}")
    return compute_files.storage_network_files(nics, renderer, directory, host, managed)


def aipod_tuning_files(settings: Mapping, rings: list, paths: Mapping, managed: str = "Ansible managed",
                       nfs_module: Mapping | None = None) -> list[dict]:
    """The NFS tuning files (sysctl.d; modprobe.d with sunrpc and nfs parameters; the ring unit with rings to set) as config_files entries."""
    if not isinstance(settings, Mapping) or not isinstance(rings, list):
        raise AnsibleFilterError("aipod_tuning_files: expected the kernel parameters (dict) and the ring settings (list)")
    missing = {"sysctl", "modprobe", "rings_unit"} - set(paths or {})
    if missing:
        raise AnsibleFilterError(f"aipod_tuning_files: paths lacks {', '.join(sorted(missing))}")
    if nfs_module is not None and not isinstance(nfs_module, Mapping):
        raise AnsibleFilterError(f"aipod_tuning_files: nfs_module must be a dict, got {type(nfs_module).__name__}")
    return compute_files.tuning_files(settings, rings, paths, managed, dict(nfs_module or {}))


def aipod_roce_unit(parents: list, qos: Mapping, managed: str = "Ansible managed") -> str:
    """The text of the oneshot unit that applies the RoCE QoS to the storage NICs at every boot."""
    missing = {"pfc_priorities", "trust", "tos", "cable_length"} - set(qos or {})
    if missing:
        raise AnsibleFilterError(f"aipod_roce_unit: qos lacks {', '.join(sorted(missing))}")
    return compute_files.roce_unit(list(parents), qos, managed)


def aipod_ring_settings(nic_facts: dict, size: int) -> list[dict]:
    """Ring sizes to set on the NICs whose driver reports them (dgx_host_facts' nics).

    Each: {name, rx, tx, current_rx, current_tx, differs}; rx/tx are size capped at the driver's
    maximum. NICs without ring support, and every NIC when size is 0, are left out.
    """
    if not isinstance(nic_facts, Mapping):
        raise AnsibleFilterError(f"aipod_ring_settings: expected the nics of dgx_host_facts, got {type(nic_facts).__name__}")
    if not size:
        return []
    settings = []
    for name, facts in sorted(nic_facts.items()):
        rings = (facts or {}).get("rings")
        if not rings:
            continue
        rx, tx = min(int(size), rings["rx_max"]), min(int(size), rings["tx_max"])
        settings.append({"name": name, "rx": rx, "tx": tx, "current_rx": rings["rx"], "current_tx": rings["tx"],
                         "differs": (rx, tx) != (rings["rx"], rings["tx"])})
    return settings


def _compare(filter_name: str, compare, plan: Mapping, host: Mapping, kept: Mapping, settings: Mapping) -> list[str]:
    """One comparison of pending.py on one reading, with the filters' checks of their arguments."""
    for name, value in (("plan", plan), ("host", host), ("kept", kept), ("settings", settings)):
        if not isinstance(value, Mapping):
            raise AnsibleFilterError(f"{filter_name}: {name} must be a dict, got {type(value).__name__}")
    try:
        return compare(plan, host, kept, settings)
    except (KeyError, TypeError) as error:
        raise AnsibleFilterError(f"{filter_name}: the host facts lack {error} (run dgx_host_facts first)") from error


def aipod_compute_pending(plan: Mapping, host: Mapping, kept: Mapping, settings: Mapping) -> list[dict]:
    """Every way a DGX differs from its compute plan, as pending items; [] when the layer has nothing to change."""
    return _compare("aipod_compute_pending", compute_pending.differences, plan, host, kept, settings)


def aipod_compute_disruptive(plan: Mapping, host: Mapping, kept: Mapping, settings: Mapping) -> list[dict]:
    """The pending items of a DGX whose change interrupts I/O or pods, each with the reason; [] when none does."""
    return _compare("aipod_compute_disruptive", compute_pending.disruptive, plan, host, kept, settings)


def aipod_sysctl_unavailable(settings: Mapping, readings: Mapping) -> dict[str, str]:
    """The kernel parameters of settings that cannot be set here, with the reason (as sysctl_runtime reports them)."""
    return compute_pending.sysctl_plan(settings, readings)[1]


def aipod_dgx_in_service(groups: Mapping) -> list[str]:
    """The DGX of the inventory that are not leaving the pod: group dgx without group decommission.
    In a slice of a sliced job, only the slice's own DGX: the other slices' are in the model only."""
    if not isinstance(groups, Mapping):
        raise AnsibleFilterError(f"aipod_dgx_in_service: expected the groups magic variable, got {type(groups).__name__}")
    leaving = set(groups.get("decommission") or []) | set(groups.get(OTHER_SLICES_GROUP) or [])
    return [host for host in groups.get("dgx") or [] if host not in leaving]


class FilterModule:
    """Compute-layer filters."""

    def filters(self):
        return {
            "aipod_host_storage_plan": aipod_host_storage_plan,
            "aipod_compute_plans": aipod_compute_plans,
            "aipod_storage_network_files": aipod_storage_network_files,
            "aipod_tuning_files": aipod_tuning_files,
            "aipod_roce_unit": aipod_roce_unit,
            "aipod_ring_settings": aipod_ring_settings,
            "aipod_mounts_pending": aipod_mounts_pending,
            "aipod_compute_pending": aipod_compute_pending,
            "aipod_compute_disruptive": aipod_compute_disruptive,
            "aipod_sysctl_unavailable": aipod_sysctl_unavailable,
            "aipod_dgx_in_service": aipod_dgx_in_service,
        }
