"""Rules of the ONTAP layer: ports and interface groups, SVMs, data LIFs, FlexGroups and export policies."""
from __future__ import annotations

import ipaddress
import re
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_compute.rules import normalised_path_problem
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.rule_context import Context

ONTAP_BUILTIN_SNAPSHOT_POLICIES = {"default", "default-1weekly", "none"}
MAX_CONSTITUENTS_PER_AGGREGATE = 1000
UNITS = {"KB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3, "TB": 1024 ** 4, "PB": 1024 ** 5}
SVM_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9._-]{0,46}$")
VOLUME_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,202}$")
POLICY_NAME = re.compile(r"^[A-Za-z0-9._-]{1,256}$")
LIF_NAME = re.compile(r"^[A-Za-z0-9._-]{1,255}$")
GRANULAR_DATA_RELEASE = (9, 16, 1)
AFX_RELEASE = (9, 17, 1)  # the first ONTAP release of AFX (disaggregated ONTAP)  # the release NetApp's NVA-1175 names for FlexGroups with GDD


def ontap_ports_and_groups(ctx: Context) -> None:
    """Interface groups, broadcast domains and IPspaces refer to declared nodes, ports and networks."""
    ontap = m.as_dict(ctx.model.get("ontap"))
    physical = {node["name"]: {m.as_str(p.get("name")) for p in m.as_list(node.get("ports")) if isinstance(p, dict)}
                for node in m.ontap_nodes(ctx.model)}
    ifgrps: dict[tuple[str, str], int] = {}
    in_ifgrp: dict[tuple[str, str], str] = {}
    for index, group in enumerate(m.as_list(ontap.get("interface_groups"))):
        group = m.as_dict(group)
        node, name = m.as_str(group.get("node")), m.as_str(group.get("name"))
        path = ("ontap", "interface_groups", index)
        if node not in physical:
            ctx.error("dangling-reference", path + ("node",), f"interface group on unknown node '{node}'",
                      f"use one of {', '.join(physical) or '(no nodes)'}")
            continue
        if (node, name) in ifgrps:
            ctx.error("ontap-ifgrp", path + ("name",), f"interface group {name} is declared twice on {node}")
        ifgrps[(node, name)] = index
        for port_index, port in enumerate(m.as_list(group.get("ports"))):
            if port not in physical[node]:
                ctx.error("dangling-reference", path + ("ports", port_index), f"port {port} is not declared on node {node}",
                          f"declare it under ontap.nodes[{node}].ports")
            elif (node, port) in in_ifgrp:
                ctx.error("ontap-ifgrp", path + ("ports", port_index), f"port {node}:{port} is already in interface group {in_ifgrp[(node, port)]}")
            else:
                in_ifgrp[(node, port)] = name
        if group.get("mode") not in (None, "multimode_lacp"):
            ctx.warning("ontap-ifgrp", path + ("mode",), f"interface group mode {group.get('mode')}; the switches build LACP port-channels",
                        "use multimode_lacp")
    ipspaces = {"Default"} | {s for s in m.as_list(ontap.get("ipspaces")) if isinstance(s, str)}
    domain_of: dict[tuple[str, str], str] = {}
    names: set[str] = set()
    for index, domain in enumerate(m.as_list(ontap.get("broadcast_domains"))):
        domain = m.as_dict(domain)
        path = ("ontap", "broadcast_domains", index)
        name = m.as_str(domain.get("name"))
        if name in names:
            ctx.error("ontap-broadcast-domain", path + ("name",), f"broadcast domain {name} is declared twice")
        names.add(name or "")
        if (m.as_str(domain.get("ipspace")) or "Default") not in ipspaces:
            ctx.error("dangling-reference", path + ("ipspace",), f"IPspace {domain.get('ipspace')} is not declared",
                      "add it to ontap.ipspaces")
        network = ctx.network_of(domain.get("network"))
        if network is None and isinstance(domain.get("network"), str):
            ctx.error("dangling-reference", path + ("network",), f"network '{domain.get('network')}' is not declared",
                      f"use one of {', '.join(ctx.networks)}")
        if network is not None and m.as_int(domain.get("mtu")) is not None and domain.get("mtu") != network.get("mtu"):
            ctx.error("mtu", path + ("mtu",),
                      f"broadcast domain MTU {domain.get('mtu')} differs from network '{network.get('name')}' MTU {network.get('mtu')} that the hosts use",
                      "drop the mtu here (it follows the network) or make them equal")
        for port_index, entry in enumerate(m.as_list(domain.get("ports"))):
            parsed = m.split_node_port(entry)
            if not parsed:
                continue
            node, port = parsed
            base, vlan = m.split_vlan_port(port)
            port_path = path + ("ports", port_index)
            if node not in physical:
                ctx.error("dangling-reference", port_path, f"node '{node}' is not declared",
                          f"use one of {', '.join(physical) or '(no nodes)'}")
                continue
            if base not in physical[node] and (node, base) not in ifgrps:
                ctx.error("dangling-reference", port_path, f"port {base} is neither a declared port nor an interface group of {node}",
                          "declare the port under ontap.nodes[].ports or the group under ontap.interface_groups")
            elif (node, base) in in_ifgrp:
                ctx.error("ontap-ifgrp", port_path, f"port {node}:{base} belongs to interface group {in_ifgrp[(node, base)]} and cannot carry traffic itself",
                          f"use {in_ifgrp[(node, base)]} instead")
            if (node, port) in domain_of:
                ctx.error("ontap-broadcast-domain", port_path, f"{node}:{port} is already in broadcast domain {domain_of[(node, port)]}",
                          "a port belongs to one broadcast domain")
            domain_of.setdefault((node, port), name or "?")
            if network is not None:
                network_vlan = m.as_int(network.get("vlan"))
                if vlan is not None and vlan != network_vlan:
                    ctx.error("vlan", port_path,
                              f"VLAN port {port} is tagged {vlan} but network '{network.get('name')}' is VLAN {network_vlan}",
                              f"name it {base}-{network_vlan}" if network_vlan else "give the network a vlan")


