"""Show commands about ports: the `show interface` family, LLDP, the MAC table, IP interfaces and queuing.

Text follows NX-OS 9.3's layouts line for line where a parser reads them (ntc-templates' TextFSM
templates for cisco_nxos, napalm's nxos_ssh driver): every line printed is one those parsers know.
JSON follows NX-OS's TABLE_x/ROW_x structure and key names. Link state, speeds and LLDP neighbours
come from nxos_fabric (the cabling and the switch at the other end); counters are zero, as there is
no traffic.
"""
from __future__ import annotations

import re

from nxos_cli import INHERITED, INVALID, CliError, Switch, interface_key, normalize_interface
from nxos_fabric import TRANSCEIVER, Link, link, lldp_neighbours, port_mac, speed_mbps

RULE = "-" * 80


def short_name(name: str) -> str:
    return name.replace("port-channel", "Po").replace("Ethernet", "Eth")


def _rows(rows: list) -> object:
    """NX-OS prints a one-row table as an object."""
    return rows[0] if len(rows) == 1 else rows


def _display_order(names) -> list[str]:
    """mgmt0, then Ethernet ports, then port-channels: the order `show interface` lists them in."""
    kind = {"mgmt": 0, "Ethe": 1, "port": 2}
    return sorted(names, key=lambda name: (kind.get(name[:4], 3), interface_key(name)[1]))


def _selected(switch: Switch, argument: str | None) -> list[str]:
    interfaces = switch.state["interfaces"]
    if not argument:
        return _display_order(interfaces)
    name = normalize_interface(argument)
    if name not in interfaces:
        raise CliError(INVALID)
    return [name]


def _port_index(name: str) -> int:
    numbers = interface_key(name)[1]
    return (numbers[-1] if numbers else 0) + (64 if name.startswith("port-channel") else 0)


def _mode(settings: dict) -> str:
    if settings.get("switchport", True) is not True:
        return "routed"
    return settings.get("mode", "access")


def _member_of(settings: dict) -> str | None:
    group = settings.get("channel_group")
    return f"port-channel{group[0]}" if group else None


def _effective(switch: Switch, name: str) -> dict:
    """A member port reports its port-channel's layer-2 settings, as NX-OS does."""
    settings = switch.state["interfaces"][name]
    channel = _member_of(settings)
    if channel and channel in switch.state["interfaces"]:
        merged = dict(settings)
        for key in INHERITED:
            if key in switch.state["interfaces"][channel]:
                merged[key] = switch.state["interfaces"][channel][key]
        return merged
    return settings


def _channel_speed(switch: Switch, name: str) -> int | None:
    members = switch.members_of(int(name[len("port-channel"):]))
    total = sum(speed_mbps(switch.state["interfaces"][m], True) or 0 for m in members if link(switch, m).up)
    return total or None


def _speed(switch: Switch, name: str, state: Link) -> int | None:
    if name == "mgmt0":
        return 1000
    if name.startswith("port-channel"):
        return _channel_speed(switch, name) if state.up else None
    return speed_mbps(switch.state["interfaces"][name], state.up)


def _gbps(mbps: int) -> str:
    return f"{mbps // 1000}G" if mbps >= 10000 else str(mbps)


# ---------------------------------------------------------------------------------- show interface
def _interface(switch: Switch, match: re.Match, as_json: bool):
    names = _selected(switch, match.group(1))
    if as_json:
        return {"TABLE_interface": {"ROW_interface": _rows([_interface_row(switch, name) for name in names])}}
    lines: list[str] = []
    for name in names:
        lines += _interface_block(switch, name) + [""]
    return lines


def _status_line(name: str, state: Link) -> str:
    return f"{name} is up" if state.up else f"{name} is down ({state.reason})"



