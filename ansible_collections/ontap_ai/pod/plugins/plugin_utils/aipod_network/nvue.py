"""NVUE intent: a switch plan as `nv set` commands for NVIDIA Spectrum switches on Cumulus Linux 5.

`commands(plan, options)` returns lines (`nv set ...`, arguments quoted for a POSIX shell, plus
`#` comments that stay one line whatever the model holds) that the switch_cumulus role stages in a
pending NVUE revision with the `nvue_stage` module, each as an argument list and never through a
shell, and applies with `nv config apply`. Written against the NVUE syntax of Cumulus Linux 5.9, the release of
NetApp's AIPod deployment guide (NVA-1173).

- VLANs live in the VLAN-aware bridge (br_default); NVUE has no VLAN names, so names are comments.
- What the model owns is replaced, not added to: a port's bridge membership, a bond's members, the
  PFC switch priorities and the MLAG backup are unset before they are set, in the same revision
  (NVUE's `nv set` adds to a collection; the diff against the applied revision shows only real
  changes). The bridge's VLAN list is only added to: a VLAN the model never had stays.
- A front-panel port whose breakout lanes (swpNsM) the model uses is broken out (`link breakout
  4x`, the smallest mode with every lane used) before its lanes are configured.
- Storage and DGX ports and bonds get the switch MTU (`link mtu`); access ports take one VLAN,
  trunks an allowed list. Host-facing ports are STP edge ports with BPDU guard; uplinks to another
  switch pair are not.
- Port-channels are LACP bonds with an MLAG id (the vPC id) and the peer link is the bond
  `peerlink`; MLAG peers over the peer link's link-local address, with the peer's management
  address as backup.
- Lossless RoCE is `nv set qos roce mode lossless`: PFC on switch priority 3, ECN on traffic
  class 3, DSCP trust, CNP on a strict-priority traffic class (NVIDIA's documented defaults);
  the PFC switch priority is also set explicitly (`nv set qos pfc default-global switch-priority`,
  the command NVIDIA documents for changing the lossless priority).
- The ports of a host in the group decommission are left out; release_commands() unsets them and
  brings them back as `description unused`, `link state down`, and unsets its bonds (docs/day2.md).
"""
from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network.model import UNUSED_DESCRIPTION, is_uplink
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network.vlans import compress
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.characters import is_hidden

DEFAULT_OPTIONS: dict[str, Any] = {
    "bridge": "br_default",
    "roce_mode": "lossless",
    "roce_priority": 3,
    "lacp_rate": "fast",
    "lacp_bypass": False,
    "mlag_backup_vrf": "mgmt",
    "lldp_dot1_tlv": True,
}


def _options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    merged = dict(DEFAULT_OPTIONS)
    merged.update({key: value for key, value in (options or {}).items() if value is not None})
    return merged


def _comment(*parts: Any) -> str:
    """A comment line that stays one line: hidden characters (aipod_site.characters) are written as escapes."""
    text = "".join(str(part) for part in parts)
    return "# " + "".join(char.encode("unicode_escape").decode("ascii") if is_hidden(char) else char for char in text)


def _nv(*words: Any, verb: str = "set") -> str:
    return f"nv {verb} " + " ".join(shlex.quote(str(word)) for word in words)


def _bridge_lines(name: str, entry: Mapping[str, Any], bridge: str, edge: bool) -> list[str]:
    # The port's bridge membership is the model's: unset, then set, in one revision. NVUE's sets add
    # to a collection, so a VLAN the model dropped would stay otherwise; the diff against the
    # applied revision still shows only what really changes.
    lines = [_nv("interface", name, "bridge", "domain", bridge, verb="unset")]
    if entry["mode"] == "access" and entry.get("access_vlan") is not None:
        lines.append(_nv("interface", name, "bridge", "domain", bridge, "access", entry["access_vlan"]))
    else:
        lines.append(_nv("interface", name, "bridge", "domain", bridge, "vlan", compress(entry.get("trunk_vlans") or [])))
        if entry.get("native_vlan") is not None:
            lines.append(_nv("interface", name, "bridge", "domain", bridge, "untagged", entry["native_vlan"]))
    if edge:
        lines.append(_nv("interface", name, "bridge", "domain", bridge, "stp", "admin-edge", "on"))
        lines.append(_nv("interface", name, "bridge", "domain", bridge, "stp", "bpdu-guard", "on"))
    return lines


_LANE = re.compile(r"^(swp\d+)s(\d+)$")


def breakout_modes(ports: list[str]) -> dict[str, str]:
    """Each front-panel port whose lanes (swpNsM, numbered from 0) the model uses, with the smallest
    NVUE breakout mode that has them all: 2x, 4x or 8x. The port map's validation has checked the lanes."""
    highest: dict[str, int] = {}
    for name in ports:
        match = _LANE.match(str(name))
        if match:
            highest[match[1]] = max(highest.get(match[1], 0), int(match[2]))
    modes = {}
    for parent, lane in sorted(highest.items(), key=lambda item: int(item[0][3:])):
        modes[parent] = next(f"{count}x" for count in (2, 4, 8) if lane < count) if lane < 8 else f"{lane + 1}x"
    return modes


