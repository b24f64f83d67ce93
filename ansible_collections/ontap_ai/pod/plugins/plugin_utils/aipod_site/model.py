"""Values derived from the site model: the one place every layer gets them from.

The model types each fact once (a network's VLAN and MTU, a DGX NIC's address, which cable goes
where); ONTAP VLAN ports and LIFs and each DGX's mount targets are computed here, switch port
settings and the cabling on top of these views in aipod_network.model. The validator checks the model through these same functions, and the roles call
them through filter plugins, so a rule and the configuration it protects cannot drift apart.

Every function is defensive: the validator runs them on models that may be malformed (the
schema reports those problems), so they skip what they cannot read instead of raising.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import ipaddress
import re
from collections.abc import Iterable, Iterator
from typing import Any

VLAN_PORT = re.compile(r"^(?P<base>[a-z][a-z0-9]*?)-(?P<vlan>[0-9]{1,4})$")
SPEED_MB_S = {"1G": 125, "10G": 1250, "25G": 3125, "40G": 5000, "50G": 6250, "100G": 12500,
              "200G": 25000, "400G": 50000, "800G": 100000}
NFS_RDMA_PORT = 20049
# A storage bond as NVA-1173 runs NFS over RDMA on it: active-backup (RDMA runs over no other bond
# mode), MII link monitoring every 100 ms, and the bond's MAC address always the active member's
# (fail_over_mac=active, which RDMA over the bond needs).
STORAGE_BOND = {"mode": "active-backup", "mii_monitor_ms": 100, "fail_over_mac": "active"}
SIZE = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(KB|MB|GB|TB|PB)$")
# FlexGroup constituents under 100 GB are discouraged (NetApp TR-4571); the ONTAP and data set rules hold sizes to it.
MIN_CONSTITUENT_BYTES = 100 * 1024 ** 3
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
    return list(_natural_key(str(text)))


@functools.lru_cache(maxsize=8192)
def _natural_key(text: str) -> tuple:
    # Host and port names are sorted again and again (every view sorts its hosts): parse each once.
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text))


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
    """host name -> its model for kind 'dgx', 'server' or 'switch' (hosts lacking it are skipped);
    computed once per kind within a derived_scope."""
    return _derived(model, ("hosts_of_kind", kind), lambda: _hosts_of_kind(model, kind))


def _hosts_of_kind(model: dict, kind: str) -> dict[str, dict]:
    result = {}
    for host, body in as_dict(model.get("hosts")).items():
        data = as_dict(body).get(kind)
        if isinstance(data, dict):
            result[host] = data
    return dict(sorted(result.items(), key=lambda item: _natural_key(str(item[0]))))


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


# Values many rules derive from one model (every switch port's far end reads a host's NICs, every
# ONTAP port the broadcast domains): within a derived_scope they are computed once per model.
_DERIVED: contextvars.ContextVar[dict | None] = contextvars.ContextVar("aipod_site_derived", default=None)


@contextlib.contextmanager
def derived_scope(model: dict) -> Iterator[None]:
    """Within it, hosts_of_kind, host_interfaces and broadcast_domains of this model are computed once
    and shared (read-only). Nothing outlives the scope: a model edited between scopes is read anew."""
    current = _DERIVED.get()
    if current is not None and current["model"] is model:
        yield
        return
    token = _DERIVED.set({"model": model, "values": {}})
    try:
        yield
    finally:
        _DERIVED.reset(token)


def _derived(model: dict, key: tuple, compute):
    scope = _DERIVED.get()
    if scope is None or scope["model"] is not model:
        return compute()
    values = scope["values"]
    if key not in values:
        values[key] = compute()
    return values[key]


def broadcast_domains(model: dict) -> list[dict]:
    """Broadcast domains with resolved settings: name, ipspace, network, mtu, ports[{node, port, base, vlan}]."""
    return _derived(model, ("broadcast_domains",), lambda: _broadcast_domains(model))


def _broadcast_domains(model: dict) -> list[dict]:
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
        # A LIF takes RDMA from data_lifs.rdma when set, else from the SVM's NFS service.
        rdma = spec["rdma"] if isinstance(spec.get("rdma"), bool) else as_dict(svm.get("nfs")).get("rdma") is True
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


def intercluster_lifs(model: dict) -> list[dict]:
    """The cluster's intercluster LIFs: {name, node, port, address, prefix_len, network}, each named
    <node>_ic<n>; the network that holds the address gives the netmask (None when none does)."""
    result = []
    counts: dict[str, int] = {}
    for entry in as_list(as_dict(model.get("ontap")).get("intercluster_lifs")):
        entry = as_dict(entry)
        node, port, address = as_str(entry.get("node")), as_str(entry.get("port")), parse_address(entry.get("address"))
        if not node or not port or address is None:
            continue
        counts[node] = counts.get(node, 0) + 1
        network = next((name for name, net in networks_by_name(model).items()
                        if (subnet := parse_subnet(net.get("subnet"), strict=False)) is not None and address in subnet), None)
        subnet = parse_subnet(as_dict(networks_by_name(model).get(network or "")).get("subnet"), strict=False)
        result.append({"name": f"{node}_ic{counts[node]}", "node": node, "port": port, "address": str(address),
                       "prefix_len": subnet.prefixlen if subnet else None, "network": network})
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


def dataset_object_name(dataset: str) -> str:
    """The name of a data set's own ONTAP policies (its Snapshot policy and its export policy)."""
    return f"dataset_{dataset}"


