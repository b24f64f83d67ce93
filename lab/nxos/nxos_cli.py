"""A Cisco Nexus 3232C (NX-OS 9.3) command line for the lab: configuration state and its show commands.

No SSH here (endpoint.py serves this over SSH): `Switch.execute(line)` takes one line as typed at
the prompt and returns the text the switch prints. It covers what cisco.nxos' network_cli
modules ask of a switch (nxos_feature, nxos_vlans, nxos_interfaces, nxos_l2_interfaces,
nxos_lag_interfaces, nxos_lacp_interfaces, nxos_vpc, nxos_vpc_interface, nxos_config,
nxos_command) and prints configuration the way NX-OS does: defaults hidden (`switchport mode
access`, `switchport`, `shutdown` on an Ethernet port that is down by default), fixed line order
within an interface, VLAN lists as ranges. Port-channel behaviour follows NX-OS: a member must
match its port-channel's layer-2 and MTU settings unless added with `force`, settings on the
port-channel propagate to its members, and they cannot be changed on a member.

There is no data plane: no frame is forwarded and LACP is not negotiated. Link state, LLDP
neighbours and vPC peer status are derived from the lab's cabling and the other lab switches'
configuration (nxos_fabric), as the real protocols would settle them; counters stay zero.
"""
from __future__ import annotations

import copy
import hashlib
import json
import re
import time
from collections.abc import Callable
from typing import Any

VERSION = "9.3(8)"
ETHERNET_PORTS = 32          # a 3232C has 32 QSFP28 ports
ALL_VLANS = "1-4094"
FEATURES = ("bash-shell", "bgp", "dhcp", "hsrp_engine", "interface-vlan", "lacp", "lldp", "nxapi",
            "ospf", "pim", "ptp", "sshServer", "tacacs", "telnetServer", "udld", "vpc", "vrrp")
DEFAULT_FEATURES = ("sshServer",)

INVALID = "% Invalid command at '^' marker."
# NX-OS's built-in roles (a role of one's own is `role name`, which the lab does not serve).
ROLES = ("network-admin", "network-operator", "vdc-admin", "vdc-operator") + tuple(f"priv-{n}" for n in range(16))
INCOMPLETE = "% Incomplete command at '^' marker."


class CliError(Exception):
    """A command the switch rejects; the text is what it prints."""


def compress(vlans) -> str:
    ordered = sorted(set(vlans))
    parts = []
    index = 0
    while index < len(ordered):
        start = end = ordered[index]
        while index + 1 < len(ordered) and ordered[index + 1] == end + 1:
            index += 1
            end = ordered[index]
        parts.append(str(start) if start == end else f"{start}-{end}")
        index += 1
    return ",".join(parts)


def expand(text: str) -> list[int]:
    result: set[int] = set()
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        if "-" in part:
            low, high = part.split("-", 1)
            if not (low.isdigit() and high.isdigit()) or int(low) > int(high):
                raise CliError(INVALID)
            result.update(range(int(low), int(high) + 1))
        elif part.isdigit():
            result.add(int(part))
        else:
            raise CliError(INVALID)
    if any(vlan < 1 or vlan > 4094 for vlan in result):
        raise CliError("ERROR: VLAN id out of range (1-4094)")
    return sorted(result)


def normalize_interface(text: str) -> str:
    """'eth1/1', 'Ethernet1/1', 'e1/1' -> 'Ethernet1/1'; 'po11', 'port-channel 11' -> 'port-channel11'."""
    text = text.replace(" ", "")
    match = re.fullmatch(r"(?i)(e|eth|ethernet)(\d+/\d+(?:/\d+)?)", text)
    if match:
        return f"Ethernet{match.group(2)}"
    match = re.fullmatch(r"(?i)(po|port-channel|port-ch)(\d+)", text)
    if match:
        return f"port-channel{int(match.group(2))}"
    match = re.fullmatch(r"(?i)mgmt0", text)
    if match:
        return "mgmt0"
    raise CliError(INVALID)


def interface_key(name: str) -> tuple:
    kind = 0 if name.startswith("mgmt") else 1 if name.startswith("port-channel") else 2
    return (kind, [int(part) for part in re.findall(r"\d+", name)])


# Interface settings, in the order `show running-config` prints them; (key, printer). A printer
# returns None for a default value, which NX-OS does not print.
def _print_switchport(value):
    return None if value or value is None else "no switchport"


