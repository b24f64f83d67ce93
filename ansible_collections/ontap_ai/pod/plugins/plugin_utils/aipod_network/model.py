"""Values of the switch layer derived from the site model: far ends, port settings, vPC/MLAG pairs, cabling.

Which device and interface each switch port or port-channel leads to (far_end), the settings a
port takes from its far end (switch_entries), the vPC/MLAG pair, everything one switch gets
(switch_plan) and every cable of the switch layer (cabling_plan). Built on the generic views of
aipod_site.model; the validator checks the switches through these same functions, and the roles
call them through filter plugins (aipod_switch_plan, aipod_cabling_plan).

Every function is defensive: the validator runs them on models that may be malformed (the
schema reports those problems), so they skip what they cannot read instead of raising.
"""
from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_monitoring import harvest
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.characters import hidden_characters
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.model import (
    as_dict,
    as_int,
    as_list,
    as_str,
    broadcast_domains,
    group_members,
    host_interfaces,
    hosts_of_kind,
    natural_key,
    networks_by_name,
    ontap_nodes,
    svms,
)

DEFAULT_SWITCH_MTU = 9216


def far_end(model: dict, connects_to: Any, near: str | None = None) -> dict | None:
    """Resolve a cable's far end: {kind, device, interface, memberships[(network, tagged)], speed, roce, description}.

    near is the switch the cable starts at: an uplink to another switch pair carries the networks
    both sides of it need (uplink_networks), which depend on where it starts.
    """
    connects_to = as_dict(connects_to)
    if "switch" in connects_to:
        return _uplink_end(model, connects_to, near)
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
            result["roce"] = nic["kind"] in ("storage", "storage-member") and as_dict(body.get("dgx")).get("roce") is True
            result["nic_kind"] = nic["kind"]
            if nic["kind"] == "storage-member":
                result["bond"] = nic["bond"]
            if nic["kind"] == "storage" and nic.get("members"):
                result["storage_bond"] = True
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


def is_uplink(entry: Any) -> bool:
    """Whether a settled port-channel (switch_plan's) leads to another switch pair."""
    return as_dict(as_dict(entry).get("far_end")).get("kind") == "switch"


def _uplink_end(model: dict, connects_to: dict, near: str | None) -> dict | None:
    far, channel = as_str(connects_to.get("switch")), as_int(connects_to.get("port_channel"))
    if not far or channel is None:
        return None
    switches = hosts_of_kind(model, "switch")
    far_data = as_dict(switches.get(far))
    platform = as_str(far_data.get("platform"))
    far_channel = next((as_dict(c) for c in as_list(far_data.get("port_channels"))
                        if as_int(as_dict(c).get("id")) == channel), None)
    pair = "/".join(switch_pair(model, far)) if far in switches else far
    networks = uplink_networks(model, near, far) if near and far in switches else []
    carries_roce = bool(_fabric(model)["roce"] & set(networks))
    return {"kind": "switch", "device": far, "interface": port_channel_name(platform, channel), "channel": channel,
            "memberships": [(network, True) for network in networks], "speed": None, "roce": carries_roce,
            "resolved": far_channel is not None, "members": [], "pair": pair, "description": f"uplink {pair} {port_channel_name(platform, channel)}"}


def _pairs_of(switches: dict[str, dict]) -> dict[str, tuple[str, ...]]:
    """Each switch's pair (switch_pair for every switch at once)."""
    result = {}
    for switch, data in switches.items():
        peer = as_str(as_dict(data.get("vpc")).get("peer"))
        if peer and peer in switches and as_dict(switches[peer].get("vpc")).get("peer") == switch:
            result[switch] = tuple(sorted([switch, peer], key=natural_key))
        else:
            result[switch] = (switch,)
    return result


_SCOPE: contextvars.ContextVar[dict | None] = contextvars.ContextVar("aipod_fabric_scope", default=None)


@contextlib.contextmanager
def fabric_scope(model: dict) -> Iterator[None]:
    """Within it, the fabric view of this model is built once and shared.

    Every switch's plan needs the whole fabric (an uplink's VLANs depend on every pair), so a
    switch plan, the cabling plan and a validation each open a scope; outside one, every call
    builds the view afresh. Nothing outlives the scope: a model edited between calls is read anew.
    """
    current = _SCOPE.get()
    if current is not None and current["model"] is model:
        yield
        return
    token = _SCOPE.set({"model": model, "view": None})
    try:
        yield
    finally:
        _SCOPE.reset(token)


