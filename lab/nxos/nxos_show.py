"""Show commands of the lab's NX-OS switch, text and `| json` forms, with NX-OS output filters.

Formats follow NX-OS 9.3 on a Nexus 3232C closely enough for cisco.nxos' parsers, ntc-templates'
TextFSM templates and napalm's nxos_ssh driver: the JSON tables use NX-OS's TABLE_x/ROW_x layout
(a single row is an object, not a list, as on the device), and the text keeps NX-OS's columns and
lines. The port commands (`show interface ...`, LLDP, MAC table, queuing) are in nxos_show_ports;
link, LLDP and vPC peer state come from nxos_fabric (the cabling and the other lab switches).
"""
from __future__ import annotations

import re
import time

from nxos_cli import INVALID, VERSION, CliError, Switch, compress, expand, header, interface_key, print_interface, running_config, to_json, vlan_section
from nxos_fabric import link, system_mac, vpc_status
from nxos_show_ports import COMMANDS as PORT_COMMANDS
from nxos_show_ports import _rows, short_name

BOOT_TIME = time.time()


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
        "",
        "Last reset ",
        "  Reason: Unknown",
        f"  System version: {VERSION}",
        "  Service: ",
        "",
        "plugin",
        "  Core Plugin, Ethernet Plugin",
        "",
        "Active Package(s):",
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
    if words[0] == "vlan" and len(words) == 2:
        return header(command, switch.state) + _running_vlans(switch, expand(words[1]))
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


def _running_vlans(switch: Switch, wanted: list[int]) -> list[str]:
    """`show running-config vlan N[-M]`: the VLAN section of the running configuration, for those VLANs only."""
    existing = [vlan for vlan in wanted if str(vlan) in switch.state["vlans"]]
    lines = [f"version {VERSION} Bios:version 05.45"]
    if not existing:
        return lines
    return lines + vlan_section(switch.state, existing)


def _startup(switch: Switch, _match, as_json: bool):
    if as_json:
        raise CliError(INVALID)
    startup = switch.state.get("startup")
    if not startup:
        return "No startup-config present"
    saved = Switch(startup, switch.model, switch.serial)
    return ["!Command: show startup-config", f"!Startup config saved at: {startup['last_change']}", ""] + running_config(saved)


def _vlan_ports(switch: Switch) -> dict[int, list[str]]:
    """The ports each VLAN lists: port-channels, then ports; a port-channel's members are not listed."""
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
    return ports_of


def _vlan_rows(switch: Switch, ids: list[int] | None = None) -> list[dict]:
    state = switch.state
    ports_of = _vlan_ports(switch)
    rows = []
    for vlan in sorted(int(v) for v in state["vlans"]):
        if ids is not None and vlan not in ids:
            continue
        data = state["vlans"][str(vlan)]
        rows.append({"vlanshowbr-vlanid": vlan, "vlanshowbr-vlanid-utf": vlan,
                     "vlanshowbr-vlanname": data["name"] or ("default" if vlan == 1 else f"VLAN{vlan:04d}"),
                     "vlanshowbr-vlanstate": data["state"], "vlanshowbr-shutstate": "shutdown" if data["shutdown"] else "noshutdown",
                     "vlanshowplist-ifidx": ",".join(ports_of.get(vlan, []))})
    return rows


def _as_strings(rows: list[dict]) -> list[dict]:
    """`show vlan brief` and `show vlan id` print every value as a string (`show vlan` prints numbers)."""
    return [{key: str(value) for key, value in row.items()} for row in rows]


PORTS_COLUMN = 48   # where NX-OS starts the Ports column; a port list wraps below it
PORTS_WIDTH = 32