def _described(settings: dict, mtu: int, bandwidth_kbit: int) -> list[str]:
    """The description, address, MTU and encapsulation lines `show interface` prints for every kind of port."""
    lines = [f"  Description: {settings['description']}"] if settings.get("description") else []
    if settings.get("ip_address"):
        lines.append(f"  Internet Address is {settings['ip_address']}")
    return lines + [f"  MTU {mtu} bytes, BW {bandwidth_kbit} Kbit, DLY 10 usec",
                    "  reliability 255/255, txload 1/255, rxload 1/255",
                    "  Encapsulation ARPA, medium is broadcast"]

def _interface_block(switch: Switch, name: str) -> list[str]:
    settings = _effective(switch, name)
    state = link(switch, name)
    admin = "down" if settings.get("shutdown") else "up"
    mac = port_mac(switch.name, _port_index(name))
    speed = _speed(switch, name, state)
    mtu = settings.get("mtu", 1500)
    bandwidth_kbit = (speed or (1000 if name == "mgmt0" else 100000)) * 1000
    lines = [_status_line(name, state)]
    if name == "mgmt0":
        lines += [f"admin state is {admin},",
                  f"  Hardware: GigabitEthernet, address: {mac} (bia {mac})"]
        lines += _described(settings, mtu, bandwidth_kbit)
        lines += ["  full-duplex, 1000 Mb/s",
                  "  Auto-Negotiation is turned on",
                  "  Auto-mdix is turned off",
                  "  EtherType is 0x0000",
                  "  1 minute input rate 0 bits/sec, 0 packets/sec",
                  "  1 minute output rate 0 bits/sec, 0 packets/sec",
                  "  Rx",
                  "    0 input packets 0 unicast packets 0 multicast packets",
                  "    0 broadcast packets 0 bytes",
                  "  Tx",
                  "    0 output packets 0 unicast packets 0 multicast packets",
                  "    0 broadcast packets 0 bytes"]
        return lines
    is_channel = name.startswith("port-channel")
    lines.append(f"admin state is {admin}," if is_channel else f"admin state is {admin}, Dedicated Interface")
    if not is_channel and _member_of(settings):
        lines.append(f"  Belongs to {short_name(_member_of(settings))}")
    if is_channel and settings.get("vpc") and settings["vpc"] != "peer-link":
        lines.append(f"  vPC Status: {'Up' if state.up else 'Down'}, vPC number: {settings['vpc']}")
    hardware = "Port-Channel" if is_channel else "40000/100000 Ethernet"
    lines.append(f"  Hardware: {hardware}, address: {mac} (bia {mac})")
    lines += _described(settings, mtu, bandwidth_kbit)
    lines.append(f"  Port mode is {_mode(settings)}")
    if speed:
        # a port-channel's bandwidth adds its up members up; its speed is theirs
        line_speed = speed_mbps(settings, True) if not is_channel else max(
            speed_mbps(switch.state["interfaces"][m], True) or 0 for m in switch.members_of(int(name[len("port-channel"):])))
        lines.append(f"  full-duplex, {line_speed // 1000} Gb/s" + ("" if is_channel else f", media type is {_gbps(speed)}"))
    else:
        lines.append("  auto-duplex, auto-speed")
    if not is_channel:
        lines += ["  Beacon is turned off", "  Auto-Negotiation is turned on"]
    lines += ["  Input flow-control is off, output flow-control is off",
              "  Auto-mdix is turned off"]
    if not is_channel:
        lines.append("  Rate mode is dedicated")
    lines += ["  Switchport monitor is off", "  EtherType is 0x8100"]
    if is_channel:
        members = switch.members_of(int(name[len("port-channel"):]))
        lines.append(f"  Members in this channel: {', '.join(short_name(m) for m in members)}" if members
                     else "  No members")
    else:
        lines += ["  EEE (efficient-ethernet) : n/a", "  Last link flapped never"]
    lines += ['  Last clearing of "show interface" counters never',
              "  0 interface resets"]
    for number, seconds, label in ((1, 30, "30 seconds"), (2, 300, "5 minute (300 seconds)")):
        lines += [f"  Load-Interval #{number}: {label}",
                  f"    {seconds} seconds input rate 0 bits/sec, 0 packets/sec",
                  f"    {seconds} seconds output rate 0 bits/sec, 0 packets/sec",
                  "    input rate 0 bps, 0 pps; output rate 0 bps, 0 pps"]
    lines += ["  RX",
              "    0 unicast packets  0 multicast packets  0 broadcast packets",
              "    0 input packets  0 bytes",
              "    0 jumbo packets  0 storm suppression bytes",
              "    0 runts  0 giants  0 CRC  0 no buffer",
              "    0 input error  0 short frame  0 overrun   0 underrun  0 ignored",
              "    0 watchdog  0 bad etype drop  0 bad proto drop  0 if down drop",
              "    0 input with dribble  0 input discard",
              "    0 Rx pause",
              "  TX",
              "    0 unicast packets  0 multicast packets  0 broadcast packets",
              "    0 output packets  0 bytes",
              "    0 jumbo packets",
              "    0 output error  0 collision  0 deferred  0 late collision",
              "    0 lost carrier  0 no carrier  0 babble  0 output discard",
              "    0 Tx pause"]
    return lines