ONTAP_BUILT_IN_USERS = m.ONTAP_BUILT_IN_USERS
ONTAP_BUILT_IN_ROLES = m.ONTAP_BUILT_IN_ROLES
# The SVM keys of the tools' accounts: the tool each is for, and a name of the pod's own to suggest.
TOOL_ACCOUNT_KEYS = {"trident_account": ("Trident", "trident"), "dataops_account": ("the DataOps Toolkit", "dataops")}


def _tool_accounts_of_their_own(ctx: Context, path: tuple, svm: dict) -> None:
    """A tool's account and role are the pod's own, and no two tools of an SVM share one: each
    role holds only what its tool needs."""
    taken: dict[tuple[str, str], str] = {}
    for account_key, (tool, suggested) in TOOL_ACCOUNT_KEYS.items():
        account = m.as_dict(svm.get(account_key))
        username = m.as_str(account.get("username"))
        for key, built_in, what in (("username", ONTAP_BUILT_IN_USERS, "account"), ("role", ONTAP_BUILT_IN_ROLES, "role")):
            value = m.as_str(account.get(key))
            if value and value.lower() in built_in:
                ctx.error("ontap-name", path + (account_key, key),
                          f"{account_key}.{key} {value!r} is ONTAP's built-in {what}; the run would reconfigure it for {tool}",
                          f"name an {what} of the pod's own, e.g. {key}: {suggested}")
        if not username:
            continue
        for what, value in (("account", username), ("role", m.as_str(account.get("role")) or username)):
            other = taken.setdefault((what, value), account_key)
            if other != account_key:
                ctx.error("ontap-name", path + (account_key, "role" if what == "role" else "username"),
                          f"{account_key} and {other} share the {what} {value!r}; each tool's {what} holds only what that tool needs",
                          f"give {account_key} a {what} of its own, e.g. {suggested}")


def ha_pairs(ctx: Context) -> None:
    """ONTAP's controllers come in HA pairs: a cluster of more than one node has an even count, so
    that no node (and none of the aggregates and LIFs it holds) is left without a partner to take over."""
    listed = m.as_list(m.as_dict(ctx.model.get("ontap")).get("nodes"))
    named = [(index, node) for index, node in enumerate(listed) if isinstance(node, dict) and m.as_str(node.get("name"))]
    if len(named) > 1 and len(named) % 2:
        index, node = named[-1]
        ctx.error("ontap-ha", ("ontap", "nodes", index, "name"),
                  f"node {node['name']} has no HA partner: the cluster lists {len(named)} nodes, and ONTAP's "
                  "controllers come in HA pairs", "add its partner node, or list the nodes of whole HA pairs only")


