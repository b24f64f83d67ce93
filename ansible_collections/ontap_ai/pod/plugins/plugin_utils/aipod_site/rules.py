"""Level 2 of site validation: rules that span layers (switches, ONTAP, hosts, Kubernetes, Trident).

Each rule is a function of a Context that reports findings through ctx.error / ctx.warning with a
model path; the Context turns the path into a file and line. Rules read the model only through
the defensive helpers of .model, so a malformed model (already reported by the schema) never
makes them raise. RULES lists them in the order their findings are most useful to read.
"""
from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Callable, Iterable
from typing import Any

from . import kubernetes as k
from . import model as m
from .findings import Finding
from .inventory import KIND_GROUPS, KUBE_GROUPS, Site

ONTAP_BUILTIN_SNAPSHOT_POLICIES = {"default", "default-1weekly", "none"}
MIN_CONSTITUENT_BYTES = 100 * 1024 ** 3  # FlexGroup constituents under 100 GB are discouraged (NetApp TR-4571)
MAX_CONSTITUENTS_PER_AGGREGATE = 1000
UNITS = {"KB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3, "TB": 1024 ** 4, "PB": 1024 ** 5}
SVM_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9._-]{0,46}$")
VOLUME_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,202}$")
POLICY_NAME = re.compile(r"^[A-Za-z0-9._-]{1,256}$")
LIF_NAME = re.compile(r"^[A-Za-z0-9._-]{1,255}$")
MOUNT_OPTION = re.compile(r"^[a-z_][a-z0-9_]*(=[A-Za-z0-9_.:/-]+)?$")
JUMBO_SWITCH_MTU = 9216  # a 9000-byte host MTU plus headers, tags and FCS fits in 9216 on the switch


class Context:
    """What rules need: the site, shortcuts into the model, and the finding sink."""

    def __init__(self, site: Site, check_files: bool = True):
        self.site = site
        self.model = site.model
        self.check_files = check_files
        self.findings: list[Finding] = []
        self.networks = m.networks_by_name(self.model)
        self.lifs = m.data_lifs(self.model)
        self.node_names = [node["name"] for node in m.ontap_nodes(self.model)]
        self.aggregates = {
            m.as_str(aggr.get("name")): node["name"]
            for node in m.ontap_nodes(self.model)
            for aggr in m.as_list(node.get("aggregates"))
            if isinstance(aggr, dict) and m.as_str(aggr.get("name"))
        }
        self.dgx = m.hosts_of_kind(self.model, "dgx")
        self.servers = m.hosts_of_kind(self.model, "server")
        self.switches = m.hosts_of_kind(self.model, "switch")
        self.svms = m.svms(self.model)
        self._mount_plans: dict[str, list[dict]] = {}

    def mount_plan(self, host: str) -> list[dict]:
        if host not in self._mount_plans:
            self._mount_plans[host] = m.mount_plan(self.model, host)
        return self._mount_plans[host]

    def error(self, rule: str, path: Iterable[Any], message: str, hint: str = "") -> None:
        self._add(rule, "error", tuple(path), message, hint)

    def warning(self, rule: str, path: Iterable[Any], message: str, hint: str = "") -> None:
        self._add(rule, "warning", tuple(path), message, hint)

    def _add(self, rule, severity, path, message, hint) -> None:
        self.findings.append(Finding(rule, severity, path, message, hint, self.site.locate(path)))

    def svm_index(self, name: Any) -> int | None:
        for index, svm in enumerate(m.as_list(m.as_dict(self.model.get("ontap")).get("svms"))):
            if isinstance(svm, dict) and svm.get("name") == name:
                return index
        return None

    def network_of(self, name: Any) -> dict | None:
        return self.networks.get(name) if isinstance(name, str) else None


Rule = Callable[[Context], None]
RULES: list[Rule] = []


def rule(function: Rule) -> Rule:
    RULES.append(function)
    return function


def host_path(host: str, kind: str, *rest: Any) -> tuple:
    return ("hosts", host, kind) + rest


# ------------------------------------------------------------------------------- inventory
@rule
def host_kinds(ctx: Context) -> None:
    """Every host is of one kind (group switches, ontap, dgx or servers) and carries that kind's model."""
    groups = ctx.site.groups
    for host, body in sorted(ctx.model["hosts"].items(), key=lambda item: m.natural_key(item[0])):
        kinds = [group for group in KIND_GROUPS if group in m.as_list(body.get("groups"))]
        if not kinds:
            ctx.error("host-kind", ("hosts", host), f"host '{host}' is in none of the groups {', '.join(KIND_GROUPS)}",
                      "add it to the group of its kind in hosts.yml")
        elif len(kinds) > 1:
            ctx.error("host-kind", ("hosts", host), f"host '{host}' is in several kind groups: {', '.join(kinds)}",
                      "a host is exactly one of switch, ontap, dgx or server")
        for key, group in (("switch", "switches"), ("dgx", "dgx"), ("server", "servers")):
            if group in kinds and key not in body:
                ctx.error("host-kind", ("hosts", host), f"host '{host}' is in group {group} but has no '{key}' model",
                          f"add '{key}:' to host_vars/{host}.yml")
            if key in body and group not in kinds:
                ctx.error("host-kind", ("hosts", host, key), f"host '{host}' has a '{key}' model but is not in group {group}",
                          f"add {host} to group {group} in hosts.yml")
    clusters = groups.get("ontap", [])
    if len(clusters) != 1:
        ctx.error("host-kind", ("groups", "ontap"),
                  f"group ontap must hold exactly one host (the cluster), it holds {len(clusters)}",
                  "list the cluster once under ontap: hosts:")


@rule
def unique_names(ctx: Context) -> None:
    """Host names, ONTAP node names and the cluster name are distinct (case-insensitive)."""
    seen: dict[str, tuple] = {}
    cluster = m.as_str(m.as_dict(ctx.model.get("ontap")).get("cluster_name"))
    # The inventory host of group ontap stands for the cluster and may carry its name.
    entries = [(host, ("hosts", host)) for host in ctx.model["hosts"]
               if not (host == cluster and "ontap" in m.as_list(ctx.model["hosts"][host].get("groups")))]
    for index, node in enumerate(m.as_list(m.as_dict(ctx.model.get("ontap")).get("nodes"))):
        if isinstance(node, dict) and m.as_str(node.get("name")):
            entries.append((node["name"], ("ontap", "nodes", index, "name")))
    if cluster:
        entries.append((cluster, ("ontap", "cluster_name")))
    for name, path in entries:
        key = name.lower()
        if key in seen and seen[key] != path:
            if path[0] == "hosts" and seen[key][0] == "hosts":
                continue  # the inventory itself keeps host names unique
            ctx.error("unique-name", path, f"name '{name}' is also used at {ctx.site.locate(seen[key])}",
                      "give every host, ONTAP node and the cluster its own name")
        seen.setdefault(key, path)