def _interface_row(switch: Switch, name: str) -> dict:
    settings = _effective(switch, name)
    state = link(switch, name)
    speed = _speed(switch, name, state)
    mac = port_mac(switch.name, _port_index(name))
    row: dict = {"interface": name, "state": "up" if state.up else "down"}
    if not state.up:
        row["state_rsn_desc"] = state.reason
    row["admin_state"] = "down" if settings.get("shutdown") else "up"
    if name.startswith("Ethernet"):
        row["share_state"] = "Dedicated"
    row.update({"eth_hw_desc": "GigabitEthernet" if name == "mgmt0" else "Port-Channel" if name.startswith("port-channel")
                else "100000 Ethernet", "eth_hw_addr": mac, "eth_bia_addr": mac})
    if settings.get("description"):
        row["desc"] = settings["description"]
    if settings.get("ip_address"):
        address, _, prefix = settings["ip_address"].partition("/")
        row.update({"eth_ip_addr": address, "eth_ip_mask": int(prefix or 32), "eth_ip_prefix": address})
    row.update({"eth_mtu": str(settings.get("mtu", 1500)),
                "eth_bw": (speed or (1000 if name == "mgmt0" else 100000)) * 1000, "eth_dly": 10,
                "eth_reliability": "255", "eth_txload": "1", "eth_rxload": "1", "medium": "broadcast"})
    if name != "mgmt0":
        row["eth_mode"] = _mode(settings)
    row.update({"eth_duplex": "full" if speed else "auto",
                "eth_speed": (f"{speed // 1000} Gb/s" if speed and speed >= 10000 else f"{speed} Mb/s") if speed else "auto-speed"})
    if name.startswith("Ethernet"):
        row.update({"eth_media": _gbps(speed) if speed else "auto", "eth_beacon": "off", "eth_autoneg": "on",
                    "eth_in_flowctrl": "off", "eth_out_flowctrl": "off", "eth_mdix": "off", "eth_ratemode": "dedicated",
                    "eth_swt_monitor": "off", "eth_ethertype": "0x8100", "eth_eee_state": "n/a",
                    "eth_link_flapped": "never"})
    if name.startswith("port-channel"):
        members = switch.members_of(int(name[len("port-channel"):]))
        row["eth_members"] = ", ".join(short_name(m) for m in members) if members else "none"
        if settings.get("vpc") and settings["vpc"] != "peer-link":
            row.update({"vpc_status": "Up" if state.up else "Down", "vpc_number": int(settings["vpc"])})
    row.update({"eth_clear_counters": "never", "eth_reset_cntr": 0, "eth_inpkts": 0, "eth_inbytes": 0,
                "eth_outpkts": 0, "eth_outbytes": 0, "eth_inerr": 0, "eth_outerr": 0, "eth_crc": 0})
    return row