def svm_settings(ctx: Context) -> None:
    """SVM names, aggregates, NFS settings and snapshot policies are consistent."""
    ontap = m.as_dict(ctx.model.get("ontap"))
    declared_policies = {m.as_str(p.get("name")) for p in m.as_list(ontap.get("snapshot_policies")) if isinstance(p, dict)}
    snapshot_policies = ONTAP_BUILTIN_SNAPSHOT_POLICIES | declared_policies
    ipspaces = {"Default"} | {s for s in m.as_list(ontap.get("ipspaces")) if isinstance(s, str)}
    seen: set[str] = set()
    for index, svm in enumerate(m.as_list(ontap.get("svms"))):
        if not isinstance(svm, dict):
            continue
        path = ("ontap", "svms", index)
        name = m.as_str(svm.get("name"))
        if name and not SVM_NAME.match(name):
            ctx.error("ontap-name", path + ("name",), f"SVM name {name!r} breaks ONTAP's rules",
                      "start with a letter; use letters, digits, '.', '-', '_'; at most 47 characters")
        if name in seen:
            ctx.error("ontap-name", path + ("name",), f"SVM {name} is declared twice")
        seen.add(name or "")
        _tool_accounts_of_their_own(ctx, path, svm)
        if (m.as_str(svm.get("ipspace")) or "Default") not in ipspaces:
            ctx.error("dangling-reference", path + ("ipspace",), f"IPspace {svm.get('ipspace')} is not declared", "add it to ontap.ipspaces")
        for aggr_index, aggregate in enumerate(m.as_list(svm.get("aggregates"))):
            if isinstance(aggregate, str) and aggregate not in ctx.aggregates:
                ctx.error("dangling-reference", path + ("aggregates", aggr_index), f"aggregate {aggregate} is not declared on any node",
                          f"use one of {', '.join(sorted(a for a in ctx.aggregates if a)) or '(none declared)'}")
        nfs = m.as_dict(svm.get("nfs"))
        for feature in ("pnfs", "v41_trunking", "rdma"):
            if nfs.get(feature) is True and nfs.get("v41") is not True:
                ctx.error("nfs", path + ("nfs", feature), f"{feature} needs NFSv4.1, which is not enabled",
                          "set nfs.v41: true")
        if not any(nfs.get(v) is True for v in ("v3", "v41")) and nfs:
            ctx.error("nfs", path + ("nfs",), "no NFS version is enabled", "enable v3 and/or v41")
        if "snapshot_policy" in svm and svm.get("snapshot_policy") not in snapshot_policies:
            ctx.error("dangling-reference", path + ("snapshot_policy",), f"snapshot policy {svm.get('snapshot_policy')} is not declared",
                      f"use one of {', '.join(sorted(p for p in snapshot_policies if p))} or declare it under ontap.snapshot_policies")
        if "nfs" in m.as_list(svm.get("protocols")) or not svm.get("protocols"):
            pass
        elif svm.get("flexgroups"):
            ctx.error("nfs", path + ("protocols",), "the SVM serves FlexGroups over NFS but nfs is not an allowed protocol",
                      "add nfs to protocols")
        mgmt = m.as_dict(svm.get("mgmt_lif"))
        if mgmt:
            node, port = m.as_str(mgmt.get("node")), m.as_str(mgmt.get("port"))
            if node not in ctx.node_names:
                ctx.error("dangling-reference", path + ("mgmt_lif", "node"), f"node '{node}' is not declared",
                          f"use one of {', '.join(ctx.node_names)}")
            elif (node, port) not in m.port_networks(ctx.model):
                ctx.error("dangling-reference", path + ("mgmt_lif", "port"), f"{node}:{port} is in no broadcast domain",
                          "home a LIF on a port of a broadcast domain")