def commands(plan: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> list[str]:
    """The NVUE configuration of one switch, in apply order."""
    opts = _options(options)
    bridge = opts["bridge"]
    lines = [_comment(plan["switch"], ": NVUE configuration derived from the site model")]
    names = ", ".join(f"{vlan['id']} {vlan['name']}" for vlan in plan["vlans"])
    lines.append(_comment("VLANs: ", names))
    if plan["vlans"]:
        lines.append(_nv("bridge", "domain", bridge, "vlan", compress(vlan["id"] for vlan in plan["vlans"])))
    if plan.get("roce"):
        lines.append("# RoCE: PFC (no-drop) on the RoCE switch priority, ECN, DSCP trust, CNP in a strict-priority class")
        lines.append(_nv("qos", "roce", "mode", opts["roce_mode"]))
        if opts["roce_mode"] == "lossless":
            lines.append(_nv("qos", "pfc", "default-global", "switch-priority", verb="unset"))
            lines.append(_nv("qos", "pfc", "default-global", "switch-priority", opts["roce_priority"]))
    if opts["lldp_dot1_tlv"]:
        lines.append(_nv("service", "lldp", "dot1-tlv", "on"))
    breakouts = breakout_modes([port["name"] for port in plan["ports"]] + [m["name"] for m in plan.get("member_ports", [])])
    for parent, mode in breakouts.items():
        lines.append(_comment(parent, ": broken out ", mode, " (the model uses its lanes)"))
        lines.append(_nv("interface", parent, "link", "breakout", mode))
    for port in plan["ports"]:
        lines.append(_comment(port["name"], ": ", port["description"]))
        lines.append(_nv("interface", port["name"], "description", port["description"]))
        lines.append(_nv("interface", port["name"], "link", "mtu", port["mtu"]))
        # Up, whatever an earlier owner or a release (`link state down`) left.
        lines.append(_nv("interface", port["name"], "link", "state", "up"))
        lines += _bridge_lines(port["name"], port, bridge, edge=True)
    members_of = {}
    for member in plan.get("member_ports", []):
        members_of.setdefault(member["channel_name"], []).append(member)
    for channel in plan["port_channels"]:
        name = channel["name"]
        lines.append(_comment(name, ": ", channel["description"]))
        lines.append(_nv("interface", name, "bond", "member", verb="unset"))
        for member in members_of.get(name, []):
            lines.append(_nv("interface", member["name"], "description", member["description"]))
            lines.append(_nv("interface", member["name"], "link", "mtu", member["mtu"]))
            lines.append(_nv("interface", member["name"], "link", "state", "up"))
            lines.append(_nv("interface", name, "bond", "member", member["name"]))
        lines.append(_nv("interface", name, "description", channel["description"]))
        lines.append(_nv("interface", name, "link", "mtu", channel["mtu"]))
        lines.append(_nv("interface", name, "bond", "lacp-rate", opts["lacp_rate"]))
        if opts["lacp_bypass"] and not is_uplink(channel):
            lines.append(_nv("interface", name, "bond", "lacp-bypass", "on"))
        if plan.get("vpc"):
            lines.append(_nv("interface", name, "bond", "mlag", "id", channel["vpc"]))
        lines += _bridge_lines(name, channel, bridge, edge=not is_uplink(channel))
    peer_link = plan.get("peer_link")
    vpc = plan.get("vpc")
    if peer_link and vpc:
        name = peer_link["name"]
        lines.append(_comment(name, ": ", peer_link["description"]))
        lines.append(_nv("interface", name, "bond", "member", verb="unset"))
        for member in members_of.get(name, []):
            lines.append(_nv("interface", member["name"], "description", member["description"]))
            lines.append(_nv("interface", member["name"], "link", "mtu", member["mtu"]))
            lines.append(_nv("interface", member["name"], "link", "state", "up"))
            lines.append(_nv("interface", name, "bond", "member", member["name"]))
        lines.append(_nv("interface", name, "description", peer_link["description"]))
        lines.append(_nv("interface", name, "link", "mtu", peer_link["mtu"]))
        lines.append(_nv("interface", name, "bridge", "domain", bridge))
        lines.append("# MLAG: peers over the peer link, management addresses as backup")
        if vpc.get("system_mac"):
            lines.append(_nv("mlag", "mac-address", vpc["system_mac"]))
        lines.append(_nv("mlag", "peer-ip", "linklocal"))
        if vpc.get("keepalive_destination"):
            lines.append(_nv("mlag", "backup", verb="unset"))
            lines.append(_nv("mlag", "backup", vpc["keepalive_destination"], "vrf", opts["mlag_backup_vrf"]))
        if vpc.get("role_priority") is not None:
            lines.append(_nv("mlag", "priority", vpc["role_priority"]))
    return lines


def release_commands(plan: Mapping[str, Any]) -> list[str]:
    """The ports of decommissioned hosts back to the unused configuration (docs/day2.md).

    Their bonds are removed (the MLAG id with them) and each port keeps nothing but the
    description `unused` and link state down. [] when no port is released. Staged and applied
    apart from commands(), once the hosts have left Kubernetes (playbooks/layers/release.yml).
    """
    released = plan.get("released") or {}
    lines = []
    if released.get("ports") or released.get("port_channels"):
        lines.append("# ports of decommissioned hosts: back to the unused configuration")
    for channel in released.get("port_channels") or []:
        lines.append(_nv("interface", channel["name"], verb="unset"))
    for port in released.get("ports") or []:
        lines.append(_nv("interface", port["name"], verb="unset"))
        lines.append(_nv("interface", port["name"], "description", UNUSED_DESCRIPTION))
        lines.append(_nv("interface", port["name"], "link", "state", "down"))
    return lines