# ---------------------------------------------------------------------------------- status / brief
def _status_word(name: str, settings: dict, state: Link) -> str:
    if settings.get("shutdown"):
        return "disabled"
    if state.up:
        return "connected"
    if name.startswith("port-channel"):
        return "noOperMem"
    return "xcvrAbsen" if not state.transceiver else "notconnec"


def _vlan_column(settings: dict) -> str:
    mode = _mode(settings)
    return str(settings.get("access_vlan", 1)) if mode == "access" else mode


def _interface_status(switch: Switch, match: re.Match, as_json: bool):
    rows = []
    for name in _selected(switch, match.group(1)):
        settings = _effective(switch, name)
        state = link(switch, name)
        speed = _speed(switch, name, state)
        rows.append({"interface": name, "name": settings.get("description") or "--",
                     "state": _status_word(name, settings, state), "vlan": _vlan_column(settings),
                     "duplex": "full" if speed else "auto", "speed": _gbps(speed) if speed else "auto",
                     "type": TRANSCEIVER if name.startswith("Ethernet") and state.transceiver else "--"})
    if as_json:
        return {"TABLE_interface": {"ROW_interface": _rows(rows)}}
    lines = ["", RULE, "Port          Name               Status    Vlan      Duplex  Speed   Type", RULE]
    for row in rows:
        lines.append(f"{short_name(row['interface']):<13} {row['name'][:18]:<18} {row['state']:<9} {row['vlan']:<9} "
                     f"{row['duplex']:<7} {row['speed']:<7} {row['type']}")
    return lines


def _interface_brief(switch: Switch, _match, as_json: bool):
    interfaces = switch.state["interfaces"]
    management, ethernet, channels = [], [], []
    for name in _display_order(interfaces):
        settings = _effective(switch, name)
        state = link(switch, name)
        speed = _speed(switch, name, state)
        if name == "mgmt0":
            management.append({"interface": name, "state": "up" if state.up else "down",
                               "ip_addr": (settings.get("ip_address") or "--").split("/")[0],
                               "speed": "1000", "mtu": str(settings.get("mtu", 1500))})
            continue
        vlan = {"access": _vlan_column(settings), "trunk": str(settings.get("native_vlan", 1))}.get(_mode(settings), "--")
        row = {"interface": name, "vlan": vlan, "type": "eth", "portmode": _mode(settings),
               "state": "up" if state.up else "down", "state_rsn_desc": state.reason,
               "speed": _gbps(speed) if speed else "auto", "ratemode": "D"}
        if name.startswith("port-channel"):
            members = switch.members_of(int(name[len("port-channel"):]))
            modes = {interfaces[m]["channel_group"][1] for m in members}
            row["proto"] = "lacp" if modes & {"active", "passive"} else "none"
            channels.append(row)
        else:
            row["portchan"] = settings["channel_group"][0] if settings.get("channel_group") else "--"
            ethernet.append(row)
    if as_json:
        return {"TABLE_interface": {"ROW_interface": _rows(management + ethernet + channels)}}
    lines = ["", RULE, "Port   VRF          Status IP Address                              Speed    MTU", RULE]
    lines += [f"{r['interface']:<6} {'--':<12} {r['state']:<6} {r['ip_addr']:<39} {r['speed']:<8} {r['mtu']}" for r in management]
    lines += ["", RULE, "Ethernet      VLAN    Type Mode   Status  Reason                   Speed     Port",
              "Interface                                                                    Ch #", RULE]
    lines += [f"{short_name(r['interface']):<13} {r['vlan']:<7} {r['type']:<4} {r['portmode']:<6} {r['state']:<7} "
              f"{r['state_rsn_desc']:<24} {r['speed'] + '(D)':>8} {r['portchan']}" for r in ethernet]
    if channels:
        lines += ["", RULE, "Port-channel VLAN    Type Mode   Status  Reason                    Speed   Protocol",
                  "Interface", RULE]
        lines += [f"{short_name(r['interface']):<12} {r['vlan']:<7} {r['type']:<4} {r['portmode']:<6} {r['state']:<7} "
                  f"{r['state_rsn_desc']:<25} {r['speed'] + '(D)':>8}  {r['proto']}" for r in channels]
    return lines