def data_lifs(ctx: Context) -> None:
    """Data LIFs exist, are homed on broadcast-domain ports of their SVM's IPspace, and every node has one per network."""
    for index, svm in enumerate(m.as_list(m.as_dict(ctx.model.get("ontap")).get("svms"))):
        if not isinstance(svm, dict):
            continue
        path = ("ontap", "svms", index, "data_lifs")
        spec = m.as_dict(svm.get("data_lifs"))
        ipspace = m.as_str(svm.get("ipspace")) or "Default"
        domains = [d for d in m.broadcast_domains(ctx.model) if d["ipspace"] == ipspace]
        lifs = [lif for lif in ctx.lifs if lif["svm"] == svm.get("name")]
        nfs = m.as_dict(svm.get("nfs"))
        if spec.get("rdma") is True and nfs.get("rdma") is not True:
            ctx.error("nfs", path + ("rdma",), "RDMA LIFs on an SVM whose NFS service has rdma off", "set nfs.rdma: true")
        for network_name in m.as_dict(spec.get("first_address")):
            network = ctx.network_of(network_name)
            key_path = path + ("first_address", network_name)
            if network is None:
                ctx.error("dangling-reference", key_path, f"network '{network_name}' is not declared",
                          f"use one of {', '.join(n for n, v in ctx.networks.items() if v.get('purpose') in ('storage', 'roce'))}")
                continue
            if network.get("purpose") not in ("storage", "roce"):
                ctx.error("lif", key_path, f"data LIFs on network '{network_name}', whose purpose is {network.get('purpose')}",
                          "put data LIFs on storage networks")
            if not any(d["network"] == network_name for d in domains):
                ctx.error("lif", key_path, f"no broadcast domain of network '{network_name}' in IPspace {ipspace}: no LIF can be placed",
                          "add a broadcast domain for it under ontap.broadcast_domains")
            subnet = m.parse_subnet(network.get("subnet"), strict=False)
            network_lifs = [lif for lif in lifs if lif["network"] == network_name]
            if subnet and network_lifs:
                last = m.parse_address(network_lifs[-1]["address"]) if network_lifs[-1]["address"] else None
                if last is None or last not in subnet or (subnet.prefixlen < 31 and last == subnet.broadcast_address):
                    ctx.error("address-in-subnet", key_path,
                              f"{len(network_lifs)} LIFs from {spec['first_address'][network_name]} run past the end of {subnet}",
                              "start lower or use fewer LIFs per port")
                gateway = m.parse_address(network.get("gateway"))
                if gateway and any(m.parse_address(lif["address"]) == gateway for lif in network_lifs):
                    ctx.error("address-in-subnet", key_path, f"the LIF range from {spec['first_address'][network_name]} covers the gateway {gateway}",
                              "start the range after the gateway")
        explicit = m.as_list(spec.get("explicit"))
        names: set[str] = set()
        ports_in_domains = {(p["node"], p["port"]) for d in domains for p in d["ports"]}
        for lif_index, lif in enumerate(explicit):
            lif = m.as_dict(lif)
            lif_path = path + ("explicit", lif_index)
            if lif.get("name") in names:
                ctx.error("lif", lif_path + ("name",), f"LIF {lif.get('name')} is declared twice in this SVM")
            names.add(m.as_str(lif.get("name")) or "")
            if lif.get("node") not in ctx.node_names:
                ctx.error("dangling-reference", lif_path + ("node",), f"node '{lif.get('node')}' is not declared",
                          f"use one of {', '.join(ctx.node_names)}")
            elif (lif.get("node"), lif.get("port")) not in ports_in_domains:
                ctx.error("lif", lif_path + ("port",), f"{lif.get('node')}:{lif.get('port')} is in no broadcast domain of IPspace {ipspace}",
                          "home the LIF on a port listed in ontap.broadcast_domains")
        for lif in lifs:
            if lif["name"] and not LIF_NAME.match(lif["name"]):
                ctx.error("ontap-name", path, f"LIF name {lif['name']!r} breaks ONTAP's rules", "use letters, digits, '.', '-', '_'")
        if nfs.get("rdma") is True:
            ifgrp_names = {(m.as_dict(g).get("node"), m.as_dict(g).get("name"))
                           for g in m.as_list(m.as_dict(ctx.model.get("ontap")).get("interface_groups"))}
            for lif in lifs:
                if (lif["node"], m.split_vlan_port(lif["port"])[0]) in ifgrp_names:
                    ctx.error("nfs", path, f"LIF {lif['name']} is homed on interface group port {lif['port']}; NFS over RDMA does not support interface groups",
                              "home RDMA LIFs on physical ports")
        if not lifs and spec:
            ctx.error("lif", path, f"SVM {svm.get('name')} ends up with no data LIF", "check first_address and the broadcast domains")
        by_network: dict[str, set[str]] = {}
        for lif in lifs:
            if lif["network"]:
                by_network.setdefault(lif["network"], set()).add(lif["node"])
        for network_name, nodes in sorted(by_network.items()):
            for node in ctx.node_names:
                if node not in nodes:
                    ctx.error("lif-per-node", path,
                              f"node {node} has no data LIF of SVM {svm.get('name')} on network '{network_name}' "
                              "(pNFS and balanced mounts need one on every node)",
                              f"add a LIF on a {network_name} port of {node}")


