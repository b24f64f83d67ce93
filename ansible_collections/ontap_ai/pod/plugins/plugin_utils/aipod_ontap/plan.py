"""What the storage roles must change on a cluster: the site model against what ONTAP reports.

Each ``plan_<area>`` function takes the site model, the records one ``na_ontap_rest_info`` call
returned (its ``ontap_info``, keyed by API path) and the role's settings, and returns the
objects that differ from the model, each as::

    {"key": "lab-data:data", "action": "create" | "modify" | "delete",
     "want": {...the settings the module task passes...},
     "changes": {"field": {"before": <on the cluster>, "after": <from the model>}}}

plus ``errors``: conditions the bundle refuses to act on (a same-named volume of another style,
a FlexGroup that would shrink, an interface group ONTAP named differently), each a sentence.

Objects already as the model says are left out, so a re-run of an unchanged site invokes no
module at all (one read per role instead of one module per object); the modules stay the only
writers and re-check every object they are given. Desired values come from the model
derivations (``aipod_site.model``); nothing here re-derives an address, VLAN or MTU.
"""
from __future__ import annotations

import ipaddress
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_datasets import model as datasets
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_monitoring import harvest
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m

ALL_PROTOCOLS = ("nfs", "cifs", "iscsi", "fcp", "nvme", "s3")


# ---------------------------------------------------------------------------- helpers
def records(info: Any, api: str) -> list[dict]:
    """The records of one subset of an ``na_ontap_rest_info`` answer (empty when absent)."""
    subset = m.as_dict(m.as_dict(info).get(api))
    return [record for record in m.as_list(subset.get("records")) if isinstance(record, dict)]