# ------------------------------------------------------------------------------- networks
@rule
def networks_sane(ctx: Context) -> None:
    """Subnets are network addresses and do not overlap; gateways sit inside; names and VLANs are unique."""
    seen_names: dict[str, int] = {}
    seen_vlans: dict[int, str] = {}
    subnets: list[tuple[ipaddress.IPv4Network, str, int]] = []
    for index, network in enumerate(m.as_list(ctx.model.get("networks"))):
        if not isinstance(network, dict):
            continue
        name = m.as_str(network.get("name"))
        path = ("networks", index)
        if name in seen_names:
            ctx.error("network", path + ("name",), f"network '{name}' is declared twice (also networks[{seen_names[name]}])",
                      "give each network its own name")
        elif name:
            seen_names[name] = index
        vlan = m.as_int(network.get("vlan"))
        if vlan is not None:
            if vlan in seen_vlans:
                ctx.error("vlan", path + ("vlan",), f"VLAN {vlan} is also the VLAN of network '{seen_vlans[vlan]}'",
                          "give each network its own VLAN id")
            seen_vlans.setdefault(vlan, name or "?")
        text = network.get("subnet")
        subnet = m.parse_subnet(text, strict=True)
        loose = m.parse_subnet(text, strict=False)
        if isinstance(text, str) and loose is None:
            ctx.error("subnet", path + ("subnet",), f"{text!r} is not a valid IPv4 network", "write it as a.b.c.d/len")
            continue
        if subnet is None and loose is not None:
            ctx.error("subnet", path + ("subnet",), f"{text} has host bits set",
                      f"did you mean {loose.with_prefixlen}?")
        if loose is None:
            continue
        for other, other_name, _other_index in subnets:
            if loose.overlaps(other):
                ctx.error("subnet", path + ("subnet",), f"{loose} overlaps network '{other_name}' ({other})",
                          "give each network a separate subnet")
        subnets.append((loose, name or "?", index))
        gateway = m.parse_address(network.get("gateway"))
        if gateway is not None:
            problem = _address_problem(gateway, loose, None)
            if problem:
                ctx.error("address-in-subnet", path + ("gateway",), f"gateway {gateway} {problem}",
                          f"use a host address of {loose}")
        for route_index, route in enumerate(m.as_list(network.get("routes"))):
            route = m.as_dict(route)
            via = m.parse_address(route.get("via")) or gateway
            if via is None:
                ctx.error("route", path + ("routes", route_index),
                          f"route to {route.get('to')} has no next hop and network '{name}' has no gateway",
                          "set via: or the network's gateway")
            elif via not in loose:
                ctx.error("route", path + ("routes", route_index, "via"), f"next hop {via} is outside {loose}",
                          f"use an address of {loose}")
            if m.parse_subnet(route.get("to")) is None and isinstance(route.get("to"), str):
                ctx.error("route", path + ("routes", route_index, "to"), f"{route.get('to')!r} is not a network address",
                          "write the destination as a.b.c.0/len")


def _address_problem(address: ipaddress.IPv4Address, subnet: ipaddress.IPv4Network, gateway) -> str | None:
    if address not in subnet:
        return f"is outside {subnet}"
    if subnet.prefixlen < 31 and address == subnet.network_address:
        return f"is the network address of {subnet}"
    if subnet.prefixlen < 31 and address == subnet.broadcast_address:
        return f"is the broadcast address of {subnet}"
    if gateway is not None and address == gateway:
        return "is the network's gateway"
    return None


def _addresses(ctx: Context) -> list[tuple[str, str | None, tuple, str]]:
    """(address, network or None, model path, what) for every address the pod uses."""
    result: list[tuple[str, str | None, tuple, str]] = []
    ontap = m.as_dict(ctx.model.get("ontap"))
    if m.as_str(ontap.get("mgmt_address")):
        result.append((ontap["mgmt_address"], None, ("ontap", "mgmt_address"), "ONTAP cluster management"))
    for index, node in enumerate(m.as_list(ontap.get("nodes"))):
        if isinstance(node, dict) and m.as_str(node.get("mgmt_address")):
            result.append((node["mgmt_address"], None, ("ontap", "nodes", index, "mgmt_address"), f"node {node.get('name')}"))
    for index, svm in enumerate(m.as_list(ontap.get("svms"))):
        if not isinstance(svm, dict):
            continue
        mgmt = m.svm_mgmt_lif(ctx.model, svm)
        if mgmt and mgmt["address"]:
            result.append((mgmt["address"], mgmt["network"], ("ontap", "svms", index, "mgmt_lif", "address"),
                           f"SVM {svm.get('name')} management LIF"))
        spec = m.as_dict(svm.get("data_lifs"))
        explicit = m.as_list(spec.get("explicit"))
        lifs = [lif for lif in ctx.lifs if lif["svm"] == svm.get("name")]
        for lif in lifs:
            if not lif["address"]:
                continue
            if "explicit" in spec:
                position = next((i for i, e in enumerate(explicit) if m.as_dict(e).get("name") == lif["name"]), None)
                path = ("ontap", "svms", index, "data_lifs", "explicit", position, "address")
            else:
                path = ("ontap", "svms", index, "data_lifs", "first_address", lif["network"])
            result.append((lif["address"], lif["network"], path, f"LIF {lif['name']}"))
    for host, data in ctx.switches.items():
        if m.as_str(data.get("mgmt_address")):
            result.append((data["mgmt_address"], None, host_path(host, "switch", "mgmt_address"), f"switch {host}"))
    for kind, hosts in (("dgx", ctx.dgx), ("server", ctx.servers)):
        for host, data in hosts.items():
            if m.as_str(data.get("mgmt_address")):
                result.append((data["mgmt_address"], None, host_path(host, kind, "mgmt_address"), f"{host} management"))
            inband = m.as_dict(data.get("inband"))
            if m.as_str(inband.get("address")):
                result.append((inband["address"], m.as_str(inband.get("network")), host_path(host, kind, "inband", "address"),
                               f"{host} {inband.get('name')}"))
            for nic_index, nic in enumerate(m.as_list(data.get("storage_nics"))):
                nic = m.as_dict(nic)
                if m.as_str(nic.get("address")):
                    result.append((nic["address"], m.as_str(nic.get("network")),
                                   host_path(host, kind, "storage_nics", nic_index, "address"), f"{host} {nic.get('name')}"))
    return result