INTERFACE_LINES: list[tuple[str, Callable[[Any], str | None]]] = [
    ("description", lambda v: f"description {v}"),
    ("switchport", _print_switchport),
    ("mode", lambda v: None if v == "access" else f"switchport mode {v}"),
    ("access_vlan", lambda v: None if v == 1 else f"switchport access vlan {v}"),
    ("native_vlan", lambda v: None if v == 1 else f"switchport trunk native vlan {v}"),
    ("allowed_vlans", lambda v: None if v == ALL_VLANS else f"switchport trunk allowed vlan {v or 'none'}"),
    ("stp_port_type", lambda v: f"spanning-tree port type {v}"),
    ("pfc_mode", lambda v: None if v == "auto" else f"priority-flow-control mode {v}"),
    ("mtu", lambda v: None if v == 1500 else f"mtu {v}"),
    ("speed", lambda v: f"speed {v}"),
    ("service_policy_qos_input", lambda v: f"service-policy type qos input {v}"),
    ("service_policy_queuing_output", lambda v: f"service-policy type queuing output {v}"),
    ("lacp_port_priority", lambda v: f"lacp port-priority {v}"),
    ("lacp_rate", lambda v: None if v == "normal" else f"lacp rate {v}"),
    ("lacp_min_links", lambda v: f"lacp min-links {v}"),
    ("lacp_max_bundle", lambda v: f"lacp max-bundle {v}"),
    ("lacp_suspend_individual", lambda v: None if v else "no lacp suspend-individual"),
    ("lacp_graceful_convergence", lambda v: None if v else "no lacp graceful-convergence"),
    ("channel_group", lambda v: f"channel-group {v[0]}" if v[1] == "on" else f"channel-group {v[0]} mode {v[1]}"),
    ("vpc", lambda v: "vpc peer-link" if v == "peer-link" else f"vpc {v}"),
    ("cdp", lambda v: None if v else "no cdp enable"),
    ("vrf_member", lambda v: f"vrf member {v}"),
    ("ip_address", lambda v: f"ip address {v}"),
]
# What a port-channel passes to its members (and what a member must match to join).
INHERITED = ("switchport", "mode", "access_vlan", "native_vlan", "allowed_vlans", "mtu")
DEFAULTS = {"switchport": True, "mode": "access", "access_vlan": 1, "native_vlan": 1, "allowed_vlans": ALL_VLANS,
            "pfc_mode": "auto", "mtu": 1500, "lacp_rate": "normal", "lacp_suspend_individual": True,
            "lacp_graceful_convergence": True, "cdp": True}


def new_interface(name: str) -> dict:
    settings = dict(DEFAULTS)
    if name.startswith("Ethernet"):
        settings["shutdown"] = True       # system default switchport shutdown
    elif name == "mgmt0":
        # mgmt0 is routed by nature; NX-OS prints no switchport line for it
        settings.update({"switchport": None, "shutdown": False, "vrf_member": "management"})
    else:
        settings["shutdown"] = False
    return settings


def print_interface(name: str, settings: dict) -> list[str]:
    lines = [f"interface {name}"]
    for key, printer in INTERFACE_LINES:
        if key not in settings or settings[key] is None:
            continue
        text = printer(settings[key])
        if text:
            lines.append("  " + text)
    default_down = name.startswith("Ethernet")
    if settings.get("shutdown") and not default_down:
        lines.append("  shutdown")
    elif not settings.get("shutdown") and default_down:
        lines.append("  no shutdown")
    return lines


# ---------------------------------------------------------------------------------------- state
def factory_state(hostname: str, mgmt_address: str, username: str, secret_hash: str) -> dict:
    interfaces = {f"Ethernet1/{port}": new_interface(f"Ethernet1/{port}") for port in range(1, ETHERNET_PORTS + 1)}
    interfaces["mgmt0"] = new_interface("mgmt0")
    interfaces["mgmt0"]["ip_address"] = f"{mgmt_address}/24"
    return {
        "hostname": hostname,
        "features": list(DEFAULT_FEATURES),
        "users": {username: {"password": secret_hash, "role": "network-admin"}},
        "vlans": {"1": {"name": "default", "shutdown": False, "state": "active"}},
        "interfaces": interfaces,
        "vpc_domain": None,
        "class_maps": [],      # [{type, match, name, lines[]}]
        "policy_maps": [],     # [{type, name, classes: [{header, name, lines: {key: line}}]}]
        "system_qos": {},      # key -> line
        "last_change": time.strftime("%a %b %d %H:%M:%S %Y"),
    }


class Switch:
    """The configuration of one switch and the modes of one CLI session over it."""

    def __init__(self, state: dict, model: str = "N3K-C3232C", serial: str = "FOC00000000",
                 on_change: Callable[[dict], None] | None = None, name: str | None = None, fabric: Any = None):
        self.state = state
        self.model = model
        self.serial = serial
        self.on_change = on_change or (lambda state: None)
        # The switch's name in the lab (the inventory's, not the configurable hostname): what the cabling and
        # the other switches know it by. fabric (nxos_fabric.Fabric) tells what is cabled to which port and
        # how the other lab switches are configured; None is a switch alone, with nothing cabled.
        self.name = name or state["hostname"]
        self.fabric = fabric

    # ------------------------------------------------------------------------------- sessions
    def session(self) -> Session:
        return Session(self)

    def changed(self) -> None:
        self.state["last_change"] = time.strftime("%a %b %d %H:%M:%S %Y")
        self.on_change(self.state)

    # ------------------------------------------------------------------------------- helpers
    def interface(self, name: str, create: bool = True) -> dict:
        interfaces = self.state["interfaces"]
        if name not in interfaces:
            if name.startswith("Ethernet"):
                raise CliError(f"ERROR: Invalid interface {name}")
            if not create:
                raise CliError(f"ERROR: Interface {name} does not exist")
            interfaces[name] = new_interface(name)
        return interfaces[name]

    def members_of(self, channel: int) -> list[str]:
        return sorted((name for name, s in self.state["interfaces"].items()
                       if s.get("channel_group") and s["channel_group"][0] == channel), key=interface_key)

    def feature_enabled(self, name: str) -> bool:
        return name in self.state["features"]


