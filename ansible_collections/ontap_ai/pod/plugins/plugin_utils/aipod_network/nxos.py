"""NX-OS intent: a switch plan in the terms of the cisco.nxos modules, plus the QoS text.

`intent(plan, options)` returns the `config` of each resource module the switch_nxos role calls
(nxos_vlans, nxos_interfaces, nxos_l2_interfaces, nxos_lag_interfaces, nxos_lacp_interfaces),
the arguments of nxos_feature, nxos_vpc and nxos_vpc_interface, and two configuration blocks
for nxos_config: the system QoS (class-maps, policy-maps, `system qos`) and the per-port lines
no resource module covers (PFC, spanning-tree port type). The blocks are written the way
`show running-config` prints them, so nxos_config's line diff finds nothing on a second run.

QoS design (lossless RoCE, DSCP trust): traffic marked DSCP roce_dscp is RoCE and goes to
qos-group roce_cos, a no-drop class (`pause pfc-cos`) with ECN marking (WRED `ecn`) on its
queue; congestion notification packets (DSCP cnp_dscp) go to qos-group cnp_qos_group, served
by a strict-priority queue. Jumbo needs two places on NX-OS: `mtu` in every network-qos class,
class-default included, and `mtu` on every interface.
"""
from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network.model import UNUSED_DESCRIPTION, is_uplink
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network.nxos_users import pending_users
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network.vlans import compress, expand

Item = dict[str, Any]
pending_item = aipod_pending.item

DEFAULT_OPTIONS: dict[str, Any] = {
    "roce_cos": 3,
    "roce_dscp": 26,
    "cnp_dscp": 48,
    "cnp_qos_group": 2,
    "ecn_min_kbytes": 150,
    "ecn_max_kbytes": 1500,
    "ecn_drop_probability": 7,
    "roce_bandwidth_percent": 50,
    "qos_prefix": "AIPOD",
    "lacp_rate": "fast",
    "lacp_suspend_individual": False,
    "vpc_peer_gateway": True,
    "vpc_auto_recovery": True,
    "vpc_keepalive_vrf": "management",
}
# Queues of NX-OS's default 4-queue mode; a queuing policy must name all of them.
QUEUE_GROUPS = (3, 2, 1, 0)


def _options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    merged = dict(DEFAULT_OPTIONS)
    merged.update({key: value for key, value in (options or {}).items() if value is not None})
    return merged


# A class-map or policy-map name NX-OS takes as one word; the longest suffix is -QUEUING-OUT.
POLICY_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,27}")


def policy_names(options: Mapping[str, Any] | None = None) -> dict[str, str]:
    """Names of the class-maps and policy-maps the role owns."""
    prefix = _options(options)["qos_prefix"]
    if not isinstance(prefix, str) or not POLICY_PREFIX.fullmatch(prefix):
        raise ValueError(f"qos_prefix must be a letter then up to 27 letters, digits, '_' or '-' "
                         f"({len(str(prefix))} characters given, not shown)")
    return {
        "roce_class": f"{prefix}-ROCE",
        "cnp_class": f"{prefix}-CNP",
        "classify_policy": f"{prefix}-QOS-IN",
        "nq_roce_class": f"{prefix}-NQ-ROCE",
        "nq_cnp_class": f"{prefix}-NQ-CNP",
        "network_qos_policy": f"{prefix}-NQ",
        "queuing_policy": f"{prefix}-QUEUING-OUT",
    }


def _queue(group: int) -> str:
    return "c-out-q-default" if group == 0 else f"c-out-q{group}"