@rule
def unique_addresses(ctx: Context) -> None:
    """No IP address is used twice anywhere in the pod."""
    seen: dict[str, tuple[tuple, str]] = {}
    for address, _network, path, what in _addresses(ctx):
        if m.parse_address(address) is None:
            continue
        if address in seen and seen[address][0] != path:
            first_path, first_what = seen[address]
            ctx.error("duplicate-address", path, f"{address} ({what}) is already used by {first_what} at {ctx.site.locate(first_path)}",
                      "give every interface its own address")
        seen.setdefault(address, (path, what))


@rule
def addresses_in_subnets(ctx: Context) -> None:
    """Every address lies in its network, and is not that network's network, broadcast or gateway address."""
    management = [m.parse_subnet(n.get("subnet"), strict=False) for n in ctx.networks.values()
                  if n.get("purpose") in ("mgmt", "inband")]
    for address_text, network_name, path, what in _addresses(ctx):
        address = m.parse_address(address_text)
        if address is None:
            continue
        if network_name is None:
            if not any(subnet and address in subnet for subnet in management):
                ctx.error("address-in-subnet", path, f"{address} ({what}) is in no declared mgmt or inband network",
                          "declare its management network in networks.yml or correct the address")
            continue
        network = ctx.network_of(network_name)
        if network is None:
            continue  # dangling network names are reported by the rule that owns the reference
        subnet = m.parse_subnet(network.get("subnet"), strict=False)
        if subnet is None:
            continue
        problem = _address_problem(address, subnet, m.parse_address(network.get("gateway")))
        if problem:
            ctx.error("address-in-subnet", path, f"{address} ({what}) {problem} of network '{network_name}'",
                      f"use a free host address of {subnet}")


# ------------------------------------------------------------------------------- ONTAP
@rule
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


@rule
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


@rule
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


@rule
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
                if size / constituents < MIN_CONSTITUENT_BYTES:
                    ctx.error("flexgroup", path + ("size",),
                              f"{flexgroup.get('size')} over {constituents} constituents is {size / constituents / 1024 ** 3:.1f} GB each, "
                              "below the 100 GB a constituent needs",
                              f"grow the FlexGroup to at least {constituents * 100}GB or use fewer constituents")
            if "export_policy" in flexgroup and flexgroup.get("export_policy") not in policies:
                ctx.error("dangling-reference", path + ("export_policy",),
                          f"export policy {flexgroup.get('export_policy')} is not declared in SVM {svm.get('name')}",
                          f"use one of {', '.join(sorted(p for p in policies if p))}")
            if "snapshot_policy" in flexgroup and flexgroup.get("snapshot_policy") not in snapshot_policies:
                ctx.error("dangling-reference", path + ("snapshot_policy",), f"snapshot policy {flexgroup.get('snapshot_policy')} is not declared",
                          "use default, none, or a policy under ontap.snapshot_policies")


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


@rule
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


# ------------------------------------------------------------------------------- hosts
@rule
def host_nics(ctx: Context) -> None:
    """Host NICs sit on declared networks; DGX storage NICs on storage networks with data LIFs; MTUs follow the network."""
    lif_networks = {lif["network"] for lif in ctx.lifs if lif["network"]}
    for kind, hosts in (("dgx", ctx.dgx), ("server", ctx.servers)):
        for host, data in hosts.items():
            names: set[str] = set()
            inband = m.as_dict(data.get("inband"))
            if inband:
                network = ctx.network_of(inband.get("network"))
                if network is None and isinstance(inband.get("network"), str):
                    ctx.error("dangling-reference", host_path(host, kind, "inband", "network"),
                              f"network '{inband.get('network')}' is not declared", f"use one of {', '.join(ctx.networks)}")
                names.add(m.as_str(inband.get("name")) or "")
                names.update(member for member in m.as_list(inband.get("members")) if isinstance(member, str))
            for index, nic in enumerate(m.as_list(data.get("storage_nics"))):
                nic = m.as_dict(nic)
                path = host_path(host, kind, "storage_nics", index)
                name = m.as_str(nic.get("name"))
                if name in names:
                    ctx.error("host-nic", path + ("name",), f"NIC {name} of {host} is declared twice")
                names.add(name or "")
                network_name = nic.get("network")
                network = ctx.network_of(network_name)
                if network is None:
                    if isinstance(network_name, str):
                        ctx.error("dangling-reference", path + ("network",), f"network '{network_name}' is not declared",
                                  f"use one of {', '.join(n for n, v in ctx.networks.items() if v.get('purpose') in ('storage', 'roce'))}")
                    continue
                purpose = network.get("purpose")
                if purpose not in ("storage", "roce"):
                    ctx.error("host-nic", path + ("network",), f"storage NIC {name} is on network '{network_name}' whose purpose is {purpose}",
                              "put storage NICs on storage (or roce) networks")
                elif kind == "dgx" and purpose == "storage" and network_name not in lif_networks:
                    ctx.error("host-nic", path + ("network",), f"storage NIC {name} of {host} is on network '{network_name}', where no SVM has a data LIF",
                              "add data LIFs on that network or move the NIC")
                if m.as_int(nic.get("mtu")) is not None and nic.get("mtu") != network.get("mtu"):
                    ctx.error("mtu", path + ("mtu",), f"NIC MTU {nic.get('mtu')} differs from network '{network_name}' MTU {network.get('mtu')}",
                              "drop the mtu here (it follows the network) or make them equal")
                if nic.get("tagged") is True and m.as_int(network.get("vlan")) is None:
                    ctx.error("vlan", path + ("tagged",), f"NIC {name} is tagged but network '{network_name}' has no VLAN",
                              "give the network a vlan or untag the NIC")
            gpus = m.as_dict(data.get("gpus"))
            if kind == "dgx" and not gpus:
                ctx.warning("gpu", host_path(host, kind), f"{host} declares no expected GPU count; the GPU check cannot compare",
                            "add gpus: {count: 8}")