def _bytes(size: Any) -> int | None:
    match = re.match(r"^([0-9]+(?:\.[0-9]+)?)(KB|MB|GB|TB|PB)$", size) if isinstance(size, str) else None
    return int(float(match.group(1)) * UNITS[match.group(2)]) if match else None


def flexgroups(ctx: Context) -> None:
    """FlexGroups use the SVM's aggregates, a sane constituent count, declared policies and unique paths."""
    ontap = m.as_dict(ctx.model.get("ontap"))
    declared_policies = {m.as_str(p.get("name")) for p in m.as_list(ontap.get("snapshot_policies")) if isinstance(p, dict)}
    snapshot_policies = ONTAP_BUILTIN_SNAPSHOT_POLICIES | declared_policies
    for index, svm in enumerate(m.as_list(ontap.get("svms"))):
        if not isinstance(svm, dict):
            continue
        svm_aggregates = [a for a in m.as_list(svm.get("aggregates")) if isinstance(a, str)]
        policies = {m.as_dict(p).get("name") for p in m.as_list(svm.get("export_policies"))}
        qos_names = {m.as_str(m.as_dict(p).get("name")) for p in m.as_list(svm.get("qos_policies"))} - {None}
        names: dict[str, int] = {}
        paths: dict[str, int] = {}
        for fg_index, flexgroup in enumerate(m.as_list(svm.get("flexgroups"))):
            if not isinstance(flexgroup, dict):
                continue
            path = ("ontap", "svms", index, "flexgroups", fg_index)
            name = m.as_str(flexgroup.get("name"))
            if name and not VOLUME_NAME.match(name):
                ctx.error("ontap-name", path + ("name",), f"volume name {name!r} breaks ONTAP's rules",
                          "start with a letter or '_'; use letters, digits and '_' only (no '-'); at most 203 characters")
            if name in names:
                ctx.error("ontap-name", path + ("name",), f"volume {name} is declared twice in SVM {svm.get('name')}")
            names.setdefault(name or "", fg_index)
            junction = m.as_str(flexgroup.get("junction_path"))
            problem = normalised_path_problem(junction) if junction and junction.startswith("/") else None
            if problem:
                ctx.error("flexgroup", path + ("junction_path",), f"junction path {junction} {problem}",
                          "junction a FlexGroup below the SVM root, e.g. /data")
            if junction in paths:
                ctx.error("flexgroup", path + ("junction_path",), f"junction path {junction} is used twice in SVM {svm.get('name')}")
            paths.setdefault(junction or "", fg_index)
            aggregates = [a for a in m.as_list(flexgroup.get("aggregates")) if isinstance(a, str)] or svm_aggregates
            for aggr_index, aggregate in enumerate(m.as_list(flexgroup.get("aggregates"))):
                if not isinstance(aggregate, str):
                    continue
                if aggregate not in ctx.aggregates:
                    ctx.error("dangling-reference", path + ("aggregates", aggr_index), f"aggregate {aggregate} is not declared on any node",
                              f"use one of {', '.join(sorted(a for a in ctx.aggregates if a))}")
                elif aggregate not in svm_aggregates:
                    ctx.error("flexgroup", path + ("aggregates", aggr_index),
                              f"aggregate {aggregate} is not assigned to SVM {svm.get('name')}",
                              "add it to the SVM's aggregates")
            per_aggregate = m.as_int(flexgroup.get("constituents_per_aggregate"))
            if per_aggregate is not None and not 1 <= per_aggregate <= MAX_CONSTITUENTS_PER_AGGREGATE:
                ctx.error("flexgroup", path + ("constituents_per_aggregate",),
                          f"{per_aggregate} constituents per aggregate is outside ONTAP's 1-{MAX_CONSTITUENTS_PER_AGGREGATE}",
                          "use 1 to 1000 (8 is typical on AFF)")
            size = _bytes(flexgroup.get("size"))
            if size is not None and per_aggregate and per_aggregate >= 1 and aggregates:
                constituents = per_aggregate * len(aggregates)
                if size / constituents < m.MIN_CONSTITUENT_BYTES:
                    ctx.error("flexgroup", path + ("size",),
                              f"{flexgroup.get('size')} over {constituents} constituents is {size / constituents / 1024 ** 3:.1f} GB each, "
                              "below the 100 GB a constituent needs",
                              f"grow the FlexGroup to at least {constituents * 100}GB or use fewer constituents")
            if "export_policy" in flexgroup and flexgroup.get("export_policy") not in policies:
                ctx.error("dangling-reference", path + ("export_policy",),
                          f"export policy {flexgroup.get('export_policy')} is not declared in SVM {svm.get('name')}",
                          f"use one of {', '.join(sorted(p for p in policies if p))}")
            qos = flexgroup.get("qos_policy")
            if "qos_policy" in flexgroup and qos not in qos_names:
                ctx.error("dangling-reference", path + ("qos_policy",), f"QoS policy {qos} is not declared in SVM {svm.get('name')}",
                          f"declare it under the SVM's qos_policies{' (' + ', '.join(sorted(qos_names)) + ')' if qos_names else ''}")
            if flexgroup.get("granular_data") is True and not _at_least(ontap.get("version"), GRANULAR_DATA_RELEASE):
                ctx.error("flexgroup", path + ("granular_data",),
                          f"Granular Data Distribution needs ONTAP {'.'.join(map(str, GRANULAR_DATA_RELEASE))} or later; "
                          + (f"ontap.version is {ontap.get('version')}" if ontap.get("version") else "ontap.version is not declared"),
                          "declare the release the cluster runs in ontap.version (9.16.1 or later), or drop granular_data")
            if "snapshot_policy" in flexgroup and flexgroup.get("snapshot_policy") not in snapshot_policies:
                ctx.error("dangling-reference", path + ("snapshot_policy",), f"snapshot policy {flexgroup.get('snapshot_policy')} is not declared",
                          "use default, none, or a policy under ontap.snapshot_policies")


