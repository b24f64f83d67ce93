"""Rules of the switches: ports used once and matching their far end, and vPC/MLAG pairs."""
from __future__ import annotations

from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import model as network_model
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import platforms
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.rule_context import Context, host_path

JUMBO_SWITCH_MTU = 9216  # a 9000-byte host MTU plus headers, tags and FCS fits in 9216 on the switch


def switch_ports(ctx: Context) -> None:
    """Switch ports are used once, lead to declared devices, and carry the VLANs and MTU of the far end."""
    cabled: dict[tuple[str, str], tuple] = {}
    for switch, data in ctx.switches.items():
        used: dict[str, tuple] = {}
        platform = data.get("platform")
        prefix = {"nxos": "Ethernet", "cumulus": "swp"}.get(platform)

        whole: dict[tuple[int, int], tuple[str, tuple]] = {}  # (module, port) -> (name, path) of a port used unbroken
        lanes: dict[tuple[int, int], tuple[str, tuple]] = {}  # ... of the first breakout lane used

        def use(port: Any, path: tuple) -> None:
            if not isinstance(port, str):
                return
            identity = platforms.port_identity(platform, port)
            if identity is not None and platforms.port_name(platform, identity) != port:
                ctx.error("switch-port", path, f"{switch} port {port} is written with leading zeros; the switch shows it as "
                          f"{platforms.port_name(platform, identity)}", f"write {platforms.port_name(platform, identity)}")
                port = platforms.port_name(platform, identity)
            if port in used:
                ctx.error("switch-port", path, f"{switch} port {port} is used twice (also at {ctx.site.locate(used[port])})",
                          "use each port once: as a port, a port-channel member or a peer-link member")
            used.setdefault(port, path)
            if identity is not None:
                parent = identity[:2]
                mine, other = (lanes, whole) if identity[2] is not None else (whole, lanes)
                if parent in other and other[parent][0] != port:
                    name, where = other[parent]
                    ctx.error("switch-port", path, f"{switch} uses {port} and {name} ({ctx.site.locate(where)}): a port is "
                              "either broken out into lanes or used whole, not both",
                              "use the lanes of a broken-out port, or the port whole")
                mine.setdefault(parent, (port, path))
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
        ports, channels = network_model.switch_entries(ctx.model, switch)
        entries = [m.as_dict(p) for p in m.as_list(data.get("ports")) if m.as_str(m.as_dict(p).get("name"))]
        channel_entries = [m.as_dict(c) for c in m.as_list(data.get("port_channels")) if m.as_int(m.as_dict(c).get("id")) is not None]
        raw_index = {id(entry): i for i, entry in enumerate(m.as_list(data.get("ports")))}
        raw_channel_index = {id(entry): i for i, entry in enumerate(m.as_list(data.get("port_channels")))}
        short = []
        for settled, entry in zip(ports, entries):
            short.append(_check_port_settings(ctx, switch, settled, entry, host_path(switch, "switch", "ports", raw_index.get(id(entry), 0))))
        for settled, entry in zip(channels, channel_entries):
            short.append(_check_port_settings(ctx, switch, settled, entry, host_path(switch, "switch", "port_channels", raw_channel_index.get(id(entry), 0))))
        short = [entry for entry in short if entry]
        if short:
            switch_mtu = m.as_int(data.get("mtu")) or network_model.DEFAULT_SWITCH_MTU
            wanted = max(required for _name, required in short)
            ctx.error("mtu", host_path(switch, "switch", "mtu"),
                      f"switch MTU {switch_mtu} is below what the far ends of these ports send "
                      f"({wanted} for jumbo MTU 9000 paths): {', '.join(name for name, _required in short)}",
                      f"set mtu: {wanted}")


def _check_far_end(ctx: Context, switch: str, entry: dict, path: tuple, cabled: dict, bundle: bool) -> None:
    target = m.as_dict(entry.get("connects_to"))
    end = network_model.far_end(ctx.model, target, switch)
    if end is None:
        return
    if end["kind"] == "switch":
        _check_uplink(ctx, switch, entry, end, path, bundle)
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
        if end.get("storage_bond"):
            members = m.host_interfaces(ctx.model, end["device"])[end["interface"]].get("members") or []
            ctx.error("switch-port", path + ("connects_to", "nic"),
                      f"{end['description']} is an active-backup storage bond: its members are cabled, not the bond",
                      f"connect {' and '.join(members) or 'its members'}, each to a plain port, one on each switch of the pair")
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