@rule
def compute_mounts(ctx: Context) -> None:
    """Each mount names a FlexGroup of an SVM with the NFS features it asks for, reachable from every DGX."""
    seen_paths: dict[str, int] = {}
    for index, mount in enumerate(m.as_list(m.as_dict(ctx.model.get("compute")).get("mounts"))):
        mount = m.as_dict(mount)
        path = ("compute", "mounts", index)
        if mount.get("path") in seen_paths:
            ctx.error("mount", path + ("path",), f"mount point {mount.get('path')} is used twice")
        seen_paths.setdefault(m.as_str(mount.get("path")) or "", index)
        svm = next((s for s in ctx.svms if s["name"] == mount.get("svm")), None)
        if svm is None:
            if isinstance(mount.get("svm"), str):
                ctx.error("dangling-reference", path + ("svm",), f"SVM {mount.get('svm')} is not declared",
                          f"use one of {', '.join(s['name'] for s in ctx.svms)}")
            continue
        flexgroup_names = [m.as_dict(f).get("name") for f in m.as_list(svm.get("flexgroups"))]
        if mount.get("flexgroup") not in flexgroup_names:
            ctx.error("dangling-reference", path + ("flexgroup",), f"FlexGroup {mount.get('flexgroup')} is not declared in SVM {svm['name']}",
                      f"use one of {', '.join(str(n) for n in flexgroup_names) or '(none)'}")
            continue
        nfs = m.as_dict(svm.get("nfs"))
        version = str(mount.get("nfs_version", "4.1"))
        if version == "4.1" and nfs.get("v41") is not True:
            ctx.error("mount", path + ("nfs_version",), f"mount asks for NFSv4.1 but SVM {svm['name']} has v41 off", "enable nfs.v41 or mount with 3")
        if version == "3" and nfs.get("v3") is not True:
            ctx.error("mount", path + ("nfs_version",), f"mount asks for NFSv3 but SVM {svm['name']} has v3 off", "enable nfs.v3 or mount with 4.1")
        if mount.get("transport") == "rdma":
            if nfs.get("rdma") is not True:
                ctx.error("mount", path + ("transport",), f"RDMA mount but SVM {svm['name']} has rdma off", "set nfs.rdma: true")
            for host, data in ctx.dgx.items():
                if data.get("roce") is not True:
                    ctx.error("mount", path + ("transport",), f"RDMA mount but {host} has roce off", "set roce: true on the DGX or mount over tcp")
        limit = m.as_int(nfs.get("tcp_max_transfer_size"))
        for size_key in ("rsize", "wsize"):
            size = m.as_int(mount.get(size_key))
            if limit and size and size > limit:
                ctx.error("mount", path + (size_key,), f"{size_key} {size} exceeds the SVM's tcp_max_transfer_size {limit}",
                          f"use at most {limit}")
        lif_networks = {lif["network"] for lif in ctx.lifs if lif["svm"] == svm["name"]}
        for host in ctx.dgx:
            host_networks = {nic["network"] for nic in m.host_interfaces(ctx.model, host).values() if nic["kind"] == "storage"}
            if host_networks and not host_networks & lif_networks:
                ctx.error("mount", path, f"{host} has no storage network on which SVM {svm['name']} has a data LIF; it cannot mount {mount.get('path')}",
                          "add a LIF on the host's storage network")


# ------------------------------------------------------------------------------- switches
@rule
def switch_ports(ctx: Context) -> None:
    """Switch ports are used once, lead to declared devices, and carry the VLANs and MTU of the far end."""
    cabled: dict[tuple[str, str], tuple] = {}
    for switch, data in ctx.switches.items():
        used: dict[str, tuple] = {}
        platform = data.get("platform")
        prefix = {"nxos": "Ethernet", "cumulus": "swp"}.get(platform)

        def use(port: Any, path: tuple) -> None:
            if not isinstance(port, str):
                return
            if port in used:
                ctx.error("switch-port", path, f"{switch} port {port} is used twice (also at {ctx.site.locate(used[port])})",
                          "use each port once: as a port, a port-channel member or a peer-link member")
            used.setdefault(port, path)
            if prefix and not port.startswith(prefix):
                ctx.error("switch-port", path, f"{port} is not a {platform} port name", f"{platform} ports are named {prefix}...")

        vpc = m.as_dict(data.get("vpc"))
        link = m.as_dict(vpc.get("peer_link"))
        for index, port in enumerate(m.as_list(link.get("members"))):
            use(port, host_path(switch, "switch", "vpc", "peer_link", "members", index))
        channel_ids: dict[int, tuple] = {}
        if m.as_int(link.get("port_channel")) is not None:
            channel_ids[link["port_channel"]] = host_path(switch, "switch", "vpc", "peer_link", "port_channel")
        for index, channel in enumerate(m.as_list(data.get("port_channels"))):
            channel = m.as_dict(channel)
            path = host_path(switch, "switch", "port_channels", index)
            channel_id = m.as_int(channel.get("id"))
            if channel_id in channel_ids:
                ctx.error("switch-port", path + ("id",), f"port-channel {channel_id} is used twice on {switch}")
            channel_ids.setdefault(channel_id or -1, path)
            for member_index, port in enumerate(m.as_list(channel.get("members"))):
                use(port, path + ("members", member_index))
            _check_far_end(ctx, switch, channel, path, cabled, bundle=True)
        for index, port in enumerate(m.as_list(data.get("ports"))):
            port = m.as_dict(port)
            path = host_path(switch, "switch", "ports", index)
            use(port.get("name"), path + ("name",))
            _check_far_end(ctx, switch, port, path, cabled, bundle=False)
        ports, channels = m.switch_entries(ctx.model, switch)
        entries = [m.as_dict(p) for p in m.as_list(data.get("ports")) if m.as_str(m.as_dict(p).get("name"))]
        channel_entries = [m.as_dict(c) for c in m.as_list(data.get("port_channels")) if m.as_int(m.as_dict(c).get("id")) is not None]
        raw_index = {id(entry): i for i, entry in enumerate(m.as_list(data.get("ports")))}
        raw_channel_index = {id(entry): i for i, entry in enumerate(m.as_list(data.get("port_channels")))}
        short = []
        for settled, entry in zip(ports, entries):
            short.append(_check_port_settings(ctx, switch, settled, entry, host_path(switch, "switch", "ports", raw_index.get(id(entry), 0))))
        for settled, entry in zip(channels, channel_entries):
            short.append(_check_port_settings(ctx, switch, settled, entry, host_path(switch, "switch", "port_channels", raw_channel_index.get(id(entry), 0))))
        short = [name for name in short if name]
        if short:
            switch_mtu = m.as_int(data.get("mtu")) or m.DEFAULT_SWITCH_MTU
            ctx.error("mtu", host_path(switch, "switch", "mtu"),
                      f"switch MTU {switch_mtu} is below the {JUMBO_SWITCH_MTU} that its jumbo (MTU 9000) ports need: {', '.join(short)}",
                      f"set mtu: {JUMBO_SWITCH_MTU}")