def _interface_description(switch: Switch, match: re.Match, as_json: bool):
    rows = []
    for name in _selected(switch, match.group(1)):
        settings = switch.state["interfaces"][name]
        row = {"interface": name, "desc": settings.get("description") or "--"}
        if name != "mgmt0":
            # the port's nominal speed, up or not, as NX-OS lists it here
            speed = _channel_speed(switch, name) if name.startswith("port-channel") else speed_mbps(settings, True)
            row.update({"type": "eth", "speed": _gbps(speed) if speed else "auto"})
        rows.append(row)
    if as_json:
        return {"TABLE_interface": {"ROW_interface": _rows(rows)}}
    lines = []
    management = [r for r in rows if r["interface"] == "mgmt0"]
    if management:
        lines += ["", "-" * 79, f"{'Interface':<25}{'Description':<55}", "-" * 79]
        lines += [f"{r['interface']:<25}{r['desc']}" for r in management]
    ethernet = [r for r in rows if r["interface"].startswith("Ethernet")]
    if ethernet:
        lines += ["", "-" * 79, "Port          Type   Speed   Description", "-" * 79]
        lines += [f"{short_name(r['interface']):<13} {r['type']:<6} {r['speed']:<7} {r['desc']}" for r in ethernet]
    channels = [r for r in rows if r["interface"].startswith("port-channel")]
    if channels:
        lines += ["", "-" * 79, "Interface                Description", "-" * 79]
        lines += [f"{short_name(r['interface']):<25}{r['desc']}" for r in channels]
    return lines


def _interface_switchport(switch: Switch, match: re.Match, as_json: bool):
    rows = []
    vlans = switch.state["vlans"]

    def vlan_name(number: int) -> str:
        data = vlans.get(str(number))
        if data is None:
            return "Vlan not created"
        return data["name"] or ("default" if number == 1 else f"VLAN{number:04d}")

    for name in _selected(switch, match.group(1)):
        if name == "mgmt0":
            continue
        settings = _effective(switch, name)
        if settings.get("switchport", True) is not True:
            continue                               # routed ports are not listed
        access, native = settings.get("access_vlan", 1), settings.get("native_vlan", 1)
        rows.append({"interface": name, "switchport": "Enabled", "switchport_monitor": "Not enabled",
                     "oper_mode": settings.get("mode", "access"), "access_vlan": str(access),
                     "access_vlan_name": vlan_name(access), "native_vlan": str(native),
                     "native_vlan_name": vlan_name(native),
                     "trunk_vlans": settings.get("allowed_vlans", "1-4094") or "none"})
    if as_json:
        return {"TABLE_interface": {"ROW_interface": _rows(rows)}}
    lines = []
    for row in rows:
        lines += [f"Name: {row['interface']}",
                  f"  Switchport: {row['switchport']}",
                  f"  Switchport Monitor: {row['switchport_monitor']}",
                  "  Switchport Isolated : Not enabled",
                  "  Switchport Block Multicast: Not enabled",
                  "  Switchport Block Unicast: Not enabled",
                  f"  Operational Mode: {row['oper_mode']}",
                  f"  Access Mode VLAN: {row['access_vlan']} ({row['access_vlan_name']})",
                  f"  Trunking Native Mode VLAN: {row['native_vlan']} ({row['native_vlan_name']})",
                  f"  Trunking VLANs Allowed: {row['trunk_vlans']}",
                  "  Voice VLAN: none",
                  "  Extended Trust State : not trusted [COS = 0]",
                  "  Administrative private-vlan primary host-association: none",
                  "  Administrative private-vlan secondary host-association: none",
                  "  Administrative private-vlan primary mapping: none",
                  "  Administrative private-vlan secondary mapping: none",
                  "  Administrative private-vlan trunk native VLAN: none",
                  "  Administrative private-vlan trunk encapsulation: dot1q",
                  "  Administrative private-vlan trunk normal VLANs: none",
                  "  Administrative private-vlan trunk private VLANs: none",
                  "  Operational private-vlan: none"]
    return lines