def dig(record: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(record, dict):
            return None
        record = record.get(part)
    return record


def _item(key: str, action: str, want: dict, changes: dict | None = None, **extra: Any) -> dict:
    item = {"key": key, "action": action, "want": want, "changes": changes or {}}
    item.update(extra)
    return item


def _changes(before: dict, after: dict) -> dict:
    """Fields whose wanted value (not None) differs from the current one."""
    return {field: {"before": before.get(field), "after": value}
            for field, value in after.items() if value is not None and before.get(field) != value}


def _sorted(values: Any) -> list | None:
    return sorted(values) if isinstance(values, list) else None


def _prefix(netmask: Any) -> int | None:
    text = str(netmask) if netmask is not None else ""
    if text.isdigit():
        return int(text)
    try:
        return ipaddress.IPv4Network(f"0.0.0.0/{text}").prefixlen
    except ValueError:
        return None


# ---------------------------------------------------------------------------- cluster network
def plan_network(model: dict, info: Any, options: dict | None = None) -> dict:
    """IPspaces, interface groups, VLAN ports and broadcast domains."""
    options = options or {}
    ontap = m.as_dict(model.get("ontap"))
    ports = records(info, "network/ethernet/ports")
    domains = records(info, "network/ethernet/broadcast-domains")
    ipspaces = {record.get("name") for record in records(info, "network/ipspaces")}
    plan: dict[str, list] = {"ipspaces": [], "interface_groups": [], "vlans": [], "broadcast_domains": [], "errors": []}

    for name in m.as_list(ontap.get("ipspaces")):
        if isinstance(name, str) and name not in ipspaces:
            plan["ipspaces"].append(_item(name, "create", {"name": name}, {"name": {"before": None, "after": name}}))

    lags = [port for port in ports if port.get("type") == "lag"]
    for group in m.as_list(ontap.get("interface_groups")):
        group = m.as_dict(group)
        node, name = m.as_str(group.get("node")), m.as_str(group.get("name"))
        members = sorted(p for p in m.as_list(group.get("ports")) if isinstance(p, str))
        if not node or not name:
            continue
        want = {"node": node, "name": name, "ports": members,
                "mode": group.get("mode") or options.get("ifgrp_mode", "multimode_lacp"),
                "distribution": group.get("distribution") or options.get("ifgrp_distribution", "port")}
        key = f"{node}:{name}"
        current = next((lag for lag in lags if dig(lag, "node.name") == node and lag.get("name") == name), None)
        # na_ontap_net_ifgrp finds a LAG by its ports, ONTAP names new ones: ports of the model's
        # group sitting in a group of another name must stop the run, not be moved silently.
        clash = next((lag for lag in lags if dig(lag, "node.name") == node and lag is not current
                      and set(p.get("name") for p in m.as_list(dig(lag, "lag.member_ports"))) & set(members)), None)
        if clash is not None:
            plan["errors"].append(f"interface group {key}: ports {', '.join(members)} already form interface group "
                                  f"{clash.get('name')} on {node}; ONTAP names interface groups itself, and the VLANs "
                                  f"of the model sit on {name}. Rename {name} to {clash.get('name')} in the model or "
                                  "re-create the interface group by hand.")
            continue
        if current is None:
            plan["interface_groups"].append(_item(key, "create", want, {"ports": {"before": None, "after": members}}))
            continue
        have = {"ports": sorted(p.get("name") for p in m.as_list(dig(current, "lag.member_ports"))),
                "mode": dig(current, "lag.mode"), "distribution": dig(current, "lag.distribution_policy")}
        if not set(have["ports"]) & set(members):
            plan["errors"].append(f"interface group {key} has ports {', '.join(have['ports'])} on the cluster and "
                                  f"{', '.join(members)} in the model, none in common; na_ontap_net_ifgrp finds a group by its "
                                  "ports and would create another one: move the ports by hand or change the model.")
            continue
        for fixed in ("mode", "distribution"):
            if have[fixed] != want[fixed]:
                plan["errors"].append(f"interface group {key} is {fixed} {have[fixed]} on the cluster and {want[fixed]} in the "
                                      "model; ONTAP cannot change that in place: re-create the interface group by hand "
                                      "(it carries traffic) or change the model.")
        changes = _changes(have, {"ports": members})
        if changes:
            plan["interface_groups"].append(_item(key, "modify", want, changes))

    for vlan in m.ontap_vlan_ports(model):
        key = f"{vlan['node']}:{vlan['name']}"
        current = next((port for port in ports if dig(port, "node.name") == vlan["node"] and port.get("name") == vlan["name"]), None)
        want = {"node": vlan["node"], "parent_interface": vlan["base_port"], "vlanid": vlan["vlan"],
                "broadcast_domain": vlan["broadcast_domain"], "ipspace": vlan["ipspace"]}
        if current is None:
            plan["vlans"].append(_item(key, "create", want, {"vlan": {"before": None, "after": vlan["vlan"]}}))
            continue
        have = {"broadcast_domain": dig(current, "broadcast_domain.name"), "ipspace": dig(current, "broadcast_domain.ipspace.name")}
        changes = _changes(have, {"broadcast_domain": vlan["broadcast_domain"], "ipspace": vlan["ipspace"]})
        if changes:
            plan["vlans"].append(_item(key, "modify", want, changes))

    # A domain this plan creates (with its MTU) whose ports are all VLAN ports the plan creates or
    # moves into it needs no membership step: each VLAN call places its port.
    placed = {(item["want"]["ipspace"], item["want"]["broadcast_domain"], item["key"]) for item in plan["vlans"]}
    for domain in m.broadcast_domains(model):
        key = f"{domain['ipspace']}:{domain['name']}"
        wanted_ports = sorted(f"{port['node']}:{port['port']}" for port in domain["ports"])
        current = next((d for d in domains if d.get("name") == domain["name"] and dig(d, "ipspace.name") == domain["ipspace"]), None)
        want = {"name": domain["name"], "ipspace": domain["ipspace"], "mtu": domain["mtu"], "ports": wanted_ports,
                "ports_follow_vlans": current is None and all((domain["ipspace"], domain["name"], port) in placed
                                                              for port in wanted_ports)}
        if current is None:
            plan["broadcast_domains"].append(_item(key, "create", want, {"mtu": {"before": None, "after": domain["mtu"]},
                                                                         "ports": {"before": None, "after": wanted_ports}}))
            continue
        have = {"mtu": current.get("mtu"),
                "ports": sorted(f"{dig(p, 'node.name')}:{p.get('name')}" for p in m.as_list(current.get("ports")))}
        changes = _changes(have, {"mtu": domain["mtu"], "ports": wanted_ports})
        if changes:
            plan["broadcast_domains"].append(_item(key, "modify", want, changes))
    return plan


# ---------------------------------------------------------------------------- SVMs and NFS
def _nfs_settings(svm: dict) -> dict:
    nfs = m.as_dict(svm.get("nfs"))

    def flag(name: str, default: bool) -> bool:
        return nfs[name] if isinstance(nfs.get(name), bool) else default
    return {"v3": flag("v3", True), "v41": flag("v41", True), "pnfs": flag("pnfs", False),
            "v41_trunking": flag("v41_trunking", False), "rdma": flag("rdma", False),
            "tcp_max_transfer_size": m.as_int(nfs.get("tcp_max_transfer_size"))}


def plan_svms(model: dict, info: Any, options: dict | None = None) -> dict:
    """Snapshot policies the model declares, SVMs, and their NFS services (module and REST settings)."""
    options = options or {}
    ontap = m.as_dict(model.get("ontap"))
    current_svms = records(info, "svm/svms")
    services = records(info, "protocols/nfs/services")
    policies = records(info, "storage/snapshot-policies")
    plan: dict[str, list] = {"snapshot_policies": [], "svms": [], "nfs": [], "nfs_rest": [], "errors": []}

    # The model's own policies, then one per data set with versions (its SVM's).
    for policy in m.as_list(ontap.get("snapshot_policies")) + datasets.snapshot_policies(model):
        policy = m.as_dict(policy)
        name, svm = m.as_str(policy.get("name")), m.as_str(policy.get("svm"))
        schedules = [m.as_dict(s) for s in m.as_list(policy.get("schedules"))]
        want = {"name": name, "vserver": svm, "enabled": True,
                "schedule": [s.get("schedule") for s in schedules], "count": [s.get("count") for s in schedules],
                "prefix": [s.get("prefix") or s.get("schedule") for s in schedules],
                "snapmirror_label": [s.get("snapmirror_label") or "" for s in schedules]}
        current = next((p for p in policies if p.get("name") == name
                        and (dig(p, "svm.name") == svm if svm else p.get("scope") == "cluster")), None)
        key = f"{svm or 'cluster'}:{name}"
        if current is None:
            # svm_exists: in check mode, the policy of an SVM the same run creates cannot be previewed by the module.
            plan["snapshot_policies"].append(_item(key, "create", want, {"schedules": {"before": None, "after": want["schedule"]}},
                                                   svm_exists=not svm or svm in {s.get("name") for s in current_svms}))
            continue
        have = {"schedules": sorted((dig(c, "schedule.name"), c.get("count")) for c in m.as_list(current.get("copies"))),
                "enabled": current.get("enabled")}
        changes = _changes(have, {"schedules": sorted(zip(want["schedule"], want["count"])), "enabled": True})
        if changes:
            plan["snapshot_policies"].append(_item(key, "modify", want, changes))

    for svm in m.svms(model):
        name = svm["name"]
        allowed = [p for p in m.as_list(svm.get("protocols")) if isinstance(p, str)] or ["nfs"]
        # AFX: no aggregates to assign (None leaves the SVM's alone; ONTAP places its volumes)
        aggregates = None if m.ontap_disaggregated(model) else sorted(a for a in m.as_list(svm.get("aggregates")) if isinstance(a, str))
        want = {"name": name, "ipspace": m.as_str(svm.get("ipspace")) or "Default", "aggregates": aggregates,
                "snapshot_policy": m.as_str(svm.get("snapshot_policy")) or options.get("snapshot_policy", "default"),
                "services": {protocol: {"allowed": protocol in allowed} for protocol in ALL_PROTOCOLS}}
        current = next((s for s in current_svms if s.get("name") == name), None)
        if current is None:
            plan["svms"].append(_item(name, "create", want, {"aggregates": {"before": None, "after": want["aggregates"]}}
                                      if want["aggregates"] is not None else {"name": {"before": None, "after": name}}))
        else:
            have = {"ipspace": dig(current, "ipspace.name"),
                    "aggregates": sorted(a.get("name") for a in m.as_list(current.get("aggregates"))),
                    "snapshot_policy": dig(current, "snapshot_policy.name"),
                    "allowed": {p: bool(dig(current, f"{p}.allowed")) for p in ALL_PROTOCOLS}}
            if have["ipspace"] != want["ipspace"]:
                plan["errors"].append(f"SVM {name} is in IPspace {have['ipspace']} on the cluster and {want['ipspace']} in the "
                                      "model; an SVM cannot change IPspace.")
            changes = _changes(have, {"aggregates": want["aggregates"], "snapshot_policy": want["snapshot_policy"],
                                      "allowed": {p: s["allowed"] for p, s in want["services"].items()}})
            if changes:
                plan["svms"].append(_item(name, "modify", want, changes))

        settings = _nfs_settings(svm)
        if "nfs" not in allowed:
            continue
        service = next((s for s in services if dig(s, "svm.name") == name), None)
        nfs_want = {"vserver": name, "nfsv3": "enabled" if settings["v3"] else "disabled",
                    "nfsv41": "enabled" if settings["v41"] else "disabled",
                    "nfsv41_pnfs": "enabled" if settings["pnfs"] else "disabled",
                    "tcp_max_xfer_size": settings["tcp_max_transfer_size"]}
        nfs_after = {"enabled": True, "v3": settings["v3"], "v41": settings["v41"], "pnfs": settings["pnfs"],
                     "tcp_max_transfer_size": settings["tcp_max_transfer_size"]}
        rest_after = {"v41_trunking": settings["v41_trunking"], "rdma": settings["rdma"]}
        rest_body = {"protocol": {"v41_features": {"trunking_enabled": settings["v41_trunking"]}},
                     "transport": {"rdma_enabled": settings["rdma"]}}
        if service is None:
            plan["nfs"].append(_item(name, "create", nfs_want, _changes({}, nfs_after)))
            plan["nfs_rest"].append(_item(name, "modify", {"svm": name, "body": rest_body}, _changes({}, rest_after)))
            continue
        nfs_have = {"enabled": service.get("enabled"), "v3": dig(service, "protocol.v3_enabled"),
                    "v41": dig(service, "protocol.v41_enabled"), "pnfs": dig(service, "protocol.v41_features.pnfs_enabled"),
                    "tcp_max_transfer_size": dig(service, "transport.tcp_max_transfer_size")}
        changes = _changes(nfs_have, nfs_after)
        if changes:
            plan["nfs"].append(_item(name, "modify", nfs_want, changes))
        rest_have = {"v41_trunking": bool(dig(service, "protocol.v41_features.trunking_enabled")),
                     "rdma": bool(dig(service, "transport.rdma_enabled"))}
        changes = _changes(rest_have, rest_after)
        if changes:
            plan["nfs_rest"].append(_item(name, "modify", {"svm": name, "body": rest_body}, changes))
    return plan


# ---------------------------------------------------------------------------- LIFs
def desired_lifs(model: dict, options: dict | None = None) -> list[dict]:
    """The data LIFs (model.data_lifs) and SVM management LIFs, with the role's service policies."""
    options = options or {}
    result = []
    for lif in m.data_lifs(model):
        result.append({"svm": lif["svm"], "name": lif["name"], "node": lif["node"], "port": lif["port"],
                       "address": lif["address"], "netmask": lif["prefix_len"], "kind": "data",
                       "service_policy": options.get("data_service_policy", "default-data-files"),
                       "auto_revert": options.get("auto_revert", True), "rdma": bool(lif["rdma"])})
    for svm in m.svms(model):
        lif = m.svm_mgmt_lif(model, svm)
        if lif:
            result.append({"svm": lif["svm"], "name": lif["name"], "node": lif["node"], "port": lif["port"],
                           "address": lif["address"], "netmask": lif["prefix_len"], "kind": "management",
                           "service_policy": options.get("management_service_policy", "default-management"),
                           "auto_revert": options.get("auto_revert", True), "rdma": False})
    return result


def plan_lifs(model: dict, info: Any, options: dict | None = None) -> dict:
    interfaces = records(info, "network/ip/interfaces")
    plan: dict[str, list] = {"lifs": [], "rdma": [], "errors": []}
    for lif in desired_lifs(model, options):
        key = f"{lif['svm']}:{lif['name']}"
        current = next((i for i in interfaces if dig(i, "svm.name") == lif["svm"] and i.get("name") == lif["name"]), None)
        after = {"home_node": lif["node"], "home_port": lif["port"], "address": lif["address"], "netmask": lif["netmask"],
                 "service_policy": lif["service_policy"], "auto_revert": lif["auto_revert"], "enabled": True}
        rdma_after = {"rdma_protocols": ["roce"] if lif["rdma"] else []}
        if current is None:
            plan["lifs"].append(_item(key, "create", lif, _changes({}, after)))
            if lif["rdma"]:
                plan["rdma"].append(_item(key, "modify", lif, _changes({}, rdma_after)))
            continue
        have = {"home_node": dig(current, "location.home_node.name"), "home_port": dig(current, "location.home_port.name"),
                "address": dig(current, "ip.address"), "netmask": _prefix(dig(current, "ip.netmask")),
                "service_policy": dig(current, "service_policy.name"), "auto_revert": dig(current, "location.auto_revert"),
                "enabled": current.get("enabled")}
        changes = _changes(have, after)
        if changes:
            plan["lifs"].append(_item(key, "modify", lif, changes))
        rdma_changes = _changes({"rdma_protocols": sorted(m.as_list(current.get("rdma_protocols")))}, rdma_after)
        if rdma_changes:
            plan["rdma"].append(_item(key, "modify", lif, rdma_changes))
    return plan


# ---------------------------------------------------------------------------- export policies
def plan_exports(model: dict, info: Any, options: dict | None = None) -> dict:
    """Export policies (the model's, then each data set's), their rules (by index, extra rules
    removed), and each SVM root volume's policy."""
    options = options or {}
    current_policies = records(info, "protocols/nfs/export-policies")
    volumes = records(info, "storage/volumes")
    allow_world = m.as_dict(m.as_dict(model.get("pod")).get("security")).get("allow_world_open_exports") is True
    plan: dict[str, list] = {"policies": [], "rules": [], "stale_rules": [], "root_volumes": [], "errors": []}
    for policy in m.export_policies(model) + datasets.export_policies(model):
        key = f"{policy['svm']}:{policy['name']}"
        current = next((p for p in current_policies if p.get("name") == policy["name"] and dig(p, "svm.name") == policy["svm"]), None)
        if current is None:
            plan["policies"].append(_item(key, "create", {"vserver": policy["svm"], "name": policy["name"]},
                                          {"name": {"before": None, "after": policy["name"]}}))
        current_rules = {r.get("index"): r for r in m.as_list((current or {}).get("rules")) if isinstance(r, dict)}
        for rule in policy["rules"]:
            want = {"vserver": policy["svm"], "name": policy["name"], "rule_index": rule["index"],
                    "client_match": rule["clients"],
                    "ro_rule": rule["ro"] or options.get("ro_rule", ["sys"]),
                    "rw_rule": rule["rw"] or options.get("rw_rule", ["sys"]),
                    "super_user_security": rule["superuser"] or options.get("superuser", ["none"]),
                    "protocol": rule["protocols"] or options.get("protocols", ["nfs"])}
            if any(ipaddress.IPv4Network(c).prefixlen == 0 for c in rule["clients"]) and not allow_world:
                plan["errors"].append(f"export policy {key} rule {rule['index']} opens the data to every address; name the "
                                      "client networks, or set pod.security.allow_world_open_exports: true")
                continue
            after = {"clients": sorted(want["client_match"]), "ro": sorted(want["ro_rule"]), "rw": sorted(want["rw_rule"]),
                     "superuser": sorted(want["super_user_security"]), "protocols": sorted(want["protocol"])}
            existing = current_rules.get(rule["index"])
            if existing is None:
                plan["rules"].append(_item(f"{key}#{rule['index']}", "create", want, _changes({}, after)))
                continue
            have = {"clients": sorted(c.get("match") for c in m.as_list(existing.get("clients"))),
                    "ro": _sorted(existing.get("ro_rule")), "rw": _sorted(existing.get("rw_rule")),
                    "superuser": _sorted(existing.get("superuser")), "protocols": _sorted(existing.get("protocols"))}
            changes = _changes(have, after)
            if changes:
                plan["rules"].append(_item(f"{key}#{rule['index']}", "modify", want, changes))
        for index, existing in sorted(current_rules.items(), key=lambda entry: entry[0] or 0):
            if isinstance(index, int) and index > len(policy["rules"]):
                clients = [c.get("match") for c in m.as_list(existing.get("clients"))]
                plan["stale_rules"].append(_item(f"{key}#{index}", "delete",
                                                 {"vserver": policy["svm"], "name": policy["name"], "rule_index": index},
                                                 {"clients": {"before": clients, "after": None}}))
    for svm in m.svms(model):
        root = m.as_str(svm.get("root_export_policy"))
        if not root:
            continue
        volume = next((v for v in volumes if v.get("is_svm_root") and dig(v, "svm.name") == svm["name"]), None)
        if volume is None:
            plan["root_volumes"].append(_item(svm["name"], "modify", {"vserver": svm["name"], "name": None, "export_policy": root},
                                              {"export_policy": {"before": None, "after": root}}))
            continue
        changes = _changes({"export_policy": dig(volume, "nas.export_policy.name")}, {"export_policy": root})
        if changes:
            plan["root_volumes"].append(_item(svm["name"], "modify",
                                              {"vserver": svm["name"], "name": volume.get("name"), "export_policy": root}, changes))
    return plan


# ---------------------------------------------------------------------------- FlexGroups
def plan_flexgroups(model: dict, info: Any, options: dict | None = None) -> dict:
    """FlexGroups to create or change; never a delete, a shrink or a re-create of another style.

    Items carry ``svm_exists`` (the SVM's root volume is among the records): in check mode a
    FlexGroup of an SVM the same run would create cannot be previewed by the module.
    """
    options = options or {}
    volumes = records(info, "storage/volumes")
    svms_with_root = {dig(v, "svm.name") for v in volumes if v.get("is_svm_root")}
    volumes = [v for v in volumes if not v.get("is_svm_root")]
    errors: list[str] = []
    plan: dict[str, list] = {"qos_policies": _plan_qos_policies(model, records(info, "storage/qos/policies"), errors),
                             "flexgroups": [], "errors": errors}
    # The model's FlexGroups, then each data set's volume (a FlexGroup or a FlexVol).
    for fg in m.flexgroups(model) + datasets.volumes(model):
        key = f"{fg['svm']}:{fg['name']}"
        exists = fg["svm"] in svms_with_root
        style = fg.get("style") or "flexgroup"
        thin = fg["thin_provisioning"] if fg["thin_provisioning"] is not None else options.get("thin_provisioning", True)
        efficiency = fg["efficiency"] if fg["efficiency"] is not None else options.get("efficiency", True)
        flexvol = style == "flexvol"
        want = {"vserver": fg["svm"], "name": fg["name"], "size": fg["size_bytes"],
                # AFX: no aggregates; na_ontap_volume asks ONTAP to place the FlexGroup (auto_provision_as)
                "aggr_list": None if flexvol else fg["aggregates"] or None,
                "aggr_list_multiplier": None if flexvol else fg["constituents_per_aggregate"],
                "aggregate_name": (fg["aggregates"] or [None])[0] if flexvol else None,
                "auto_provision": fg["placed_by_ontap"] and not flexvol, "junction_path": fg["junction_path"],
                "user_id": fg.get("user_id"), "group_id": fg.get("group_id"),
                "percent_snapshot_space": fg.get("snapshot_reserve"),
                "export_policy": fg["export_policy"],
                "snapshot_policy": fg["snapshot_policy"] or options.get("snapshot_policy"),
                "volume_security_style": fg["security_style"] or options.get("security_style", "unix"),
                "space_guarantee": "none" if thin else "volume", "efficiency": efficiency,
                "unix_permissions": fg["unix_permissions"] or options.get("unix_permissions"),
                "qos_policy_group": fg["qos_policy"], "comment": fg.get("comment")}
        current = next((v for v in volumes if v.get("name") == fg["name"] and dig(v, "svm.name") == fg["svm"]), None)
        after = {"size": fg["size_bytes"], "junction_path": want["junction_path"], "export_policy": want["export_policy"],
                 "snapshot_policy": want["snapshot_policy"], "security_style": want["volume_security_style"],
                 "space_guarantee": want["space_guarantee"], "compression": "both" if efficiency else "none",
                 "qos_policy": fg["qos_policy"], "granular_data_mode": "advanced" if fg["granular_data"] else None,
                 "uid": want["user_id"], "gid": want["group_id"], "snapshot_reserve": want["percent_snapshot_space"],
                 "comment": want["comment"]}
        # Growth (a data set's max_size): autosize in grow mode up to that size, set by a REST call of
        # its own (na_ontap_volume has no autosize) once the volume exists.
        growth = fg.get("autosize_maximum")
        if growth:
            want["autosize"] = {"mode": "grow", "maximum": growth}
            after.update(autosize_mode="grow", autosize_maximum=growth)
        # Granular Data Distribution: na_ontap_volume sets basic granular data only, so the role turns
        # advanced on with a REST call of its own (gdd) after the volume exists.
        gdd = fg["granular_data"] is True
        if current is None:
            if fg["placed_by_ontap"] and not flexvol:
                want["rest_create_body"] = _afx_create_body(want)
            plan["flexgroups"].append(_item(key, "create", want, _changes({}, {**after, "constituents": fg["constituents"]}),
                                            svm_exists=exists, gdd=gdd, autosize=bool(growth)))
            continue
        have_style = current.get("style")
        if have_style != style:
            plan["errors"].append(f"volume {fg['name']} in SVM {fg['svm']} is a {have_style or 'volume of unknown style'} on the "
                                  f"cluster, and the model describes a {'FlexVol' if flexvol else 'FlexGroup'} of that name. The bundle "
                                  "never deletes or re-creates a volume: rename or migrate the existing one, or give it another name.")
            continue
        size = dig(current, "space.size") or current.get("size")
        grown = bool(growth and isinstance(size, int) and fg["size_bytes"] is not None and fg["size_bytes"] < size <= growth)
        if grown:
            # ONTAP grew it within the growth the model allows: that size is the model's, not a change.
            want["size"] = after["size"] = size
        elif isinstance(size, int) and fg["size_bytes"] is not None and fg["size_bytes"] < size:
            plan["errors"].append(f"FlexGroup {key} is {size} bytes on the cluster and the model asks {fg['size']} "
                                  f"({fg['size_bytes']} bytes); FlexGroups are never shrunk: set its size to at least "
                                  "what it has.")
            continue
        have_aggregates = sorted(a.get("name") for a in m.as_list(current.get("aggregates")))
        count = current.get("constituent_count")
        if fg["placed_by_ontap"] or flexvol:
            pass  # AFX: the constituents and their places are ONTAP's; a FlexVol has none
        elif have_aggregates != sorted(fg["aggregates"]) or (fg["constituents"] and isinstance(count, int) and count != fg["constituents"]):
            plan["errors"].append(f"FlexGroup {key} has {count} constituents on {', '.join(have_aggregates)}; the model asks "
                                  f"{fg['constituents']} on {', '.join(fg['aggregates'])}. Constituents are never removed, "
                                  "and adding them (volume expand) rebalances data: do it by hand, then update the model.")
            continue
        have = {"size": size, "junction_path": dig(current, "nas.path"), "export_policy": dig(current, "nas.export_policy.name"),
                "snapshot_policy": dig(current, "snapshot_policy.name"), "security_style": dig(current, "nas.security_style"),
                "space_guarantee": dig(current, "guarantee.type"), "compression": dig(current, "efficiency.compression"),
                "qos_policy": dig(current, "qos.policy.name"), "granular_data_mode": current.get("granular_data_mode"),
                "uid": dig(current, "nas.uid"), "gid": dig(current, "nas.gid"), "comment": current.get("comment"),
                "snapshot_reserve": dig(current, "space.snapshot.reserve_percent"),
                "autosize_mode": dig(current, "autosize.mode"), "autosize_maximum": dig(current, "autosize.maximum")}
        if fg["granular_data"] is False and current.get("granular_data") is True:
            plan["errors"].append(f"FlexGroup {key} has granular data ({have['granular_data_mode'] or 'basic'}) on, and the model "
                                  "turns it off; ONTAP cannot turn it off: set granular_data back to true, or remove the key.")
            continue
        changes = _changes(have, after)
        if want["unix_permissions"] is not None:
            mode = int(str(want["unix_permissions"]), 8)
            current_mode = dig(current, "nas.unix_permissions")
            if not isinstance(current_mode, int) or int(str(current_mode), 8) != mode:
                changes["unix_permissions"] = {"before": current_mode, "after": want["unix_permissions"]}
        if changes:
            plan["flexgroups"].append(_item(key, "modify", want, changes, svm_exists=exists,
                                            gdd=gdd and "granular_data_mode" in changes,
                                            autosize=bool({"autosize_mode", "autosize_maximum"} & set(changes))))
    if "storage/aggregates" in m.as_dict(info):
        errors.extend(space_refusals(model, plan["flexgroups"], records(info, "storage/aggregates"), options.get("locations")))
    # A volume the storage layer made for a data set the model no longer has: reported, never deleted.
    kept = {(v["svm"], v["name"]) for v in datasets.volumes(model)}
    plan["left"] = [{"key": f"{dig(v, 'svm.name')}:{v.get('name')}", "dataset": datasets.dataset_of_comment(v.get("comment"))}
                    for v in volumes if datasets.dataset_of_comment(v.get("comment"))
                    and (dig(v, "svm.name"), v.get("name")) not in kept]
    return plan


def size_keys(model: dict) -> dict[str, tuple]:
    """The model keys that size a volume the storage layer makes (each data set's, each FlexGroup's),
    as written in a refusal, with their paths in the model (for the validator to locate)."""
    keys: dict[str, tuple] = {}
    for index, _entry in enumerate(m.as_list(model.get("datasets"))):
        keys[f"datasets[{index}].size"] = ("datasets", index, "size")
    for svm_index, entry in enumerate(m.as_list(m.as_dict(model.get("ontap")).get("svms"))):
        for fg_index, _flexgroup in enumerate(m.as_list(m.as_dict(entry).get("flexgroups"))):
            keys[f"ontap.svms[{svm_index}].flexgroups[{fg_index}].size"] = ("ontap", "svms", svm_index, "flexgroups", fg_index, "size")
    return keys


def _size_key(model: dict, svm: str, name: str, locations: dict | None = None) -> str:
    """The model key that sizes this volume (the data set's or the FlexGroup's), with the file and line
    it was written at when the validator located it."""
    key = "its size"
    for index, entry in enumerate(m.as_list(model.get("datasets"))):
        if m.as_dict(entry).get("name") == name and m.as_dict(entry).get("svm") == svm:
            key = f"datasets[{index}].size"
    for svm_index, entry in enumerate(m.as_list(m.as_dict(model.get("ontap")).get("svms"))):
        for fg_index, flexgroup in enumerate(m.as_list(m.as_dict(entry).get("flexgroups"))):
            if key == "its size" and m.as_dict(entry).get("name") == svm and m.as_dict(flexgroup).get("name") == name:
                key = f"ontap.svms[{svm_index}].flexgroups[{fg_index}].size"
    where = m.as_str(m.as_dict(locations).get(key))
    return f"{key} ({where})" if where else key


def _tebibytes(count: int) -> str:
    return f"{count / 1024**4:.2f} TiB"


def space_refusals(model: dict, items: list[dict], aggregates: list[dict], locations: dict | None = None) -> list[str]:
    """Volumes to create or grow that their aggregates cannot hold, found before the storage layer
    creates or grows one. Any volume, thin too, must fit in its aggregates' whole size: it could
    never be filled otherwise. A thick volume needs its share of the space it newly reserves free on
    each aggregate, as ONTAP checks it: the whole size when it is created or turned thick, the growth
    otherwise; the plan's volumes are counted together, each taking its share before the next.
    Volumes ONTAP places itself (AFX) are ONTAP's to judge. locations: key -> "file:line", as the
    validator found them (size_keys)."""
    by_name = {a.get("name"): a for a in aggregates if isinstance(a, dict)}
    free = {name: int(dig(a, "space.block_storage.available") or 0) for name, a in by_name.items()}
    refusals = []
    for item in items:
        want, changes = item["want"], m.as_dict(item.get("changes"))
        names = [n for n in (want.get("aggr_list") or ([want["aggregate_name"]] if want.get("aggregate_name") else [])) if n]
        if want.get("auto_provision") or not names or any(n not in by_name for n in names):
            continue
        creating = item["action"] == "create"
        if not creating and not {"size", "space_guarantee"} & set(changes):
            continue
        size = int(want["size"] or 0)
        where = _size_key(model, want["vserver"], want["name"], locations)
        volume = f"{want['vserver']}:{want['name']}"
        whole = sum(int(dig(by_name[n], "space.block_storage.size") or 0) for n in names)
        if whole and size > whole:
            refusals.append(f"volume {volume} would be {_tebibytes(size)}, more than its aggregates ({', '.join(names)}) "
                            f"hold in all ({_tebibytes(whole)}): lower {where}, or give it more aggregates")
            continue
        if want.get("space_guarantee") != "volume":
            continue
        was_thick = not creating and m.as_dict(changes.get("space_guarantee")).get("before", "volume") == "volume"
        before = int(m.as_dict(changes.get("size")).get("before") or size) if was_thick else 0
        share = max(0, size - before) // len(names)
        short = [n for n in names if share > free[n]]
        if short:
            thin = "thin_provisioning: true on the FlexGroup" if where.startswith("ontap.") else \
                "ontap_flexgroups_thin_provisioning: true"
            refusals.append(f"volume {volume} is thick and needs {_tebibytes(share)} free on each of its aggregates; "
                            + ", ".join(f"{n} has {_tebibytes(free[n])}" for n in short)
                            + f": lower {where}, free space there, or make it thin ({thin})")
            continue
        for n in names:
            free[n] -= share
    return refusals


def _afx_create_body(want: dict) -> dict:
    """The POST /api/storage/volumes body of a FlexGroup on AFX: style flexgroup and no aggregates or
    constituents_per_aggregate, so that ONTAP places it (na_ontap_volume's auto_provision_as sends
    constituents_per_aggregate, which AFX refuses without aggregates)."""
    body: dict = {"name": want["name"], "svm": {"name": want["vserver"]}, "style": "flexgroup", "size": want["size"],
                  "guarantee": {"type": want["space_guarantee"]},
                  "nas": {"path": want["junction_path"], "export_policy": {"name": want["export_policy"]},
                          "security_style": want["volume_security_style"]},
                  "efficiency": {"compression": "both" if want["efficiency"] else "none"}}
    if want.get("unix_permissions"):
        body["nas"]["unix_permissions"] = int(str(want["unix_permissions"]).lstrip("0") or "0")
    if want.get("snapshot_policy"):
        body["snapshot_policy"] = {"name": want["snapshot_policy"]}
    if want.get("qos_policy_group"):
        body["qos"] = {"policy": {"name": want["qos_policy_group"]}}
    if want.get("comment"):
        body["comment"] = want["comment"]
    return body


def _plan_qos_policies(model: dict, current: list[dict], errors: list[str]) -> list[dict]:
    """QoS policy groups to create or change (fixed limits); a policy the model does not name is left alone."""
    items = []
    for policy in m.qos_policies(model):
        key = f"{policy['svm']}:{policy['name']}"
        limits = {limit: policy[limit] for limit in m.QOS_LIMITS}
        want = {"vserver": policy["svm"], "name": policy["name"],
                "fixed_qos_options": {**limits, "capacity_shared": policy["shared"]}}
        existing = next((p for p in current if p.get("name") == policy["name"] and dig(p, "svm.name") == policy["svm"]), None)
        after = {**limits, "capacity_shared": policy["shared"]}
        if existing is None:
            items.append(_item(key, "create", want, _changes({}, after)))
            continue
        have = {field: dig(existing, f"fixed.{field}") or (False if field == "capacity_shared" else 0) for field in after}
        changes = _changes(have, after)
        if "capacity_shared" in changes:
            errors.append(f"QoS policy group {key} is {'shared' if have['capacity_shared'] else 'per volume'} on the cluster and "
                          f"{'shared' if policy['shared'] else 'per volume'} in the model; ONTAP cannot change that of an "
                          "existing group: set shared back, or create a group of another name and point the FlexGroups at it.")
            continue
        if changes:
            items.append(_item(key, "modify", want, changes))
    return items


# ---------------------------------------------------------------------------- the tools' accounts
# The SVM-scoped accounts the pod's tools log in with: the SVM key that declares each, and the vault
# variable that holds its password. Harvest's account is cluster-scoped (svm None): it reads every SVM.
TOOL_ACCOUNTS = {"trident": ("trident_account", "vault_ontap_trident_password"),
                 "dataops": ("dataops_account", "vault_ontap_dataops_password")}
CLUSTER_SCOPE = "cluster"


def tool_accounts(model: dict) -> list[dict[str, Any]]:
    """Every tool account the model declares: {tool, svm (None: the cluster's), username, role, password_variable}."""
    found: list[dict[str, Any]] = []
    for svm in m.svms(model):
        for tool, (key, password_variable) in TOOL_ACCOUNTS.items():
            account = m.as_dict(svm.get(key))
            username = m.as_str(account.get("username"))
            if username:
                found.append({"tool": tool, "svm": svm["name"], "username": username,
                              "role": m.as_str(account.get("role")) or username, "password_variable": password_variable})
    watcher = harvest.account(model)
    if watcher:
        found.append({"tool": "harvest", "svm": None, **watcher})
    return found


def _owned_by(record: dict, svm: str | None) -> bool:
    """A role or account of this SVM, or of the cluster when svm is None."""
    return record.get("scope") == CLUSTER_SCOPE if svm is None else dig(record, "owner.name") == svm


def plan_accounts(model: dict, info: Any, options: dict | None = None) -> dict:
    """The REST role and account of each tool (Trident and the DataOps Toolkit on their SVM, Harvest on
    the cluster), with only the privileges options['privileges'][tool] lists; each password is
    checked by logging in."""
    options = options or {}
    roles = records(info, "security/roles")
    accounts = records(info, "security/accounts")
    privileges_of = m.as_dict(options.get("privileges"))
    plan: dict[str, list] = {"roles": [], "accounts": [], "logins": [], "errors": []}
    for account in tool_accounts(model):
        svm, username, role_name = account["svm"], account["username"], account["role"]
        owner = svm or CLUSTER_SCOPE
        privileges = [{"path": p["path"], "access": p["access"]} for p in m.as_list(privileges_of.get(account["tool"]))
                      if isinstance(p, dict)]
        key = f"{owner}:{role_name}"
        role_want = {"vserver": svm, "name": role_name, "privileges": privileges}
        current_role = next((r for r in roles if r.get("name") == role_name and _owned_by(r, svm)), None)
        wanted = sorted((p["path"], p["access"]) for p in privileges)
        if current_role is None:
            plan["roles"].append(_item(key, "create", role_want, {"privileges": {"before": None, "after": len(wanted)}}))
        else:
            have = sorted((p.get("path"), p.get("access")) for p in m.as_list(current_role.get("privileges"))
                          if p.get("path") != "DEFAULT")
            if have != wanted:
                added = sorted(set(wanted) - set(have))
                removed = sorted(set(have) - set(wanted))
                plan["roles"].append(_item(key, "modify", role_want, {"privileges": {"before": [list(p) for p in removed],
                                                                                     "after": [list(p) for p in added]}}))
        account_want = {"vserver": svm, "name": username, "role_name": role_name, "password_variable": account["password_variable"],
                        "applications": [{"application": "http", "authentication_methods": ["password"]}]}
        plan["logins"].append({"key": f"{owner}:{username}", "svm": svm, "username": username, "role": role_name,
                               "tool": account["tool"], "password_variable": account["password_variable"]})
        current_account = next((a for a in accounts if a.get("name") == username and _owned_by(a, svm)), None)
        if current_account is None:
            plan["accounts"].append(_item(f"{owner}:{username}", "create", account_want,
                                          {"role": {"before": None, "after": role_name}}))
            continue
        have = {"role": dig(current_account, "role.name"), "locked": bool(current_account.get("locked")),
                "applications": sorted((a.get("application"), tuple(sorted(m.as_list(a.get("authentication_methods")))))
                                       for a in m.as_list(current_account.get("applications")))}
        changes = _changes(have, {"role": role_name, "locked": False, "applications": [("http", ("password",))]})
        if changes:
            plan["accounts"].append(_item(f"{owner}:{username}", "modify", account_want, changes))
    return plan


# Plan entries that are not changes: refusals, the tools' logins to try, and data set volumes the
# model no longer has (left as they are).
# ---------------------------------------------------------------------------- copies on peer clusters
PEERING_APPLICATIONS = ["snapmirror", "flexcache"]
INTERCLUSTER_POLICY = "default-intercluster"


def peer_records(info: Any, peer: str, api: str) -> list[dict]:
    """Records read on a peer cluster: the role keys them peers/<peer>/<api> in the info it hands on."""
    return records(info, f"peers/{peer}/{api}")


def _peer_connection(peer: dict) -> dict:
    """How the role's modules reach a peer (datasets.peers entry): host, port, user, vault variable of the password."""
    return {"hostname": peer["mgmt_address"], "http_port": peer["https_port"], "username": peer["admin_user"],
            "password_variable": peer["password_variable"]}


def plan_protection(model: dict, info: Any, options: dict | None = None) -> dict:
    """What the data sets' copies on peer clusters need: this cluster's intercluster LIFs, a cluster
    peer with each peer cluster a copy goes to, the SVM peers, and the SnapMirror relationships on
    the peers (their destinations). A peering or a relationship in a state the bundle does not
    repair (half made, pending, broken off, quiesced, mirroring another volume) is refused."""
    plan: dict[str, list] = {"intercluster_lifs": [], "cluster_peers": [], "svm_peers": [], "relationships": [], "errors": []}
    local_lifs = m.intercluster_lifs(model)
    current_lifs = records(info, "network/ip/interfaces")
    for lif in local_lifs:
        want = {"interface_name": lif["name"], "home_node": lif["node"], "home_port": lif["port"], "address": lif["address"],
                "netmask": str(lif["prefix_len"]), "service_policy": INTERCLUSTER_POLICY, "ipspace": "Default"}
        after = {"address": lif["address"], "home_port": lif["port"], "service_policy": INTERCLUSTER_POLICY}
        current = next((c for c in current_lifs if c.get("name") == lif["name"]), None)
        if current is None:
            plan["intercluster_lifs"].append(_item(lif["name"], "create", want, _changes({}, after)))
            continue
        changes = _changes({"address": dig(current, "ip.address"), "home_port": dig(current, "location.home_port.name"),
                            "service_policy": dig(current, "service_policy.name")}, after)
        if changes:
            plan["intercluster_lifs"].append(_item(lif["name"], "modify", want, changes))
    copies = datasets.copies(model)
    known = datasets.peers(model)
    local = datasets.local_cluster(model)
    for name in datasets.peers_in_use(model):
        peer = known[name]
        connection = _peer_connection(peer)
        want = {"source_intercluster_lifs": [lif["address"] for lif in local_lifs], "dest_intercluster_lifs": peer["addresses"],
                "source_cluster_name": local, "dest_cluster_name": name, "peer": connection}
        current = next((p for p in records(info, "cluster/peers") if dig(p, "remote.name") == name or p.get("name") == name
                        or sorted(m.as_list(dig(p, "remote.ip_addresses"))) == sorted(peer["addresses"])), None)
        theirs = next((p for p in peer_records(info, name, "cluster/peers") if dig(p, "remote.name") == local
                       or p.get("name") == local), None)
        if current is None and theirs is None:
            plan["cluster_peers"].append(_item(name, "create", want, _changes({}, {"peer": name, "addresses": peer["addresses"]})))
        elif current is None or theirs is None or dig(current, "status.state") != "available":
            where = "this cluster" if current is not None else name
            state = dig(current if current is not None else theirs, "status.state")
            plan["errors"].append(f"the cluster peering with {name} is half made or not available (an offer on {where} only, "
                                  f"state {state}): complete it by hand (cluster peer create on the other side with the same "
                                  "passphrase, or delete the offer), then run again")
    for source_svm, name, svm in datasets.svm_peerings(model):
        peer = known.get(name or "")
        key = f"{source_svm}:{name or local}:{svm}"
        want = {"vserver": source_svm, "peer_vserver": svm, "peer_cluster": name or local, "applications": PEERING_APPLICATIONS,
                "peer": _peer_connection(peer) if peer else None}
        current = next((p for p in records(info, "svm/peers") if dig(p, "svm.name") == source_svm and dig(p, "peer.svm.name") == svm
                        and dig(p, "peer.cluster.name") == (name or local)), None)
        if current is None:
            plan["svm_peers"].append(_item(key, "create", want, _changes({}, {"state": "peered", "applications": PEERING_APPLICATIONS})))
        elif current.get("state") == "initiated":
            # Offered by this cluster, never accepted (a run stopped between the two): accepted on the peer.
            plan["svm_peers"].append(_item(key, "modify", dict(want, uuid=current.get("uuid")),
                                           _changes({"state": "initiated"}, {"state": "peered"})))
        elif current.get("state") != "peered":
            plan["errors"].append(f"SVM peer {source_svm} -> {name}:{svm} is {current.get('state')}: accept it on {name} "
                                  "(vserver peer accept) or delete it, then run again")
        elif not set(PEERING_APPLICATIONS) <= set(m.as_list(current.get("applications"))):
            plan["errors"].append(f"SVM peer {source_svm} -> {name}:{svm} serves {', '.join(m.as_list(current.get('applications')))}: "
                                  f"add {', '.join(PEERING_APPLICATIONS)} (vserver peer modify -applications) and run again")
    for copy in copies:
        peer = known[copy["peer"]]
        key = f"{copy['peer']}:{copy['destination_path']}"
        want = {"source_path": copy["source_path"], "source_cluster": local, "destination_path": copy["destination_path"],
                "policy": copy["policy"], "schedule": copy["schedule"],
                "peer": _peer_connection(peer)}
        after = {"source": copy["source_path"], "policy": copy["policy"], "schedule": copy["schedule"], "state": "snapmirrored"}
        current = next((r for r in peer_records(info, copy["peer"], "snapmirror/relationships")
                        if dig(r, "destination.path") == copy["destination_path"]), None)
        if current is None:
            plan["relationships"].append(_item(key, "create", want, _changes({}, after)))
            continue
        if dig(current, "source.path") != copy["source_path"]:
            plan["errors"].append(f"{copy['peer']}:{copy['destination_path']} mirrors {dig(current, 'source.path')}, not data set "
                                  f"{copy['dataset']}: give the copy another SVM, or release that relationship by hand")
            continue
        if current.get("state") in ("broken_off", "paused"):
            plan["errors"].append(f"the copy of data set {copy['dataset']} on {copy['peer']} is {current.get('state')}: an operator "
                                  "broke or quiesced it (a failover, a test); resync or resume it by hand, then run again")
            continue
        changes = _changes({"source": dig(current, "source.path"), "policy": dig(current, "policy.name"),
                            "schedule": dig(current, "transfer_schedule.name"), "state": current.get("state")}, after)
        if changes:
            plan["relationships"].append(_item(key, "modify", want, changes))
    plan["caches"] = []
    for cache in datasets.caches(model):
        peer = known.get(cache["peer"] or "")
        key = f"{cache['cluster']}:{cache['svm']}:{cache['volume']}"
        want = {"name": cache["volume"], "vserver": cache["svm"], "origin_volume": cache["origin_volume"],
                "origin_vserver": cache["origin_svm"], "origin_cluster": local, "junction_path": cache["junction_path"],
                "size": cache["size_bytes"], "prepopulate": cache["prepopulate"],
                "peer": _peer_connection(peer) if peer else None}
        found = peer_records(info, cache["peer"], "storage/flexcache/flexcaches") if cache["peer"] \
            else records(info, "storage/flexcache/flexcaches")
        current = next((c for c in found if c.get("name") == cache["volume"] and dig(c, "svm.name") == cache["svm"]), None)
        if current is None:
            after = {"origin": f"{cache['origin_svm']}:{cache['origin_volume']}", "size": cache["size_bytes"]}
            plan["caches"].append(_item(key, "create", want, _changes({}, after)))
            continue
        origin = m.as_dict((m.as_list(current.get("origins")) or [{}])[0])
        if (dig(origin, "svm.name"), dig(origin, "volume.name")) != (cache["origin_svm"], cache["origin_volume"]):
            plan["errors"].append(f"cache {key} fronts {dig(origin, 'svm.name')}:{dig(origin, 'volume.name')}, not data set "
                                  f"{cache['dataset']}: give the cache another SVM, or remove that volume by hand")
    return plan


NOT_CHANGES = ("errors", "logins", "left")
PLANNERS = {"network": plan_network, "svms": plan_svms, "lifs": plan_lifs, "exports": plan_exports,
            "flexgroups": plan_flexgroups, "accounts": plan_accounts, "protection": plan_protection}


def plan(model: dict, info: Any, area: str, options: dict | None = None) -> dict:
    """One area's plan, with ``pending`` (how many objects it would touch) and a ``diff`` of them."""
    if area not in PLANNERS:
        raise ValueError(f"unknown area {area!r} (known: {', '.join(PLANNERS)})")
    result = PLANNERS[area](model, info, options or {})
    before: dict[str, dict] = {}
    after: dict[str, dict] = {}
    pending = 0
    for kind, items in result.items():
        if kind in NOT_CHANGES:
            continue
        for item in items:
            pending += 1
            before.setdefault(kind, {})[item["key"]] = {f: c["before"] for f, c in item["changes"].items()}
            after.setdefault(kind, {})[item["key"]] = {f: c["after"] for f, c in item["changes"].items()}
    result["pending"] = pending
    result["diff"] = {"before": before, "after": after}
    return result


# What a refusal of each area names as its object.
AREA_OBJECTS = {"network": "cluster network", "svms": "svms", "lifs": "lifs", "exports": "exports",
                "flexgroups": "flexgroups", "accounts": "accounts", "protection": "copies"}


def compare(model: dict, info: Any, area: str, options: dict | None = None) -> dict:
    """One area as its role hands it on: {plan, pending}.

    plan: per kind, the objects the role writes, each {key, action, want} (want: the model's
    settings the module task passes), plus the area's other work lists (logins); pending: the
    layer's pending items (module_utils/aipod_pending.py): create or delete per object, one modify
    item per field that differs (before, after), and a refuse item per condition left to an operator.
    """
    result = plan(model, info, area, options)
    pending: list[dict[str, Any]] = [aipod_pending.item(AREA_OBJECTS[area], action="refuse", reason=str(error))
                                     for error in result.get("errors") or []]
    kept: dict[str, Any] = {}
    for kind, entries in result.items():
        if kind in ("errors", "pending", "diff"):
            continue
        if kind in NOT_CHANGES:
            kept[kind] = entries
            continue
        kept[kind] = [{key: value for key, value in entry.items() if key != "changes"} for entry in entries]
        for entry in entries:
            name = f"{kind.replace('_', ' ')} {entry['key']}"
            if entry["action"] == "create":
                pending.append(aipod_pending.item(name, action="create"))
            elif entry["action"] == "delete":  # what the object holds now, for the report
                pending.append(aipod_pending.item(name, action="delete", before={field: change.get("before") for field, change
                                                                                 in (entry.get("changes") or {}).items()} or None))
            else:
                pending += aipod_pending.changes(name, entry.get("changes") or {}) or [aipod_pending.item(name, reason="differs")]
    return {"plan": kept, "pending": pending}


def managed_objects(model: dict, options: dict | None = None) -> dict[str, int]:
    """How many ONTAP objects the storage roles manage for this model, by kind (benchmarks divide by it)."""
    ontap = m.as_dict(model.get("ontap"))
    policies = m.export_policies(model)
    return {
        "ipspaces": len([i for i in m.as_list(ontap.get("ipspaces")) if isinstance(i, str)]),
        "interface_groups": len(m.as_list(ontap.get("interface_groups"))),
        "vlan_ports": len(m.ontap_vlan_ports(model)),
        "broadcast_domains": len(m.broadcast_domains(model)),
        "snapshot_policies": len(m.as_list(ontap.get("snapshot_policies"))) + len(datasets.snapshot_policies(model)),
        "qos_policies": len(m.qos_policies(model)),
        "svms": len(m.svms(model)),
        "nfs_services": len([s for s in m.svms(model) if "nfs" in (m.as_list(s.get("protocols")) or ["nfs"])]),
        "lifs": len(desired_lifs(model, options)),
        "export_policies": len(policies),
        "export_rules": sum(len(p["rules"]) for p in policies),
        "root_volume_policies": len([s for s in m.svms(model) if m.as_str(s.get("root_export_policy"))]),
        "flexgroups": len(m.flexgroups(model)),
        "dataset_volumes": len(datasets.volumes(model)),
        "tool_roles": len({(a["svm"], a["role"]) for a in tool_accounts(model)}),
        "tool_accounts": len(tool_accounts(model)),
        "intercluster_lifs": len(m.intercluster_lifs(model)),
        "cluster_peers": len(datasets.peers_in_use(model)),
        "svm_peers": len(datasets.svm_peerings(model)),
        "dataset_copies": len(datasets.copies(model)),
        "dataset_caches": len(datasets.caches(model)),
    }