def dataset_volumes(model: dict) -> dict[str, dict]:
    """Each data set's volume as a mount finds it: name -> {svm, name, junction_path, export_policy}.
    The data sets' layer (aipod_datasets.model) builds everything else of them on these names."""
    found: dict[str, dict] = {}
    for entry in as_list(model.get("datasets")):
        entry = as_dict(entry)
        name, svm = as_str(entry.get("name")), as_str(entry.get("svm"))
        if name and svm and name not in found:
            # At the SVM's root: ONTAP refuses a junction below a path no volume is mounted at.
            found[name] = {"svm": svm, "name": name, "junction_path": as_str(entry.get("junction_path")) or f"/{name}",
                           "export_policy": dataset_object_name(name)}
    return found


def mount_volume(model: dict, mount: dict, svm_by_name: dict[str, dict], dataset_by_name: dict[str, dict]) -> dict | None:
    """The volume a compute mount names: a FlexGroup of an SVM, or a data set's volume.
    {svm, name, junction_path, export_policy, dataset}; None when the model does not declare it."""
    dataset = as_str(mount.get("dataset"))
    if dataset:
        volume = dataset_by_name.get(dataset)
        return dict(volume, dataset=dataset) if volume and volume["svm"] in svm_by_name else None
    svm = svm_by_name.get(as_str(mount.get("svm")) or "")
    flexgroup = next((as_dict(fg) for fg in as_list(as_dict(svm).get("flexgroups"))
                      if as_dict(fg).get("name") == mount.get("flexgroup")), None)
    if svm is None or flexgroup is None:
        return None
    return {"svm": svm["name"], "name": flexgroup.get("name"), "junction_path": flexgroup.get("junction_path"),
            "export_policy": flexgroup.get("export_policy"), "dataset": None}


# ONTAP's own accounts and roles (cluster and SVM scope): the bundle creates and changes its tools'
# accounts and roles, so they must never be one of these.
ONTAP_BUILT_IN_USERS = frozenset({"admin", "diag", "autosupport", "vsadmin"})
ONTAP_BUILT_IN_ROLES = frozenset({"admin", "autosupport", "backup", "readonly", "none", "vsadmin", "vsadmin-volume",
                                  "vsadmin-protocol", "vsadmin-backup", "vsadmin-snaplock", "vsadmin-readonly"})