class Session:
    """One CLI session: its mode stack, and the dispatch of each typed line."""

    def __init__(self, switch: Switch):
        self.switch = switch
        self.mode: list[tuple[str, Any]] = []      # [] = exec; [("config", None), ("if", names)...]
        self.dont_ask = False
        self._entered = False

    # ------------------------------------------------------------------------------- prompt
    MODE_PROMPTS = {"config": "config", "if": "config-if", "vlan": "config-vlan", "vpc": "config-vpc-domain",
                    "cmap-qos": "config-cmap-qos", "cmap-nq": "config-cmap-nqos", "pmap-qos": "config-pmap-qos",
                    "pmap-nq": "config-pmap-nqos", "pmap-que": "config-pmap-que", "pmap-c-qos": "config-pmap-c-qos",
                    "pmap-c-nq": "config-pmap-nqos-c", "pmap-c-que": "config-pmap-c-que", "sysqos": "config-sys-qos"}

    def prompt(self) -> str:
        host = self.switch.state["hostname"]
        if not self.mode:
            return f"{host}# "
        return f"{host}({self.MODE_PROMPTS[self.mode[-1][0]]})# "

    # ------------------------------------------------------------------------------- dispatch
    def execute(self, line: str) -> str:
        """Run one line; returns the output (errors included), without the prompt."""
        text = line.strip()
        if not text or text.startswith("!"):
            return ""
        try:
            return self._execute(text)
        except CliError as error:
            return str(error)

    def _execute(self, text: str) -> str:
        words = text.split()
        if words[0] in ("end",) and len(words) == 1:
            self.mode = []
            return ""
        if text in ("exit", "quit"):
            if self.mode:
                self.mode.pop()
            return ""
        if re.fullmatch(r"(configure|conf)( t(erminal)?)?", text):
            if not self.mode:
                self.mode = [("config", None)]
            return ""
        if words[0] == "terminal":
            return self._terminal(words)
        if not self.mode or words[0] in ("show", "sh", "copy", "do"):
            if words[0] == "do":
                text = text[3:].strip()
            return self._exec(text)
        return self._configure(text)

    def _terminal(self, words: list[str]) -> str:
        if len(words) >= 2 and words[1] in ("length", "width", "session-timeout") and len(words) == 3 and words[2].isdigit():
            return ""
        if words[1:] == ["dont-ask"]:
            self.dont_ask = True
            return ""
        if words[1:] == ["no", "dont-ask"]:
            self.dont_ask = False
            return ""
        raise CliError(INVALID)

    # ------------------------------------------------------------------------------- exec mode
    def _exec(self, text: str) -> str:
        from nxos_show import show  # local: show commands live beside this module
        if text in ("copy running-config startup-config", "copy run start", "copy r s"):
            self.switch.state["startup"] = {k: copy.deepcopy(v) for k, v in self.switch.state.items() if k != "startup"}
            self.switch.changed()
            return ("[########################################] 100%\n"
                    "Copy complete, now saving to disk (please wait)...\nCopy complete.")
        if text.startswith(("show ", "sh ")):
            return show(self.switch, text.split(None, 1)[1])
        raise CliError(INVALID)

    # ------------------------------------------------------------------------------- config mode
    def _configure(self, text: str) -> str:
        negate = text.startswith("no ")
        body = text[3:].strip() if negate else text
        # Try the current mode, then each parent mode (NX-OS falls back to the enclosing modes).
        for depth in range(len(self.mode), 0, -1):
            mode, context = self.mode[depth - 1]
            handler = getattr(self, f"_mode_{mode.replace('-', '_')}")
            self._entered = False
            result = handler(body, negate, context, depth)
            if result is not None:
                if not self._entered:
                    # a command of an enclosing mode leaves the session in that mode
                    self.mode = self.mode[:depth]
                self.switch.changed()
                return result
        raise CliError(INVALID)

    def _enter(self, depth: int, mode: str, context: Any) -> str:
        self.mode = self.mode[:depth] + [(mode, context)]
        self._entered = True
        return ""

    # Each _mode_* handler returns None when the line is not a command of that mode.
    def _mode_config(self, body: str, negate: bool, _context, depth: int) -> str | None:
        sw = self.switch
        state = sw.state
        words = body.split()
        if words[0] == "feature" and len(words) == 2:
            name = words[1]
            if name not in FEATURES:
                raise CliError(INVALID)
            if negate:
                if name in state["features"]:
                    state["features"].remove(name)
                    if name == "vpc":
                        state["vpc_domain"] = None
                        for settings in state["interfaces"].values():
                            settings.pop("vpc", None)
                    if name == "lacp":
                        for settings in state["interfaces"].values():
                            for key in ("lacp_rate", "lacp_port_priority"):
                                settings.pop(key, None)
            elif name not in state["features"]:
                state["features"].append(name)
            return ""
        if words[0] == "username" and len(words) >= 2:
            return self._username(words[1], words[2:], negate)
        if words[0] == "hostname" and len(words) == 2 and not negate:
            state["hostname"] = words[1]
            return ""
        if words[:2] == ["default", "interface"] and not negate:
            for name in self._interface_range(body[len("default interface"):].strip()):
                self._default_interface(name)
            return ""
        if words[0] == "interface":
            names = self._interface_range(body[len("interface"):].strip())
            if negate:
                for name in names:
                    if name.startswith("Ethernet") or name == "mgmt0":
                        raise CliError(f"ERROR: Cannot remove interface {name}")
                    if name in state["interfaces"]:
                        for member in sw.members_of(int(name[len("port-channel"):])):
                            state["interfaces"][member].pop("channel_group", None)
                        del state["interfaces"][name]
                return ""
            for name in names:
                sw.interface(name)
            return self._enter(depth, "if", names)
        if words[0] == "vlan" and len(words) == 2:
            ids = expand(words[1])
            if negate:
                for vlan in ids:
                    if vlan == 1:
                        raise CliError("ERROR: Default VLAN 1 cannot be deleted")
                    state["vlans"].pop(str(vlan), None)
                return ""
            for vlan in ids:
                state["vlans"].setdefault(str(vlan), {"name": None, "shutdown": False, "state": "active"})
            return self._enter(depth, "vlan", ids)
        if words[:2] == ["vpc", "domain"] and len(words) == 3 and words[2].isdigit():
            if not sw.feature_enabled("vpc"):
                raise CliError(INVALID)
            domain = int(words[2])
            if negate:
                if not self.dont_ask:
                    raise CliError("ERROR: Deleting the vPC domain needs confirmation; use terminal dont-ask")
                state["vpc_domain"] = None
                return ""
            current = state["vpc_domain"]
            if current and current["id"] != domain:
                raise CliError(f"ERROR: vPC domain {current['id']} already configured; remove it first")
            if not current:
                state["vpc_domain"] = {"id": domain, "lines": {}}
            return self._enter(depth, "vpc", domain)
        match = re.fullmatch(r"class-map type (qos|network-qos)(?: (match-all|match-any))? (\S+)", body)
        if match:
            kind, how, name = match.groups()
            if kind == "network-qos" and how:
                raise CliError(INVALID)
            maps = state["class_maps"]
            existing = next((m for m in maps if m["type"] == kind and m["name"] == name), None)
            if negate:
                if existing:
                    maps.remove(existing)
                return ""
            if existing is None:
                existing = {"type": kind, "match": how or ("match-all" if kind == "qos" else None), "name": name, "lines": []}
                maps.append(existing)
            return self._enter(depth, "cmap-qos" if kind == "qos" else "cmap-nq", existing)
        match = re.fullmatch(r"policy-map type (qos|network-qos|queuing) (\S+)", body)
        if match:
            kind, name = match.groups()
            maps = state["policy_maps"]
            existing = next((m for m in maps if m["type"] == kind and m["name"] == name), None)
            if negate:
                if existing:
                    maps.remove(existing)
                return ""
            if existing is None:
                existing = {"type": kind, "name": name, "classes": []}
                maps.append(existing)
            mode = {"qos": "pmap-qos", "network-qos": "pmap-nq", "queuing": "pmap-que"}[kind]
            return self._enter(depth, mode, existing)
        if body == "system qos" and not negate:
            return self._enter(depth, "sysqos", None)
        if re.fullmatch(r"spanning-tree port type (edge|network) default", body) or body.startswith("lldp "):
            return ""
        return None

    def _username(self, name: str, rest: list[str], negate: bool) -> str:
        """`username NAME [password [5] SECRET] [role ROLE]`, `username NAME role ROLE`, their `no` forms.
        A clear-text password is kept hashed (a stand-in for NX-OS's SHA-256-crypt: `password 5 $5$...`)."""
        users = self.switch.state["users"]
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,27}", name):
            raise CliError("% Invalid user name")
        if negate and not rest:
            if name == next(iter(users), None):  # the factory account the lab logs in as
                raise CliError("ERROR: Cannot delete the user of this session")
            users.pop(name, None)
            return ""
        user = users.get(name)
        roles: list[str] = list(user.get("roles") or [user["role"]]) if user else []
        password = user["password"] if user else "!"
        index = 0
        while index < len(rest):
            word = rest[index]
            if word == "password" and index + 1 < len(rest) and not negate:
                if rest[index + 1] == "5" and index + 2 < len(rest):
                    if not re.fullmatch(r"\$5\$[./0-9A-Za-z]{1,16}\$[./0-9A-Za-z]{43}", rest[index + 2]):
                        raise CliError("% Invalid encrypted password")
                    password, index = rest[index + 2], index + 3
                else:
                    password = "$5$" + hashlib.sha256(f"{name}:{rest[index + 1]}".encode()).hexdigest()[:43]
                    index += 2
            elif word == "role" and index + 1 < len(rest):
                role = rest[index + 1]
                if role not in ROLES:
                    raise CliError(f"% Invalid role {role}")
                if negate:
                    roles = [r for r in roles if r != role]
                elif role not in roles:
                    roles.append(role)
                index += 2
            else:
                raise CliError(INVALID)
        if not user and negate:
            return ""
        users[name] = {"password": password, "role": roles[0] if roles else None, "roles": roles}
        return ""

    def _default_interface(self, name: str) -> None:
        """`default interface X`: every setting of X back to its default, as on a port fresh from the factory."""
        sw = self.switch
        if name == "mgmt0":
            raise CliError("ERROR: default interface is not supported on mgmt0")  # the lab's way in; written for the lab
        settings = sw.interface(name, create=False)
        fresh = new_interface(name)
        if name.startswith("port-channel"):
            # the members stay in the channel and take its settings, now the defaults
            for member in sw.members_of(int(name[len("port-channel"):])):
                sw.state["interfaces"][member].update({key: fresh[key] for key in INHERITED})
        settings.clear()          # an Ethernet port also leaves its channel-group
        settings.update(fresh)

    def _interface_range(self, text: str) -> list[str]:
        """'Ethernet1/1-4', 'Ethernet1/1, Ethernet1/3', 'port-channel11' -> names."""
        names: list[str] = []
        for part in text.split(","):
            part = part.strip()
            match = re.fullmatch(r"(?i)(e|eth|ethernet)\s*(\d+)/(\d+)-(\d+)", part)
            if match:
                names += [f"Ethernet{match.group(2)}/{port}" for port in range(int(match.group(3)), int(match.group(4)) + 1)]
            elif part:
                names.append(normalize_interface(part))
        if not names:
            raise CliError(INCOMPLETE)
        return names

    # ---------------------------------------------------------------------------- interface mode
    # A value in `(?: (?P<value>...))?` may be left out after `no`: NX-OS takes `no mtu`, `no description`,
    # `no switchport access vlan` ... as "back to the default", whatever the current value.
    IF_PATTERNS: list[tuple[str, str]] = [
        (r"description(?: (?P<value>.+))?", "description"),
        (r"switchport", "switchport"),
        (r"switchport mode(?: (?P<value>access|trunk))?", "mode"),
        (r"switchport access vlan(?: (?P<value>\d+))?", "access_vlan"),
        (r"switchport trunk native vlan(?: (?P<value>\d+))?", "native_vlan"),
        # `no switchport trunk allowed vlan` (no list) is how cisco.nxos resets a trunk's list
        (r"switchport trunk allowed vlan(?: (?P<op>add |remove |except )?(?P<value>\S+))?", "allowed_vlans"),
        (r"spanning-tree port type(?: (?P<value>edge trunk|edge|network|normal))?", "stp_port_type"),
        (r"priority-flow-control mode(?: (?P<value>on|off|auto))?", "pfc_mode"),
        (r"mtu(?: (?P<value>\d+))?", "mtu"),
        (r"speed(?: (?P<value>\d+|auto))?", "speed"),
        (r"service-policy type qos input(?: (?P<value>\S+))?", "service_policy_qos_input"),
        (r"service-policy type queuing output(?: (?P<value>\S+))?", "service_policy_queuing_output"),
        (r"lacp port-priority(?: (?P<value>\d+))?", "lacp_port_priority"),
        (r"lacp rate(?: (?P<value>fast|normal))?", "lacp_rate"),
        (r"lacp min-links(?: (?P<value>\d+))?", "lacp_min_links"),
        (r"lacp max-bundle(?: (?P<value>\d+))?", "lacp_max_bundle"),
        (r"lacp suspend-individual", "lacp_suspend_individual"),
        (r"lacp graceful-convergence", "lacp_graceful_convergence"),
        (r"channel-group(?: (?P<id>\d+))?(?P<force> force)?(?: mode (?P<value>active|passive|on))?", "channel_group"),
        (r"vpc peer-link", "vpc_peer_link"),
        (r"vpc(?: (?P<value>\d+))?", "vpc"),
        (r"cdp enable", "cdp"),
        (r"shutdown", "shutdown"),
        (r"vrf member(?: (?P<value>\S+))?", "vrf_member"),
        (r"ip address(?: (?P<value>\S+))?", "ip_address"),
    ]
    # Settings whose value may only be left out after `no` (the others take none, or have their own rule).
    VALUE_REQUIRED = {"description", "mode", "access_vlan", "native_vlan", "stp_port_type", "pfc_mode", "mtu", "speed",
                      "service_policy_qos_input", "service_policy_queuing_output", "lacp_port_priority", "lacp_rate",
                      "lacp_min_links", "lacp_max_bundle", "vrf_member", "ip_address"}

    def _mode_if(self, body: str, negate: bool, names: list[str], _depth: int) -> str | None:
        for pattern, key in self.IF_PATTERNS:
            match = re.fullmatch(pattern, body)
            if match:
                if key in self.VALUE_REQUIRED and match.group("value") is None and not negate:
                    raise CliError(INCOMPLETE)
                for name in names:
                    self._set_interface(name, key, match, negate)
                return ""
        return None

    def _set_interface(self, name: str, key: str, match: re.Match, negate: bool) -> None:
        sw = self.switch
        settings = sw.interface(name)
        groups = match.groupdict()
        value = groups.get("value")
        is_channel = name.startswith("port-channel")
        member_of = settings.get("channel_group")
        if key in INHERITED and member_of and not (key == "switchport" and not negate):
            raise CliError(f"ERROR: {name}: {key.replace('_', ' ')} cannot be changed on a member of "
                           f"port-channel{member_of[0]}; configure the port-channel")
        if key in ("mode", "access_vlan", "native_vlan", "allowed_vlans") and not settings.get("switchport", True):
            raise CliError(f"ERROR: {name}: requires switchport")
        if key == "description":
            if negate:
                settings.pop("description", None)
            else:
                settings["description"] = value
        elif key == "switchport":
            if name == "mgmt0":
                raise CliError(INVALID)
            settings["switchport"] = not negate
            if negate:
                for inherited in ("mode", "access_vlan", "native_vlan", "allowed_vlans"):
                    settings[inherited] = DEFAULTS[inherited]
        elif key in ("access_vlan", "native_vlan"):
            settings[key] = 1 if negate else int(value)
        elif key == "mode":
            settings["mode"] = "access" if negate else value
        elif key == "allowed_vlans":
            op = (groups.get("op") or "").strip()
            if value is None and not negate:
                raise CliError(INCOMPLETE)
            if negate:
                settings[key] = ALL_VLANS
            elif value in ("all",) and not op:
                settings[key] = ALL_VLANS
            elif value == "none" and not op:
                settings[key] = ""
            else:
                current = set(expand(settings[key])) if settings[key] else set()
                given = set(expand(value))
                if op == "add":
                    current |= given
                elif op == "remove":
                    current -= given
                elif op == "except":
                    current = set(range(1, 4095)) - given
                else:
                    current = given
                settings[key] = compress(current) if current else ""
        elif key == "stp_port_type":
            if negate:
                settings.pop(key, None)
            else:
                settings[key] = value
        elif key == "pfc_mode":
            settings[key] = "auto" if negate else value
        elif key == "mtu":
            mtu = 1500 if negate else int(value)
            if not 576 <= mtu <= 9216:
                raise CliError("ERROR: MTU must be in the range 576-9216")
            settings[key] = mtu
        elif key in ("speed", "vrf_member", "ip_address", "lacp_port_priority", "lacp_min_links", "lacp_max_bundle",
                     "service_policy_qos_input", "service_policy_queuing_output"):
            if key.startswith("service_policy") and not negate:
                kind = "qos" if "qos" in key else "queuing"
                if not any(p["type"] == kind and p["name"] == value for p in sw.state["policy_maps"]):
                    raise CliError(f"ERROR: policy-map {value} of type {kind} does not exist")
            if key.startswith("lacp") and not sw.feature_enabled("lacp"):
                raise CliError(INVALID)
            if negate:
                settings.pop(key, None)
            else:
                settings[key] = int(value) if value.isdigit() and key != "speed" else value
        elif key == "lacp_rate":
            if not sw.feature_enabled("lacp"):
                raise CliError(INVALID)
            if is_channel:
                raise CliError(f"ERROR: {name}: lacp rate is set on the member ports")
            settings[key] = "normal" if negate else value
        elif key in ("lacp_suspend_individual", "lacp_graceful_convergence"):
            if not sw.feature_enabled("lacp"):
                raise CliError(INVALID)
            if not is_channel:
                raise CliError(INVALID)
            settings[key] = not negate
        elif key == "channel_group":
            self._channel_group(name, settings, groups, negate)
        elif key in ("vpc", "vpc_peer_link"):
            if not sw.feature_enabled("vpc"):
                raise CliError(INVALID)
            if not is_channel:
                raise CliError(f"ERROR: {name}: vPC is configured on port-channels")
            if negate:
                settings.pop("vpc", None)
            elif key == "vpc_peer_link":
                other = next((n for n, s in sw.state["interfaces"].items() if s.get("vpc") == "peer-link" and n != name), None)
                if other:
                    raise CliError(f"ERROR: peer-link is already configured on {other}")
                settings["vpc"] = "peer-link"
            else:
                vpc_id = value or name[len("port-channel"):]
                other = next((n for n, s in sw.state["interfaces"].items() if s.get("vpc") == vpc_id and n != name), None)
                if other:
                    raise CliError(f"ERROR: vPC {vpc_id} is already configured on {other}")
                settings["vpc"] = vpc_id
        elif key == "cdp":
            settings["cdp"] = not negate
        elif key == "shutdown":
            settings["shutdown"] = not negate
        if is_channel and key in INHERITED:
            for member in sw.members_of(int(name[len("port-channel"):])):
                sw.state["interfaces"][member][key] = settings[key]

    def _channel_group(self, name: str, settings: dict, groups: dict, negate: bool) -> None:
        sw = self.switch
        if not name.startswith("Ethernet"):
            raise CliError(INVALID)
        if negate:
            settings.pop("channel_group", None)
            return
        if groups.get("id") is None:
            raise CliError(INCOMPLETE)
        mode = groups.get("value") or "on"
        if mode in ("active", "passive") and not sw.feature_enabled("lacp"):
            raise CliError("ERROR: LACP is not enabled; enable it with feature lacp")
        channel = int(groups["id"])
        channel_name = f"port-channel{channel}"
        current = settings.get("channel_group")
        if current and current[0] != channel:
            raise CliError(f"command failed: {name} is already a member of port-channel{current[0]}")
        existing = sw.state["interfaces"].get(channel_name)
        others = [m for m in sw.members_of(channel) if m != name]
        if others:
            modes = {sw.state["interfaces"][m]["channel_group"][1] for m in others}
            if ("on" in modes) != (mode == "on"):
                raise CliError(f"command failed: port not compatible [channel mode] ({name})")
        if existing is None:
            existing = sw.interface(channel_name)
            for key in INHERITED:        # a new port-channel takes its first member's settings
                existing[key] = settings.get(key, DEFAULTS[key])
        elif groups.get("force"):
            for key in INHERITED:
                settings[key] = existing.get(key, DEFAULTS[key])
        else:
            for key in INHERITED:
                if settings.get(key, DEFAULTS[key]) != existing.get(key, DEFAULTS[key]):
                    raise CliError(f"command failed: port not compatible [{key.replace('_', ' ')}] ({name} and {channel_name})")
        settings["channel_group"] = [channel, mode]

    # ---------------------------------------------------------------------------- vlan mode
    def _mode_vlan(self, body: str, negate: bool, ids: list[int], _depth: int) -> str | None:
        vlans = self.switch.state["vlans"]
        match = re.fullmatch(r"name (\S+)", body)
        if match or (negate and body == "name"):
            for vlan in ids:
                if vlan == 1 and not negate:
                    raise CliError("ERROR: The name of VLAN 1 cannot be changed")
                vlans[str(vlan)]["name"] = None if negate else match.group(1)
            return ""
        if body == "shutdown":
            for vlan in ids:
                vlans[str(vlan)]["shutdown"] = not negate
            return ""
        match = re.fullmatch(r"state (active|suspend)", body)
        if match:
            for vlan in ids:
                vlans[str(vlan)]["state"] = "active" if negate else match.group(1)
            return ""
        if body == "mode ce":
            return ""
        return None

    # ---------------------------------------------------------------------------- vpc domain mode
    VPC_PATTERNS = [
        (r"role priority (\d+)", "role priority"),
        (r"system-priority (\d+)", "system-priority"),
        (r"peer-keepalive destination (\S+)(?: source (\S+))?(?: vrf (\S+))?", "peer-keepalive"),
        (r"delay restore (\d+)", "delay restore"),
        (r"delay restore interface-vlan (\d+)", "delay restore interface-vlan"),
        (r"peer-gateway", "peer-gateway"),
        (r"peer-switch", "peer-switch"),
        (r"auto-recovery", "auto-recovery"),
        (r"auto-recovery reload-delay (\d+)", "auto-recovery reload-delay"),
        (r"ip arp synchronize", "ip arp synchronize"),
    ]
    VPC_ORDER = ["peer-switch", "role priority", "system-priority", "peer-keepalive", "delay restore",
                 "delay restore interface-vlan", "peer-gateway", "auto-recovery", "auto-recovery reload-delay",
                 "ip arp synchronize"]

    def _mode_vpc(self, body: str, negate: bool, _domain, _depth: int) -> str | None:
        lines = self.switch.state["vpc_domain"]["lines"]
        for pattern, key in self.VPC_PATTERNS:
            match = re.fullmatch(pattern, body)
            if match:
                if key in ("peer-gateway", "peer-switch") and not negate and not self.dont_ask:
                    raise CliError(f"ERROR: {key} changes need confirmation; use terminal dont-ask")
                if key == "peer-keepalive" and match.group(3) and match.group(3) not in ("management", "default"):
                    raise CliError(f"ERROR: VRF {match.group(3)} does not exist")
                if negate:
                    lines.pop(key, None)
                else:
                    lines[key] = body
                return ""
        return None

    # ---------------------------------------------------------------------------- QoS modes
    def _mode_cmap_qos(self, body: str, negate: bool, cmap: dict, _depth: int) -> str | None:
        match = re.fullmatch(r"match (dscp|cos|precedence) (\S+)", body)
        return self._cmap_line(cmap, body, negate) if match else None

    def _mode_cmap_nq(self, body: str, negate: bool, cmap: dict, _depth: int) -> str | None:
        match = re.fullmatch(r"match qos-group (\d)", body)
        return self._cmap_line(cmap, body, negate) if match else None

    @staticmethod
    def _cmap_line(cmap: dict, body: str, negate: bool) -> str:
        if negate:
            if body in cmap["lines"]:
                cmap["lines"].remove(body)
        elif body not in cmap["lines"]:
            cmap["lines"].append(body)
        return ""

    def _policy_class(self, pmap: dict, body: str, negate: bool, depth: int, mode: str, prefix: str) -> str | None:
        match = re.fullmatch(r"class " + prefix + r"(\S+)", body)
        if not match:
            return None
        name = match.group(1)
        existing = next((c for c in pmap["classes"] if c["name"] == name), None)
        if negate:
            if existing:
                pmap["classes"].remove(existing)
            return ""
        if pmap["type"] != "queuing" and name != "class-default" and not any(
                c["name"] == name and c["type"] == pmap["type"] for c in self.switch.state["class_maps"]):
            raise CliError(f"ERROR: class-map {name} of type {pmap['type']} does not exist")
        if pmap["type"] == "queuing" and not re.fullmatch(r"c-out-q[1-3]|c-out-q-default|c-in-q[1-3]|c-in-q-default", name):
            raise CliError(f"ERROR: {name} is not a system queuing class (c-out-q1..3, c-out-q-default)")
        if existing is None:
            existing = {"header": body, "name": name, "lines": {}}
            pmap["classes"].append(existing)
        return self._enter(depth, mode, existing)

    def _mode_pmap_qos(self, body, negate, pmap, depth):
        return self._policy_class(pmap, body, negate, depth, "pmap-c-qos", r"(?:type qos )?")

    def _mode_pmap_nq(self, body, negate, pmap, depth):
        return self._policy_class(pmap, body, negate, depth, "pmap-c-nq", r"type network-qos ")

    def _mode_pmap_que(self, body, negate, pmap, depth):
        return self._policy_class(pmap, body, negate, depth, "pmap-c-que", r"type queuing ")

    CLASS_PATTERNS = {
        "pmap-c-qos": [(r"set qos-group (\d)", "set qos-group"), (r"set dscp (\d+)", "set dscp"), (r"set cos (\d)", "set cos")],
        "pmap-c-nq": [(r"pause pfc-cos (\d(?:,\d)*)", "pause"), (r"mtu (\d+)", "mtu")],
        "pmap-c-que": [(r"bandwidth remaining percent (\d+)", "bandwidth"), (r"bandwidth percent (\d+)", "bandwidth"),
                       (r"priority(?: level (\d))?", "priority"), (r"random-detect .+", "random-detect"),
                       (r"shape .+", "shape")],
    }

    def _class_line(self, mode: str, body: str, negate: bool, cls: dict) -> str | None:
        for pattern, key in self.CLASS_PATTERNS[mode]:
            match = re.fullmatch(pattern, body)
            if match:
                if key == "mtu" and not 576 <= int(match.group(1)) <= 9216:
                    raise CliError("ERROR: MTU must be in the range 576-9216")
                if negate:
                    cls["lines"].pop(key, None)
                else:
                    if key == "priority":
                        cls["lines"].pop("bandwidth", None)
                    if key == "bandwidth":
                        cls["lines"].pop("priority", None)
                    cls["lines"][key] = body
                return ""
        return None

    def _mode_pmap_c_qos(self, body, negate, cls, _depth):
        return self._class_line("pmap-c-qos", body, negate, cls)

    def _mode_pmap_c_nq(self, body, negate, cls, _depth):
        return self._class_line("pmap-c-nq", body, negate, cls)

    def _mode_pmap_c_que(self, body, negate, cls, _depth):
        return self._class_line("pmap-c-que", body, negate, cls)

    def _mode_sysqos(self, body: str, negate: bool, _context, _depth: int) -> str | None:
        match = re.fullmatch(r"service-policy type (qos|network-qos|queuing)( input| output)? (\S+)", body)
        if not match:
            return None
        kind, direction, name = match.group(1), (match.group(2) or "").strip(), match.group(3)
        key = f"service-policy type {kind}" + (f" {direction}" if direction else "")
        policy = next((p for p in self.switch.state["policy_maps"] if p["type"] == kind and p["name"] == name), None)
        if negate:
            self.switch.state["system_qos"].pop(key, None)
            return ""
        if policy is None:
            raise CliError(f"ERROR: policy-map {name} of type {kind} does not exist")
        if kind == "queuing":
            classes = {c["name"] for c in policy["classes"]}
            wanted = {"c-out-q1", "c-out-q2", "c-out-q3", "c-out-q-default"} if direction == "output" else classes
            if classes != wanted:
                raise CliError("ERROR: Queuing policy map must have exactly 4 or 8 internally created class-maps "
                               "when applied to a target")
            if any(not ({"priority", "bandwidth"} & set(c["lines"])) for c in policy["classes"]):
                raise CliError("ERROR: Egress policy with one or more class's without priority/bandwidth info")
        self.switch.state["system_qos"][key] = f"service-policy type {kind}" + (f" {direction}" if direction else "") + f" {name}"
        return ""


