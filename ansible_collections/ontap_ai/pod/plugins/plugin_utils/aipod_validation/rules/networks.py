"""Rules of the networks: sane subnets, VLANs and routes; every address unique and inside its network."""
from __future__ import annotations

import ipaddress

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.rule_context import Context


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
            elif "via" in route and _address_problem(via, loose, None):
                ctx.error("route", path + ("routes", route_index, "via"), f"next hop {via} {_address_problem(via, loose, None)}",
                          f"use a host address of {loose}")
            destination = route.get("to")
            if isinstance(destination, str) and m.parse_subnet(destination, strict=True) is None:
                loose_to = m.parse_subnet(destination)
                ctx.error("route", path + ("routes", route_index, "to"),
                          f"{destination!r} is not a network address" + (f": it has host bits set and means {loose_to}" if loose_to else ""),
                          f"write the destination as {loose_to}" if loose_to else "write the destination as a.b.c.0/len")


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
    return [(a["address"], a["network"], a["path"], a["what"]) for a in m.address_assignments(ctx.model)]


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


def _routers(ctx: Context) -> dict[ipaddress.IPv4Address, str]:
    """Gateways and routes' next hops of every network: addresses no interface of the pod may take."""
    routers: dict[ipaddress.IPv4Address, str] = {}
    for name, network in ctx.networks.items():
        gateway = m.parse_address(network.get("gateway"))
        if gateway is not None:
            routers.setdefault(gateway, f"the gateway of network '{name}'")
        for route in m.as_list(network.get("routes")):
            via = m.parse_address(m.as_dict(route).get("via"))
            if via is not None:
                routers.setdefault(via, f"the next hop of a route of network '{name}'")
    return routers


def addresses_in_subnets(ctx: Context) -> None:
    """Every address lies in its network, and is not that network's network, broadcast or gateway address,
    nor any network's gateway or route next hop.

    A management address (ONTAP cluster and node management, switch, DGX and server management)
    names no network: its network is the declared mgmt (else inband) network whose subnet holds it.
    """
    routers = _routers(ctx)
    for address_text, network_name, path, what in _addresses(ctx):
        address = m.parse_address(address_text)
        if address is None:
            continue
        if network_name is None:
            network_name = m.management_network(ctx.model, address)
            if network_name is None:
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
        elif address in routers:
            ctx.error("duplicate-address", path, f"{address} ({what}) is {routers[address]}",
                      f"use a free host address of {subnet}")