# ---------------------------------------------------------------------------------- LLDP
LLDP_LEGEND = ["Capability codes:",
               "  (R) Router, (B) Bridge, (T) Telephone, (C) DOCSIS Cable Device",
               "  (W) WLAN Access Point, (P) Repeater, (S) Station, (O) Other",
               "Device ID            Local Intf      Hold-time  Capability  Port ID  "]
LLDP_HOLD_TIME = 120


def _require_lldp(switch: Switch) -> None:
    if not switch.feature_enabled("lldp"):
        raise CliError(INVALID)               # the lldp commands exist once feature lldp is on


def _lldp_neighbors(switch: Switch, _match, as_json: bool):
    _require_lldp(switch)
    neighbours = lldp_neighbours(switch)
    if as_json:
        data: dict = {}
        if neighbours:
            # NX-OS puts the neighbour's system name in chassis_id here (cisco.nxos' facts read it so)
            data["TABLE_nbor"] = {"ROW_nbor": _rows([{"chassis_id": n["system_name"], "l_port_id": short_name(n["local_port"]),
                                                      "hold_time": LLDP_HOLD_TIME, "capability": "BR",
                                                      "port_id": n["port_id"]} for n in neighbours])}
        data["neigh_count"] = len(neighbours)
        return data
    lines = list(LLDP_LEGEND)
    for n in neighbours:
        device = n["system_name"]
        local = f"{short_name(n['local_port']):<15} {LLDP_HOLD_TIME:<10} {'BR':<11} {n['port_id']}"
        if len(device) > 20:                  # a long name takes a line of its own
            lines += [device, " " * 21 + local]
        else:
            lines.append(f"{device:<20} {local}")
    lines.append(f"Total entries displayed: {len(neighbours)}")
    return lines


def _lldp_neighbors_detail(switch: Switch, _match, as_json: bool):
    _require_lldp(switch)
    neighbours = lldp_neighbours(switch)
    description = "Cisco Nexus Operating System (NX-OS) Software 9.3(8)"
    if as_json:
        data: dict = {}
        if neighbours:
            data["TABLE_nbor_detail"] = {"ROW_nbor_detail": _rows([{
                "chassis_type": "Mac Address", "chassis_id": n["chassis_id"], "port_type": "Interface Name",
                "port_id": n["port_id"], "l_port_id": short_name(n["local_port"]),
                "port_desc": n["port_description"] or "null", "sys_name": n["system_name"], "sys_desc": description,
                "ttl": LLDP_HOLD_TIME - 19, "system_capability": "B, R", "enabled_capability": "B, R",
                "mgmt_addr_type": "IPV4", "mgmt_addr": n["mgmt_address"] or "not advertised",
                "vlan_id": str(n["vlan_id"])} for n in neighbours])}
        data["neigh_count"] = len(neighbours)
        return data
    lines = list(LLDP_LEGEND) + [""]
    for n in neighbours:
        lines += [f"Chassis id: {n['chassis_id']}",
                  f"Port id: {n['port_id']}",
                  f"Local Port id: {short_name(n['local_port'])}",
                  f"Port Description: {n['port_description'] or 'null'}",
                  f"System Name: {n['system_name']}",
                  f"System Description: {description}",
                  "TAC support: http://www.cisco.com/tac",
                  "Copyright (c) 2002-2021, Cisco Systems, Inc. All rights reserved.",
                  f"Time remaining: {LLDP_HOLD_TIME - 19} seconds",
                  "System Capabilities: B, R",
                  "Enabled Capabilities: B, R",
                  f"Management Address: {n['mgmt_address'] or 'not advertised'}",
                  "Management Address IPV6: not advertised",
                  f"Vlan ID: {n['vlan_id']}",
                  "", ""]
    lines.append(f"Total entries displayed: {len(neighbours)}")
    return lines


