"""Show commands of the lab's NX-OS switch, text and `| json` forms, with NX-OS output filters.

Formats follow NX-OS 9.3 on a Nexus 3232C closely enough for cisco.nxos' parsers: the JSON
tables use NX-OS's TABLE_x/ROW_x layout (a single row is an object, not a list, as on the
device), and the text of `show version`/`show inventory` carries the fields cliconf reads.
"""
from __future__ import annotations

import re
import time

from nxos_cli import INVALID, VERSION, CliError, Switch, compress, expand, header, interface_key, print_interface, running_config, to_json

BOOT_TIME = time.time()


def _rows(rows: list) -> object:
    """NX-OS prints a one-row table as an object."""
    return rows[0] if len(rows) == 1 else rows


def _pipes(text: str) -> tuple[str, list[tuple[str, str]]]:
    parts = [part.strip() for part in text.split("|")]
    filters = []
    for part in parts[1:]:
        if not part:
            raise CliError(INVALID)
        verb, _, argument = part.partition(" ")
        filters.append((verb, argument.strip().strip("'\"")))
    return parts[0], filters


def _apply_text_filters(lines: list[str], filters: list[tuple[str, str]]) -> list[str]:
    for verb, argument in filters:
        if verb in ("include", "inc", "incl", "i", "grep"):
            pattern = re.compile(argument)
            lines = [line for line in lines if pattern.search(line)]
        elif verb in ("exclude", "ex", "excl"):
            pattern = re.compile(argument)
            lines = [line for line in lines if not pattern.search(line)]
        elif verb in ("begin", "beg"):
            pattern = re.compile(argument)
            start = next((index for index, line in enumerate(lines) if pattern.search(line)), len(lines))
            lines = lines[start:]
        elif verb in ("section", "sec"):
            lines = _section(lines, re.compile(argument))
        elif verb == "no-more":
            continue
        else:
            raise CliError(INVALID)
    return lines


def _section(lines: list[str], pattern: re.Pattern) -> list[str]:
    """Blocks (a top-level line and its indented lines) in which any line matches."""
    blocks: list[list[str]] = []
    for line in lines:
        if not line.strip():
            continue
        if line.startswith(" ") and blocks:
            blocks[-1].append(line)
        else:
            blocks.append([line])
    return [line for block in blocks if any(pattern.search(line) for line in block) for line in block]


def show(switch: Switch, text: str) -> str:
    command, filters = _pipes(text)
    json_form = None
    if filters and filters[-1][0] in ("json", "json-pretty"):
        json_form = filters.pop()[0]
    command = " ".join(command.split())
    command = re.sub(r"^run(ning)?(-config)?\b", "running-config", command)
    handler = None
    for pattern, function in COMMANDS:
        match = re.fullmatch(pattern, command)
        if match:
            handler = (function, match)
            break
    if handler is None:
        raise CliError(INVALID)
    function, match = handler
    result = function(switch, match, json_form is not None)
    if json_form:
        if isinstance(result, str):
            raise CliError(INVALID)
        return to_json(result, json_form == "json-pretty")
    lines = result if isinstance(result, list) else result.splitlines()
    return "\n".join(_apply_text_filters(lines, filters))