def _check_far_end(ctx: Context, switch: str, entry: dict, path: tuple, cabled: dict, bundle: bool) -> None:
    target = m.as_dict(entry.get("connects_to"))
    end = m.far_end(ctx.model, target)
    if end is None:
        return
    if end["kind"] == "host":
        if end["device"] not in ctx.dgx and end["device"] not in ctx.servers:
            ctx.error("dangling-reference", path + ("connects_to", "host"), f"{end['device']} is not a declared DGX or server",
                      "use a host of group dgx or servers")
            return
        if not end["resolved"]:
            ctx.error("dangling-reference", path + ("connects_to", "nic"), f"{end['device']} has no NIC or bond named {end['interface']}",
                      f"declare it in host_vars/{end['device']}.yml (storage_nics or inband)")
            return
        attached = m.as_dict(ctx.dgx.get(end["device"]) or ctx.servers.get(end["device"]))
        is_bond = end.get("nic_kind") == "inband" and bool(m.as_dict(attached.get("inband")).get("members"))
        if bundle and not is_bond:
            ctx.error("switch-port", path + ("connects_to",), f"port-channel leads to {end['description']}, which is not a bond",
                      "connect a port-channel to a bond (inband with members), or use a plain port")
        if not bundle and is_bond:
            ctx.error("switch-port", path + ("connects_to",), f"plain port leads to bond {end['description']}",
                      "use a port-channel for a bond")
    else:
        if end["device"] not in ctx.node_names:
            ctx.error("dangling-reference", path + ("connects_to", "ontap_node"), f"ONTAP node '{end['device']}' is not declared",
                      f"use one of {', '.join(ctx.node_names)}")
            return
        if not end["resolved"]:
            ctx.error("dangling-reference", path + ("connects_to", "port"), f"{end['interface']} is neither a port nor an interface group of {end['device']}",
                      "declare it under ontap.nodes[].ports or ontap.interface_groups")
            return
        if bundle and not end.get("is_ifgrp"):
            ctx.error("switch-port", path + ("connects_to",), f"port-channel leads to {end['description']}, which is not an interface group",
                      "connect port-channels to interface groups (a0a...)")
        if not bundle and end.get("is_ifgrp"):
            ctx.error("switch-port", path + ("connects_to",), f"plain port leads to interface group {end['description']}",
                      "use a port-channel for an interface group")
    key = (end["device"], end["interface"])
    if not bundle:
        if key in cabled:
            ctx.error("switch-port", path + ("connects_to",), f"{end['description']} is already cabled at {ctx.site.locate(cabled[key])}",
                      "a NIC or ONTAP port has one cable")
        cabled.setdefault(key, path)


def _check_port_settings(ctx: Context, switch: str, settled: dict, entry: dict, path: tuple) -> str | None:
    """Checks one port or port-channel; returns its name when it is jumbo but inherits a too-small switch MTU."""
    end = m.far_end(ctx.model, entry.get("connects_to")) or {}
    for network_name, _tagged in end.get("memberships", []):
        network = ctx.network_of(network_name) or {}
        if m.as_int(network.get("vlan")) is None and network:
            ctx.error("vlan", path, f"{settled['name']} carries network '{network_name}', which has no VLAN id",
                      "give the network a vlan in networks.yml")
    if end and not end.get("memberships") and end.get("resolved"):
        ctx.warning("switch-port", path, f"{settled['name']} leads to {end.get('description')}, which carries no declared network",
                    "put the far end in a network (broadcast domain or NIC network)")
    explicit = [v for v in m.as_list(entry.get("vlans")) if m.as_int(v) is not None]
    declared_vlans = {m.as_int(n.get("vlan")) for n in ctx.networks.values()}
    for vlan in explicit:
        if vlan not in declared_vlans:
            ctx.error("vlan", path + ("vlans",), f"VLAN {vlan} on {settled['name']} belongs to no declared network",
                      "declare the network or remove the VLAN")
    missing = [v for v in settled["derived_vlans"] if explicit and v not in explicit]
    if missing:
        ctx.error("vlan", path + ("vlans",),
                  f"{settled['name']} leads to {end.get('description')} on VLAN {', '.join(map(str, missing))}, missing from its vlans list",
                  "drop vlans (they follow the far end) or add the missing ones")
    if settled["mode"] == "access" and len(set(explicit or settled["derived_vlans"])) > 1:
        ctx.error("vlan", path + ("mode",), f"{settled['name']} is an access port but carries several VLANs",
                  "make it a trunk (or drop mode)")
    if settled["mode"] == "access" and any(tagged for _n, tagged in end.get("memberships", [])):
        ctx.error("vlan", path + ("mode",), f"{settled['name']} is an access port but {end.get('description')} sends tagged frames",
                  "make it a trunk (or drop mode)")
    mtus = [m.as_int((ctx.network_of(n) or {}).get("mtu")) or 1500 for n in settled["networks"]]
    needed = max(mtus, default=1500)
    if needed > 1500 and settled["mtu"] < JUMBO_SWITCH_MTU:
        if "mtu" in entry:
            ctx.error("mtu", path + ("mtu",),
                      f"{settled['name']} has MTU {settled['mtu']} but {end.get('description')} sends {needed}-byte frames; "
                      f"jumbo paths need {JUMBO_SWITCH_MTU} on the switch",
                      f"set this port's mtu to {JUMBO_SWITCH_MTU} (or drop it to use the switch's)")
        else:
            return settled["name"]
    return None