def ontap_disaggregated(model: dict) -> bool:
    """AFX (disaggregated ONTAP): no aggregates; ONTAP places volumes in its storage availability zone."""
    return "AFX" in (as_str(as_dict(model.get("ontap")).get("platform")) or "").upper()


def flexgroups(model: dict) -> list[dict]:
    """Every FlexGroup of every SVM with its aggregates resolved (the SVM's unless listed), its size
    in bytes and its constituent count (aggregates x constituents_per_aggregate).

    Each: {svm, name, size, size_bytes, aggregates, constituents_per_aggregate, constituents,
    junction_path, export_policy, snapshot_policy, security_style, thin_provisioning, efficiency,
    unix_permissions, qos_policy, granular_data, placed_by_ontap}; optional settings stay None where the model
    is silent. On AFX (placed_by_ontap) a FlexGroup has no aggregates and ONTAP decides its constituents (None).
    """
    result = []
    placed_by_ontap = ontap_disaggregated(model)
    for svm in svms(model):
        svm_aggregates = [a for a in as_list(svm.get("aggregates")) if isinstance(a, str)]
        for flexgroup in as_list(svm.get("flexgroups")):
            flexgroup = as_dict(flexgroup)
            name = as_str(flexgroup.get("name"))
            if not name:
                continue
            aggregates = [] if placed_by_ontap else [a for a in as_list(flexgroup.get("aggregates")) if isinstance(a, str)] or svm_aggregates
            per_aggregate = None if placed_by_ontap else as_int(flexgroup.get("constituents_per_aggregate"))
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
                "qos_policy": as_str(flexgroup.get("qos_policy")),
                "granular_data": flexgroup.get("granular_data") if isinstance(flexgroup.get("granular_data"), bool) else None,
                "placed_by_ontap": placed_by_ontap,
            })
    return result


QOS_LIMITS = ("max_throughput_iops", "max_throughput_mbps", "min_throughput_iops", "min_throughput_mbps")


def qos_policies(model: dict) -> list[dict]:
    """Every QoS policy group of every SVM: {svm, name, shared, <limit>: int} with each limit 0 where
    the model is silent (ONTAP's "none")."""
    result = []
    for svm in svms(model):
        for policy in as_list(svm.get("qos_policies")):
            policy = as_dict(policy)
            name = as_str(policy.get("name"))
            if not name:
                continue
            entry = {"svm": svm["name"], "name": name, "shared": policy.get("shared") is True}
            entry.update({limit: as_int(policy.get(limit)) or 0 for limit in QOS_LIMITS})
            result.append(entry)
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


