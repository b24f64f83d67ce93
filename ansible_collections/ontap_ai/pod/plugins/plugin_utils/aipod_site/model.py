"""Values derived from the site model: the one place every layer gets them from.

The model types each fact once (a network's VLAN and MTU, a DGX NIC's address, which cable goes
where); switch port settings, ONTAP VLAN ports and LIFs, and each DGX's mount targets are
computed here. The validator checks the model through these same functions, and the roles call
them through filter plugins, so a rule and the configuration it protects cannot drift apart.

Every function is defensive: the validator runs them on models that may be malformed (the
schema reports those problems), so they skip what they cannot read instead of raising.
"""
from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from typing import Any

DEFAULT_SWITCH_MTU = 9216
VLAN_PORT = re.compile(r"^(?P<base>[a-z][a-z0-9]*?)-(?P<vlan>[0-9]{1,4})$")
SPEED_MB_S = {"1G": 125, "10G": 1250, "25G": 3125, "40G": 5000, "50G": 6250, "100G": 12500,
              "200G": 25000, "400G": 50000, "800G": 100000}
NFS_RDMA_PORT = 20049
SIZE = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(KB|MB|GB|TB|PB)$")
SIZE_UNITS = {"KB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3, "TB": 1024 ** 4, "PB": 1024 ** 5}


# ---------------------------------------------------------------------------- small readers
def as_dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list:
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def as_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def natural_key(text: str) -> list:
    """dgx2 before dgx10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", str(text))]


def parse_address(value: Any) -> ipaddress.IPv4Address | None:
    try:
        return ipaddress.IPv4Address(value) if isinstance(value, str) else None
    except ValueError:
        return None


def parse_subnet(value: Any, strict: bool = False) -> ipaddress.IPv4Network | None:
    try:
        return ipaddress.IPv4Network(value, strict=strict) if isinstance(value, str) else None
    except ValueError:
        return None


# ---------------------------------------------------------------------------- model views
def networks_by_name(model: dict) -> dict[str, dict]:
    result: dict[str, dict] = {}
    for network in as_list(model.get("networks")):
        name = as_str(as_dict(network).get("name"))
        if name and name not in result:
            result[name] = network
    return result


def hosts_of_kind(model: dict, kind: str) -> dict[str, dict]:
    """host name -> its model for kind 'dgx', 'server' or 'switch' (hosts lacking it are skipped)."""
    result = {}
    for host, body in as_dict(model.get("hosts")).items():
        data = as_dict(body).get(kind)
        if isinstance(data, dict):
            result[host] = data
    return dict(sorted(result.items(), key=lambda item: natural_key(item[0])))


def group_members(model: dict, group: str) -> list[str]:
    members = [host for host, body in as_dict(model.get("hosts")).items()
               if group in as_list(as_dict(body).get("groups"))]
    return sorted(members, key=natural_key)


def ontap_nodes(model: dict) -> list[dict]:
    return [node for node in as_list(as_dict(model.get("ontap")).get("nodes"))
            if isinstance(node, dict) and as_str(node.get("name"))]


def svms(model: dict) -> list[dict]:
    return [svm for svm in as_list(as_dict(model.get("ontap")).get("svms"))
            if isinstance(svm, dict) and as_str(svm.get("name"))]


def split_node_port(text: Any) -> tuple[str, str] | None:
    if not isinstance(text, str) or ":" not in text:
        return None
    node, port = text.split(":", 1)
    return (node, port) if node and port else None


def split_vlan_port(port: str) -> tuple[str, int | None]:
    """'e6a-3111' -> ('e6a', 3111); 'e6a' -> ('e6a', None)."""
    match = VLAN_PORT.match(port)
    if match:
        return match.group("base"), int(match.group("vlan"))
    return port, None


def broadcast_domains(model: dict) -> list[dict]:
    """Broadcast domains with resolved settings: name, ipspace, network, mtu, ports[{node, port, base, vlan}]."""
    networks = networks_by_name(model)
    result = []
    for domain in as_list(as_dict(model.get("ontap")).get("broadcast_domains")):
        domain = as_dict(domain)
        name = as_str(domain.get("name"))
        if not name:
            continue
        network = networks.get(as_str(domain.get("network")) or "", {})
        ports = []
        for entry in as_list(domain.get("ports")):
            parsed = split_node_port(entry)
            if not parsed:
                continue
            base, vlan = split_vlan_port(parsed[1])
            ports.append({"node": parsed[0], "port": parsed[1], "base": base, "vlan": vlan})
        mtu = as_int(domain.get("mtu"))
        result.append({
            "name": name,
            "ipspace": as_str(domain.get("ipspace")) or "Default",
            "network": as_str(domain.get("network")),
            "mtu": mtu if mtu is not None else as_int(network.get("mtu")),
            "ports": ports,
        })
    return result


def ontap_vlan_ports(model: dict) -> list[dict]:
    """VLAN ports ONTAP needs: {node, name, base_port, vlan, broadcast_domain, ipspace}, in model order."""
    seen = set()
    result = []
    for domain in broadcast_domains(model):
        for port in domain["ports"]:
            if port["vlan"] is None or (port["node"], port["port"]) in seen:
                continue
            seen.add((port["node"], port["port"]))
            result.append({"node": port["node"], "name": port["port"], "base_port": port["base"],
                           "vlan": port["vlan"], "broadcast_domain": domain["name"], "ipspace": domain["ipspace"]})
    return result


def port_networks(model: dict) -> dict[tuple[str, str], str]:
    """(node, ONTAP port name) -> network name, from the broadcast domains."""
    result = {}
    for domain in broadcast_domains(model):
        for port in domain["ports"]:
            if domain["network"]:
                result.setdefault((port["node"], port["port"]), domain["network"])
    return result


def _node_order(model: dict) -> dict[str, int]:
    return {as_str(node.get("name")): index for index, node in enumerate(ontap_nodes(model))}


def data_lifs(model: dict) -> list[dict]:
    """Every data LIF of every SVM, expanded from per_port + first_address or taken as written.

    per_port: for each storage network named in first_address, every port of the broadcast
    domains of that network (in the SVM's IPspace) gets per_port LIFs; addresses are handed out
    in order of (node as declared, port as listed in the domain, index). LIF names are
    <node>_<port>_<index>. Each LIF: {svm, name, node, port, network, address, prefix_len,
    broadcast_domain, ipspace, rdma, index}.
    """
    networks = networks_by_name(model)
    order = _node_order(model)
    domains = broadcast_domains(model)
    result: list[dict] = []
    for svm in svms(model):
        svm_name = svm["name"]
        ipspace = as_str(svm.get("ipspace")) or "Default"
        spec = as_dict(svm.get("data_lifs"))
        rdma = spec.get("rdma") is True or as_dict(svm.get("nfs")).get("rdma") is True
        if "explicit" in spec:
            networks_of_port = port_networks(model)
            domain_of_port = {(p["node"], p["port"]): d["name"] for d in domains for p in d["ports"]}
            for index, lif in enumerate(as_list(spec.get("explicit"))):
                lif = as_dict(lif)
                node, port = as_str(lif.get("node")), as_str(lif.get("port"))
                if not (as_str(lif.get("name")) and node and port):
                    continue
                network = networks_of_port.get((node, port))
                result.append(_lif(svm_name, lif["name"], node, port, network, as_str(lif.get("address")),
                                   networks, domain_of_port.get((node, port)), ipspace, rdma, index))
            continue
        per_port = as_int(spec.get("per_port"))
        first = as_dict(spec.get("first_address"))
        if not per_port or per_port < 1:
            continue
        for network_name, first_address in first.items():
            start = parse_address(first_address)
            if start is None:
                continue
            ports = []
            for domain in domains:
                if domain["network"] != network_name or domain["ipspace"] != ipspace:
                    continue
                for position, port in enumerate(domain["ports"]):
                    ports.append((order.get(port["node"], len(order)), position, port, domain["name"]))
            ports.sort(key=lambda item: (item[0], item[1]))
            offset = 0
            for _node_index, _position, port, domain_name in ports:
                for number in range(1, per_port + 1):
                    address = str(start + offset) if int(start) + offset < 2 ** 32 else None
                    offset += 1
                    name = f"{port['node']}_{port['port']}_{number}"
                    result.append(_lif(svm_name, name, port["node"], port["port"], network_name, address,
                                       networks, domain_name, ipspace, rdma, number))
    return result


def _lif(svm, name, node, port, network, address, networks, domain, ipspace, rdma, index) -> dict:
    subnet = parse_subnet(as_dict(networks.get(network or "")).get("subnet"))
    return {"svm": svm, "name": name, "node": node, "port": port, "network": network, "address": address,
            "prefix_len": subnet.prefixlen if subnet else None, "broadcast_domain": domain, "ipspace": ipspace,
            "rdma": rdma, "index": index}


def size_bytes(size: Any) -> int | None:
    """'10TB' -> 10 * 1024**4 (ONTAP's binary units); None when unreadable."""
    match = SIZE.match(size) if isinstance(size, str) else None
    return int(float(match.group(1)) * SIZE_UNITS[match.group(2)]) if match else None


def export_clients(model: dict, clients: Any) -> list[str]:
    """An export rule's clients as ONTAP client matches: a network name becomes its subnet, a CIDR
    or address is normalised (10.0.0.5/24 -> 10.0.0.0/24); unreadable entries are skipped."""
    networks = networks_by_name(model)
    result: list[str] = []
    for client in as_list(clients):
        if not isinstance(client, str):
            continue
        subnet = parse_subnet(as_dict(networks.get(client)).get("subnet")) if client in networks else parse_subnet(client)
        if subnet is not None and str(subnet) not in result:
            result.append(str(subnet))
    return result


def export_policies(model: dict) -> list[dict]:
    """Every export policy of every SVM, rules numbered from 1 in model order with clients resolved.

    Each: {svm, name, root (is the SVM root volume's policy), rules: [{index, clients, ro, rw,
    superuser, protocols}]}; security flavours and protocols stay None where the model is silent.
    """
    result = []
    for svm in svms(model):
        root = as_str(svm.get("root_export_policy"))
        for policy in as_list(svm.get("export_policies")):
            policy = as_dict(policy)
            name = as_str(policy.get("name"))
            if not name:
                continue
            rules = []
            for index, rule in enumerate(as_list(policy.get("rules")), start=1):
                rule = as_dict(rule)
                rules.append({"index": index, "clients": export_clients(model, rule.get("clients")),
                              "ro": rule.get("ro"), "rw": rule.get("rw"), "superuser": rule.get("superuser"),
                              "protocols": rule.get("protocols")})
            result.append({"svm": svm["name"], "name": name, "root": name == root, "rules": rules})
    return result


def flexgroups(model: dict) -> list[dict]:
    """Every FlexGroup of every SVM with its aggregates resolved (the SVM's unless listed), its size
    in bytes and its constituent count (aggregates x constituents_per_aggregate).

    Each: {svm, name, size, size_bytes, aggregates, constituents_per_aggregate, constituents,
    junction_path, export_policy, snapshot_policy, security_style, thin_provisioning, efficiency,
    unix_permissions}; optional settings stay None where the model is silent.
    """
    result = []
    for svm in svms(model):
        svm_aggregates = [a for a in as_list(svm.get("aggregates")) if isinstance(a, str)]
        for flexgroup in as_list(svm.get("flexgroups")):
            flexgroup = as_dict(flexgroup)
            name = as_str(flexgroup.get("name"))
            if not name:
                continue
            aggregates = [a for a in as_list(flexgroup.get("aggregates")) if isinstance(a, str)] or svm_aggregates
            per_aggregate = as_int(flexgroup.get("constituents_per_aggregate"))
            result.append({
                "svm": svm["name"], "name": name, "size": as_str(flexgroup.get("size")),
                "size_bytes": size_bytes(flexgroup.get("size")), "aggregates": aggregates,
                "constituents_per_aggregate": per_aggregate,
                "constituents": len(aggregates) * per_aggregate if per_aggregate else None,
                "junction_path": as_str(flexgroup.get("junction_path")),
                "export_policy": as_str(flexgroup.get("export_policy")),
                "snapshot_policy": as_str(flexgroup.get("snapshot_policy")),
                "security_style": as_str(flexgroup.get("security_style")),
                "thin_provisioning": flexgroup.get("thin_provisioning") if isinstance(flexgroup.get("thin_provisioning"), bool) else None,
                "efficiency": flexgroup.get("efficiency") if isinstance(flexgroup.get("efficiency"), bool) else None,
                "unix_permissions": as_str(flexgroup.get("unix_permissions")),
            })
    return result


def svm_mgmt_lif(model: dict, svm: dict) -> dict | None:
    lif = as_dict(svm.get("mgmt_lif"))
    node, port = as_str(lif.get("node")), as_str(lif.get("port"))
    if not (as_str(lif.get("name")) and node and port):
        return None
    network = port_networks(model).get((node, port))
    subnet = parse_subnet(as_dict(networks_by_name(model).get(network or "")).get("subnet"))
    return {"svm": svm.get("name"), "name": lif["name"], "node": node, "port": port, "network": network,
            "address": as_str(lif.get("address")), "prefix_len": subnet.prefixlen if subnet else None}


# ---------------------------------------------------------------------------- hosts
def host_interfaces(model: dict, host: str) -> dict[str, dict]:
    """NICs and bonds of a DGX or server: name -> {network, tagged, address, kind, mtu, speed, bond}."""
    body = as_dict(as_dict(model.get("hosts")).get(host))
    data = as_dict(body.get("dgx")) or as_dict(body.get("server"))
    result: dict[str, dict] = {}
    for nic in as_list(data.get("storage_nics")):
        nic = as_dict(nic)
        name = as_str(nic.get("name"))
        if name:
            result.setdefault(name, {"kind": "storage", "network": as_str(nic.get("network")),
                                     "tagged": nic.get("tagged") is True, "address": as_str(nic.get("address")),
                                     "mtu": as_int(nic.get("mtu")), "speed": as_str(nic.get("speed"))})
    inband = as_dict(data.get("inband"))
    name = as_str(inband.get("name"))
    if name:
        entry = {"kind": "inband", "network": as_str(inband.get("network")), "tagged": False,
                 "address": as_str(inband.get("address")), "mtu": None, "speed": None}
        result.setdefault(name, entry)
        for member in as_list(inband.get("members")):
            if as_str(member):
                result.setdefault(member, dict(entry, kind="inband-member", bond=name))
    return result


def host_storage_plan(model: dict, host: str) -> list[dict]:
    """The storage NICs of a DGX or server as its OS configures them, in model order.

    One entry per storage NIC: {device, parent, vlan, network, address, prefix_len, cidr, mtu,
    routes[{to, via, metric}]}. device is the Linux interface that carries the address: the NIC
    itself, or the VLAN device <nic>.<vlan> when the NIC is tagged (then parent is the NIC, which
    carries no address, and both get the network's MTU). routes are the network's static routes
    (two-path designs); via defaults to the network's gateway and the NIC's route_metric, when
    set, replaces each route's metric so that one host can prefer one path. NICs whose network is
    unknown are skipped (the validator reports them).
    """
    networks = networks_by_name(model)
    body = as_dict(as_dict(model.get("hosts")).get(host))
    data = as_dict(body.get("dgx")) or as_dict(body.get("server"))
    metrics = {as_str(as_dict(entry).get("name")): as_int(as_dict(entry).get("route_metric"))
               for entry in as_list(data.get("storage_nics"))}
    plan = []
    for name, nic in host_interfaces(model, host).items():
        if nic["kind"] != "storage":
            continue
        network = networks.get(nic["network"] or "")
        subnet = parse_subnet(as_dict(network).get("subnet"))
        if network is None or subnet is None or not nic["address"]:
            continue
        vlan = as_int(network.get("vlan")) if nic["tagged"] else None
        metric_override = metrics.get(name)
        routes = []
        for route in as_list(network.get("routes")):
            route = as_dict(route)
            destination = parse_subnet(route.get("to"))
            via = as_str(route.get("via")) or as_str(network.get("gateway"))
            if destination is None or via is None:
                continue
            metric = metric_override if metric_override is not None else as_int(route.get("metric"))
            routes.append({"to": str(destination), "via": via, "metric": metric})
        plan.append({
            "device": f"{name}.{vlan}" if vlan is not None else name,
            "parent": name,
            "vlan": vlan,
            "network": network["name"],
            "address": nic["address"],
            "prefix_len": subnet.prefixlen,
            "cidr": f"{nic['address']}/{subnet.prefixlen}",
            "mtu": nic["mtu"] or as_int(network.get("mtu")) or 1500,
            "routes": routes,
        })
    return plan


def storage_destinations(plan: list[dict]) -> list[str]:
    """The networks (CIDR) a host's storage NICs (host_storage_plan) reach: their subnets, then their static routes."""
    subnets = [str(ipaddress.ip_interface(nic["cidr"]).network) for nic in plan]
    return subnets + [route["to"] for nic in plan for route in nic.get("routes") or []]


def storage_networks_of_hosts(model: dict, hosts: Iterable[str]) -> list[str]:
    names: list[str] = []
    for host in hosts:
        for nic in host_interfaces(model, host).values():
            if nic["kind"] == "storage" and nic["network"] and nic["network"] not in names:
                names.append(nic["network"])
    return names


def mount_plan(model: dict, host: str) -> list[dict]:
    """The NFS mounts of one DGX, each with the data LIF it uses.

    Candidates are the SVM's data LIFs on the host's own storage networks, ordered so that
    consecutive entries alternate ONTAP nodes first and networks second. The host's position
    among all DGX hosts (natural order) plus the mount's position picks one: hosts spread over
    every node, and one host's mounts spread over LIFs, the same way on every run.
    """
    dgx_hosts = list(hosts_of_kind(model, "dgx"))
    position = dgx_hosts.index(host) if host in dgx_hosts else 0
    nics = {nic["network"]: name for name, nic in host_interfaces(model, host).items() if nic["kind"] == "storage"}
    networks = networks_by_name(model)
    network_order = {name: index for index, name in enumerate(networks)}
    node_order = _node_order(model)
    lifs = data_lifs(model)
    svm_by_name = {svm["name"]: svm for svm in svms(model)}
    plan = []
    for mount_index, mount in enumerate(as_list(as_dict(model.get("compute")).get("mounts"))):
        mount = as_dict(mount)
        svm = svm_by_name.get(as_str(mount.get("svm")) or "")
        if svm is None:
            continue
        flexgroup = next((fg for fg in as_list(svm.get("flexgroups"))
                          if as_dict(fg).get("name") == mount.get("flexgroup")), None)
        candidates = [lif for lif in lifs if lif["svm"] == svm["name"] and lif["network"] in nics and lif["address"]]
        if flexgroup is None or not candidates:
            continue
        rank: dict[tuple, int] = {}
        ordered = []
        for lif in candidates:
            key = (lif["node"], lif["network"])
            rank[key] = rank.get(key, 0) + 1
            ordered.append(((rank[key], network_order.get(lif["network"], 0), node_order.get(lif["node"], 0),
                             lif["name"]), lif))
        ordered.sort(key=lambda item: item[0])
        lif = ordered[(position + mount_index) % len(ordered)][1]
        options = nfs_mount_options(mount)
        plan.append({
            "path": mount.get("path"),
            "svm": svm["name"],
            "flexgroup": flexgroup.get("name"),
            "junction_path": flexgroup.get("junction_path"),
            "export_policy": flexgroup.get("export_policy"),
            "lif": lif["name"],
            "lif_node": lif["node"],
            "server": lif["address"],
            "src": f"{lif['address']}:{flexgroup.get('junction_path')}",
            "network": lif["network"],
            "nic": nics.get(lif["network"]),
            "fstype": "nfs",
            "options": options,
            "options_text": ",".join(options),
        })
    return plan


def nfs_mount_options(mount: dict) -> list[str]:
    """Mount options of one compute mount: version, transport, connections, block size, hard."""
    version = str(mount.get("nfs_version", "4.1"))
    transport = mount.get("transport", "tcp")
    connections = as_int(mount.get("nconnect")) or 16
    options = [f"vers={version}"]
    if transport == "rdma":
        options += ["proto=rdma", f"port={NFS_RDMA_PORT}", f"max_connect={connections}"]
    else:
        options += ["proto=tcp", f"nconnect={connections}"]
    options += [f"rsize={as_int(mount.get('rsize')) or 262144}", f"wsize={as_int(mount.get('wsize')) or 262144}", "hard"]
    return options


# ---------------------------------------------------------------------------- switches
def far_end(model: dict, connects_to: Any) -> dict | None:
    """Resolve a cable's far end: {kind, device, interface, memberships[(network, tagged)], speed, roce, description}."""
    connects_to = as_dict(connects_to)
    if "host" in connects_to:
        host, nic_name = as_str(connects_to.get("host")), as_str(connects_to.get("nic"))
        body = as_dict(as_dict(model.get("hosts")).get(host or ""))
        nic = host_interfaces(model, host or "").get(nic_name or "")
        if not host or not nic_name:
            return None
        result = {"kind": "host", "device": host, "interface": nic_name, "memberships": [], "speed": None,
                  "roce": False, "resolved": nic is not None, "description": f"{host} {nic_name}"}
        if nic:
            if nic["network"]:
                result["memberships"].append((nic["network"], nic["tagged"]))
            result["speed"] = nic.get("speed")
            result["roce"] = nic["kind"] == "storage" and as_dict(body.get("dgx")).get("roce") is True
            result["nic_kind"] = nic["kind"]
            inband = as_dict((as_dict(body.get("dgx")) or as_dict(body.get("server"))).get("inband"))
            if nic["kind"] == "inband" and inband.get("name") == nic_name:
                result["members"] = [{"interface": member, "speed": None}
                                     for member in as_list(inband.get("members")) if as_str(member)]
        return result
    if "ontap_node" in connects_to:
        node, port = as_str(connects_to.get("ontap_node")), as_str(connects_to.get("port"))
        if not node or not port:
            return None
        node_model = next((n for n in ontap_nodes(model) if n["name"] == node), None)
        physical = {as_str(p.get("name")): p for p in as_list(as_dict(node_model).get("ports")) if isinstance(p, dict)}
        ifgrps = {as_str(g.get("name")): g for g in as_list(as_dict(model.get("ontap")).get("interface_groups"))
                  if isinstance(g, dict) and g.get("node") == node}
        memberships = []
        for domain in broadcast_domains(model):
            for member in domain["ports"]:
                if member["node"] == node and member["base"] == port and domain["network"]:
                    memberships.append((domain["network"], member["vlan"] is not None))
        speed = as_str(as_dict(physical.get(port)).get("speed"))
        rdma = any(as_dict(svm.get("nfs")).get("rdma") is True or as_dict(svm.get("data_lifs")).get("rdma") is True
                   for svm in svms(model))
        members = [{"interface": member, "speed": as_str(as_dict(physical.get(member)).get("speed"))}
                   for member in as_list(as_dict(ifgrps.get(port)).get("ports")) if as_str(member)]
        return {"kind": "ontap", "device": node, "interface": port, "memberships": memberships, "speed": speed,
                "roce": rdma and port in physical, "resolved": port in physical or port in ifgrps,
                "is_ifgrp": port in ifgrps, "members": members, "description": f"{node} {port}"}
    return None


def switch_pair(model: dict, switch: str) -> list[str]:
    """The switch and its vPC/MLAG peer (if the peer names it back), sorted."""
    switches = hosts_of_kind(model, "switch")
    peer = as_str(as_dict(as_dict(switches.get(switch)).get("vpc")).get("peer"))
    if peer and peer in switches and as_dict(switches[peer].get("vpc")).get("peer") == switch:
        return sorted([switch, peer], key=natural_key)
    return [switch]


def _settle(model: dict, networks: dict, switch_mtu: int, default_speed: str | None,
            entry: dict, name: str) -> dict:
    """A port or port-channel's settings: explicit values from the entry, the rest from its far end."""
    end = far_end(model, entry.get("connects_to")) or {}
    vlan_of: dict[str, int] = {}
    tagged_any = False
    untagged: list[str] = []
    jumbo = False
    for network_name, tagged in end.get("memberships", []):
        network = networks.get(network_name, {})
        vlan = as_int(network.get("vlan"))
        if vlan is not None:
            vlan_of[network_name] = vlan
        if (as_int(network.get("mtu")) or 1500) > 1500:
            jumbo = True
        if tagged:
            tagged_any = True
        else:
            untagged.append(network_name)
    vlans = sorted(set(vlan_of.values()))
    mode = as_str(entry.get("mode")) or ("trunk" if tagged_any or len(vlans) > 1 else "access")
    explicit_vlans = sorted({v for v in as_list(entry.get("vlans")) if as_int(v) is not None})
    return {
        "name": name,
        "description": as_str(entry.get("description")) or end.get("description") or "",
        "mode": mode,
        "access_vlan": (explicit_vlans or vlans or [None])[0] if mode == "access" else None,
        "trunk_vlans": (explicit_vlans or vlans) if mode == "trunk" else [],
        "native_vlan": vlan_of.get(untagged[0]) if (untagged and mode == "trunk") else None,
        "derived_vlans": vlans,
        "mtu": as_int(entry.get("mtu")) or switch_mtu,
        "speed": as_str(entry.get("speed")) or end.get("speed") or default_speed,
        "pfc": bool(end.get("roce")),
        "jumbo": jumbo,
        "networks": [network_name for network_name, _tagged in end.get("memberships", [])],
        "far_end": {k: v for k, v in end.items() if k != "memberships"},
    }


PORT_CHANNEL_NAMES = {"nxos": "port-channel{id}", "cumulus": "bond{id}"}
# NVUE names the MLAG inter-switch bond "peerlink"; NX-OS uses an ordinary port-channel.
PEER_LINK_NAMES = {"nxos": "port-channel{id}", "cumulus": "peerlink"}
PAIRING_NAMES = {"nxos": "vPC", "cumulus": "MLAG"}
# Cumulus reserves 44:38:39:ff:00:00-44:38:39:ff:ff:ff for MLAG system MACs; the domain picks one.
MLAG_MAC_PREFIX = "44:38:39:ff"


def port_channel_name(platform: str | None, channel_id: int) -> str:
    """'port-channel11' on NX-OS, 'bond11' on Cumulus (NX-OS naming when the platform is unknown)."""
    return PORT_CHANNEL_NAMES.get(platform or "", PORT_CHANNEL_NAMES["nxos"]).format(id=channel_id)


def peer_link_name(platform: str | None, channel_id: int | None) -> str:
    return PEER_LINK_NAMES.get(platform or "", PEER_LINK_NAMES["nxos"]).format(id=channel_id)


def switch_entries(model: dict, switch: str) -> tuple[list[dict], list[dict]]:
    """(ports, port_channels) of one switch, each settled by _settle."""
    data = as_dict(hosts_of_kind(model, "switch").get(switch))
    networks = networks_by_name(model)
    switch_mtu = as_int(data.get("mtu")) or DEFAULT_SWITCH_MTU
    default_speed = as_str(data.get("port_speed"))
    platform = as_str(data.get("platform"))
    ports = []
    for entry in as_list(data.get("ports")):
        entry = as_dict(entry)
        if as_str(entry.get("name")):
            ports.append(_settle(model, networks, switch_mtu, default_speed, entry, entry["name"]))
    port_channels = []
    for entry in as_list(data.get("port_channels")):
        entry = as_dict(entry)
        channel_id = as_int(entry.get("id"))
        if channel_id is None:
            continue
        settled = _settle(model, networks, switch_mtu, default_speed, entry, port_channel_name(platform, channel_id))
        settled.update({"id": channel_id, "vpc": as_int(entry.get("vpc")) or channel_id,
                        "members": [m for m in as_list(entry.get("members")) if as_str(m)]})
        port_channels.append(settled)
    return ports, port_channels


def member_links(model: dict, switch: str) -> dict[str, dict]:
    """Which far-end member port each port-channel member of this switch is cabled to.

    A bond or interface group has member ports (a DGX bond's NICs, an ifgrp's ports); its vPC
    spans both switches of the pair. The convention the cabling plan states: members are cabled
    in order, the pair's first switch (natural order) taking the first far-end members. When the
    counts differ the mapping is unknown and the member is left out. Returns member port ->
    {interface, speed} of the far end.
    """
    result: dict[str, dict] = {}
    pair = switch_pair(model, switch)
    channels_of = {member: switch_entries(model, member)[1] for member in pair}
    for channel in channels_of[switch]:
        far_members = as_list(channel["far_end"].get("members"))
        switch_ports: list[tuple[str, str]] = []
        for member in pair:
            twin = next((c for c in channels_of[member] if c["vpc"] == channel["vpc"]
                         and c["far_end"].get("device") == channel["far_end"].get("device")
                         and c["far_end"].get("interface") == channel["far_end"].get("interface")), None)
            if twin is not None:
                switch_ports += [(member, port) for port in twin["members"]]
        if far_members and len(far_members) == len(switch_ports):
            for (member, port), far in zip(switch_ports, far_members):
                if member == switch:
                    result[port] = far
    return result


def _member_ports(model: dict, switch: str, platform: str | None, port_channels: list[dict],
                  peer_link: dict | None) -> list[dict]:
    """Physical members of the port-channels and of the peer link, with the settings they inherit."""
    links = member_links(model, switch)
    result = []
    for channel in port_channels:
        end = channel["far_end"]
        for port in channel["members"]:
            far = links.get(port)
            far_interface = far["interface"] if far else None
            description = f"{end.get('device')} {far_interface} ({end.get('interface')})" if far else channel["description"]
            result.append({
                "name": port, "channel": channel["id"], "channel_name": channel["name"], "peer_link": False,
                "description": description, "mtu": channel["mtu"], "pfc": channel["pfc"],
                "speed": (far or {}).get("speed") or channel["speed"],
                "far_end": {"kind": end.get("kind"), "device": end.get("device"), "interface": far_interface,
                            "bundle": end.get("interface")},
            })
    if peer_link:
        peer = peer_link["peer"]
        peer_members = []
        if peer:
            peer_vpc = as_dict(as_dict(hosts_of_kind(model, "switch").get(peer)).get("vpc"))
            peer_members = [m for m in as_list(as_dict(peer_vpc.get("peer_link")).get("members")) if as_str(m)]
        for index, port in enumerate(peer_link["members"]):
            far_interface = peer_members[index] if index < len(peer_members) else None
            result.append({
                "name": port, "channel": peer_link["id"], "channel_name": peer_link["name"], "peer_link": True,
                "description": f"{PAIRING_NAMES.get(platform or '', 'vPC')} peer-link {peer} {far_interface or ''}".strip(),
                "mtu": peer_link["mtu"], "pfc": False, "speed": None,
                "far_end": {"kind": "switch", "device": peer, "interface": far_interface, "bundle": None},
            })
    return result


def switch_plan(model: dict, switch: str) -> dict:
    """Everything one switch gets, derived from the model.

    {switch, platform, mtu, vlans[{id, name}], ports[...], port_channels[...], member_ports[...],
    peer_link, vpc, roce}.
    A port or port-channel: {name, description, mode, access_vlan, trunk_vlans, native_vlan, mtu,
    speed, pfc, jumbo, networks, far_end}; port-channels add {id, vpc, members}. Names follow the
    platform: port-channel11 / bond11, and the peer link is port-channel<id> / peerlink.
    member_ports: every physical member of a port-channel or of the peer link, {name, channel,
    channel_name, peer_link, description, mtu, pfc, speed, far_end{kind, device, interface,
    bundle}}; the far-end interface is the bond or ifgrp member cabled to it (see member_links).
    VLANs are the union over the vPC/MLAG pair, so both peers carry the same list, and the peer
    link trunks all of them.
    """
    switches = hosts_of_kind(model, "switch")
    data = as_dict(switches.get(switch))
    networks = networks_by_name(model)
    platform = as_str(data.get("platform"))
    switch_mtu = as_int(data.get("mtu")) or DEFAULT_SWITCH_MTU
    ports, port_channels = switch_entries(model, switch)
    vlan_ids: dict[int, str] = {}
    for member in switch_pair(model, switch):
        member_ports, member_channels = (ports, port_channels) if member == switch else switch_entries(model, member)
        for entry in member_ports + member_channels:
            for vlan in entry["derived_vlans"] + entry["trunk_vlans"] + [entry["access_vlan"]]:
                if vlan is not None:
                    vlan_ids.setdefault(vlan, _vlan_name(networks, vlan))
    vpc = as_dict(data.get("vpc"))
    peer = as_str(vpc.get("peer"))
    peer_link = None
    if vpc:
        link = as_dict(vpc.get("peer_link"))
        channel_id = as_int(link.get("port_channel"))
        peer_link = {"id": channel_id, "name": peer_link_name(platform, channel_id), "peer": peer,
                     "members": [m for m in as_list(link.get("members")) if as_str(m)],
                     "description": f"{PAIRING_NAMES.get(platform or '', 'vPC')} peer-link to {peer}", "mode": "trunk",
                     "trunk_vlans": sorted(vlan_ids), "mtu": switch_mtu}
    peer_data = as_dict(switches.get(peer or ""))
    domain = as_int(vpc.get("domain"))
    system_mac = as_str(vpc.get("system_mac"))
    if system_mac is None and platform == "cumulus" and domain is not None:
        system_mac = f"{MLAG_MAC_PREFIX}:{domain >> 8:02x}:{domain & 0xff:02x}"
    return {
        "switch": switch,
        "platform": platform,
        "mtu": switch_mtu,
        "vlans": [{"id": vlan, "name": vlan_ids[vlan]} for vlan in sorted(vlan_ids)],
        "ports": ports,
        "port_channels": port_channels,
        "member_ports": _member_ports(model, switch, platform, port_channels, peer_link),
        "peer_link": peer_link,
        "vpc": {"domain": domain, "peer": peer,
                "role_priority": as_int(vpc.get("role_priority")),
                "system_mac": system_mac,
                "keepalive_source": as_str(data.get("mgmt_address")),
                "keepalive_destination": as_str(peer_data.get("mgmt_address"))} if vpc else None,
        "roce": any(entry["pfc"] for entry in ports + port_channels),
    }


def cabling_plan(model: dict) -> list[dict]:
    """Every cable of the switch layer, once: switch port <-> host NIC, ONTAP port or peer switch port.

    Rows in switch then port order: {switch, port, kind (port | member | peer-link), channel,
    device, device_kind (host | ontap | switch), device_port, bundle, mode, vlans, native_vlan,
    speed, mtu, pfc, description}. A peer-link cable is listed from the pair's first switch only;
    vlans is the access VLAN or the trunk's allowed list. A port-channel member whose far-end
    member is unknown has device_port None and its bond or ifgrp in bundle.
    """
    rows: list[dict] = []
    for switch in hosts_of_kind(model, "switch"):
        plan = switch_plan(model, switch)
        channels = {c["id"]: c for c in plan["port_channels"]}
        for port in plan["ports"]:
            end = port["far_end"]
            rows.append(_cable(switch, port["name"], "port", None, end.get("kind"), end.get("device"),
                               end.get("interface"), None, port, port["speed"], port["description"]))
        for member in plan["member_ports"]:
            end = member["far_end"]
            if member["peer_link"]:
                if switch_pair(model, switch)[0] != switch:
                    continue
                rows.append(_cable(switch, member["name"], "peer-link", member["channel_name"], "switch", end["device"],
                                   end["interface"], None, plan["peer_link"], None, member["description"]))
                continue
            channel = channels[member["channel"]]
            rows.append(_cable(switch, member["name"], "member", member["channel_name"], end.get("kind"), end.get("device"),
                               end.get("interface"), end.get("bundle"), channel, member["speed"], member["description"]))
    rows.sort(key=lambda row: (natural_key(row["switch"]), natural_key(row["port"])))
    return rows


def _cable(switch: str, port: str, kind: str, channel: str | None, device_kind: Any, device: Any,
           device_port: Any, bundle: Any, settings: dict, speed: Any, description: str) -> dict:
    mode = settings.get("mode")
    vlans = [settings["access_vlan"]] if mode == "access" and settings.get("access_vlan") is not None else list(settings.get("trunk_vlans") or [])
    return {"switch": switch, "port": port, "kind": kind, "channel": channel, "device": device, "device_kind": device_kind,
            "device_port": device_port, "bundle": bundle, "mode": mode, "vlans": vlans, "native_vlan": settings.get("native_vlan"),
            "speed": speed, "mtu": settings.get("mtu"), "pfc": bool(settings.get("pfc")), "description": description}


def _vlan_name(networks: dict, vlan: int) -> str:
    for name, network in networks.items():
        if as_int(network.get("vlan")) == vlan:
            return name
    return f"vlan{vlan}"


# ---------------------------------------------------------------------------- sizing
PLATFORM_LIMIT_MB_S = {
    # Per HA pair, from NetApp's material on ONTAP AI ("up to 18GB/sec per two-controller HA pair").
    "AFF A800": 18000,
}


def sizing(model: dict) -> dict:
    """GPU ingest demand against storage supply, with the figures it used."""
    per_gpu = as_dict(as_dict(model.get("pod")).get("sizing")).get("gpu_ingest_mb_s", 82)
    per_gpu = per_gpu if isinstance(per_gpu, (int, float)) and not isinstance(per_gpu, bool) and per_gpu > 0 else 82
    gpus = sum(as_int(as_dict(d.get("gpus")).get("count")) or 0 for d in hosts_of_kind(model, "dgx").values())
    demand = gpus * per_gpu
    storage_networks = {name for name, n in networks_by_name(model).items() if n.get("purpose") in ("storage", "roce")}
    speeds = {}
    for node in ontap_nodes(model):
        for port in as_list(node.get("ports")):
            port = as_dict(port)
            speeds[(node["name"], port.get("name"))] = SPEED_MB_S.get(as_str(port.get("speed")) or "", 0)
    ifgrp_members = {}
    for group in as_list(as_dict(model.get("ontap")).get("interface_groups")):
        group = as_dict(group)
        ifgrp_members[(group.get("node"), group.get("name"))] = [p for p in as_list(group.get("ports")) if as_str(p)]
    data_ports = set()
    for domain in broadcast_domains(model):
        if domain["network"] not in storage_networks:
            continue
        for port in domain["ports"]:
            for base in ifgrp_members.get((port["node"], port["base"]), [port["base"]]):
                data_ports.add((port["node"], base))
    line_rate = sum(speeds.get(port, 0) for port in data_ports)
    nodes = len(ontap_nodes(model))
    ha_pairs = (nodes + 1) // 2
    platform = as_str(as_dict(model.get("ontap")).get("platform")) or ""
    override = as_dict(as_dict(model.get("pod")).get("sizing")).get("platform_limit_mb_s")
    per_pair = override if isinstance(override, (int, float)) and not isinstance(override, bool) else PLATFORM_LIMIT_MB_S.get(platform)
    platform_limit = per_pair * ha_pairs if per_pair else None
    supply = min(line_rate, platform_limit) if platform_limit else line_rate
    return {
        "gpus": gpus,
        "gpu_ingest_mb_s": per_gpu,
        "demand_mb_s": demand,
        "storage_ports": len(data_ports),
        "line_rate_mb_s": line_rate,
        "ha_pairs": ha_pairs,
        "platform": platform,
        "platform_limit_mb_s": platform_limit,
        "supply_mb_s": supply,
        "ratio": round(supply / demand, 2) if demand else None,
    }