@rule
def vpc_pairs(ctx: Context) -> None:
    """vPC/MLAG peers name each other, share a domain, and both carry every vPC port-channel to the same far end."""
    for switch, data in ctx.switches.items():
        vpc = m.as_dict(data.get("vpc"))
        if not vpc:
            continue
        path = host_path(switch, "switch", "vpc")
        peer = vpc.get("peer")
        peer_data = ctx.switches.get(peer) if isinstance(peer, str) else None
        if peer_data is None:
            if isinstance(peer, str):
                ctx.error("dangling-reference", path + ("peer",), f"vPC peer '{peer}' is not a declared switch",
                          f"use one of {', '.join(s for s in ctx.switches if s != switch)}")
            continue
        if peer == switch:
            ctx.error("vpc", path + ("peer",), "a switch cannot be its own vPC peer")
            continue
        peer_vpc = m.as_dict(peer_data.get("vpc"))
        if peer_vpc.get("peer") != switch:
            ctx.error("vpc", path + ("peer",), f"{peer} does not name {switch} as its vPC peer",
                      f"set vpc.peer: {switch} in host_vars/{peer}.yml")
            continue
        if peer_vpc.get("domain") != vpc.get("domain"):
            ctx.error("vpc", path + ("domain",), f"vPC domain {vpc.get('domain')} differs from {peer}'s {peer_vpc.get('domain')}",
                      "use the same domain on both peers")
        if data.get("platform") != peer_data.get("platform"):
            ctx.error("vpc", host_path(switch, "switch", "platform"), f"{switch} and its peer {peer} run different platforms")
        if m.as_int(vpc.get("role_priority")) is not None and vpc.get("role_priority") == peer_vpc.get("role_priority"):
            ctx.warning("vpc", path + ("role_priority",), f"{switch} and {peer} have the same role priority", "give the primary a lower value")
        if m.as_dict(vpc.get("peer_link")).get("port_channel") != m.as_dict(peer_vpc.get("peer_link")).get("port_channel"):
            ctx.warning("vpc", path + ("peer_link", "port_channel"), f"peer-link port-channel differs from {peer}'s",
                        "use the same id on both peers for readability")
        mine = m.switch_entries(ctx.model, switch)[1]
        theirs = m.switch_entries(ctx.model, peer)[1]
        their_by_vpc = {c["vpc"]: c for c in theirs}
        for index, channel in enumerate(mine):
            other = their_by_vpc.get(channel["vpc"])
            raw_index = next((i for i, c in enumerate(m.as_list(data.get("port_channels")))
                              if m.as_dict(c).get("id") == channel["id"]), index)
            channel_path = host_path(switch, "switch", "port_channels", raw_index)
            if other is None:
                ctx.error("vpc", channel_path, f"vPC {channel['vpc']} ({channel['description']}) exists on {switch} but not on its peer {peer}",
                          f"add the matching port-channel with vpc {channel['vpc']} to host_vars/{peer}.yml")
            elif (other["far_end"].get("device"), other["far_end"].get("interface")) != (channel["far_end"].get("device"), channel["far_end"].get("interface")):
                ctx.error("vpc", channel_path, f"vPC {channel['vpc']} leads to {channel['description']} here but to {other['description']} on {peer}",
                          "a vPC joins both peers to the same bond or interface group")


# ------------------------------------------------------------------------------- Kubernetes
@rule
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
        elif ctx.check_files and isinstance(existing.get("kubeconfig"), str):
            path = ctx.site.site_file(existing["kubeconfig"])
            if not os.path.isfile(path):
                ctx.warning("kubernetes", ("kubernetes", "existing", "kubeconfig"), f"kubeconfig {existing['kubeconfig']} does not exist (yet)",
                            "the Kubernetes layer will fail until it exists")
    if not ctx.site.groups.get("kube_node"):
        ctx.warning("kubernetes", ("groups", "kube_node"), "no Kubernetes worker hosts", "list the DGX nodes under kube_node")