def address_assignments(model: dict) -> list[dict]:
    """Every interface address the pod uses, in model order.

    Each: {address, network (None for a management address, which names no network), path (where
    the model holds it, or the key it is derived from), device, interface, what, derived (True for
    data LIFs handed out from a first address)}. Addresses are the model's text, unparsed.
    """
    result: list[dict] = []

    def add(address, network, path, device, interface, what, derived=False):
        if as_str(address):
            result.append({"address": address, "network": network, "path": path, "device": device,
                           "interface": interface, "what": what, "derived": derived})

    ontap = as_dict(model.get("ontap"))
    cluster = as_str(ontap.get("cluster_name")) or "ONTAP cluster"
    add(ontap.get("mgmt_address"), None, ("ontap", "mgmt_address"), cluster, "cluster_mgmt", "ONTAP cluster management")
    for index, node in enumerate(as_list(ontap.get("nodes"))):
        if isinstance(node, dict):
            add(node.get("mgmt_address"), None, ("ontap", "nodes", index, "mgmt_address"), node.get("name"), "node_mgmt",
                f"node {node.get('name')}")
    # Intercluster LIFs, like management addresses, name no network of their own.
    derived_intercluster = intercluster_lifs(model)
    for index, lif in enumerate(as_list(ontap.get("intercluster_lifs"))):
        lif = as_dict(lif)
        name = next((d["name"] for d in derived_intercluster if d["address"] == as_str(lif.get("address"))), "intercluster")
        add(lif.get("address"), None, ("ontap", "intercluster_lifs", index, "address"), f"{lif.get('node')} {lif.get('port')}",
            name, f"intercluster LIF {name}")
    lifs = data_lifs(model)
    for index, svm in enumerate(as_list(ontap.get("svms"))):
        if not isinstance(svm, dict):
            continue
        mgmt = svm_mgmt_lif(model, svm)
        if mgmt:
            add(mgmt["address"], mgmt["network"], ("ontap", "svms", index, "mgmt_lif", "address"),
                f"{mgmt['node']} {mgmt['port']}", mgmt["name"], f"SVM {svm.get('name')} management LIF")
        spec = as_dict(svm.get("data_lifs"))
        explicit = as_list(spec.get("explicit"))
        for lif in (lif for lif in lifs if lif["svm"] == svm.get("name")):
            if "explicit" in spec:
                position = next((i for i, e in enumerate(explicit) if as_dict(e).get("name") == lif["name"]), None)
                path = ("ontap", "svms", index, "data_lifs", "explicit", position, "address")
            else:
                path = ("ontap", "svms", index, "data_lifs", "first_address", lif["network"])
            add(lif["address"], lif["network"], path, f"{lif['node']} {lif['port']}", lif["name"], f"LIF {lif['name']}",
                derived="explicit" not in spec)
    for host, data in hosts_of_kind(model, "switch").items():
        add(data.get("mgmt_address"), None, ("hosts", host, "switch", "mgmt_address"), host, "mgmt0", f"switch {host}")
    for kind in ("dgx", "server"):
        for host, data in hosts_of_kind(model, kind).items():
            add(data.get("mgmt_address"), None, ("hosts", host, kind, "mgmt_address"), host, "mgmt", f"{host} management")
            inband = as_dict(data.get("inband"))
            add(inband.get("address"), as_str(inband.get("network")), ("hosts", host, kind, "inband", "address"), host,
                inband.get("name"), f"{host} {inband.get('name')}")
            for nic_index, nic in enumerate(as_list(data.get("storage_nics"))):
                nic = as_dict(nic)
                add(nic.get("address"), as_str(nic.get("network")), ("hosts", host, kind, "storage_nics", nic_index, "address"),
                    host, nic.get("name"), f"{host} {nic.get('name')}")
            for bond_index, bond in enumerate(as_list(data.get("storage_bonds"))):
                bond = as_dict(bond)
                add(bond.get("address"), as_str(bond.get("network")), ("hosts", host, kind, "storage_bonds", bond_index, "address"),
                    host, bond.get("name"), f"{host} {bond.get('name')}")
    return result


def management_network(model: dict, address: ipaddress.IPv4Address) -> str | None:
    """The declared mgmt (else inband) network whose subnet holds a management address."""
    networks = networks_by_name(model)
    for purpose in ("mgmt", "inband"):
        for name, network in networks.items():
            subnet = parse_subnet(network.get("subnet"), strict=False)
            if network.get("purpose") == purpose and subnet is not None and address in subnet:
                return name
    return None


# ---------------------------------------------------------------------------- hosts
def host_interfaces(model: dict, host: str) -> dict[str, dict]:
    """NICs and bonds of a DGX or server (see _host_interfaces); computed once per host within a derived_scope."""
    return _derived(model, ("host_interfaces", host), lambda: _host_interfaces(model, host))