def _check_uplink(ctx: Context, switch: str, entry: dict, end: dict, path: tuple, bundle: bool) -> None:
    """An uplink is a port-channel to a port-channel of another pair that names this pair back."""
    far = end["device"]
    target = path + ("connects_to", "switch")
    if far not in ctx.switches:
        ctx.error("dangling-reference", target, f"uplink to '{far}', which is not a declared switch",
                  f"use one of {', '.join(s for s in ctx.switches if s != switch)}")
        return
    if not bundle:
        ctx.error("switch-port", path + ("connects_to",), f"plain port leads to switch {far}",
                  "an uplink to another switch pair is a port-channel (a vPC/MLAG bond across each pair)")
        return
    near_pair = network_model.switch_pair(ctx.model, switch)
    if far in near_pair:
        ctx.error("switch-port", target, f"uplink from {switch} to {far}, its own pair",
                  "the peer link joins a pair; an uplink joins this pair to another")
        return
    if not end["resolved"]:
        ctx.error("dangling-reference", path + ("connects_to", "port_channel"),
                  f"{far} has no port-channel {end['channel']} for this uplink",
                  f"declare port-channel {end['channel']} in host_vars/{far}.yml, connected back to this pair")
        return
    far_channel = next((m.as_dict(c) for c in m.as_list(ctx.switches[far].get("port_channels"))
                        if m.as_int(m.as_dict(c).get("id")) == end["channel"]), {})
    back = m.as_dict(far_channel.get("connects_to"))
    if back.get("switch") not in near_pair or m.as_int(back.get("port_channel")) != m.as_int(entry.get("id")):
        ctx.error("switch-port", path + ("connects_to",),
                  f"{far} port-channel {end['channel']} does not lead back here "
                  f"(it names {back.get('switch')} port-channel {back.get('port_channel')})",
                  f"set its connects_to to {{switch: {switch}, port_channel: {entry.get('id')}}}")
        return
    if switch != near_pair[0]:
        return  # the pair's members are counted once, from its first switch
    near_members = _pair_channel_members(ctx, near_pair, m.as_int(entry.get("id")))
    far_members = _pair_channel_members(ctx, network_model.switch_pair(ctx.model, far), end["channel"])
    if near_members != far_members:
        ctx.error("switch-port", path + ("members",),
                  f"the uplink has {near_members} member port(s) on {'/'.join(near_pair)} but {far_members} on "
                  f"{'/'.join(network_model.switch_pair(ctx.model, far))}: a cable has two ends",
                  "give the port-channel as many members on this pair as on the far one")


def _pair_channel_members(ctx: Context, pair: list[str], channel_id: int | None) -> int:
    return sum(len(m.as_list(m.as_dict(c).get("members"))) for switch in pair
               for c in m.as_list(ctx.switches.get(switch, {}).get("port_channels"))
               if m.as_int(m.as_dict(c).get("id")) == channel_id)


def _check_port_settings(ctx: Context, switch: str, settled: dict, entry: dict, path: tuple) -> tuple[str, int] | None:
    """Checks one port or port-channel; returns (its name, the MTU it needs) when it inherits a switch
    MTU below what its far end sends."""
    end = network_model.far_end(ctx.model, entry.get("connects_to"), switch) or {}
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
    # The host's NIC takes its network's MTU; the port must pass that frame, and jumbo paths get the
    # switch's full 9216 as the design guides set it.
    required = JUMBO_SWITCH_MTU if needed > 1500 else needed
    if settled["mtu"] < required:
        if "mtu" in entry:
            ctx.error("mtu", path + ("mtu",),
                      f"{settled['name']} has MTU {settled['mtu']} but {end.get('description')} sends {needed}-byte frames"
                      + (f"; jumbo paths need {JUMBO_SWITCH_MTU} on the switch" if needed > 1500 else ""),
                      f"set this port's mtu to {required} (or drop it to use the switch's)")
        else:
            return settled["name"], required
    return None