def _vlan_table(rows: list[dict]) -> list[str]:
    lines = ["", "VLAN Name                             Status    Ports",
             "---- -------------------------------- --------- -------------------------------"]
    for row in rows:
        shut = row["vlanshowbr-shutstate"] == "shutdown"
        state_text = {"active": "act", "suspend": "sus"}[row["vlanshowbr-vlanstate"]] + "/lshut" if shut \
            else row["vlanshowbr-vlanstate"]
        ports = [short_name(port) for port in row["vlanshowplist-ifidx"].split(",") if port]
        chunks: list[str] = []
        for port in ports:   # NX-OS fills each line with ", "-separated ports and wraps without a comma
            if chunks and len(chunks[-1]) + 2 + len(port) <= PORTS_WIDTH:
                chunks[-1] += ", " + port
            else:
                chunks.append(port)
        first = f"{row['vlanshowbr-vlanid']:<4} {row['vlanshowbr-vlanname']:<32} {state_text:<9}"
        lines.append((first + " " + chunks[0]) if chunks else first.rstrip())
        lines += [" " * PORTS_COLUMN + chunk for chunk in chunks[1:]]
    return lines


def _vlan_types(rows: list[dict]) -> list[str]:
    return (["", "VLAN Type         Vlan-mode", "---- -----        ----------"]
            + [f"{row['vlanshowbr-vlanid']:<4} enet         CE" for row in rows])


VLAN_TRAILER = ["", "Remote SPAN VLANs", "-" * 79, "", "Primary  Secondary  Type             Ports",
                "-------  ---------  ---------------  -------------------------------------------"]


def _vlan(switch: Switch, _match, as_json: bool):
    rows = _vlan_rows(switch)
    if as_json:
        mtu = [{"vlanshowinfo-vlanid": row["vlanshowbr-vlanid"], "vlanshowinfo-media-type": "enet",
                "vlanshowinfo-vlanmode": "ce-vlan"} for row in rows]
        return {"TABLE_vlanbrief": {"ROW_vlanbrief": _rows(rows)}, "TABLE_mtuinfo": {"ROW_mtuinfo": _rows(mtu)}}
    return _vlan_table(rows) + _vlan_types(rows) + VLAN_TRAILER


def _vlan_brief(switch: Switch, _match, as_json: bool):
    rows = _vlan_rows(switch)
    if as_json:
        return {"TABLE_vlanbriefxbrief": {"ROW_vlanbriefxbrief": _rows(_as_strings(rows))}}
    return _vlan_table(rows)


def _vlan_id(switch: Switch, match, as_json: bool):
    ids = expand(match.group(1))
    rows = _vlan_rows(switch, ids)
    if not rows:
        return f"VLAN {match.group(1)} not found in current VLAN database"
    if as_json:
        mtu = [{"vlanshowinfo-vlanid": str(row["vlanshowbr-vlanid"]), "vlanshowinfo-media-type": "enet",
                "vlanshowinfo-vlanmode": "ce-vlan"} for row in rows]
        return {"TABLE_vlanbriefid": {"ROW_vlanbriefid": _rows(_as_strings(rows))},
                "TABLE_mtuinfoid": {"ROW_mtuinfoid": _rows(mtu)}}
    return _vlan_table(rows) + _vlan_types(rows) + VLAN_TRAILER


# `show vpc` wording of each derived status (nxos_fabric.vpc_status), JSON value and text.
PEER_STATUS = {"peer-ok": "peer adjacency formed ok", "peer-link-down": "peer link is down",
               "peer-not-configured": "peer link not configured"}
KEEPALIVE = {"alive": ("peer-alive", "peer is alive"),
             "domain-mismatch": ("peer-alive-domain-mismatch", "peer is alive, but domain IDs do not match"),
             "not-alive": ("peer-not-alive", "peer is not alive"),
             "unreachable": ("peer-not-alive", "Suspended (Destination IP not reachable)"),
             "not-configured": ("peer-not-alive", "peer-keepalive not configured")}