def aggregates_or_placement(ctx: Context) -> None:
    """AFF and ASA place volumes on the aggregates the model names; AFX has none and places them itself."""
    ontap = m.as_dict(ctx.model.get("ontap"))
    afx = m.ontap_disaggregated(ctx.model)
    platform = ontap.get("platform")
    if afx and ontap.get("version") and not _at_least(ontap.get("version"), AFX_RELEASE):
        ctx.error("aggregates", ("ontap", "version"), f"{platform} is AFX, which runs ONTAP 9.17.1 or later; ontap.version is "
                  f"{ontap.get('version')}", "declare the release the cluster runs")
    for index, node in enumerate(m.as_list(ontap.get("nodes"))):
        if not isinstance(node, dict):
            continue
        path = ("ontap", "nodes", index, "aggregates")
        if afx and "aggregates" in node:
            ctx.error("aggregates", path, f"node {node.get('name')}: {platform} is AFX, which has no aggregates",
                      "remove the node's aggregates: AFX keeps its disks in one storage availability zone")
        elif not afx and not node.get("aggregates"):
            ctx.error("aggregates", path, f"node {node.get('name')} declares no aggregates",
                      "list its aggregates (name, disk_count); only an AFX platform has none")
    for index, svm in enumerate(m.as_list(ontap.get("svms"))):
        if not isinstance(svm, dict):
            continue
        path = ("ontap", "svms", index)
        if afx and "aggregates" in svm:
            ctx.error("aggregates", path + ("aggregates",), f"SVM {svm.get('name')}: AFX has no aggregates to assign",
                      "remove the SVM's aggregates")
        elif not afx and not svm.get("aggregates"):
            ctx.error("aggregates", path + ("aggregates",), f"SVM {svm.get('name')} has no aggregates (Trident fails without them)",
                      "assign the aggregates its FlexGroups use")
        for fg_index, flexgroup in enumerate(m.as_list(svm.get("flexgroups"))):
            if not isinstance(flexgroup, dict):
                continue
            fg_path = path + ("flexgroups", fg_index)
            for key in ("aggregates", "constituents_per_aggregate"):
                if afx and key in flexgroup:
                    ctx.error("aggregates", fg_path + (key,), f"FlexGroup {flexgroup.get('name')}: {key} on AFX, where ONTAP places "
                              "the FlexGroup", f"remove {key}")
            if not afx and "constituents_per_aggregate" not in flexgroup:
                ctx.error("aggregates", fg_path, f"FlexGroup {flexgroup.get('name')} does not say how many constituents each aggregate gets",
                          "set constituents_per_aggregate (8 is typical on AFF)")