def _host_interfaces(model: dict, host: str) -> dict[str, dict]:
    """NICs and bonds of a DGX or server: name -> {network, tagged, address, kind, mtu, speed, bond}.

    kind: storage (a storage NIC, or a storage bond, which also has members and primary),
    storage-member (a NIC of a storage bond: the bond's network, no address, bond and is_primary),
    inband, inband-member.
    """
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
    for bond in as_list(data.get("storage_bonds")):
        bond = as_dict(bond)
        name = as_str(bond.get("name"))
        if not name:
            continue
        members = [member for member in as_list(bond.get("members")) if as_str(member)]
        entry = {"kind": "storage", "network": as_str(bond.get("network")), "tagged": bond.get("tagged") is True,
                 "address": as_str(bond.get("address")), "mtu": as_int(bond.get("mtu")), "speed": as_str(bond.get("speed")),
                 "members": members, "primary": as_str(bond.get("primary"))}
        result.setdefault(name, entry)
        for member in members:
            result.setdefault(member, {"kind": "storage-member", "network": entry["network"], "tagged": entry["tagged"],
                                       "address": None, "mtu": entry["mtu"], "speed": entry["speed"], "bond": name,
                                       "is_primary": member == entry["primary"]})
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

    One entry per storage NIC or storage bond: {device, parent, links, devices, bond, vlan, network,
    address, prefix_len, cidr, mtu, routes[{to, via, metric}]}. device is the Linux interface that
    carries the address: the NIC or bond itself, or the VLAN device <parent>.<vlan> when it is
    tagged (then parent carries no address, and both get the network's MTU). links are the physical
    NICs ([parent] for a NIC, the members for a bond); devices every interface the entry configures;
    bond, for a bond, STORAGE_BOND with its members and primary (None for a NIC). routes are the network's static routes
    (two-path designs); via defaults to the network's gateway and the NIC's route_metric, when
    set, replaces each route's metric so that one host can prefer one path. NICs whose network is
    unknown are skipped (the validator reports them).
    """
    networks = networks_by_name(model)
    body = as_dict(as_dict(model.get("hosts")).get(host))
    data = as_dict(body.get("dgx")) or as_dict(body.get("server"))
    metrics = {as_str(as_dict(entry).get("name")): as_int(as_dict(entry).get("route_metric"))
               for key in ("storage_nics", "storage_bonds") for entry in as_list(data.get(key))}
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
        device = f"{name}.{vlan}" if vlan is not None else name
        members = nic.get("members") or []
        plan.append({
            "device": device,
            "parent": name,
            # The physical NICs (facts, ring sizes, RoCE QoS), and every device the storage network
            # script reconfigures: a bond's members, the bond and its VLAN device.
            "links": list(members) or [name],
            "devices": list(dict.fromkeys([*members, name, device])) if members else [device],
            "bond": dict(STORAGE_BOND, name=name, members=list(members), primary=nic.get("primary")) if members else None,
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

    Candidates are the SVM's data LIFs on the host's own storage (or in-band) networks, ordered so that
    consecutive entries alternate ONTAP nodes first and networks second. The host's position
    among all DGX hosts (natural order) plus the mount's position picks one: hosts spread over
    every node, and one host's mounts spread over LIFs, the same way on every run.
    """
    return mount_plans(model, [host])[host]


def mount_plans(model: dict, hosts: Iterable[str] | None = None) -> dict[str, list[dict]]:
    """mount_plan of several DGX (every DGX by default), sharing what they have in common: the LIFs,
    networks and host order are read once instead of once per host."""
    dgx_hosts = list(hosts_of_kind(model, "dgx"))
    positions = {name: index for index, name in enumerate(dgx_hosts)}
    shared = {"network_order": {name: index for index, name in enumerate(networks_by_name(model))},
              "node_order": _node_order(model), "lifs": data_lifs(model),
              "svm_by_name": {svm["name"]: svm for svm in svms(model)}, "datasets": dataset_volumes(model)}
    return {host: _mount_plan(model, host, positions.get(host, 0), shared) for host in (dgx_hosts if hosts is None else hosts)}


def _mount_plan(model: dict, host: str, position: int, shared: dict) -> list[dict]:
    # The host's storage networks, and its in-band network: a management SVM (NVA-1175's home
    # directories) serves the DGX over in-band, its data SVM over the storage networks.
    interfaces = host_interfaces(model, host).items()
    storage = {nic["network"]: name for name, nic in interfaces if nic["kind"] == "storage" and nic["address"]}
    inband = {nic["network"]: name for name, nic in interfaces if nic["kind"] == "inband" and nic["address"]}
    nics = {**inband, **storage}
    network_order, node_order, lifs, svm_by_name = (shared["network_order"], shared["node_order"], shared["lifs"],
                                                    shared["svm_by_name"])
    plan = []
    for mount_index, mount in enumerate(as_list(as_dict(model.get("compute")).get("mounts"))):
        mount = as_dict(mount)
        volume = mount_volume(model, mount, svm_by_name, shared["datasets"])
        if volume is None:
            continue
        # The SVM's LIFs on the host's storage networks; on its in-band network only when it has none there.
        candidates = [lif for lif in lifs if lif["svm"] == volume["svm"] and lif["network"] in storage and lif["address"]] or \
                     [lif for lif in lifs if lif["svm"] == volume["svm"] and lif["network"] in inband and lif["address"]]
        if not candidates:
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
            "svm": volume["svm"],
            "flexgroup": volume["name"],
            "dataset": volume["dataset"],
            "junction_path": volume["junction_path"],
            "export_policy": volume["export_policy"],
            "lif": lif["name"],
            "lif_node": lif["node"],
            "server": lif["address"],
            "src": f"{lif['address']}:{volume['junction_path']}",
            "network": lif["network"],
            "nic": nics.get(lif["network"]),
            "fstype": "nfs",
            "options": options,
            "options_text": ",".join(options),
        })
    return plan