def _vpc(switch: Switch, match, as_json: bool):
    state = switch.state
    if not switch.feature_enabled("vpc"):
        raise CliError(INVALID)
    domain = state["vpc_domain"]
    peer_link = next((name for name, s in state["interfaces"].items() if s.get("vpc") == "peer-link"), None)
    vpcs = sorted(((name, s["vpc"]) for name, s in state["interfaces"].items() if s.get("vpc") not in (None, "peer-link")),
                  key=lambda item: int(item[1]))
    # Derived from both switches' configuration and the cabling (nxos_fabric), as the peers would negotiate it.
    status = vpc_status(switch)
    formed = status.peer_ok
    peer_state = status.peer[1] if status.peer else {}
    peer_vpcs = {s.get("vpc") for s in peer_state.get("interfaces", {}).values()} if formed else set()
    peer_status = "peer-ok" if formed else "peer-link-down" if domain and peer_link else "peer-not-configured"
    keepalive_json, keepalive_text = KEEPALIVE[status.keepalive]
    data = {
        "vpc-domain-id": str(domain["id"]) if domain else "not configured",
        "vpc-peer-status": peer_status,
        "vpc-peer-status-reason": "SUCCESS" if formed else "PEER_LINK_DOWN" if peer_link else "NOT_CONFIGURED",
        "vpc-peer-keepalive-status": keepalive_json,
        "vpc-peer-consistency": "consistent" if formed else "not-applicable",
        "vpc-role": status.role,
        "num-of-vpcs": len(vpcs),
    }
    rows = []
    for name, vpc in vpcs:
        port_up = formed and link(switch, name).up
        consistent = vpc in peer_vpcs
        rows.append({"vpc-id": int(vpc), "vpc-ifindex": short_name(name), "vpc-port-state": 1 if port_up else 0,
                     "vpc-thru-peerlink": 0, "vpc-consistency": "consistent" if consistent else "not-applicable",
                     "vpc-consistency-status": "SUCCESS" if consistent else "NOT_APPLICABLE"})
    if peer_link:
        data["TABLE_peerlink"] = {"ROW_peerlink": {"peer-link-id": 1, "peerlink-ifindex": short_name(peer_link),
                                                   "peer-link-port-state": 1 if status.peer_link_up else 0,
                                                   "peer-up-vlan-bitset": compress(int(v) for v in state["vlans"])
                                                   if status.peer_link_up else "-"}}
    if rows:
        data["TABLE_vpc"] = {"ROW_vpc": _rows(rows)}
    if as_json:
        return data
    lines = ["Legend:", "                (*) - local vPC is down, forwarding via vPC peer-link", "",
             f"vPC domain id                     : {domain['id'] if domain else 'Not configured'}",
             f"Peer status                       : {PEER_STATUS[peer_status]}",
             f"vPC keep-alive status             : {keepalive_text}",
             f"Configuration consistency status  : {'success' if formed else 'failed'}",
             f"vPC role                          : {status.role.replace('-', ' ')}",
             f"Number of vPCs configured         : {len(vpcs)}"]
    if peer_link:
        row = data["TABLE_peerlink"]["ROW_peerlink"]
        lines += ["", "vPC Peer-link status", "-" * 69, "id   Port   Status Active vlans",
                  "--   ----   ------ " + "-" * 50,
                  f"1    {short_name(peer_link):<6} {'up' if status.peer_link_up else 'down':<6} {row['peer-up-vlan-bitset']}"]
    if rows:
        lines += ["", "vPC status", "-" * 80, "Id    Port          Status Consistency Reason                Active vlans",
                  "--    ------------  ------ ----------- ------                ---------------"]
        lines += [f"{row['vpc-id']:<5} {row['vpc-ifindex']:<13} {'up' if row['vpc-port-state'] else 'down':<6} "
                  f"{'success' if row['vpc-consistency'] == 'consistent' else 'failed':<11} "
                  f"{'success' if row['vpc-consistency'] == 'consistent' else 'vPC peer is not configured':<21} -"
                  for row in rows]
    return "\n".join(lines)


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
        members = " ".join(f"{short_name(m['port'])}(P)" for m in ([row["TABLE_member"]["ROW_member"]] if isinstance(
            row.get("TABLE_member", {}).get("ROW_member"), dict) else row.get("TABLE_member", {}).get("ROW_member", [])))
        lines.append(f"{row['group']:<5} {short_name(row['port-channel'])}({row['layer']}{row['status']})".ljust(19)
                     + f"{row['type']:<9}{row['prtcl']:<10}{members}")
    return "\n".join(lines)


def _user_rows(switch: Switch, names: list[str]) -> list[dict]:
    rows = []
    for name in names:
        data = switch.state["users"][name]
        roles = data.get("roles") or ([data["role"]] if data.get("role") else [])
        row_roles = [{"role": role} for role in roles]
        rows.append({"usr_name": name, "expire_date": "this user account has no expiry date",
                     "TABLE_role": {"ROW_role": row_roles[0] if len(row_roles) == 1 else row_roles}})
    return rows


