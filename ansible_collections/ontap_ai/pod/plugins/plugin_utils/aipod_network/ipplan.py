"""The IP plan for people: every network with its VLAN, subnet, gateway and MTU, every address the
model holds or derives, and the free ranges left, as Markdown and CSV.

Pure formatting over aipod_site.model.address_assignments; deterministic, so the sample's files
can be committed and compared.
"""
from __future__ import annotations

import csv
import io
import ipaddress
from collections.abc import Mapping
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.model import (
    address_assignments,
    as_dict,
    as_list,
    management_network,
    networks_by_name,
    parse_address,
    parse_subnet,
)

CSV_COLUMNS = ("network", "purpose", "vlan", "subnet", "gateway", "mtu", "role", "address", "last_address", "count",
               "device", "interface", "key")


def model_key(path: tuple) -> str:
    """('hosts', 'dgx01', 'dgx', 'storage_nics', 0, 'address') -> hosts.dgx01.dgx.storage_nics[0].address"""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _free_ranges(subnet: ipaddress.IPv4Network, used: set[int]) -> list[tuple[str, str, int]]:
    """(first, last, count) of every run of host addresses of the subnet that nothing uses."""
    if subnet.prefixlen >= 31:
        first, last = int(subnet.network_address), int(subnet.broadcast_address)
    else:
        first, last = int(subnet.network_address) + 1, int(subnet.broadcast_address) - 1
    ranges = []
    start = first
    for taken in sorted(u for u in used if first <= u <= last):
        if taken > start:
            ranges.append((start, taken - 1))
        start = max(start, taken + 1)
    if start <= last:
        ranges.append((start, last))
    return [(str(ipaddress.IPv4Address(a)), str(ipaddress.IPv4Address(b)), b - a + 1) for a, b in ranges]


def ip_plan(model: Mapping[str, Any]) -> dict:
    """{networks: [{name, purpose, vlan, subnet, gateway, mtu, entries, free}], unplaced: [entry]}.

    An entry is {address, role (gateway, next hop or interface), device, interface, key, derived};
    entries sort by address. A management address joins the mgmt (else inband) network whose subnet
    holds it; an address in no declared network is listed under unplaced (validation refuses it).
    """
    model = dict(model)
    networks = networks_by_name(model)
    plan = {name: {"name": name, "purpose": network.get("purpose"), "vlan": network.get("vlan"),
                   "subnet": network.get("subnet"), "gateway": network.get("gateway"), "mtu": network.get("mtu"),
                   "entries": [], "free": []}
            for name, network in networks.items()}
    for name, network in networks.items():
        if parse_address(network.get("gateway")):
            plan[name]["entries"].append({"address": network["gateway"], "role": "gateway", "device": "",
                                          "interface": "", "key": f"networks.{name}.gateway", "derived": False})
        for index, route in enumerate(as_list(network.get("routes"))):
            via = as_dict(route).get("via")
            if parse_address(via):
                plan[name]["entries"].append({"address": via, "role": "next hop", "device": "",
                                              "interface": f"route to {as_dict(route).get('to')}",
                                              "key": f"networks.{name}.routes[{index}].via", "derived": False})
    unplaced = []
    for assignment in address_assignments(model):
        address = parse_address(assignment["address"])
        name = assignment["network"]
        if name is None and address is not None:
            name = management_network(model, address)
        entry = {"address": assignment["address"], "role": "interface", "device": str(assignment["device"] or ""),
                 "interface": str(assignment["interface"] or ""), "key": model_key(assignment["path"]),
                 "derived": assignment["derived"]}
        (plan[name]["entries"] if name in plan else unplaced).append(entry)
    for network in plan.values():
        network["entries"].sort(key=lambda e: (int(parse_address(e["address"]) or 0), e["role"] != "gateway"))
        subnet = parse_subnet(network["subnet"], strict=False)
        if subnet is not None:
            used = {int(a) for a in (parse_address(e["address"]) for e in network["entries"]) if a is not None}
            network["free"] = _free_ranges(subnet, used)
    return {"networks": list(plan.values()), "unplaced": unplaced}


def _vlan(network: Mapping[str, Any]) -> str:
    return str(network["vlan"]) if network.get("vlan") is not None else "untagged"


def _key(entry: Mapping[str, Any]) -> str:
    return f"derived from {entry['key']}" if entry["derived"] else entry["key"]


def markdown(plan: Mapping[str, Any], title: str) -> str:
    """A summary table of the networks, then per network its addresses and free ranges."""
    lines = [f"# IP plan: {title}", "",
             "Generated from the site model by `playbooks/cabling.yml`; edit the inventory, not this file.",
             "Each address names the model key that holds it; data LIFs handed out from a first address",
             "say so. Free ranges are the network's host addresses that nothing in the model uses.", "",
             "| Network | Purpose | VLAN | Subnet | Gateway | MTU | Used | Free |",
             "|---|---|---|---|---|---|---|---|"]
    for network in plan["networks"]:
        used = sum(1 for e in network["entries"] if e["role"] == "interface")
        free = sum(count for _first, _last, count in network["free"])
        lines.append(f"| {network['name']} | {network['purpose']} | {_vlan(network)} | {network['subnet']} | "
                     f"{network['gateway'] or '-'} | {network['mtu'] or '-'} | {used} | {free} |")
    lines.append("")
    for network in plan["networks"]:
        lines += [f"## {network['name']}", "",
                  f"{network['purpose']} network {network['subnet']}, VLAN {_vlan(network)}, MTU {network['mtu'] or '-'}"
                  + (f", gateway {network['gateway']}" if network.get("gateway") else "") + ".", "",
                  "| Address | Role | Device | Interface | Model key |", "|---|---|---|---|---|"]
        for entry in network["entries"]:
            lines.append(f"| {entry['address']} | {entry['role']} | {entry['device'] or '-'} | {entry['interface'] or '-'} | "
                         f"`{_key(entry)}` |")
        ranges = [first if count == 1 else f"{first} – {last} ({count})" for first, last, count in network["free"]]
        lines += ["", "Free: " + (", ".join(ranges) if ranges else "none") + ".", ""]
    if plan["unplaced"]:
        lines += ["## In no declared network", "", "| Address | Device | Interface | Model key |", "|---|---|---|---|"]
        lines += [f"| {e['address']} | {e['device'] or '-'} | {e['interface'] or '-'} | `{_key(e)}` |" for e in plan["unplaced"]]
        lines.append("")
    return "\n".join(lines)


def csv_text(plan: Mapping[str, Any]) -> str:
    """One line per address and one per free range (role 'free', with its last address and count)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for network in plan["networks"]:
        head = [network["name"], network["purpose"], _vlan(network), network["subnet"], network["gateway"] or "",
                network["mtu"] or ""]
        for entry in network["entries"]:
            writer.writerow(head + [entry["role"], entry["address"], "", 1, entry["device"], entry["interface"], _key(entry)])
        for first, last, count in network["free"]:
            writer.writerow(head + ["free", first, last, count, "", "", ""])
    for entry in plan["unplaced"]:
        writer.writerow(["", "", "", "", "", "", entry["role"], entry["address"], "", 1, entry["device"],
                         entry["interface"], _key(entry)])
    return buffer.getvalue()