def nfs_mount_options(mount: dict) -> list[str]:
    """Mount options of one compute mount: version, transport, connections, block size, write behaviour, hard."""
    version = str(mount.get("nfs_version", "4.1"))
    transport = mount.get("transport", "tcp")
    connections = as_int(mount.get("nconnect")) or 16
    options = [f"vers={version}"]
    if transport == "rdma":
        options += ["proto=rdma", f"port={NFS_RDMA_PORT}", f"max_connect={connections}"]
    else:
        options += ["proto=tcp", f"nconnect={connections}"]
    options += [f"rsize={as_int(mount.get('rsize')) or 262144}", f"wsize={as_int(mount.get('wsize')) or 262144}"]
    if mount.get("write"):
        options.append(f"write={mount['write']}")
    return options + ["hard"]


# ---------------------------------------------------------------------------- DGX models
# GPUs of each DGX system (NVIDIA's data sheets) and the GPU generations it ships with. DGX GB200
# and other rack-scale systems are not listed: their GPU count per node depends on the build.
DGX_SYSTEMS = {
    "DGX-1": (8, ("P100", "V100")),
    "DGX-2": (16, ("V100",)),
    "DGX Station": (4, ("V100",)),
    "DGX Station A100": (4, ("A100",)),
    "DGX A100": (8, ("A100",)),
    "DGX H100": (8, ("H100",)),
    "DGX H200": (8, ("H200",)),
    "DGX B200": (8, ("B200",)),
    "DGX B300": (8, ("B300",)),
}
DGX_MODEL = re.compile(r"^\s*(?:NVIDIA\s+)?DGX(?P<station>[\s-]*STATION)?(?:[\s-]*(?P<kind>A100|H100|H200|B200|B300|1|2))?(?![A-Z0-9])",
                       re.IGNORECASE)
GPU_GENERATION = re.compile(r"(?<![A-Z0-9])(P100|V100|A100|H100|H200|B200|B300)(?![0-9])", re.IGNORECASE)