# ---------------------------------------------------------------------------------- MAC table
def _mac_address_table(_switch: Switch, _match, as_json: bool):
    """No traffic crosses the lab, so nothing is learnt: the table is empty, legend and header only."""
    if as_json:
        return {}
    return ["Legend: ",
            "        * - primary entry, G - Gateway MAC, (R) - Routed MAC, O - Overlay MAC",
            "        age - seconds since last seen,+ - primary entry using vPC Peer-Link,",
            "        (T) - True, (F) - False, C - ControlPlane MAC, ~ - vsan",
            "   VLAN     MAC Address      Type      age     Secure NTFY Ports",
            "---------+-----------------+--------+---------+------+----+------------------"]


# ---------------------------------------------------------------------------------- IP interfaces
def _ip_interface_brief(switch: Switch, match: re.Match, as_json: bool):
    wanted = match.group(1) or "default"
    vrfs = {"default": 1, "management": 2}
    if wanted != "all" and wanted not in vrfs:
        raise CliError(f"% VRF {wanted} not found")  # written for the lab
    sections = []
    for vrf, vrf_id in vrfs.items():
        if wanted not in ("all", vrf):
            continue
        rows = []
        for name in _display_order(switch.state["interfaces"]):
            settings = switch.state["interfaces"][name]
            if not settings.get("ip_address") or settings.get("vrf_member", "default") != vrf:
                continue
            state = link(switch, name)
            rows.append({"intf-name": name, "prefix": settings["ip_address"].split("/")[0],
                         "proto-state": "up" if state.up else "down", "link-state": "up" if state.up else "down",
                         "admin-state": "down" if settings.get("shutdown") else "up"})
        sections.append((vrf, vrf_id, rows))
    if as_json:
        rows = [dict(row, **{"vrf-name-out": vrf}) for vrf, _, section in sections for row in section]
        return {"TABLE_intf": {"ROW_intf": _rows(rows)}} if rows else {}
    lines = []
    for vrf, vrf_id, rows in sections:
        lines += [f'IP Interface Status for VRF "{vrf}"({vrf_id})',
                  "Interface            IP Address      Interface Status"]
        lines += [f"{short_name(r['intf-name']):<20} {r['prefix']:<15} "
                  f"protocol-{r['proto-state']}/link-{r['link-state']}/admin-{r['admin-state']} " for r in rows]
        lines.append("")
    return lines


# ---------------------------------------------------------------------------------- QoS
def _policy_map_system_network_qos(switch: Switch, _match, as_json: bool):
    if as_json:
        raise CliError(INVALID)
    line = switch.state["system_qos"].get("service-policy type network-qos")
    name = line.split()[-1] if line else None
    policy = next((p for p in switch.state["policy_maps"] if p["type"] == "network-qos" and p["name"] == name), None)
    lines = ["", "", "  Type network-qos policy-maps", "  ============================", ""]
    if policy is None:                         # NX-OS's built-in policy while none is applied
        return lines + ["  policy-map type network-qos default-nq-policy",
                        "    class type network-qos c-nq-default",
                        "      match qos-group 0",
                        "      mtu 1500"]
    lines.append(f"  policy-map type network-qos {policy['name']}")
    class_maps = {c["name"]: c for c in switch.state["class_maps"] if c["type"] == "network-qos"}
    for cls in policy["classes"]:
        lines.append(f"    class type network-qos {cls['name']}")
        matches = class_maps[cls["name"]]["lines"] if cls["name"] in class_maps else (
            ["match qos-group 0"] if cls["name"] == "class-default" else [])
        lines += [f"      {text}" for text in matches]
        lines += [f"      {cls['lines'][key]}" for key in ("pause", "mtu") if key in cls["lines"]]
    return lines