def _fabric(model: dict) -> dict:
    """The pairs, the uplinks between them and the networks each pair serves."""
    scope = _SCOPE.get()
    if scope is not None and scope["model"] is model:
        if scope["view"] is None:
            scope["view"] = _build_fabric(model)
        return scope["view"]
    return _build_fabric(model)


def _build_fabric(model: dict) -> dict:
    switches = hosts_of_kind(model, "switch")
    pairs = _pairs_of(switches)
    graph: dict[tuple[str, ...], set[tuple[str, ...]]] = {pair: set() for pair in pairs.values()}
    links: dict[tuple[tuple[str, ...], tuple[str, ...]], set[int]] = {}
    edges: dict[tuple[str, ...], set[str]] = {pair: set() for pair in pairs.values()}
    for switch, data in switches.items():
        near = pairs[switch]
        for entry in as_list(data.get("ports")) + as_list(data.get("port_channels")):
            target = as_dict(as_dict(entry).get("connects_to"))
            if "switch" not in target:
                # A host NIC or ONTAP port: the networks far_end says its cable carries.
                edges[near] |= {network for network, _tagged in (far_end(model, target) or {}).get("memberships", [])}
            elif as_str(target.get("switch")) in pairs and pairs[target["switch"]] != near:
                far = pairs[target["switch"]]
                graph[near].add(far)
                graph[far].add(near)
                if as_int(as_dict(entry).get("id")) is not None:
                    links.setdefault((near, far), set()).add(as_dict(entry)["id"])
    roce: set[str] = set()
    for host, body in hosts_of_kind(model, "dgx").items():
        if body.get("roce") is True:
            roce |= {nic["network"] for nic in host_interfaces(model, host).values()
                     if nic["kind"] == "storage" and nic["network"]}
    return {"pairs": pairs, "graph": graph, "links": links, "edges": edges, "roce": roce, "carried": {}}


def uplink_channels(model: dict) -> dict[tuple[tuple[str, ...], tuple[str, ...]], set[int]]:
    """(near pair, far pair) -> the ids of the near pair's port-channels that lead to the far pair."""
    return {key: set(ids) for key, ids in _fabric(model)["links"].items()}


def edge_networks(model: dict) -> dict[tuple[str, ...], set[str]]:
    """The networks each switch pair carries to its hosts and ONTAP nodes (not over its uplinks)."""
    return {pair: set(networks) for pair, networks in _fabric(model)["edges"].items()}


def pair_links(model: dict) -> dict[tuple[str, ...], set[tuple[str, ...]]]:
    """Which switch pairs each pair has an uplink to (a port-channel whose connects_to names a switch)."""
    return {pair: set(neighbours) for pair, neighbours in _fabric(model)["graph"].items()}


def uplink_networks(model: dict, near: str, far: str) -> list[str]:
    """The networks an uplink from near's pair to far's pair carries: those with hosts or ONTAP ports on both
    of its sides (on a loop-free fabric, cutting the uplink splits the pairs into those two sides)."""
    fabric = _fabric(model)
    start, other = fabric["pairs"].get(near, (near,)), fabric["pairs"].get(far, (far,))
    if (start, other) in fabric["carried"]:
        return list(fabric["carried"][(start, other)])
    graph, edges = fabric["graph"], fabric["edges"]

    def side(first: tuple[str, ...], cut: tuple[str, ...]) -> set[str]:
        seen, stack = {first}, [first]
        while stack:
            pair = stack.pop()
            for neighbour in graph.get(pair, ()):
                if neighbour not in seen and not (pair == first and neighbour == cut):
                    seen.add(neighbour)
                    stack.append(neighbour)
        return set().union(*(edges.get(pair, set()) for pair in seen))

    result = sorted(side(start, other) & side(other, start), key=natural_key)
    fabric["carried"][(start, other)] = tuple(result)
    return result


def switch_pair(model: dict, switch: str) -> list[str]:
    """The switch and its vPC/MLAG peer (if the peer names it back), sorted."""
    scope = _SCOPE.get()
    if scope is not None and scope["model"] is model:
        return list(_fabric(model)["pairs"].get(switch, (switch,)))
    switches = hosts_of_kind(model, "switch")
    return list(_pairs_of({name: data for name, data in switches.items()
                           if name == switch or name == as_dict(as_dict(switches.get(switch)).get("vpc")).get("peer")})
                .get(switch, (switch,)))