def nxos_descriptions(ctx: Context) -> None:
    """NX-OS descriptions are printable ASCII without '?': the CLI that network_cli types into answers
    '?' with help wherever it stands, and NX-OS stores ASCII only."""
    for switch, data in ctx.switches.items():
        if data.get("platform") != "nxos":
            continue
        for kind in ("ports", "port_channels"):
            for index, entry in enumerate(m.as_list(data.get(kind))):
                text = m.as_dict(entry).get("description")
                if not isinstance(text, str):
                    continue
                bad = sorted({char for char in text if char == "?" or not " " <= char <= "~"})
                if bad:
                    shown = ", ".join(repr(char) if char == "?" else f"U+{ord(char):04X}" for char in bad)
                    ctx.error("switch-text", host_path(switch, "switch", kind, index, "description"),
                              f"this NX-OS description holds {shown}: NX-OS takes printable ASCII, and its CLI answers '?' "
                              "with help instead of taking it as text",
                              "write the description with printable ASCII characters other than '?'")


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
        mine = network_model.switch_entries(ctx.model, switch)[1]
        theirs = network_model.switch_entries(ctx.model, peer)[1]
        their_by_vpc = {c["vpc"]: c for c in theirs}
        for index, channel in enumerate(mine):
            other = their_by_vpc.get(channel["vpc"])
            raw_index = next((i for i, c in enumerate(m.as_list(data.get("port_channels")))
                              if m.as_dict(c).get("id") == channel["id"]), index)
            channel_path = host_path(switch, "switch", "port_channels", raw_index)
            if other is None:
                ctx.error("vpc", channel_path, f"vPC {channel['vpc']} ({channel['description']}) exists on {switch} but not on its peer {peer}",
                          f"add the matching port-channel with vpc {channel['vpc']} to host_vars/{peer}.yml")
            elif _far_key(other) != _far_key(channel):
                ctx.error("vpc", channel_path, f"vPC {channel['vpc']} leads to {channel['description']} here but to {other['description']} on {peer}",
                          "a vPC joins both peers to the same bond or interface group")


def _far_key(channel: dict) -> tuple:
    """What a vPC port-channel leads to: a bond or ifgrp, or (an uplink) the far pair's port-channel."""
    end = channel["far_end"]
    return (end.get("pair") if end.get("kind") == "switch" else end.get("device"), end.get("interface"))


def switch_fabric(ctx: Context) -> None:
    """Across switch pairs: ports exist on the switch model, each pair has its own vPC/MLAG domain,
    a bond or interface group hangs off one pair, and the uplinks join the pairs without a loop,
    every pair that carries a network reaching the others that do."""
    for switch, data in ctx.switches.items():
        ports = platforms.port_map(data.get("platform"), data.get("model"))
        vpc = m.as_dict(data.get("vpc"))
        named = [(("vpc", "peer_link", "members", i), port) for i, port in enumerate(m.as_list(m.as_dict(vpc.get("peer_link")).get("members")))]
        for index, channel in enumerate(m.as_list(data.get("port_channels"))):
            named += [(("port_channels", index, "members", i), port) for i, port in enumerate(m.as_list(m.as_dict(channel).get("members")))]
        named += [(("ports", index, "name"), m.as_dict(port).get("name")) for index, port in enumerate(m.as_list(data.get("ports")))]
        for where, port in named:
            problem = platforms.port_problem(data.get("platform"), port, ports)
            if problem:
                ctx.error("switch-port", host_path(switch, "switch", *where), f"{switch} has no port {port}: {problem}",
                          "use a port the switch has, or add a switch pair for more ports (docs/network.md, \"Several switch pairs\")")
    pairs: dict[tuple[str, ...], str] = {}
    for switch in ctx.switches:
        pairs.setdefault(tuple(network_model.switch_pair(ctx.model, switch)), switch)
    _unique_domains(ctx, pairs)
    _bundles_on_one_pair(ctx)
    _loop_free_and_joined(ctx, pairs)


def _unique_domains(ctx: Context, pairs: dict[tuple[str, ...], str]) -> None:
    domains: dict[Any, tuple[str, ...]] = {}
    macs: dict[str, tuple[str, ...]] = {}
    for pair, switch in pairs.items():
        if len(pair) < 2:
            continue
        plan_vpc = network_model.switch_plan(ctx.model, switch)["vpc"] or {}
        domain, mac = plan_vpc.get("domain"), plan_vpc.get("system_mac")
        path = host_path(switch, "switch", "vpc", "domain")
        if domain is not None and domain in domains:
            ctx.error("vpc", path, f"pair {'/'.join(pair)} uses vPC/MLAG domain {domain}, as pair {'/'.join(domains[domain])} does",
                      "give each switch pair its own domain")
        domains.setdefault(domain, pair)
        if mac and macs.get(mac, pair) != pair:
            ctx.error("vpc", host_path(switch, "switch", "vpc", "system_mac"),
                      f"pair {'/'.join(pair)} has MLAG system MAC {mac}, as pair {'/'.join(macs[mac])} does",
                      "give each pair its own system_mac (or its own domain, from which the MAC is derived)")
        if mac:
            macs.setdefault(mac, pair)