def _queuing_interface(switch: Switch, match: re.Match, as_json: bool):
    """Egress queuing per port from the system queuing policy, and which QoS groups PFC pauses."""
    if as_json:
        raise CliError(INVALID)
    names = [n for n in _selected(switch, match.group(1)) if n.startswith("Ethernet")]
    if not names:
        raise CliError(INVALID)
    queuing = switch.state["system_qos"].get("service-policy type queuing output")
    policy = next((p for p in switch.state["policy_maps"]
                   if queuing and p["type"] == "queuing" and p["name"] == queuing.split()[-1]), None)
    classes = {c["name"]: c["lines"] for c in policy["classes"]} if policy else {"c-out-q-default": {"bandwidth": "bandwidth remaining percent 100"}}
    no_drop = _no_drop_groups(switch)
    lines = ["", "slot  1", "=======", ""]
    for name in names:
        lines += ["", f"Egress Queuing for {name} [System]", "-" * 78,
                  "QoS-Group# Bandwidth% PrioLevel                Shape                   QLimit",
                  "                                   Min          Max        Units", "-" * 78]
        for group, queue in ((3, "c-out-q3"), (2, "c-out-q2"), (1, "c-out-q1"), (0, "c-out-q-default")):
            settings = classes.get(queue, {})
            priority = settings.get("priority")
            bandwidth = settings.get("bandwidth")
            share = "-" if priority else (bandwidth.split()[-1] if bandwidth else "0")
            level = (priority.split()[-1] if priority and priority.split()[-1].isdigit() else "1") if priority else "-"
            lines.append(f"{group:>7}{share:>14}{level:>10}{'-':>12}{'-':>13}{'-':>6}{'6(D)':>16}")
        lines += ["", f"Ingress Queuing for {name}", "-" * 53,
                  "QoS-Group#                 Pause", "-" * 53]
        lines += [f"{group:>7}{'Yes' if group in no_drop else 'No':>21}" for group in range(3, -1, -1)]
        pfc = switch.state["interfaces"][name].get("pfc_mode", "auto")
        lines += ["", f"PFC Statistics (mode {pfc})", "-" * 53,
                  "QoS-Group#     Rx Pause     Tx Pause"]
        lines += [f"{group:>7}{0:>13}{0:>13}" for group in range(3, -1, -1)]
    return lines


def _no_drop_groups(switch: Switch) -> set[int]:
    """QoS groups whose network-qos class pauses (PFC): the lossless ones."""
    line = switch.state["system_qos"].get("service-policy type network-qos")
    policy = next((p for p in switch.state["policy_maps"]
                   if line and p["type"] == "network-qos" and p["name"] == line.split()[-1]), None)
    class_maps = {c["name"]: c for c in switch.state["class_maps"] if c["type"] == "network-qos"}
    groups = set()
    for cls in (policy or {}).get("classes", []):
        if "pause" in cls["lines"] and cls["name"] in class_maps:
            for text in class_maps[cls["name"]]["lines"]:
                groups.add(int(text.split()[-1]))
    return groups


INTERFACE = r"((?i:mgmt0|(?:ethernet|eth|e|port-channel|po)\s*\d+(?:/\d+)*))"
COMMANDS = [
    (rf"interface(?: {INTERFACE})? status", _interface_status),
    (r"interface brief", _interface_brief),
    (rf"interface(?: {INTERFACE})? description", _interface_description),
    (rf"interface(?: {INTERFACE})? switchport", _interface_switchport),
    (rf"interface(?: {INTERFACE})?", _interface),
    (r"lldp neighbors", _lldp_neighbors),
    (r"lldp neighbors detail", _lldp_neighbors_detail),
    (r"mac address-table", _mac_address_table),
    (r"ip interface brief(?: vrf (\S+))?", _ip_interface_brief),
    (r"policy-map system type network-qos", _policy_map_system_network_qos),
    (rf"queuing interface(?: {INTERFACE})?", _queuing_interface),
]