def _at_least(version: Any, release: tuple[int, ...]) -> bool:
    match = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", str(version or ""))
    return bool(match) and tuple(int(part) for part in match.groups()) >= release


def qos_policies(ctx: Context) -> None:
    """QoS policy groups: unique names per SVM, a limit at all, and no floor above its ceiling."""
    for index, svm in enumerate(m.as_list(m.as_dict(ctx.model.get("ontap")).get("svms"))):
        seen: set[str] = set()
        for policy_index, policy in enumerate(m.as_list(m.as_dict(svm).get("qos_policies"))):
            if not isinstance(policy, dict):
                continue
            path = ("ontap", "svms", index, "qos_policies", policy_index)
            name = m.as_str(policy.get("name"))
            if name in seen:
                ctx.error("qos-policy", path + ("name",), f"QoS policy {name} is declared twice in SVM {svm.get('name')}")
            seen.add(name or "")
            limits = {key: m.as_int(policy.get(key)) or 0 for key in m.QOS_LIMITS}
            if not any(limits.values()):
                ctx.error("qos-policy", path, f"QoS policy {name} sets no limit", "give it max_throughput_iops/_mbps or a minimum")
            for unit in ("iops", "mbps"):
                floor, ceiling = limits[f"min_throughput_{unit}"], limits[f"max_throughput_{unit}"]
                if floor and ceiling and floor > ceiling:
                    ctx.error("qos-policy", path + (f"min_throughput_{unit}",),
                              f"QoS policy {name}: the floor {floor} is above the ceiling {ceiling} ({unit})",
                              "lower the minimum or raise the maximum")


def _clients_networks(ctx: Context, clients: list, path: tuple) -> set[str]:
    """Networks covered by an export rule's clients; reports clients that are neither declared networks nor inside one."""
    allow_world = m.as_dict(m.as_dict(ctx.model.get("pod")).get("security")).get("allow_world_open_exports") is True
    covered: set[str] = set()
    subnets = {name: m.parse_subnet(n.get("subnet"), strict=False) for name, n in ctx.networks.items()}
    for client_index, client in enumerate(clients):
        if not isinstance(client, str):
            continue
        client_path = path + (client_index,)
        if client in ctx.networks:
            covered.add(client)
            continue
        try:
            match = ipaddress.IPv4Network(client, strict=False)
        except ValueError:
            ctx.error("export", client_path, f"client {client!r} is neither a declared network nor an IPv4 address/CIDR",
                      f"use a network name ({', '.join(ctx.networks)}) or a CIDR inside one")
            continue
        if "/" in client and str(match.network_address) != client.split("/", 1)[0]:
            ctx.error("export", client_path, f"client {client} has host bits set: it means {match}",
                      f"write the network address ({match}), and check that it is the range you meant")
            continue
        if match.prefixlen == 0:
            if not allow_world:
                ctx.error("export", client_path, f"export rule for {client} opens the data to every address",
                          "name the client networks, or set pod.security.allow_world_open_exports: true")
            else:
                covered.update(ctx.networks)
            continue
        inside = [name for name, subnet in subnets.items() if subnet and match.subnet_of(subnet)]
        if not inside:
            ctx.error("export", client_path, f"client {client} is outside every declared network",
                      "export only to declared client networks")
        for name, subnet in subnets.items():
            if subnet and subnet.subnet_of(match):
                covered.add(name)
    return covered