# ---------------------------------------------------------------------------------- commands
def _version(switch: Switch, _match, as_json: bool):
    uptime = int(time.time() - BOOT_TIME)
    days, rest = divmod(uptime, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    if as_json:
        return {"bios_ver_str": "05.45", "nxos_ver_str": VERSION, "nxos_file_name": "bootflash:///nxos.9.3.8.bin",
                "chassis_id": "Nexus3000 C3232C Chassis", "host_name": switch.state["hostname"],
                "proc_board_id": switch.serial, "kern_uptm_days": days, "kern_uptm_hrs": hours,
                "kern_uptm_mins": minutes, "kern_uptm_secs": seconds}
    return "\n".join([
        "Cisco Nexus Operating System (NX-OS) Software",
        "TAC support: http://www.cisco.com/tac",
        "Copyright (C) 2002-2021, Cisco and/or its affiliates.",
        "All rights reserved.",
        "",
        "Software",
        "  BIOS: version 05.45",
        f"  NXOS: version {VERSION}",
        "  BIOS compile time:  11/22/2019",
        "  NXOS image file is: bootflash:///nxos.9.3.8.bin",
        "  NXOS compile time:  8/18/2021 15:00:00 [08/19/2021 03:24:08]",
        "",
        "Hardware",
        "  cisco Nexus3000 C3232C Chassis",
        "  Intel(R) Xeon(R) CPU  @ 1.80GHz with 8155372 kB of memory.",
        f"  Processor Board ID {switch.serial}",
        "",
        f"  Device name: {switch.state['hostname']}",
        "  bootflash:   53298520 kB",
        f"Kernel uptime is {days} day(s), {hours} hour(s), {minutes} minute(s), {seconds} second(s)",
    ])


def _inventory(switch: Switch, _match, as_json: bool):
    rows = [{"name": "Chassis", "desc": "Nexus3000 C3232C Chassis", "productid": switch.model, "vendorid": "V01",
             "serialnum": switch.serial},
            {"name": "Slot 1", "desc": "32x40/100G QSFP28 Ethernet Module", "productid": switch.model, "vendorid": "V01",
             "serialnum": switch.serial}]
    if as_json:
        return {"TABLE_inv": {"ROW_inv": rows}}
    lines = []
    for row in rows:
        lines += [f'NAME: "{row["name"]}",  DESCR: "{row["desc"]}"',
                  f"PID: {row['productid']:<18},  VID: {row['vendorid']} ,  SN: {row['serialnum']}", ""]
    return "\n".join(lines)


def _hardware(switch: Switch, match, as_json: bool):
    if not as_json:
        return _version(switch, match, False)
    return {"kickstart_ver_str": VERSION, "chassis_id": "Nexus3000 C3232C Chassis"}


def _vrf(switch: Switch, _match, as_json: bool):
    rows = [{"vrf_name": "default", "vrf_id": 1, "vrf_state": "Up", "vrf_reason": "--"},
            {"vrf_name": "management", "vrf_id": 2, "vrf_state": "Up", "vrf_reason": "--"}]
    if as_json:
        return {"TABLE_vrf": {"ROW_vrf": rows}}
    lines = ["VRF-Name                           VRF-ID State   Reason"]
    lines += [f"{row['vrf_name']:<34} {row['vrf_id']:>6} {row['vrf_state']:<7} {row['vrf_reason']}" for row in rows]
    return "\n".join(lines)


def _feature(switch: Switch, _match, as_json: bool):
    from nxos_cli import FEATURES
    rows = [{"cfcFeatureCtrlName2": name, "cfcFeatureCtrlOpStatus2": "enabled" if switch.feature_enabled(name) else "disabled",
             "cfcInstanceNum": 1} for name in FEATURES]
    if as_json:
        return {"TABLE_cfcFeatureCtrlTable": {"ROW_cfcFeatureCtrlTable": rows}}
    lines = ["Feature Name          Instance  State   ", "--------------------  --------  --------"]
    lines += [f"{row['cfcFeatureCtrlName2']:<22}{row['cfcInstanceNum']:<10}{row['cfcFeatureCtrlOpStatus2']}" for row in rows]
    return "\n".join(lines)


def _running(switch: Switch, match, as_json: bool):
    if as_json:
        raise CliError(INVALID)
    rest = (match.group(1) or "").strip()
    words = rest.split()
    all_defaults = "all" in words
    words = [word for word in words if word != "all"]
    command = "show running-config" + (f" {rest}" if rest else "")
    body = running_config(switch, all_defaults=all_defaults)
    if not words:
        return header(command, switch.state) + body
    if words[0] == "vpc":
        return header(command, switch.state) + _running_vpc(switch)
    if words[0] == "interface" and len(words) >= 2:
        from nxos_cli import normalize_interface
        name = normalize_interface("".join(words[1:]))
        if name not in switch.state["interfaces"]:
            raise CliError(INVALID)
        return header(command, switch.state) + print_interface(name, switch.state["interfaces"][name])
    raise CliError(INVALID)


def _running_vpc(switch: Switch) -> list[str]:
    from nxos_cli import Session
    state = switch.state
    lines = [f"version {VERSION} Bios:version 05.45"]
    if not switch.feature_enabled("vpc"):
        return lines
    lines += ["feature vpc", ""]
    domain = state["vpc_domain"]
    if domain:
        lines.append(f"vpc domain {domain['id']}")
        lines += [f"  {domain['lines'][key]}" for key in Session.VPC_ORDER if key in domain["lines"]]
        lines.append("")
    for name in sorted(state["interfaces"], key=interface_key):
        settings = state["interfaces"][name]
        if settings.get("vpc"):
            lines += [f"interface {name}", "  vpc peer-link" if settings["vpc"] == "peer-link" else f"  vpc {settings['vpc']}", ""]
    return lines


def _startup(switch: Switch, _match, as_json: bool):
    if as_json:
        raise CliError(INVALID)
    startup = switch.state.get("startup")
    if not startup:
        return "No startup-config present"
    saved = Switch(startup, switch.model, switch.serial)
    return ["!Command: show startup-config", f"!Startup config saved at: {startup['last_change']}", ""] + running_config(saved)


def _vlan(switch: Switch, _match, as_json: bool):
    state = switch.state
    ports_of: dict[int, list[str]] = {}
    for name, settings in sorted(state["interfaces"].items(), key=lambda item: interface_key(item[0])):
        if not settings.get("switchport", True) or settings.get("channel_group"):
            continue
        if settings.get("mode", "access") == "access":
            ports_of.setdefault(settings.get("access_vlan", 1), []).append(name)
        else:
            allowed = settings.get("allowed_vlans", "1-4094")
            for vlan in (expand(allowed) if allowed else []):
                if str(vlan) in state["vlans"]:
                    ports_of.setdefault(vlan, []).append(name)
    brief, mtu = [], []
    for vlan in sorted(int(v) for v in state["vlans"]):
        data = state["vlans"][str(vlan)]
        brief.append({"vlanshowbr-vlanid": vlan, "vlanshowbr-vlanid-utf": vlan,
                      "vlanshowbr-vlanname": data["name"] or ("default" if vlan == 1 else f"VLAN{vlan:04d}"),
                      "vlanshowbr-vlanstate": data["state"], "vlanshowbr-shutstate": "shutdown" if data["shutdown"] else "noshutdown",
                      "vlanshowplist-ifidx": ",".join(ports_of.get(vlan, []))})
        mtu.append({"vlanshowinfo-vlanid": vlan, "vlanshowinfo-media-type": "enet", "vlanshowinfo-vlanmode": "ce-vlan"})
    if as_json:
        return {"TABLE_vlanbrief": {"ROW_vlanbrief": _rows(brief)}, "TABLE_mtuinfo": {"ROW_mtuinfo": _rows(mtu)}}
    lines = ["", "VLAN Name                             Status    Ports",
             "---- -------------------------------- --------- -------------------------------"]
    for row in brief:
        state_text = "act/lshut" if row["vlanshowbr-shutstate"] == "shutdown" else row["vlanshowbr-vlanstate"][:6]
        lines.append(f"{row['vlanshowbr-vlanid']:<4} {row['vlanshowbr-vlanname']:<32} {state_text:<9} "
                     f"{row['vlanshowplist-ifidx'].replace('Ethernet', 'Eth').replace('port-channel', 'Po')}")
    return "\n".join(lines)


def _vpc(switch: Switch, match, as_json: bool):
    state = switch.state
    domain = state["vpc_domain"] if switch.feature_enabled("vpc") else None
    if not switch.feature_enabled("vpc"):
        raise CliError(INVALID)
    peer_link = next((name for name, s in state["interfaces"].items() if s.get("vpc") == "peer-link"), None)
    keepalive = domain["lines"].get("peer-keepalive") if domain else None
    vpcs = sorted(((name, s["vpc"]) for name, s in state["interfaces"].items() if s.get("vpc") not in (None, "peer-link")),
                  key=lambda item: int(item[1]))
    # No data plane: the peer is reported as adjacent once the domain, keepalive and peer-link are configured.
    formed = bool(domain and keepalive and peer_link)
    data = {
        "vpc-domain-id": str(domain["id"]) if domain else "not configured",
        "vpc-peer-status": "peer-ok" if formed else "peer-link-down" if domain else "peer-not-configured",
        "vpc-peer-status-reason": "SUCCESS",
        "vpc-peer-keepalive-status": "peer-alive" if formed else "peer-not-alive",
        "vpc-peer-consistency": "consistent" if formed else "not-applicable",
        "vpc-role": ("primary" if _role_priority(domain) <= 32667 else "secondary") if formed else "none-established",
        "num-of-vpcs": len(vpcs),
    }
    if peer_link:
        data["TABLE_peerlink"] = {"ROW_peerlink": {"peer-link-id": 1, "peerlink-ifindex": _short(peer_link),
                                                   "peer-link-port-state": 1 if formed else 0,
                                                   "peer-up-vlan-bitset": compress(int(v) for v in state["vlans"])}}
    if vpcs:
        data["TABLE_vpc"] = {"ROW_vpc": _rows([{"vpc-id": int(vpc), "vpc-ifindex": _short(name),
                                                "vpc-port-state": 1 if formed else 0,
                                                "vpc-thru-peerlink": 0, "vpc-consistency": "consistent"}
                                               for name, vpc in vpcs])}
    if as_json:
        return data
    lines = ["Legend:", "                (*) - local vPC is down, forwarding via vPC peer-link", "",
             f"vPC domain id                     : {data['vpc-domain-id']}",
             f"Peer status                       : {data['vpc-peer-status']}",
             f"vPC keep-alive status             : {data['vpc-peer-keepalive-status']}",
             f"vPC role                          : {data['vpc-role']}",
             f"Number of vPCs configured         : {len(vpcs)}"]
    if peer_link:
        lines += ["", "vPC Peer-link status", "id    Port   Status Active vlans",
                  f"1     {_short(peer_link):<6} {'up' if formed else 'down':<6} {data['TABLE_peerlink']['ROW_peerlink']['peer-up-vlan-bitset']}"]
    if vpcs:
        lines += ["", "vPC status", "Id    Port          Status Consistency"]
        lines += [f"{vpc:<5} {_short(name):<13} {'up' if formed else 'down':<6} success" for name, vpc in vpcs]
    return "\n".join(lines)


def _role_priority(domain) -> int:
    text = (domain or {}).get("lines", {}).get("role priority", "role priority 32667")
    return int(text.split()[-1])


def _short(name: str) -> str:
    return name.replace("port-channel", "Po").replace("Ethernet", "Eth")


def _port_channel_summary(switch: Switch, _match, as_json: bool):
    state = switch.state
    rows = []
    for name in sorted((n for n in state["interfaces"] if n.startswith("port-channel")), key=interface_key):
        channel = int(name[len("port-channel"):])
        members = switch.members_of(channel)
        modes = {state["interfaces"][m]["channel_group"][1] for m in members}
        row = {"group": channel, "port-channel": name, "layer": "S" if state["interfaces"][name].get("switchport", True) else "R",
               "status": "U" if members else "D", "type": "Eth", "prtcl": "NONE" if modes == {"on"} or not modes else "LACP"}
        if members:
            row["TABLE_member"] = {"ROW_member": _rows([{"port": m, "port-status": "P"} for m in members])}
        rows.append(row)
    if as_json:
        return {"TABLE_channel": {"ROW_channel": _rows(rows)}} if rows else {}
    lines = ["Flags:  D - Down        P - Up in port-channel (members)", "        S - Switched    R - Routed",
             "        U - Up (port-channel)", "-" * 80,
             "Group Port-       Type     Protocol  Member Ports", "      Channel", "-" * 80]
    for row in rows:
        members = " ".join(f"{_short(m['port'])}(P)" for m in ([row["TABLE_member"]["ROW_member"]] if isinstance(
            row.get("TABLE_member", {}).get("ROW_member"), dict) else row.get("TABLE_member", {}).get("ROW_member", [])))
        lines.append(f"{row['group']:<5} {_short(row['port-channel'])}({row['layer']}{row['status']})".ljust(19)
                     + f"{row['type']:<9}{row['prtcl']:<10}{members}")
    return "\n".join(lines)


def _user_account(switch: Switch, match, as_json: bool):
    user = match.group(1)
    data = switch.state["users"].get(user)
    if data is None:
        return f"user {user} does not exist"
    return f"user:{user}\n        this user account has no expiry date\n        roles:{data['role']} "


def _interface_brief(switch: Switch, _match, as_json: bool):
    rows = []
    for name in sorted(switch.state["interfaces"], key=interface_key):
        settings = switch.state["interfaces"][name]
        rows.append({"interface": name, "state": "down" if settings.get("shutdown") else "up",
                     "mtu": settings.get("mtu", 1500), "vlan": settings.get("access_vlan", 1)
                     if settings.get("mode", "access") == "access" else "trunk",
                     "portchan": settings["channel_group"][0] if settings.get("channel_group") else "--"})
    if as_json:
        return {"TABLE_interface": {"ROW_interface": rows}}
    lines = ["Interface      VLAN   Status  MTU    Port-channel", "-" * 52]
    lines += [f"{row['interface']:<14} {str(row['vlan']):<6} {row['state']:<7} {row['mtu']:<6} {row['portchan']}" for row in rows]
    return "\n".join(lines)


COMMANDS = [
    (r"version", _version),
    (r"inventory", _inventory),
    (r"hardware", _hardware),
    (r"vrf(?: all)?", _vrf),
    (r"feature", _feature),
    (r"running-config((?: \S+)*)", _running),
    (r"startup-config", _startup),
    (r"vlan(?: brief)?", _vlan),
    (r"vpc(?: brief)?", _vpc),
    (r"port-channel summary", _port_channel_summary),
    (r"user-account (\S+)", _user_account),
    (r"interface brief", _interface_brief),
]