# ------------------------------------------------------------------------------- Trident
@rule
def trident(ctx: Context) -> None:
    """Backends name a declared SVM and its LIFs; classes name a backend; one default class; bare mount options."""
    trident_model = m.as_dict(ctx.model.get("trident"))
    install = m.as_dict(trident_model.get("install"))
    if install.get("method") == "helm":
        for key in ("chart_repo", "chart_version"):
            if key not in install:
                ctx.error("trident", ("trident", "install"), f"helm install needs {key}", f"add trident.install.{key}")
    if install.get("method") == "operator_manifests" and "manifests_url" not in install:
        ctx.error("trident", ("trident", "install"), "operator_manifests install needs manifests_url", "add trident.install.manifests_url (a mirror URL)")
    backends: dict[str, int] = {}
    for index, backend in enumerate(m.as_list(trident_model.get("backends"))):
        backend = m.as_dict(backend)
        path = ("trident", "backends", index)
        name = m.as_str(backend.get("name"))
        if name in backends:
            ctx.error("trident", path + ("name",), f"backend {name} is declared twice")
        backends.setdefault(name or "", index)
        if backend.get("driver") not in ("ontap-nas", "ontap-nas-flexgroup"):
            continue
        svm = next((s for s in ctx.svms if s["name"] == backend.get("svm")), None)
        if svm is None:
            if isinstance(backend.get("svm"), str):
                ctx.error("dangling-reference", path + ("svm",), f"SVM {backend.get('svm')} is not declared",
                          f"use one of {', '.join(s['name'] for s in ctx.svms)}")
            continue
        lifs = [lif for lif in ctx.lifs if lif["svm"] == svm["name"]]
        mgmt = m.svm_mgmt_lif(ctx.model, svm)
        for key in ("management_lif", "data_lif"):
            reference = backend.get(key)
            if not isinstance(reference, str):
                continue
            candidates = lifs + ([mgmt] if mgmt else [])
            if not any(reference in (lif["name"], lif["address"]) for lif in candidates):
                ctx.error("dangling-reference", path + (key,), f"{reference} is not a LIF of SVM {svm['name']}",
                          "name one of its LIFs (or its address)")
        if "management_lif" not in backend and mgmt is None:
            ctx.error("trident", path, f"SVM {svm['name']} has no management LIF for Trident's SVM-scoped account",
                      "add mgmt_lif to the SVM or management_lif to the backend")
        if "trident_account" not in svm:
            ctx.error("trident", path + ("svm",), f"SVM {svm['name']} has no trident_account; Trident would need cluster admin",
                      "add trident_account {username, role} to the SVM")
    defaults = []
    names: set[str] = set()
    for index, storage_class in enumerate(m.as_list(trident_model.get("storage_classes"))):
        storage_class = m.as_dict(storage_class)
        path = ("trident", "storage_classes", index)
        if storage_class.get("name") in names:
            ctx.error("trident", path + ("name",), f"StorageClass {storage_class.get('name')} is declared twice")
        names.add(m.as_str(storage_class.get("name")) or "")
        if isinstance(storage_class.get("backend"), str) and storage_class["backend"] not in backends:
            ctx.error("dangling-reference", path + ("backend",), f"backend {storage_class['backend']} is not declared",
                      f"use one of {', '.join(b for b in backends if b)}")
        if storage_class.get("default") is True:
            defaults.append(index)
        options = m.as_list(storage_class.get("mount_options"))
        for option_index, option in enumerate(options):
            if isinstance(option, str) and not MOUNT_OPTION.match(option):
                ctx.error("mount-options", path + ("mount_options", option_index),
                          f"mount option {option!r} is not a bare option (no quotes, spaces or commas)",
                          "write one option per item, e.g. vers=4.1")
        keys = [o.split("=", 1)[0] for o in options if isinstance(o, str)]
        if "vers" in keys and "nfsvers" in keys:
            ctx.error("mount-options", path + ("mount_options",), "both vers= and nfsvers= are given", "keep one (vers=)")
    if len(defaults) > 1:
        for index in defaults[1:]:
            ctx.error("trident", ("trident", "storage_classes", index, "default"),
                      f"more than one default StorageClass (also storage_classes[{defaults[0]}])", "mark exactly one class default")
    elif not defaults and m.as_list(trident_model.get("storage_classes")):
        ctx.warning("trident", ("trident", "storage_classes"), "no default StorageClass: PVCs without a class stay Pending",
                    "mark one class default: true")


@rule
def kubernetes_networks(ctx: Context) -> None:
    """A DeepOps cluster's pod and service networks (Kubespray's defaults) overlap no site network."""
    if m.as_dict(ctx.model.get("kubernetes")).get("deployment") != "deepops":
        return
    for label, cidr in (("service", k.KUBESPRAY_SERVICE_CIDR), ("pod", k.KUBESPRAY_POD_CIDR)):
        for name in k.overlapping_networks(ctx.model, cidr):
            index = next(i for i, n in enumerate(m.as_list(ctx.model.get("networks"))) if m.as_dict(n).get("name") == name)
            ctx.error("kubernetes", ("networks", index, "subnet"),
                      f"network '{name}' overlaps the Kubernetes {label} network {cidr} that DeepOps (Kubespray) uses",
                      f"renumber '{name}'; the cluster's {label} network is Kubespray's default")


@rule
def trident_backends(ctx: Context) -> None:
    """Each backend can serve the Kubernetes nodes: exports limited to their networks, LIFs on them, NFS versions enabled."""
    trident_model = m.as_dict(ctx.model.get("trident"))
    workers = m.group_members(ctx.model, "kube_node")
    node_networks = m.storage_networks_of_hosts(ctx.model, workers)
    cidrs = k.kube_node_cidrs(ctx.model)
    allow_world = m.as_dict(m.as_dict(ctx.model.get("pod")).get("security")).get("allow_world_open_exports") is True
    drivers: dict[str, str] = {}
    svm_of: dict[str, dict] = {}
    for index, backend in enumerate(m.as_list(trident_model.get("backends"))):
        backend = m.as_dict(backend)
        path = ("trident", "backends", index)
        name = m.as_str(backend.get("name")) or ""
        drivers[name] = m.as_str(backend.get("driver")) or ""
        if backend.get("driver") == k.ANF_DRIVER:
            export = [c for c in m.as_list(m.as_dict(backend.get("azure")).get("export_cidrs")) if isinstance(c, str)]
            if not export and not allow_world:
                ctx.error("trident", path + ("azure",), f"backend {name}: without export_cidrs Azure NetApp Files exports volumes to 0.0.0.0/0",
                          "add azure.export_cidrs (the hybrid nodes' subnets), or set pod.security.allow_world_open_exports: true")
            for cidr_index, cidr in enumerate(export):
                subnet = m.parse_subnet(cidr)
                if subnet is None:
                    ctx.error("trident", path + ("azure", "export_cidrs", cidr_index), f"{cidr!r} is not an IPv4 network",
                              "write it as a.b.c.0/len")
                elif subnet.prefixlen == 0 and not allow_world:
                    ctx.error("trident", path + ("azure", "export_cidrs", cidr_index), f"export to {cidr} opens the volumes to every address",
                              "name the hybrid nodes' subnets, or set pod.security.allow_world_open_exports: true")
            continue
        svm = next((s for s in ctx.svms if s["name"] == backend.get("svm")), None)
        if svm is None:
            continue
        svm_of[name] = svm
        defaults = m.as_dict(backend.get("defaults"))
        policies = [m.as_dict(p).get("name") for p in m.as_list(svm.get("export_policies"))]
        if "export_policy" in defaults:
            if defaults["export_policy"] not in policies:
                ctx.error("dangling-reference", path + ("defaults", "export_policy"),
                          f"export policy {defaults['export_policy']} is not declared in SVM {svm['name']}",
                          f"use one of {', '.join(str(p) for p in policies)} (or drop it: Trident then manages a policy for the node networks)")
        elif not cidrs:
            ctx.error("trident", path, f"backend {name}: no Kubernetes worker has a storage network, so autoExportCIDRs would be empty",
                      "give the kube_node hosts storage NICs, or name an export policy in the backend's defaults")
        lif_networks = {lif["network"] for lif in ctx.lifs if lif["svm"] == svm["name"] and lif["network"]}
        for host in workers:
            host_networks = m.storage_networks_of_hosts(ctx.model, [host])
            if host_networks and not lif_networks.intersection(host_networks):
                ctx.warning("trident", path + ("svm",),
                            f"{host} has no storage NIC on a network where SVM {svm['name']} has data LIFs; its pods cannot mount {name} volumes",
                            "put a data LIF of the SVM on one of the host's storage networks")
        data_lif = backend.get("data_lif")
        if isinstance(data_lif, str):
            lif = next((lif for lif in ctx.lifs if lif["svm"] == svm["name"] and data_lif in (lif["name"], lif["address"])), None)
            if lif is None and any(data_lif in (x.get("name"), x.get("address")) for x in [m.svm_mgmt_lif(ctx.model, svm) or {}]):
                ctx.error("trident", path + ("data_lif",), f"{data_lif} is the management LIF of SVM {svm['name']}, not a data LIF",
                          "name a data LIF (or drop data_lif and let Trident pick)")
            elif lif is not None and lif["network"] not in node_networks:
                ctx.warning("trident", path + ("data_lif",), f"data LIF {data_lif} is on network '{lif['network']}', where no Kubernetes worker has a NIC",
                            f"use a LIF on {', '.join(node_networks) or 'a worker storage network'}")
    for index, storage_class in enumerate(m.as_list(trident_model.get("storage_classes"))):
        storage_class = m.as_dict(storage_class)
        backend_name = m.as_str(storage_class.get("backend")) or ""
        svm = svm_of.get(backend_name)
        versions = [o.split("=", 1)[1] for o in m.as_list(storage_class.get("mount_options"))
                    if isinstance(o, str) and o.split("=", 1)[0] in ("vers", "nfsvers") and "=" in o]
        if svm is None or not versions:
            continue
        nfs = m.as_dict(svm.get("nfs"))
        enabled = {"3": nfs.get("v3") is True, "4.1": nfs.get("v41") is True}
        for version in versions:
            if version in enabled and not enabled[version]:
                ctx.error("mount-options", ("trident", "storage_classes", index, "mount_options"),
                          f"StorageClass {storage_class.get('name')} mounts with NFS {version}, "
                          f"which SVM {svm['name']} (backend {backend_name}) does not enable",
                          "enable it in the SVM's nfs settings or change the mount option")
            elif version not in enabled:
                ctx.warning("mount-options", ("trident", "storage_classes", index, "mount_options"),
                            f"StorageClass {storage_class.get('name')} asks for NFS {version}; the model enables only 3 and 4.1 on SVM {svm['name']}",
                            "use vers=3 or vers=4.1")