def _bundles_on_one_pair(ctx: Context) -> None:
    seen: dict[tuple[str, str], tuple[tuple[str, ...], tuple]] = {}
    for switch, data in ctx.switches.items():
        pair = tuple(network_model.switch_pair(ctx.model, switch))
        for index, channel in enumerate(m.as_list(data.get("port_channels"))):
            target = m.as_dict(m.as_dict(channel).get("connects_to"))
            device = target.get("host") or target.get("ontap_node")
            interface = target.get("nic") or target.get("port")
            if not isinstance(device, str) or not isinstance(interface, str):
                continue
            path = host_path(switch, "switch", "port_channels", index, "connects_to")
            first = seen.setdefault((device, interface), (pair, path))
            if first[0] != pair:
                ctx.error("switch-port", path, f"{device} {interface} is bundled on pair {'/'.join(pair)} and on pair "
                          f"{'/'.join(first[0])} ({ctx.site.locate(first[1])})",
                          "a bond or interface group spans the two switches of one pair only")


def _loop_free_and_joined(ctx: Context, pairs: dict[tuple[str, ...], str]) -> None:
    graph = network_model.pair_links(ctx.model)
    for (near, far), ids in sorted(network_model.uplink_channels(ctx.model).items()):
        if len(ids) > 1 and near < far:
            ctx.error("switch-port", host_path(near[0], "switch", "port_channels"),
                      f"pairs {'/'.join(near)} and {'/'.join(far)} are joined by port-channels {', '.join(map(str, sorted(ids)))}: "
                      "two links between two pairs form a loop",
                      "make them one port-channel with more members")
    links = {frozenset((a, b)) for a, neighbours in graph.items() for b in neighbours}
    components: list[set[tuple[str, ...]]] = []
    for pair in graph:
        if any(pair in component for component in components):
            continue
        component, stack = {pair}, [pair]
        while stack:
            for neighbour in graph.get(stack.pop(), ()):
                if neighbour not in component:
                    component.add(neighbour)
                    stack.append(neighbour)
        components.append(component)
        inner = [link for link in links if link <= component]
        if len(inner) >= len(component):
            ctx.error("switch-port", host_path(pairs.get(pair, pair[0]), "switch", "port_channels"),
                      f"the uplinks between pairs {', '.join('/'.join(p) for p in sorted(component))} form a loop",
                      "join the pairs as a tree (each leaf pair to one spine pair, or two pairs back to back): "
                      "the bundle configures no spanning tree to break a loop")
    edges = network_model.edge_networks(ctx.model)
    index_of = {m.as_str(m.as_dict(n).get("name")): i for i, n in enumerate(m.as_list(ctx.model.get("networks")))}
    for network in sorted({n for networks in edges.values() for n in networks}):
        carrying = [pair for pair, networks in edges.items() if network in networks]
        joined = {next(i for i, component in enumerate(components) if pair in component) for pair in carrying}
        if len(joined) > 1:
            ctx.error("switch-port", ("networks", index_of.get(network, 0)),
                      f"network {network} has ports on pairs {', '.join('/'.join(p) for p in carrying)}, which no uplink joins",
                      "add an uplink port-channel between the pairs (or a spine pair both uplink to)")


def _cabling(ctx: Context) -> tuple[dict[tuple[str, str], str], dict[str, set[str]]]:
    """(host, NIC) -> the switch whose plain port it is cabled to; network -> the switches ONTAP reaches it through."""
    cabled: dict[tuple[str, str], str] = {}
    ontap_switches: dict[str, set[str]] = {}
    for switch, data in ctx.switches.items():
        for port in m.as_list(data.get("ports")):
            target = m.as_dict(m.as_dict(port).get("connects_to"))
            if isinstance(target.get("host"), str) and isinstance(target.get("nic"), str):
                cabled.setdefault((target["host"], target["nic"]), switch)
        for port in m.as_list(data.get("ports")) + m.as_list(data.get("port_channels")):
            end = network_model.far_end(ctx.model, m.as_dict(port).get("connects_to"), switch)
            if end and end["kind"] == "ontap":
                for network, _tagged in end["memberships"]:
                    ontap_switches.setdefault(network, set()).add(switch)
    return cabled, ontap_switches