def _user_account(switch: Switch, match, as_json: bool):
    """`show user-account [NAME]`; | json as NX-OS gives it (cisco.nxos's nxos_user reads it)."""
    names = list(switch.state["users"]) if not match.group(1) else [match.group(1).strip()]
    if match.group(1) and names[0] not in switch.state["users"]:
        return {} if as_json else f"user {names[0]} does not exist"
    rows = _user_rows(switch, names)
    if as_json:
        return {"TABLE_template": {"ROW_template": rows[0] if len(rows) == 1 else rows}}
    blocks = []
    for row in rows:
        roles = row["TABLE_role"]["ROW_role"]
        roles = roles if isinstance(roles, list) else [roles]
        blocks.append(f"user:{row['usr_name']}\n        this user account has no expiry date\n        roles:"
                      + " ".join(r["role"] for r in roles) + " ")
    return "\n\n".join(blocks)


def _hostname(switch: Switch, _match, as_json: bool):
    if as_json:
        return {"hostname": switch.state["hostname"]}
    return switch.state["hostname"] + " "


def _hosts(_switch: Switch, _match, as_json: bool):
    """No DNS is configured on the lab switches: lookups off, no default domain (so no FQDN)."""
    if as_json:
        raise CliError(INVALID)
    return ["DNS lookup disabled", "Name/address lookup uses domain service", "Name servers are 255.255.255.255",
            "", "", "Host                      Address"]


def _clock(_switch: Switch, _match, as_json: bool):
    now = time.time()
    text = time.strftime("%H:%M:%S", time.gmtime(now)) + f".{int(now * 1000) % 1000:03d} UTC " + \
        time.strftime("%a %b %d %Y", time.gmtime(now))
    if as_json:
        return {"simple_time": text + "\n"}
    return text


def _module(switch: Switch, _match, as_json: bool):
    base = system_mac(switch.name).replace(".", "")
    first = "-".join(base[i:i + 2] for i in range(0, 12, 2))
    last = first[:-2] + "ff"
    module = {"modinf": "1", "ports": "32", "modtype": "32x40/100G QSFP28 Ethernet Module", "model": switch.model,
              "status": "active *"}
    if as_json:
        return {"TABLE_modinfo": {"ROW_modinfo": module},
                "TABLE_modwwninfo": {"ROW_modwwninfo": {"modwwn": "1", "sw": VERSION, "hw": "1.0", "slottype": "NA"}},
                "TABLE_modmacinfo": {"ROW_modmacinfo": {"modmac": "1", "mac": f"{first} to {last}", "serialnum": switch.serial}},
                "TABLE_moddiaginfo": {"ROW_moddiaginfo": {"mod": "1", "diagstatus": "Pass"}}}
    return ["Mod Ports             Module-Type                      Model           Status",
            "--- ----- ------------------------------------- --------------------- ---------",
            f"1    32   {module['modtype']:<37} {switch.model:<21} {module['status']}",
            "", "Mod  Sw                       Hw    Slot", "---  -----------------------  ------  ----",
            f"1    {VERSION:<23}  1.0     NA", "", "",
            "Mod  MAC-Address(es)                         Serial-Num",
            "---  --------------------------------------  ----------",
            f"1    {first} to {last}  {switch.serial}", "",
            "Mod  Online Diag Status", "---  ------------------", "1    Pass", "",
            "* this terminal session "]


COMMANDS = [
    (r"version", _version),
    (r"inventory", _inventory),
    (r"hardware", _hardware),
    (r"vrf(?: all)?", _vrf),
    (r"feature", _feature),
    (r"running-config((?: \S+)*)", _running),
    (r"startup-config", _startup),
    (r"vlan", _vlan),
    (r"vlan brief", _vlan_brief),
    (r"vlan id (\S+)", _vlan_id),
    (r"vpc(?: brief)?", _vpc),
    (r"port-channel summary", _port_channel_summary),
    (r"user-account( \S+)?", _user_account),
    (r"hostname", _hostname),
    (r"hosts", _hosts),
    (r"clock", _clock),
    (r"module", _module),
] + PORT_COMMANDS