def qos_config(plan: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> str:
    """The system QoS block: DSCP classification, no-drop network-qos with jumbo MTU, ECN queuing."""
    opts = _options(options)
    names = policy_names(opts)
    mtu = plan["mtu"]
    roce, cnp = int(opts["roce_cos"]), int(opts["cnp_qos_group"])
    if roce == cnp or not {roce, cnp} <= set(QUEUE_GROUPS[:-1]):
        raise ValueError(f"roce_cos ({roce}) and cnp_qos_group ({cnp}) must be two different queues among 1, 2, 3")
    lines = [
        f"class-map type qos match-any {names['roce_class']}",
        f"  match dscp {opts['roce_dscp']}",
        f"class-map type qos match-any {names['cnp_class']}",
        f"  match dscp {opts['cnp_dscp']}",
        f"policy-map type qos {names['classify_policy']}",
        f"  class {names['roce_class']}",
        f"    set qos-group {roce}",
        f"  class {names['cnp_class']}",
        f"    set qos-group {cnp}",
        f"class-map type network-qos {names['nq_roce_class']}",
        f"  match qos-group {roce}",
        f"class-map type network-qos {names['nq_cnp_class']}",
        f"  match qos-group {cnp}",
        f"policy-map type network-qos {names['network_qos_policy']}",
        f"  class type network-qos {names['nq_roce_class']}",
        f"    pause pfc-cos {roce}",
        f"    mtu {mtu}",
        f"  class type network-qos {names['nq_cnp_class']}",
        f"    mtu {mtu}",
        "  class type network-qos class-default",
        f"    mtu {mtu}",
        f"policy-map type queuing {names['queuing_policy']}",
    ]
    remaining = 100 - int(opts["roce_bandwidth_percent"])
    for group in QUEUE_GROUPS:
        lines.append(f"  class type queuing {_queue(group)}")
        if group == roce:
            lines.append(f"    bandwidth remaining percent {opts['roce_bandwidth_percent']}")
            lines.append(f"    random-detect minimum-threshold {opts['ecn_min_kbytes']} kbytes maximum-threshold "
                         f"{opts['ecn_max_kbytes']} kbytes drop-probability {opts['ecn_drop_probability']} weight 0 ecn")
        elif group == cnp:
            lines.append("    priority level 1")
        elif group == 0:
            lines.append(f"    bandwidth remaining percent {remaining}")
        else:
            lines.append("    bandwidth remaining percent 0")
    lines += [
        "system qos",
        f"  service-policy type network-qos {names['network_qos_policy']}",
        f"  service-policy type queuing output {names['queuing_policy']}",
    ]
    return "\n".join(lines) + "\n"


def _edge_type(entry: Mapping[str, Any]) -> str:
    return "edge trunk" if entry.get("mode") == "trunk" else "edge"


def port_config(plan: Mapping[str, Any]) -> str:
    """Per-port lines no resource module covers: PFC on RoCE ports, spanning-tree port types."""
    lines: list[str] = []
    for port in plan["ports"]:
        lines.append(f"interface {port['name']}")
        if port["pfc"]:
            lines.append("  priority-flow-control mode on")
        lines.append(f"  spanning-tree port type {_edge_type(port)}")
    for channel in plan["port_channels"]:
        # An uplink to another pair keeps NX-OS's default port type (normal, which the running
        # configuration does not show): an edge port there would skip listening and learning.
        if is_uplink(channel) and not channel["pfc"]:
            continue
        lines.append(f"interface {channel['name']}")
        if channel["pfc"]:
            lines.append("  priority-flow-control mode on")
        if not is_uplink(channel):
            lines.append(f"  spanning-tree port type {_edge_type(channel)}")
    if plan.get("peer_link"):
        lines += [f"interface {plan['peer_link']['name']}", "  spanning-tree port type network"]
    return "\n".join(lines) + "\n" if lines else ""


def _l2(entry: Mapping[str, Any]) -> dict[str, Any]:
    # Access is NX-OS's default mode and `show running-config` does not print it, so an access
    # port names no mode (cisco.nxos documents `mode: access` as not idempotent); cdp_enable is
    # given because state replaced would otherwise send a CDP line on every run.
    result: dict[str, Any] = {"name": entry["name"], "cdp_enable": True}
    if entry["mode"] == "trunk":
        result["mode"] = "trunk"
    if entry["mode"] == "access":
        if entry.get("access_vlan") is not None:
            result["access"] = {"vlan": entry["access_vlan"]}
    else:
        trunk: dict[str, Any] = {}
        if entry.get("trunk_vlans"):
            trunk["allowed_vlans"] = compress(entry["trunk_vlans"])
        if entry.get("native_vlan") is not None:
            trunk["native_vlan"] = entry["native_vlan"]
        if trunk:
            result["trunk"] = trunk
    return result


def trunk_config(l2_interfaces: list[Mapping[str, Any]]) -> str:
    """Each trunk's allowed VLANs, set whole: `switchport trunk allowed vlan <list>`.

    nxos_l2_interfaces cannot be trusted with the list across cisco.nxos releases: 11.2.0
    renders `allowed vlan add <list>`, which restricts nothing on a trunk that allows every VLAN
    (NX-OS's default), and under `state: replaced` diffs against a list it guesses. The role sets
    the whole list with nxos_config first, in the form `show running-config` prints, after which
    the resource module finds the list equal and sends nothing for it, whatever its release.
    """
    lines: list[str] = []
    for entry in l2_interfaces:
        allowed = (entry.get("trunk") or {}).get("allowed_vlans")
        if entry.get("mode") == "trunk" and allowed:
            lines += [f"interface {entry['name']}", f"  switchport trunk allowed vlan {allowed}"]
    return "\n".join(lines) + "\n" if lines else ""


def gathered_allowed_vlans(trunk: Mapping[str, Any]) -> set[int] | None:
    """The VLANs a trunk allows, from nxos_l2_interfaces' gathered facts of any supported release.

    None: every VLAN (NX-OS prints no list). An empty set: `allowed vlan none` (cisco.nxos 11.1
    gathers allowed_vlans "none", 11.2 allowed_vlans_none true).
    """
    if trunk.get("allowed_vlans_none"):
        return set()
    text = str(trunk.get("allowed_vlans") or "").strip().strip("'\"")
    if not text:
        return None
    if text == "none":
        return set()
    return set(expand(text))


def _interface(entry: Mapping[str, Any], classify_policy: str | None) -> dict[str, Any]:
    result: dict[str, Any] = {"name": entry["name"], "description": entry["description"], "mtu": str(entry["mtu"]),
                              "mode": "layer2"}
    if entry["name"].startswith("Ethernet"):
        # Ethernet ports are down by default; port-channels are up and NX-OS does not print it.
        result["enabled"] = True
    if classify_policy:
        result["service_policy"] = {"type_options": {"qos": {"input": classify_policy}}}
    return result


def intent(plan: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Everything the switch_nxos role pushes to one switch, derived from its plan."""
    opts = _options(options)
    names = policy_names(opts)
    peer_link = plan.get("peer_link")
    vpc = plan.get("vpc")
    owned = list(plan["ports"]) + list(plan["port_channels"])
    interfaces = [_interface(entry, names["classify_policy"] if entry["pfc"] else None) for entry in owned]
    l2_interfaces = [_l2(entry) for entry in owned]
    lag_interfaces = [{"name": channel["name"],
                       "members": [{"member": member, "mode": "active", "force": True} for member in channel["members"]]}
                      for channel in plan["port_channels"]]
    if peer_link:
        interfaces.append(_interface(peer_link, None))
        l2_interfaces.append(_l2(peer_link))
        lag_interfaces.append({"name": peer_link["name"],
                               "members": [{"member": member, "mode": "active", "force": True} for member in peer_link["members"]]})
    member_interfaces = [{"name": member["name"], "description": member["description"], "enabled": True}
                         for member in plan.get("member_ports", [])]
    lacp_interfaces: list[dict[str, Any]] = []
    if opts["lacp_rate"] == "fast":
        lacp_interfaces += [{"name": member["name"], "rate": "fast"}
                            for member in plan.get("member_ports", []) if not member["peer_link"]]
    if opts["lacp_suspend_individual"] is False:
        # Hosts and ONTAP boot before LACP runs; an uplink between switches never needs to forward
        # outside its bundle, and must not when LACP fails.
        lacp_interfaces += [{"name": channel["name"], "suspend_individual": False} for channel in plan["port_channels"]
                            if not is_uplink(channel)]
    features = []
    if lag_interfaces:
        features.append("lacp")
    if vpc:
        features.append("vpc")
    features.append("lldp")
    users = []
    if plan.get("metrics_user"):
        features.append("nxapi")  # Harvest's CiscoRest collector reads the switch over NX-API
        users.append(dict(plan["metrics_user"]))
    vpc_args = None
    vpc_interfaces: list[dict[str, Any]] = []
    if vpc:
        vpc_args = {"domain": str(vpc["domain"]), "pkl_dest": vpc["keepalive_destination"],
                    "pkl_src": vpc["keepalive_source"], "pkl_vrf": opts["vpc_keepalive_vrf"],
                    "peer_gw": bool(opts["vpc_peer_gateway"]), "auto_recovery": bool(opts["vpc_auto_recovery"])}
        if vpc.get("role_priority") is not None:
            vpc_args["role_priority"] = str(vpc["role_priority"])
        if peer_link:
            vpc_interfaces.append({"portchannel": str(peer_link["id"]), "peer_link": True})
        vpc_interfaces += [{"portchannel": str(channel["id"]), "vpc": str(channel["vpc"])} for channel in plan["port_channels"]]
    result = {
        "switch": plan["switch"],
        "features": features,
        "vlans": [{"vlan_id": vlan["id"], "name": vlan["name"]} for vlan in plan["vlans"]],
        "interfaces": interfaces,
        "member_interfaces": member_interfaces,
        "l2_interfaces": l2_interfaces,
        "lag_interfaces": lag_interfaces,
        "lacp_interfaces": lacp_interfaces,
        "vpc": vpc_args,
        "vpc_interfaces": vpc_interfaces,
        "qos_config": qos_config(plan, opts),
        "port_config": port_config(plan),
        "trunk_config": trunk_config(l2_interfaces),
        "policy_names": names,
        "released": plan.get("released") or {"ports": [], "port_channels": []},
        "users": users,
    }
    result["compare_config"] = compare_config(result) + result["qos_config"] + result["port_config"]
    problem = next(_cli_text_problems(result), None)
    if problem:
        raise ValueError(problem)
    return result


def _cli_text_problems(value: Any, where: str = "intent") -> Iterator[str]:
    """The second wall behind validation: every text the role sends to NX-OS is printable ASCII
    without '?' (NX-OS's help key), and only the configuration blocks span lines."""
    if isinstance(value, str):
        lines = value.split("\n") if where.endswith(("_config", "compare_config")) else [value]
        for line in lines:
            bad = sorted({char for char in line if not (" " <= char <= "~") or char == "?"})
            if bad:
                yield (f"{where} would send NX-OS a text holding {', '.join(f'U+{ord(c):04X}' for c in bad)}; "
                       "nothing was sent (validation refuses such text in the model)")
                return
    elif isinstance(value, Mapping):
        for key, child in value.items():
            yield from _cli_text_problems(child, f"{where}.{key}")
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _cli_text_problems(child, f"{where}[{index}]")


def missing_lines(candidate: str, running: str) -> list[str]:
    """The lines of candidate that running lacks, with their parents: what nxos_config (match
    line) would send. The same NetworkConfig comparison as the cisco.nxos cliconf's get_diff,
    made on the controller from a running configuration already read (nxos_facts, subset config).
    """
    from ansible_collections.ansible.netcommon.plugins.module_utils.network.common.config import NetworkConfig, dumps

    wanted = NetworkConfig(indent=2)
    wanted.load(candidate)
    if not running:
        missing = wanted.items
    else:
        missing = wanted.difference(NetworkConfig(indent=2, contents=running), match="line", replace="line")
    return dumps(missing, "commands").split("\n") if missing else []


def compare_config(intent_: Mapping[str, Any]) -> str:
    """Lines of `show running-config` that prove the features and vPC memberships are in place.

    nxos_feature and nxos_vpc_interface read the switch once per item; the pending check compares
    these lines, together with the QoS and per-port block, with one read of the running
    configuration instead (missing_lines). NX-OS prints an enabled feature as `feature <name>`
    and a vPC member as `vpc <id>` (or `vpc peer-link`) under its port-channel.
    """
    lines = [f"feature {feature}" for feature in intent_["features"]]
    for item in intent_.get("vpc_interfaces", []):
        lines.append(f"interface port-channel{item['portchannel']}")
        lines.append("  vpc peer-link" if item.get("peer_link") else f"  vpc {item['vpc']}")
    return "\n".join(lines) + "\n" if lines else ""


def unrendered_lines(intent_: Mapping[str, Any]) -> list[str]:
    """CLI lines of what nxos_feature, nxos_vpc and nxos_vpc_interface send to a blank switch.

    Those modules have no `state: rendered`; the configuration preview and the golden files
    use these lines, which follow the modules' own command templates.
    """
    lines = [f"feature {feature}" for feature in intent_["features"]]
    vpc = intent_.get("vpc")
    if vpc:
        lines.append(f"vpc domain {vpc['domain']}")
        lines.append(f"  peer-keepalive destination {vpc['pkl_dest']} source {vpc['pkl_src']} vrf {vpc['pkl_vrf']}")
        if vpc.get("role_priority"):
            lines.append(f"  role priority {vpc['role_priority']}")
        if vpc.get("peer_gw"):
            lines.append("  peer-gateway")
        if vpc.get("auto_recovery"):
            lines.append("  auto-recovery")
    for item in intent_.get("vpc_interfaces", []):
        lines.append(f"interface port-channel{item['portchannel']}")
        lines.append("  vpc peer-link" if item.get("peer_link") else f"  vpc {item['vpc']}")
    return lines


def _by_name(items: Any, key: str = "name") -> dict[str, dict]:
    return {str(item.get(key)): item for item in (items or []) if isinstance(item, Mapping)}


def _pending_vlans(intent_: Mapping[str, Any], gathered: Mapping[str, Any]) -> list[Item]:
    found: list[Item] = []
    vlans = {int(v["vlan_id"]): v for v in gathered.get("vlans") or []}
    for vlan in intent_["vlans"]:
        have = vlans.get(vlan["vlan_id"])
        if have is None:
            found.append(pending_item(f"VLAN {vlan['vlan_id']}", "name", None, vlan["name"], action="create"))
        elif have.get("name") != vlan["name"]:
            found.append(pending_item(f"VLAN {vlan['vlan_id']}", "name", have.get("name"), vlan["name"]))
    return found


def _qos_input(entry: Mapping[str, Any]) -> Any:
    return ((entry.get("service_policy") or {}).get("type_options") or {}).get("qos", {}).get("input")


def _pending_interfaces(intent_: Mapping[str, Any], gathered: Mapping[str, Any]) -> list[Item]:
    found: list[Item] = []
    interfaces = _by_name(gathered.get("interfaces"))
    for want in list(intent_["interfaces"]) + list(intent_["member_interfaces"]):
        have = interfaces.get(want["name"])
        if have is None:
            found.append(pending_item(want["name"], action="create"))
            continue
        found += [pending_item(want["name"], key, have.get(key), want[key])
                  for key in ("description", "mtu", "enabled") if key in want and str(have.get(key)) != str(want[key])]
        if _qos_input(want) != _qos_input(have):
            found.append(pending_item(want["name"], "input QoS policy", _qos_input(have), _qos_input(want)))
    l2 = _by_name(gathered.get("l2_interfaces"))
    for want in intent_["l2_interfaces"]:
        have = l2.get(want["name"], {"name": want["name"]})
        if (have.get("mode") or "access") != (want.get("mode") or "access"):
            found.append(pending_item(want["name"], "switchport mode", have.get("mode") or "access", want.get("mode") or "access"))
        if (have.get("access") or {}).get("vlan") != (want.get("access") or {}).get("vlan") and want.get("access"):
            found.append(pending_item(want["name"], "access VLAN", (have.get("access") or {}).get("vlan"), want["access"]["vlan"]))
        want_trunk, have_trunk = want.get("trunk") or {}, have.get("trunk") or {}
        if "allowed_vlans" in want_trunk:
            have_allowed = gathered_allowed_vlans(have_trunk)
            if have_allowed != set(expand(want_trunk["allowed_vlans"])):
                shown = "all" if have_allowed is None else (compress(have_allowed) or "none")
                found.append(pending_item(want["name"], "trunk allowed VLANs", shown, want_trunk["allowed_vlans"]))
        if want_trunk.get("native_vlan") != have_trunk.get("native_vlan") and want_trunk.get("native_vlan") is not None:
            found.append(pending_item(want["name"], "native VLAN", have_trunk.get("native_vlan"), want_trunk["native_vlan"]))
    return found


def _pending_port_channels(intent_: Mapping[str, Any], gathered: Mapping[str, Any]) -> list[Item]:
    found: list[Item] = []
    lags = _by_name(gathered.get("lag_interfaces"))
    for want in intent_["lag_interfaces"]:
        have_members = {m.get("member"): m.get("mode") for m in (lags.get(want["name"]) or {}).get("members") or []}
        want_members = {m["member"]: m["mode"] for m in want["members"]}
        if have_members != want_members:
            found.append(pending_item(want["name"], "members", have_members or None, want_members))
    lacp = _by_name(gathered.get("lacp_interfaces"))
    for want in intent_["lacp_interfaces"]:
        have = lacp.get(want["name"], {})
        found += [pending_item(want["name"], f"LACP {key.replace('_', '-')}", have.get(key), want[key])
                  for key in ("rate", "suspend_individual") if key in want and have.get(key) != want[key]]
    return found


def trunk_items(intent_: Mapping[str, Any], gathered: Mapping[str, Any]) -> list[dict[str, Any]]:
    """nxos_config items {parents, lines} for the trunks whose allowed list is not the model's
    (see trunk_config); [] when every list is right."""
    l2 = _by_name(gathered.get("l2_interfaces"))
    items = []
    for want in intent_["l2_interfaces"]:
        allowed = (want.get("trunk") or {}).get("allowed_vlans")
        if want.get("mode") != "trunk" or not allowed:
            continue
        have = (l2.get(want["name"]) or {}).get("trunk") or {}
        if gathered_allowed_vlans(have) != set(expand(allowed)):
            items.append({"parents": [f"interface {want['name']}"], "lines": [f"switchport trunk allowed vlan {allowed}"]})
    return items


def pending(intent_: Mapping[str, Any], gathered: Mapping[str, Any]) -> list[Item]:
    """Differences between what a switch reports (resource modules, state gathered) and its intent.

    gathered: {vlans, interfaces, l2_interfaces, lag_interfaces, lacp_interfaces}, each the
    `gathered` list of that module. Returns the pending items; [] means the switch carries
    everything the model gives it. Extra configuration the model does not own is not reported.
    """
    return _pending_vlans(intent_, gathered) + _pending_interfaces(intent_, gathered) + _pending_port_channels(intent_, gathered)


# The unused configuration a port returns to when the host it served is decommissioned
# (docs/day2.md): shut down first, then out of its port-channel, then every line this bundle
# writes on a port is removed (access VLAN 1, default MTU, no QoS policy, PFC or spanning-tree
# port type), and `description unused`. Lines the bundle never writes (an operator's `no cdp
# enable`, `no negotiate auto`...) are left as they are. A released port-channel is deleted, its
# vPC with it, after its members have left it.
OWNED_PORT_LINES = ("switchport mode ", "switchport access vlan ", "switchport trunk allowed vlan",
                    "switchport trunk native vlan ", "mtu ", "service-policy type qos input ",
                    "priority-flow-control mode ", "spanning-tree port type ", "channel-group", "lacp rate ")


def interface_blocks(running: str) -> dict[str, list[str]]:
    """The first-level lines under each `interface NAME` of a running configuration, stripped."""
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    indent: int | None = None
    for line in running.splitlines():
        if not line.strip() or line.lstrip().startswith("!"):
            continue
        if not line[0].isspace():
            current = blocks.setdefault(line[len("interface "):].strip(), []) if line.startswith("interface ") else None
            indent = None
        elif current is not None:
            depth = len(line) - len(line.lstrip())
            indent = depth if indent is None else indent
            if depth == indent:          # sub-mode lines stay with their sub-mode
                current.append(line.strip())
    return blocks


def _undo(line: str) -> str:
    # cisco.nxos removes a trunk's list with the bare command; the other lines are negated whole,
    # as the resource modules' templates do.
    if line.startswith("switchport trunk allowed vlan"):
        return "no switchport trunk allowed vlan"
    if line.startswith("channel-group"):
        return "no channel-group"
    return f"no {line}"


def release(released: Mapping[str, Any], running: str, switchport_defaults: str = "") -> list[dict[str, Any]]:
    """What takes a decommissioned host's ports to the unused configuration, from the switch as it is.

    released: the plan's `released` ({ports: [{name}], port_channels: [{name}]}); running: the
    running configuration; switchport_defaults: the answer to `show running-config all | incl
    'system default switchport'` (as cisco.nxos asks it): with `system default switchport
    shutdown` an Ethernet port is down unless its block says `no shutdown`, otherwise only a
    `shutdown` line says it is down. Returns items {parents, lines} for nxos_config, ports first,
    each shut down before anything else changes, then `no interface port-channelN` for each
    released channel still there. [] when everything is already unused.
    """
    blocks = interface_blocks(running)
    down_by_default = "system default switchport shutdown" in [line.strip() for line in switchport_defaults.splitlines()]
    items: list[dict[str, Any]] = []
    for port in released.get("ports") or []:
        name = port["name"]
        block = blocks.get(name, [])
        lines = []
        down = "shutdown" in block or (down_by_default and name.startswith("Ethernet") and "no shutdown" not in block)
        if not down:
            lines.append("shutdown")
        undo = [_undo(line) for line in block if line.startswith(OWNED_PORT_LINES)]
        lines += sorted(undo, key=lambda command: command != "no channel-group")
        if f"description {UNUSED_DESCRIPTION}" not in block:
            lines.append(f"description {UNUSED_DESCRIPTION}")
        if lines:
            items.append({"parents": [f"interface {name}"], "lines": lines})
    for channel in released.get("port_channels") or []:
        if channel["name"] in blocks:
            items.append({"parents": [], "lines": [f"no interface {channel['name']}"]})
    return items


def stray_channel_groups(intent_: Mapping[str, Any], running: str) -> list[dict[str, Any]]:
    """nxos_config items that take a port the model makes a plain port out of the port-channel it is
    bundled into now (a brownfield switch, or a larger pod's cabling). NX-OS refuses a switchport
    mode, VLAN or MTU on a port-channel member, so this comes before the port's layer-2 settings."""
    members = {member["member"] for channel in intent_["lag_interfaces"] for member in channel["members"]}
    blocks = interface_blocks(running)
    return [{"parents": [f"interface {item['name']}"], "lines": ["no channel-group"]}
            for item in intent_["l2_interfaces"]
            if item["name"].startswith("Ethernet") and item["name"] not in members
            and any(line.startswith("channel-group") for line in blocks.get(item["name"], []))]


# The parts of the switch_nxos role's configuration, in the order it applies them.
CONCERNS = ("features", "users", "vlans", "qos", "interfaces", "port_channels", "vpc_domain", "vpc_members", "released")


# Lines that open a section of the running configuration: a missing line below one belongs to it.
SECTION_LINES = ("interface ", "class-map ", "policy-map ", "class ", "system qos")


def _line_items(lines: list[str], default_object: str, reason: str) -> list[Item]:
    """One create item per configuration line the switch lacks, named by the section it is in."""
    found, section = [], default_object
    for line in lines:
        if line.startswith(SECTION_LINES):
            section = line[len("interface "):] if line.startswith("interface ") else line
            continue
        found.append(pending_item(section, "line", None, line, action="create", reason=f"{reason}: {line}"))
    return found


def compare(intent_: Mapping[str, Any], gathered: Mapping[str, Any], running: str,
            vpc_domain_commands: list[str] | None = None) -> dict[str, Any]:
    """Everything that differs, as pending items, and what each concern's tasks still have to do.

    gathered: as for pending(), plus switchport_defaults (see release()); running: the running
    configuration (nxos_facts, subset config);
    vpc_domain_commands: what nxos_vpc in check mode would send. Returns
    {pending: [items, but the released ports'], release_pending: [items of the released ports],
    steps: {concerns: [the parts of CONCERNS with something pending], features: [names to enable],
    vpc_interfaces: [items of the intent whose vPC line is missing], trunk_vlans: [nxos_config items
    that set a trunk's allowed list whole], release: [nxos_config items that return a
    decommissioned host's ports to the unused configuration], stray_channel_groups: [nxos_config
    items that take a plain port of the model out of its port-channel]}}. A concern with nothing
    pending is left alone, so adding one DGX touches its ports only.
    """
    missing_features = missing_lines("".join(f"feature {name}\n" for name in intent_["features"]), running)
    features = [line.split(" ", 1)[1] for line in missing_features if line.startswith("feature ")]
    vpc_interfaces = []
    if intent_.get("vpc_interfaces"):
        block = compare_config({"features": [], "vpc_interfaces": intent_["vpc_interfaces"]})
        missing = missing_lines(block, running)
        lacking = {missing[index] for index in range(len(missing) - 1)
                   if missing[index].startswith("interface ") and not missing[index + 1].startswith("interface ")}
        vpc_interfaces = [entry for entry in intent_["vpc_interfaces"] if f"interface port-channel{entry['portchannel']}" in lacking]
    qos_text = intent_["qos_config"] + intent_["port_config"]
    release_items = release(intent_.get("released") or {}, running, str(gathered.get("switchport_defaults") or ""))
    strays = stray_channel_groups(intent_, running)
    vpc = intent_.get("vpc") or {}
    by_concern = {
        "features": [pending_item(f"feature {name}", action="create") for name in features],
        "users": pending_users(intent_.get("users") or [], running),
        "vlans": _pending_vlans(intent_, gathered),
        "qos": _line_items(missing_lines(qos_text, running), "QoS", "the running configuration lacks") if qos_text else [],
        "interfaces": [pending_item(entry["parents"][0].replace("interface ", ""), "channel-group",
                                    reason="bundled into a port-channel the model does not give it") for entry in strays]
        + _pending_interfaces(intent_, gathered),
        "port_channels": _pending_port_channels(intent_, gathered),
        "vpc_domain": [pending_item(f"vPC domain {vpc.get('domain')}", "line", None, line, reason=f"nxos_vpc would send: {line}")
                       for line in vpc_domain_commands or []],
        "vpc_members": [pending_item(f"port-channel{entry['portchannel']}", "vPC", None, "peer-link" if entry.get("peer_link") else entry["vpc"])
                        for entry in vpc_interfaces],
        "released": [pending_item((entry["parents"] or ["switch"])[0].replace("interface ", ""), "line", None, line,
                                  reason=f"releasing it sends: {line}") for entry in release_items for line in entry["lines"]],
    }
    return {"pending": [entry for concern in CONCERNS if concern != "released" for entry in by_concern[concern]],
            "release_pending": by_concern["released"],
            "steps": {"concerns": [concern for concern in CONCERNS if by_concern[concern]],
                      "features": features, "vpc_interfaces": vpc_interfaces, "trunk_vlans": trunk_items(intent_, gathered),
                      "release": release_items, "stray_channel_groups": strays}}