def _settle(model: dict, networks: dict, switch_mtu: int, default_speed: str | None,
            entry: dict, name: str, near: str | None = None) -> dict:
    """A port or port-channel's settings: explicit values from the entry, the rest from its far end."""
    end = far_end(model, entry.get("connects_to"), near) or {}
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
    """(ports, port_channels) of one switch, each settled by _settle; settled once per fabric scope,
    where a validation asks for each switch several times. The entries are shared: read them only."""
    scope = _SCOPE.get()
    if scope is None or scope["model"] is not model:
        return _switch_entries(model, switch)
    cached = scope.setdefault("entries", {})
    if switch not in cached:
        cached[switch] = _switch_entries(model, switch)
    ports, channels = cached[switch]
    return list(ports), list(channels)


def _switch_entries(model: dict, switch: str) -> tuple[list[dict], list[dict]]:
    data = as_dict(hosts_of_kind(model, "switch").get(switch))
    networks = networks_by_name(model)
    switch_mtu = as_int(data.get("mtu")) or DEFAULT_SWITCH_MTU
    default_speed = as_str(data.get("port_speed"))
    platform = as_str(data.get("platform"))
    ports = []
    for entry in as_list(data.get("ports")):
        entry = as_dict(entry)
        if as_str(entry.get("name")):
            ports.append(_settle(model, networks, switch_mtu, default_speed, entry, entry["name"], switch))
    port_channels = []
    for entry in as_list(data.get("port_channels")):
        entry = as_dict(entry)
        channel_id = as_int(entry.get("id"))
        if channel_id is None:
            continue
        settled = _settle(model, networks, switch_mtu, default_speed, entry, port_channel_name(platform, channel_id), switch)
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
        if channel["far_end"].get("kind") == "switch":
            far_members = _uplink_far_members(model, channel["far_end"]["device"], channel["far_end"]["channel"])
            near_columns = [[port for member_, port in switch_ports if member_ == member] for member in pair]
            crossed = _bow_tie(near_columns, _uplink_far_columns(model, channel["far_end"]["device"], channel["far_end"]["channel"]))
            if crossed is not None:
                result.update({port: far for (member, port), far in crossed.items() if member == pair.index(switch)})
                continue
        if far_members and len(far_members) == len(switch_ports):
            for (member, port), far in zip(switch_ports, far_members):
                if member == switch:
                    result[port] = far
    return result


def _uplink_far_columns(model: dict, far: str, far_channel: int) -> list[list[dict]]:
    """The far pair's members of an uplink, one list per far switch: {device, interface, speed}."""
    switches = hosts_of_kind(model, "switch")
    columns = []
    for member in switch_pair(model, far):
        for channel in as_list(as_dict(switches.get(member)).get("port_channels")):
            if as_int(as_dict(channel).get("id")) == far_channel:
                columns.append([{"device": member, "interface": port, "speed": None}
                                for port in as_list(as_dict(channel).get("members")) if as_str(port)])
    return columns


def _uplink_far_members(model: dict, far: str, far_channel: int) -> list[dict]:
    """The far pair's members of an uplink as the near members meet them: {device, interface, speed}.

    Taken in turn from each far switch (its first member, the peer's first, then the seconds...),
    so that every near switch reaches both far switches (a bow tie) once it has two members. Used
    when the four switches do not have one member count (_bow_tie covers the rest); read from
    either side, the same cables result for up to two members a switch.
    """
    columns = _uplink_far_columns(model, far, far_channel)
    depth = max((len(column) for column in columns), default=0)
    return [column[row] for row in range(depth) for column in columns if row < len(column)]