def storage_nic_cabling(ctx: Context) -> None:
    """Every storage NIC of a DGX on a network ONTAP reaches through the switches is cabled to a switch
    port, as bond members must be; a NIC cabled outside the model says so (cabled_outside_model: true)."""
    if not ctx.switches:
        return
    cabled, ontap_switches = _cabling(ctx)
    for host, data in ctx.dgx.items():
        for index, nic in enumerate(m.as_list(data.get("storage_nics"))):
            nic = m.as_dict(nic)
            name, network = m.as_str(nic.get("name")), m.as_str(nic.get("network"))
            if not name or network not in ontap_switches or nic.get("cabled_outside_model") is True:
                continue
            if (host, name) not in cabled:
                ctx.error("switch-port", host_path(host, "dgx", "storage_nics", index, "name"),
                          f"storage NIC {name} of {host} is on network {network}, which the switches serve, and is cabled "
                          "to no switch port", "add a port for it on the switch its cable reaches (connects_to: {host, nic}), "
                          "or set cabled_outside_model: true on the NIC where the model does not hold its switch")


def storage_bonds(ctx: Context) -> None:
    """A storage bond's members are each cabled to a plain port, one on each switch of one vPC/MLAG pair, and
    per pair the primaries are spread over its two switches (their counts differ by one at most), as
    NVA-1173 distributes them. A bond whose network reaches ONTAP on one switch only is a warning: the
    hosts whose primary is on the other send all their storage traffic over the peer link. A model
    without switches (the VM lab's pod) has no cabling to check."""
    if not ctx.switches:
        return
    cabled, ontap_switches = _cabling(ctx)
    leaving = set(m.group_members(ctx.model, "decommission"))
    spread: dict[tuple[str, ...], dict[str, list[tuple]]] = {}
    networks_of_pair: dict[tuple[str, ...], set[str]] = {}
    for host, data in ctx.dgx.items():
        for index, bond in enumerate(m.as_list(data.get("storage_bonds"))):
            bond, path = m.as_dict(bond), host_path(host, "dgx", "storage_bonds", index)
            members = [member for member in m.as_list(bond.get("members")) if isinstance(member, str)]
            if len(members) != 2 or bond.get("primary") not in members:
                continue  # the schema and host_nics report these
            where = {member: cabled.get((host, member)) for member in members}
            for position, member in enumerate(members):
                if where[member] is None:
                    ctx.error("storage-bond", path + ("members", position), f"member {member} of bond {bond.get('name')} of {host} is cabled to no switch port",
                              "add a plain port for it (connects_to: {host, nic}) on the switch its cable reaches")
            if None in where.values():
                continue
            first, second = (where[member] for member in members)
            pair = tuple(network_model.switch_pair(ctx.model, first))
            if first == second or second not in pair:
                ctx.error("storage-bond", path + ("members",),
                          f"bond {bond.get('name')} of {host} has both members on "
                          + (first if first == second else f"{first} and {second}, which are not one vPC/MLAG pair"),
                          "cable one member to each switch of a pair, so that the storage path survives a switch")
                continue
            if isinstance(bond.get("network"), str):
                networks_of_pair.setdefault(pair, set()).add(bond["network"])
            if host not in leaving:
                spread.setdefault(pair, {switch: [] for switch in pair})[where[bond["primary"]]].append((host, bond.get("name"), path))
    for pair, by_switch in sorted(spread.items()):
        heavy, light = sorted(pair, key=lambda switch: -len(by_switch[switch]))
        excess = len(by_switch[heavy]) - len(by_switch[light])
        if excess > 1:
            movers = by_switch[heavy][-(excess // 2):]
            ctx.error("storage-bond", movers[0][2] + ("primary",),
                      f"{len(by_switch[heavy])} storage bonds on {'/'.join(pair)} have their primary on {heavy} and "
                      f"{len(by_switch[light])} on {light}; NVA-1173 spreads the primaries over both switches",
                      f"make the member cabled to {light} the primary of {', '.join(f'{host} {name}' for host, name, _path in movers)}")
    for pair, networks in sorted(networks_of_pair.items()):
        for network in sorted(networks):
            reached = ontap_switches.get(network, set()) & set(pair)
            if len(reached) == 1:
                [only] = reached
                ctx.warning("storage-bond", ("networks",),
                            f"network '{network}' of the storage bonds on {'/'.join(pair)} reaches ONTAP on {only} only: "
                            "the bonds whose primary is on the other switch send their storage traffic over the peer link",
                            f"cable ONTAP data ports of '{network}' to both switches of {'/'.join(pair)}")