# ---------------------------------------------------------------------------------- running-config
def vlan_section(state: dict, vlan_ids: list[int]) -> list[str]:
    """The VLAN section of the running configuration for vlan_ids (each one existing): the range
    line, then a block for each VLAN that differs from a fresh VLAN."""
    lines = [f"vlan {compress(vlan_ids)}"]
    for vlan in vlan_ids:
        data = state["vlans"][str(vlan)]
        body = []
        if data["name"] and vlan != 1:
            body.append(f"  name {data['name']}")
        if data["state"] != "active":
            body.append(f"  state {data['state']}")
        if data["shutdown"]:
            body.append("  shutdown")
        if body:
            lines += [f"vlan {vlan}"] + body
    return lines


def running_config(switch: Switch, all_defaults: bool = False) -> list[str]:
    """`show running-config` as a list of lines (no header)."""
    state = switch.state
    lines = [f"version {VERSION} Bios:version 05.45", f"hostname {state['hostname']}"]
    if all_defaults:
        lines += ["system default switchport", "system default switchport shutdown"]
    for feature in state["features"]:
        if feature in ("sshServer",):
            continue
        lines.append(f"feature {feature}")
    lines.append("")
    for user, data in state["users"].items():
        roles = data.get("roles") or ([data["role"]] if data.get("role") else [])
        first = f"  role {roles[0]}" if roles else ""
        lines.append(f"username {user} password 5 {data['password']}{first}")
        lines += [f"username {user} role {role}" for role in roles[1:]]
    lines.append("")
    for cmap in state["class_maps"]:
        header = f"class-map type {cmap['type']}" + (f" {cmap['match']}" if cmap["type"] == "qos" else "") + f" {cmap['name']}"
        lines.append(header)
        lines += [f"  {line}" for line in cmap["lines"]]
    for pmap in state["policy_maps"]:
        lines.append(f"policy-map type {pmap['type']} {pmap['name']}")
        for cls in pmap["classes"]:
            lines.append(f"  {cls['header']}")
            order = ["set qos-group", "set dscp", "set cos", "pause", "mtu", "priority", "bandwidth", "shape", "random-detect"]
            for key in order:
                if key in cls["lines"]:
                    lines.append(f"    {cls['lines'][key]}")
    if state["system_qos"]:
        lines.append("system qos")
        for key in ("service-policy type qos input", "service-policy type network-qos", "service-policy type queuing input",
                    "service-policy type queuing output"):
            if key in state["system_qos"]:
                lines.append(f"  {state['system_qos'][key]}")
    lines.append("")
    lines += vlan_section(state, sorted(int(v) for v in state["vlans"]))
    lines.append("")
    lines += ["vrf context management"]
    if state["vpc_domain"]:
        domain = state["vpc_domain"]
        lines.append(f"vpc domain {domain['id']}")
        for key in Session.VPC_ORDER:
            if key in domain["lines"]:
                lines.append(f"  {domain['lines'][key]}")
    lines.append("")
    for name in sorted(state["interfaces"], key=interface_key):
        if name == "mgmt0":
            continue
        lines += print_interface(name, state["interfaces"][name])
        lines.append("")
    lines += print_interface("mgmt0", state["interfaces"]["mgmt0"])
    lines += ["line console", "line vty"]
    return lines


def header(command: str, state: dict) -> list[str]:
    return [f"!Command: {command}", f"!Running configuration last done at: {state['last_change']}",
            f"!Time: {time.strftime('%a %b %d %H:%M:%S %Y')}", ""]


def to_json(data: Any, pretty: bool) -> str:
    return json.dumps(data, indent=2 if pretty else None)