def export_policies(ctx: Context) -> None:
    """Export rules name declared client networks only; mounts and Kubernetes nodes are admitted where they need to be."""
    kube_networks = m.storage_networks_of_hosts(ctx.model, m.group_members(ctx.model, "kube_node"))
    trident_svms = {m.as_str(m.as_dict(b).get("svm")) for b in m.as_list(m.as_dict(ctx.model.get("trident")).get("backends"))}
    admits: dict[tuple[str, str], set[str]] = {}
    for index, svm in enumerate(m.as_list(m.as_dict(ctx.model.get("ontap")).get("svms"))):
        if not isinstance(svm, dict):
            continue
        names: set[str] = set()
        for policy_index, policy in enumerate(m.as_list(svm.get("export_policies"))):
            policy = m.as_dict(policy)
            path = ("ontap", "svms", index, "export_policies", policy_index)
            name = m.as_str(policy.get("name"))
            if name and not POLICY_NAME.match(name):
                ctx.error("ontap-name", path + ("name",), f"export policy name {name!r} breaks ONTAP's rules",
                          "use letters, digits, '.', '-', '_' (at most 256)")
            if name in names:
                ctx.error("ontap-name", path + ("name",), f"export policy {name} is declared twice in SVM {svm.get('name')}")
            names.add(name or "")
            covered: set[str] = set()
            for rule_index, export_rule in enumerate(m.as_list(policy.get("rules"))):
                export_rule = m.as_dict(export_rule)
                covered |= _clients_networks(ctx, m.as_list(export_rule.get("clients")),
                                             path + ("rules", rule_index, "clients"))
            admits[(svm.get("name"), name or "")] = covered
        root = svm.get("root_export_policy")
        root_path = ("ontap", "svms", index, "root_export_policy")
        if isinstance(root, str) and root not in names and root != "default":
            ctx.error("dangling-reference", root_path, f"root export policy {root} is not declared in SVM {svm.get('name')}",
                      f"use one of {', '.join(sorted(n for n in names if n))}")
        elif isinstance(root, str) and (svm.get("name") in trident_svms or not trident_svms):
            missing = [n for n in kube_networks if n not in admits.get((svm.get("name"), root), set())]
            if missing:
                ctx.error("root-export", root_path,
                          f"root volume policy {root} of SVM {svm.get('name')} does not admit the Kubernetes node network(s) {', '.join(missing)}; "
                          "Trident mounts would fail",
                          f"add a rule for {', '.join(missing)} to export policy {root}")
    for mount_index, mount in enumerate(m.as_list(m.as_dict(ctx.model.get("compute")).get("mounts"))):
        mount = m.as_dict(mount)
        if mount.get("dataset"):
            continue  # a data set's export policy is derived from its consumers: it admits this mount
        svm = next((s for s in ctx.svms if s["name"] == mount.get("svm")), None)
        flexgroup = next((m.as_dict(f) for f in m.as_list(m.as_dict(svm).get("flexgroups"))
                          if m.as_dict(f).get("name") == mount.get("flexgroup")), None)
        if not svm or not flexgroup or not isinstance(flexgroup.get("export_policy"), str):
            continue
        admitted = admits.get((svm["name"], flexgroup["export_policy"]), set())
        for host in ctx.dgx:
            for plan in ctx.mount_plan(host):
                if plan["path"] == mount.get("path") and plan["network"] not in admitted:
                    ctx.error("export", ("compute", "mounts", mount_index),
                              f"{host} mounts {mount.get('path')} over network '{plan['network']}', "
                              f"which export policy {flexgroup['export_policy']} does not admit",
                              f"add {plan['network']} to a rule of {flexgroup['export_policy']}")