# ------------------------------------------------------------------------------- secrets and files
@rule
def secrets(ctx: Context) -> None:
    """Secrets the pod needs are in ansible-vault; none sits in a plain-text file."""
    for name, location in sorted(ctx.site.plaintext_secrets.items()):
        if ctx.site.source_kind == "exported":
            # An exported inventory carries whole-file vaults decrypted; where it lives (AWX's
            # database, a JSON file) is outside the model's files, so say so without stopping the run.
            ctx.findings.append(Finding("secret", "warning", (name,), f"secret '{name}' reaches this run in plain text through the inventory",
                                        "keep it in an inline !vault value (exported as __ansible_vault) or in an AWX credential",
                                        location))
            continue
        ctx.findings.append(Finding("secret", "error", (name,), f"secret '{name}' is stored in plain text",
                                    f"move it to an encrypted file: ansible-vault encrypt {location.file}", location))
    encrypted_unread = [f for f in ctx.site.files if f.encrypted and f.data is None]
    if encrypted_unread:
        return  # without the vault password the names inside cannot be checked
    needed = {"vault_ontap_admin_password": ("ontap",)}
    if any("trident_account" in svm for svm in ctx.svms):
        needed["vault_ontap_trident_password"] = ("ontap", "svms")
    if ctx.switches:
        needed["vault_switch_admin_password"] = ("groups", "switches")
    if any(m.as_dict(b).get("driver") == "azure-netapp-files" for b in m.as_list(m.as_dict(ctx.model.get("trident")).get("backends"))):
        needed["vault_trident_anf_client_secret"] = ("trident", "backends")
    known = set(ctx.site.secrets) | set(ctx.site.plaintext_secrets)
    for name, path in needed.items():
        if name not in known:
            ctx.error("secret", path, f"the secret {name} is missing",
                      "add it to group_vars/all/vault.yml (ansible-vault edit) ")


@rule
def files(ctx: Context) -> None:
    """Files the model points at exist (checked only when asked: the lab creates some at start)."""
    if not ctx.check_files:
        return
    ca_file = m.as_dict(ctx.model.get("ontap")).get("ca_file")
    if isinstance(ca_file, str):
        path = ctx.site.site_file(ca_file)
        if not os.path.isfile(path):
            ctx.error("file", ("ontap", "ca_file"), f"CA file {ca_file} does not exist (looked at {path})",
                      "put the CA bundle that signed the cluster's certificate there")
        else:
            with open(path, encoding="utf-8", errors="replace") as handle:
                if "-----BEGIN CERTIFICATE-----" not in handle.read():
                    ctx.error("file", ("ontap", "ca_file"), f"{ca_file} holds no PEM certificate", "give a PEM CA bundle")


# ------------------------------------------------------------------------------- sizing
@rule
def sizing(ctx: Context) -> None:
    """GPU ingest demand against storage supply (a warning: sizing is a judgement, not a fault)."""
    figures = m.sizing(ctx.model)
    if figures["ratio"] is not None and figures["ratio"] < 1:
        ctx.warning("sizing", ("pod", "sizing"),
                    f"storage supply {figures['supply_mb_s']:.0f} MB/s is below the GPUs' demand {figures['demand_mb_s']:.0f} MB/s "
                    f"({figures['gpus']} GPUs x {figures['gpu_ingest_mb_s']} MB/s); ratio {figures['ratio']}",
                    "add storage ports or HA pairs, or confirm the per-GPU demand")
    if figures["platform_limit_mb_s"] is None and figures["platform"]:
        ctx.warning("sizing", ("ontap", "platform"), f"no throughput figure for platform {figures['platform']}; supply counts port line rate only",
                    "set pod.sizing.platform_limit_mb_s")


def run_rules(site: Site, check_files: bool = True, rules: list[Rule] | None = None) -> list[Finding]:
    ctx = Context(site, check_files=check_files)
    for function in rules or RULES:
        function(ctx)
    return ctx.findings
