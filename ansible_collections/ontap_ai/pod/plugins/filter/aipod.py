"""Filters that hand the roles values derived from the site model (docs: aipod_*.yml beside this file)."""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ansible.errors import AnsibleFilterError

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import model as network_model
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as site_model
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import GLOBAL_KEYS, HOST_KEYS, resolve_site_file


def aipod_model(hostvars: Mapping, groups: Mapping) -> dict[str, Any]:
    """The whole site model from Ansible's variables: pod-wide keys plus each host's kind and model."""
    if not isinstance(groups, Mapping) or "all" not in groups:
        raise AnsibleFilterError(f"aipod_model: expected the 'groups' magic variable, got {type(groups).__name__}")
    hosts = list(groups.get("all") or [])
    model: dict[str, Any] = {"hosts": {}}
    if hosts:
        first = hostvars[hosts[0]]
        for key in GLOBAL_KEYS:
            if key in first:
                model[key] = first[key]
    membership: dict[str, list[str]] = {host: [] for host in hosts}
    for group, members in groups.items():
        if group in ("all", "ungrouped"):
            continue
        for host in members or []:
            membership.setdefault(host, []).append(group)
    for host in hosts:
        entry: dict[str, Any] = {"groups": sorted(membership.get(host, []))}
        variables = hostvars[host]
        for key in HOST_KEYS:
            if key in variables:
                entry[key] = variables[key]
        model["hosts"][host] = entry
    return model


def aipod_shared_layer_hosts(hosts: Any, slice_group: Any = "") -> Any:
    """The hosts of a play of a shared layer (switches, storage, Kubernetes, Trident): none in a slice
    of a sliced job (slice_group, the run's aipod_slice_group, is set), whose slices run the per-DGX
    layers only; the hosts given otherwise. The validation play has checked slice_group."""
    return [] if slice_group not in (None, "", False) else hosts


def _require_model(model: Any, name: str) -> dict:
    if not isinstance(model, Mapping) or "hosts" not in model:
        raise AnsibleFilterError(f"{name}: expected the site model (hostvars | ontap_ai.pod.aipod_model(groups)), got {type(model).__name__}")
    return dict(model)


def aipod_data_lifs(model: Mapping) -> list[dict]:
    return site_model.data_lifs(_require_model(model, "aipod_data_lifs"))


def aipod_broadcast_domains(model: Mapping) -> list[dict]:
    return site_model.broadcast_domains(_require_model(model, "aipod_broadcast_domains"))


def aipod_vlan_ports(model: Mapping) -> list[dict]:
    return site_model.ontap_vlan_ports(_require_model(model, "aipod_vlan_ports"))


def aipod_export_policies(model: Mapping) -> list[dict]:
    return site_model.export_policies(_require_model(model, "aipod_export_policies"))


def aipod_flexgroups(model: Mapping) -> list[dict]:
    return site_model.flexgroups(_require_model(model, "aipod_flexgroups"))


def aipod_switch_plan(model: Mapping, switch: str) -> dict:
    checked = _require_model(model, "aipod_switch_plan")
    if switch not in site_model.hosts_of_kind(checked, "switch"):
        raise AnsibleFilterError(f"aipod_switch_plan: {switch!r} is not a switch of the site model")
    plan = network_model.switch_plan(checked, switch)
    hidden = network_model.hidden_texts(plan)
    if hidden:
        raise AnsibleFilterError(f"aipod_switch_plan: {switch} would get text with hidden characters, which a switch CLI "
                                 f"reads as more than one line: {'; '.join(hidden)}")
    return plan


def aipod_mount_plan(model: Mapping, host: str) -> list[dict]:
    checked = _require_model(model, "aipod_mount_plan")
    if host not in site_model.hosts_of_kind(checked, "dgx"):
        raise AnsibleFilterError(f"aipod_mount_plan: {host!r} is not a DGX of the site model")
    return site_model.mount_plan(checked, host)


def aipod_sizing(model: Mapping) -> dict:
    return site_model.sizing(_require_model(model, "aipod_sizing"))


def aipod_site_file(path: str, inventory_dir: str, files_dir: str | None = None) -> str:
    """A file the model names (ontap.ca_file, a kubeconfig), resolved as the validator resolves it."""
    if not isinstance(path, str) or not path:
        raise AnsibleFilterError(f"aipod_site_file: expected a path, got {path!r}")
    return resolve_site_file(path, files_dir or os.environ.get("AIPOD_SITE_FILES_DIR"), str(inventory_dir))


def aipod_site_json_files(paths: Any, inventory_dir: str, files_dir: str | None = None) -> list[str]:
    """The JSON files the model names (monitoring.dashboards): each a file, or a directory whose *.json are taken, in name order."""
    if not isinstance(paths, list) or not all(isinstance(p, str) and p for p in paths):
        raise AnsibleFilterError(f"aipod_site_json_files: expected a list of paths, got {paths!r}")
    found: list[str] = []
    for path in paths:
        target = aipod_site_file(path, inventory_dir, files_dir)
        if os.path.isdir(target):
            found += sorted(os.path.join(target, name) for name in os.listdir(target) if name.lower().endswith(".json"))
        else:
            found.append(target)
    return found


class FilterModule:
    """Site-model filters."""

    def filters(self):
        return {
            "aipod_site_file": aipod_site_file,
            "aipod_site_json_files": aipod_site_json_files,
            "aipod_model": aipod_model,
            "aipod_shared_layer_hosts": aipod_shared_layer_hosts,
            "aipod_data_lifs": aipod_data_lifs,
            "aipod_broadcast_domains": aipod_broadcast_domains,
            "aipod_vlan_ports": aipod_vlan_ports,
            "aipod_export_policies": aipod_export_policies,
            "aipod_flexgroups": aipod_flexgroups,
            "aipod_switch_plan": aipod_switch_plan,
            "aipod_mount_plan": aipod_mount_plan,
            "aipod_sizing": aipod_sizing,
        }