def _bow_tie(near: list[list[str]], far: list[list[dict]]) -> dict[tuple[int, str], dict] | None:
    """The uplink's cables when each of the four switches has the same number n of members:
    (near switch index, member port) -> far member. Member i of near switch s meets member
    2*(i//2) + s of far switch i % 2, so every near switch reaches each far switch n/2 times (a
    bow tie). The rule is its own inverse: read from the far pair, the same cables result. With n
    odd, the last member of each switch meets the last of the far switch in its position. None
    when the counts differ or a side is not a pair."""
    counts = {len(column) for column in near + far}
    if len(near) != 2 or len(far) != 2 or len(counts) != 1:
        return None
    [n] = counts
    cables = {}
    for s, column in enumerate(near):
        for i, port in enumerate(column):
            t, j = (i % 2, 2 * (i // 2) + s) if i < n - n % 2 else (s, i)
            cables[(s, port)] = far[t][j]
    return cables


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
            description = (f"{(far or {}).get('device') or end.get('device')} {far_interface} ({end.get('interface')})"
                           if far else channel["description"])
            result.append({
                "name": port, "channel": channel["id"], "channel_name": channel["name"], "peer_link": False,
                "description": description, "mtu": channel["mtu"], "pfc": channel["pfc"],
                "speed": (far or {}).get("speed") or channel["speed"],
                "far_end": {"kind": end.get("kind"), "device": (far or {}).get("device") or end.get("device"),
                            "interface": far_interface, "bundle": end.get("interface")},
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


UNUSED_DESCRIPTION = "unused"


def _leaving(model: dict) -> set[str]:
    """Hosts in the group decommission: their switch ports are returned to the unused configuration."""
    return set(group_members(model, "decommission"))


def _kept(model: dict, entries: list[dict]) -> list[dict]:
    leaving = _leaving(model)
    return [entry for entry in entries
            if not (entry["far_end"].get("kind") == "host" and entry["far_end"].get("device") in leaving)]


def released_ports(model: dict, switch: str) -> dict:
    """The ports and port-channels of a switch cabled to a host being decommissioned (docs/day2.md).

    {ports: [{name, was}], port_channels: [{id, name, members, was}]}: the physical ports (a
    released port-channel's members included) go back to the unused configuration, and each
    released port-channel, with its vPC/MLAG membership, is removed. `was` says what the port led to.
    """
    leaving = _leaving(model)
    ports, channels = switch_entries(model, switch)
    result: dict[str, list[dict]] = {"ports": [], "port_channels": []}
    if not leaving:
        return result
    for entry in ports:
        end = entry["far_end"]
        if end.get("kind") == "host" and end.get("device") in leaving:
            result["ports"].append({"name": entry["name"], "was": end.get("description") or end.get("device")})
    for channel in channels:
        end = channel["far_end"]
        if end.get("kind") == "host" and end.get("device") in leaving:
            was = end.get("description") or end.get("device")
            result["port_channels"].append({"id": channel["id"], "name": channel["name"],
                                            "members": list(channel["members"]), "was": was})
            result["ports"] += [{"name": member, "was": f"{was} (member of {channel['name']})"} for member in channel["members"]]
    result["ports"].sort(key=lambda port: natural_key(port["name"]))
    return result


def switch_plan(model: dict, switch: str) -> dict:
    """Everything one switch gets, derived from the model.

    {switch, platform, mtu, vlans[{id, name}], ports[...], port_channels[...], member_ports[...],
    peer_link, vpc, roce, released, metrics_user}.
    A port or port-channel: {name, description, mode, access_vlan, trunk_vlans, native_vlan, mtu,
    speed, pfc, jumbo, networks, far_end}; port-channels add {id, vpc, members}. Names follow the
    platform: port-channel11 / bond11, and the peer link is port-channel<id> / peerlink.
    member_ports: every physical member of a port-channel or of the peer link, {name, channel,
    channel_name, peer_link, description, mtu, pfc, speed, far_end{kind, device, interface,
    bundle}}; the far-end interface is the bond or ifgrp member cabled to it (see member_links).
    VLANs are the union over the vPC/MLAG pair, so both peers carry the same list, and the peer
    link trunks all of them.
    A port cabled to a host in the group decommission is not among ports, port_channels or
    member_ports but in released (released_ports): the switch returns it to the unused
    configuration.
    """
    with fabric_scope(model):
        return _switch_plan(model, switch)


def _switch_plan(model: dict, switch: str) -> dict:
    switches = hosts_of_kind(model, "switch")
    data = as_dict(switches.get(switch))
    networks = networks_by_name(model)
    platform = as_str(data.get("platform"))
    switch_mtu = as_int(data.get("mtu")) or DEFAULT_SWITCH_MTU
    all_ports, all_channels = switch_entries(model, switch)
    ports, port_channels = _kept(model, all_ports), _kept(model, all_channels)
    vlan_ids: dict[int, str] = {}
    # A leaving host's VLANs stay (on the peer link too) until its ports are released: the switch
    # layer runs before Kubernetes has let the host go.
    for member in switch_pair(model, switch):
        member_ports, member_channels = (all_ports, all_channels) if member == switch else switch_entries(model, member)
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
    member_ports = _member_ports(model, switch, platform, port_channels, peer_link)
    released = released_ports(model, switch)
    # A port the model gives to another host in the same edit is that host's, not unused.
    in_use = {entry["name"] for entry in ports + port_channels + member_ports}
    released = {"ports": [port for port in released["ports"] if port["name"] not in in_use],
                "port_channels": [channel for channel in released["port_channels"] if channel["name"] not in in_use]}
    return {
        "switch": switch,
        "platform": platform,
        "mtu": switch_mtu,
        "vlans": [{"id": vlan, "name": vlan_ids[vlan]} for vlan in sorted(vlan_ids)],
        "ports": ports,
        "port_channels": port_channels,
        "member_ports": member_ports,
        "peer_link": peer_link,
        "vpc": {"domain": domain, "peer": peer,
                "role_priority": as_int(vpc.get("role_priority")),
                "system_mac": system_mac,
                "keepalive_source": as_str(data.get("mgmt_address")),
                "keepalive_destination": as_str(peer_data.get("mgmt_address"))} if vpc else None,
        "roce": any(entry["pfc"] for entry in ports + port_channels),
        "released": released,
        # Harvest's read-only user, with NX-API, when the model has Harvest poll the switches (NX-OS only).
        "metrics_user": {"name": metrics["username"], "role": metrics["role"], "password_variable": metrics["password_variable"]}
        if (metrics := harvest.switch_account(model)) and platform == "nxos" else None,
    }


def cabling_plan(model: dict) -> list[dict]:
    """Every cable of the switch layer, once: switch port <-> host NIC, ONTAP port, peer switch port or uplink.

    Rows in switch then port order: {switch, port, kind (port | member | peer-link), channel,
    device, device_kind (host | ontap | switch), device_port, bundle, mode, vlans, native_vlan,
    speed, mtu, pfc, description}. A peer-link cable is listed from the pair's first switch only, an
    uplink cable (device_kind switch) from the pair that sorts first;
    vlans is the access VLAN or the trunk's allowed list. A port-channel member whose far-end
    member is unknown has device_port None and its bond or ifgrp in bundle.
    """
    with fabric_scope(model):
        return _cabling_plan(model)


def _cabling_plan(model: dict) -> list[dict]:
    rows: list[dict] = []
    for switch in hosts_of_kind(model, "switch"):
        plan = switch_plan(model, switch)
        channels = {c["id"]: c for c in plan["port_channels"]}
        for port in plan["ports"]:
            end = port["far_end"]
            # A storage bond's member names its bond, as a port-channel member names its interface group or bond.
            rows.append(_cable(switch, port["name"], "port", None, end.get("kind"), end.get("device"),
                               end.get("interface"), end.get("bond"), port, port["speed"], port["description"]))
        for member in plan["member_ports"]:
            end = member["far_end"]
            if member["peer_link"]:
                if switch_pair(model, switch)[0] != switch:
                    continue
                rows.append(_cable(switch, member["name"], "peer-link", member["channel_name"], "switch", end["device"],
                                   end["interface"], None, plan["peer_link"], None, member["description"]))
                continue
            if end.get("kind") == "switch" and _pair_order(model, end.get("device")) < _pair_order(model, switch):
                continue  # an uplink cable is listed from the pair that sorts first
            channel = channels[member["channel"]]
            rows.append(_cable(switch, member["name"], "member", member["channel_name"], end.get("kind"), end.get("device"),
                               end.get("interface"), end.get("bundle"), channel, member["speed"], member["description"]))
    rows.sort(key=lambda row: (natural_key(row["switch"]), natural_key(row["port"])))
    return rows


def _pair_order(model: dict, switch: Any) -> list:
    return [natural_key(name) for name in switch_pair(model, switch)] if isinstance(switch, str) else []


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


def hidden_texts(plan: dict) -> list[str]:
    """Where a switch plan holds a name or description with a hidden character (control, format,
    line or paragraph separator: aipod_site.characters).

    Such text would reach a switch CLI as more than one line (NX-OS sends a description as one
    configuration line). Validation refuses it in the model; the switch roles refuse the plan too.
    """
    entries = [("port", entry) for entry in plan.get("ports", [])]
    entries += [("port-channel", entry) for entry in plan.get("port_channels", [])]
    entries += [("member port", entry) for entry in plan.get("member_ports", [])]
    entries += [("peer link", plan["peer_link"])] if plan.get("peer_link") else []
    found = []
    for kind, entry in entries:
        for key in ("name", "description"):
            text = entry.get(key)
            if isinstance(text, str) and hidden_characters(text):
                found.append(f"{kind} {entry.get('name')!r}: {key} {text!r}")
    return found