def dgx_system(model: Any) -> tuple[str, int, tuple[str, ...]] | None:
    """('DGX A100', 8, ('A100',)) for a dgx.model such as 'DGX A100' or 'NVIDIA DGX A100 (lab stand-in)'; None if unknown."""
    match = DGX_MODEL.match(model) if isinstance(model, str) else None
    if not match:
        return None
    kind = (match.group("kind") or "").upper()
    if match.group("station"):
        name = "DGX Station" + (f" {kind}" if kind else "")
    elif kind in ("1", "2"):
        name = f"DGX-{kind}"
    elif kind:
        name = f"DGX {kind}"
    else:
        return None
    if name not in DGX_SYSTEMS:
        return None
    count, generations = DGX_SYSTEMS[name]
    return name, count, generations


def gpu_generation(model: Any) -> str | None:
    """'A100' for a gpus.model such as 'NVIDIA A100-SXM4-40GB'; None if it names no known generation."""
    match = GPU_GENERATION.search(model) if isinstance(model, str) else None
    return match.group(1).upper() if match else None


def dgx_gpu_count(dgx: dict) -> int:
    """GPUs of one DGX for sizing: gpus.count, else what its known model has, else 0."""
    count = as_int(as_dict(dgx.get("gpus")).get("count"))
    if count is not None:
        return max(count, 0)
    system = dgx_system(dgx.get("model"))
    return system[1] if system else 0


# ---------------------------------------------------------------------------- sizing
# Read throughput of one HA pair in MB/s, from NetApp's published material (docs/site-model.md, Sizing, names
# each source). A platform missing here is sized by its ports' line rate alone, with a warning;
# pod.sizing.platform_limit_mb_s gives its figure.
PLATFORM_LIMIT_MB_S = {
    # NVA-1173 sizing guidance: a 24-node (12 HA pair) A90 cluster, "up to 552 GBps".
    "AFF A90": 46000,
    # NetApp's blog series on AI pipeline bottlenecks: "up to 18GB/sec per two-controller HA pair".
    "AFF A800": 18000,
    # NetApp's edge-inference design (Lenovo ThinkSystem): sequential reads of one system.
    "AFF A220": 6200,
    "AFF C190": 4400,
}
PLATFORM_NAME = re.compile(r"^\s*(?:(?:NetApp\s+)?AFF[\s_-]*)?([AC][0-9]{2,4}[A-Z]?)\s*$", re.IGNORECASE)


def platform_key(platform: Any) -> str:
    """'AFF A90' for 'AFF A90', 'aff-a90', 'aff_a90' or 'A90'; other text as given (stripped), '' for none."""
    text = as_str(platform) or ""
    match = PLATFORM_NAME.match(text)
    return f"AFF {match.group(1).upper()}" if match else text.strip()


def gpu_ingest_mb_s(model: dict) -> float:
    """The read demand of one GPU: pod.sizing.gpu_ingest_mb_s, default 82 MB/s."""
    per_gpu = as_dict(as_dict(model.get("pod")).get("sizing")).get("gpu_ingest_mb_s", 82)
    return per_gpu if isinstance(per_gpu, (int, float)) and not isinstance(per_gpu, bool) and per_gpu > 0 else 82


def ha_pair_limit_mb_s(model: dict) -> float | None:
    """What one HA pair reads: pod.sizing.platform_limit_mb_s, else the platform's figure, else None."""
    override = as_dict(as_dict(model.get("pod")).get("sizing")).get("platform_limit_mb_s")
    if isinstance(override, (int, float)) and not isinstance(override, bool):
        return override
    return PLATFORM_LIMIT_MB_S.get(platform_key(as_dict(model.get("ontap")).get("platform")))


def sizing(model: dict) -> dict:
    """GPU ingest demand against storage supply, with the figures it used."""
    per_gpu = gpu_ingest_mb_s(model)
    gpus = sum(dgx_gpu_count(d) for d in hosts_of_kind(model, "dgx").values())
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
    platform = platform_key(as_dict(model.get("ontap")).get("platform"))
    per_pair = ha_pair_limit_mb_s(model)
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
