"""NVUE's object model and revisions, for the lab's Cumulus Linux endpoint: what `nv` keeps and answers.

A Cumulus switch keeps its configuration as one tree (the OpenAPI object model of NVUE). `nv set`
and `nv unset` edit a pending revision on top of the applied one; `nv config apply` validates it and
makes it the applied (and, with auto-save, the startup) revision. This module holds that tree for
the paths the bundle's switch_cumulus role configures, with the types NVUE checks at `set` time, the
checks it makes at `apply` time, and the shapes `nv show -o json` and `nv config diff` print.

Written from NVIDIA's Cumulus Linux 5.9 user guide and NVUE command reference (docs/lab-nvue-endpoint.md
names the pages and says what is known and what the lab chose where NVIDIA's texts are silent).

- Collections (bond members, a bridge's VLANs, MLAG backups, PFC switch priorities) are objects
  keyed by id with `{}` values; `nv set` adds a key, only `nv unset` removes one.
- Enumerated leaves that NVUE stores as a single-key object (`link state`, `link breakout`) are kept
  that way: `{"state": {"up": {}}}`.
- Breakout ports are named from 0 (`swp1s0`-`swp1s3`).
"""
from __future__ import annotations

import copy
import ipaddress
import json
import re
from collections.abc import Callable
from typing import Any, NamedTuple

# No dataclasses or yaml: `nv` starts once per command the role stages (a switch takes some 150), so
# its start-up is most of its time, and the stand-in switch needs nothing beyond Python's standard library.


class NvueError(Exception):
    """What `nv` prints on standard error, and fails with."""


# ---------------------------------------------------------------------------------- schema
class Leaf(NamedTuple):
    """A value: check(value) returns the stored value or raises NvueError with NVUE's message."""
    check: Callable[[str, str], Any]


class OneOf(NamedTuple):
    """An enumerated leaf NVUE stores as a single-key object ({"up": {}})."""
    values: tuple[str, ...]


class Obj(NamedTuple):
    children: dict[str, Any]


class Coll(NamedTuple):
    """Keyed by id; child None: a set of ids ({} values)."""
    key: Callable[[str], list[str]]
    child: Any = None
    key_name: str = "id"


def _int(low: int, high: int, words: tuple[str, ...] = ()) -> Callable[[str, str], Any]:
    def check(attr: str, value: str) -> Any:
        if value in words:
            return value
        if not re.fullmatch(r"-?\d+", value):
            raise NvueError(f"Error: '{value}' is not an integer")
        number = int(value)
        if not low <= number <= high:
            raise NvueError(f"Error: At {attr}: Valid range is {low}-{high}" + (f" or {', '.join(words)}" if words else ""))
        return number
    return check


def _enum(*values: str) -> Callable[[str, str], Any]:
    def check(attr: str, value: str) -> Any:
        if value not in values:
            raise NvueError(f"Error: At {attr}: '{value}' is not one of {list(values)}")
        return value
    return check


def _text(attr: str, value: str) -> Any:
    if len(value) > 256 or any(ord(char) < 32 for char in value):
        raise NvueError(f"Error: At {attr}: '{value}' is not a valid description")
    return value


def _ipv4(attr: str, value: str) -> Any:
    try:
        return str(ipaddress.IPv4Address(value))
    except ValueError:
        raise NvueError(f"Error: At {attr}: '{value}' is not a 'ipv4'") from None


def _mac(attr: str, value: str) -> Any:
    if value != "auto" and not re.fullmatch(r"([0-9a-f]{2}:){5}[0-9a-f]{2}", value):
        raise NvueError(f"Error: At {attr}: '{value}' is not a 'mac' or 'auto'")
    return value


INTERFACE_NAME = re.compile(r"^(swp\d+(s\d+)?|eth\d+|lo|peerlink|bond\w{0,10}|vlan\d+|[a-z][a-z0-9_-]{0,14})$")


def _interfaces(text: str) -> list[str]:
    names = []
    for part in text.split(","):
        ranged = re.fullmatch(r"(swp)(\d+)-(\d+)", part) or re.fullmatch(r"(swp)(\d+)-swp(\d+)", part)
        if ranged:
            names += [f"swp{n}" for n in range(int(ranged[2]), int(ranged[3]) + 1)]
        elif INTERFACE_NAME.match(part):
            names.append(part)
        else:
            raise NvueError(f"Error: '{part}' is not a 'interface-name'")
    return names


def _vlans(text: str) -> list[str]:
    vids = []
    for part in text.split(","):
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not match:
            raise NvueError(f"Error: '{part}' is not a 'vlan-range'")
        low, high = int(match[1]), int(match[2] or match[1])
        if not 1 <= low <= high <= 4094:
            raise NvueError(f"Error: At vlan: Valid range is 1-4094 ('{part}')")
        vids += [str(vid) for vid in range(low, high + 1)]
    return vids


def _names(text: str) -> list[str]:
    if not re.fullmatch(r"[A-Za-z0-9_.-]{1,32}", text):
        raise NvueError(f"Error: '{text}' is not a valid name")
    return [text]


def _ipv4_key(text: str) -> list[str]:
    return [_ipv4("backup", text)]


def _priorities(text: str) -> list[str]:
    return [str(_int(0, 7)("switch-priority", part)) for part in text.split(",")]


ON_OFF = _enum("on", "off")
STP = Obj({name: Leaf(ON_OFF) for name in ("admin-edge", "bpdu-guard", "auto-edge", "bpdu-filter", "network")})
BRIDGE_PORT = Obj({
    "access": Leaf(_int(1, 4094, ("auto",))),
    "untagged": Leaf(_int(1, 4094, ("none", "auto"))),
    "vlan": Coll(_vlans, key_name="vlan"),
    "stp": STP,
})
INTERFACE = Obj({
    "type": Leaf(_enum("swp", "eth", "bond", "loopback", "svi", "sub", "peerlink")),
    "description": Leaf(_text),
    "link": Obj({
        "mtu": Leaf(_int(552, 9216)),
        "state": OneOf(("up", "down")),
        "speed": Leaf(_enum("auto", "10M", "100M", "1G", "10G", "25G", "40G", "50G", "100G", "200G", "400G", "800G")),
        "fec": Leaf(_enum("auto", "baser", "off", "rs", "driver-auto")),
        "breakout": OneOf(("1x", "2x", "4x", "8x", "disabled", "loopback")),
    }),
    "bond": Obj({
        "member": Coll(_interfaces, key_name="member"),
        "mode": Leaf(_enum("lacp", "static")),
        "lacp-rate": Leaf(_enum("fast", "slow")),
        "lacp-bypass": Leaf(ON_OFF),
        "mlag": Obj({"id": Leaf(_int(1, 65535, ("auto",))), "enable": Leaf(ON_OFF)}),
    }),
    "bridge": Obj({"domain": Coll(_names, BRIDGE_PORT, key_name="domain")}),
})
ROOT = Obj({
    "interface": Coll(_interfaces, INTERFACE, key_name="interface"),
    "bridge": Obj({"domain": Coll(_names, Obj({
        "type": Leaf(_enum("vlan-aware")),
        "untagged": Leaf(_int(1, 4094, ("none",))),
        "vlan": Coll(_vlans, key_name="vlan"),
    }), key_name="domain")}),
    "mlag": Obj({
        "mac-address": Leaf(_mac),
        "peer-ip": Leaf(lambda attr, value: value if value == "linklocal" else _ipv4(attr, value)),
        "backup": Coll(_ipv4_key, Obj({"vrf": Leaf(lambda attr, value: _names(value)[0])}), key_name="backup"),
        "priority": Leaf(_int(0, 65535)),
        "init-delay": Leaf(_int(0, 9000)),
        "enable": Leaf(ON_OFF),
    }),
    "qos": Obj({
        "roce": Obj({"mode": Leaf(_enum("lossless", "lossy")), "enable": Leaf(ON_OFF)}),
        "pfc": Coll(_names, Obj({"switch-priority": Coll(_priorities, key_name="switch-priority")}), key_name="profile"),
    }),
    "service": Obj({"lldp": Obj({"dot1-tlv": Leaf(ON_OFF), "tx-interval": Leaf(_int(10, 300))})}),
    "system": Obj({"hostname": Leaf(lambda attr, value: _names(value)[0])}),
})
# Reserved for the switch's own use (nv set system global reserved vlan internal range): not bridgeable.
RESERVED_VLANS = range(3725, 4000)


# ---------------------------------------------------------------------------------- edits
def _walk(tree: dict, words: list[str], verb: str, command: str) -> list[tuple[list[str], Any]]:
    """The (path, value) pairs one `nv set` makes; value None for an `nv unset`."""
    results: list[tuple[list[str], Any]] = []

    def walk(node: Any, index: int, path: list[str]) -> None:
        if isinstance(node, (Obj, Coll)) and index == len(words):
            # The words stop at an object or collection: unset removes it, set lacks its value.
            if verb != "unset":
                raise NvueError("Error: Incomplete Command")
            results.append((path, None))
        elif isinstance(node, Obj):
            if words[index] not in node.children:
                raise NvueError(f"Invalid Command: {command}")
            walk(node.children[words[index]], index + 1, path + [words[index]])
        elif isinstance(node, Coll):
            for key in node.key(words[index]):
                if node.child is None:
                    if index + 1 != len(words):
                        raise NvueError(f"Invalid Command: {command}")
                    results.append((path + [key], None if verb == "unset" else {}))
                elif index + 1 == len(words):
                    # `nv set interface peerlink bridge domain br_default`: the named object itself
                    results.append((path + [key], None if verb == "unset" else CREATE))
                else:
                    walk(node.child, index + 1, path + [key])
        elif isinstance(node, (Leaf, OneOf)):
            if verb == "unset":
                if index != len(words):
                    raise NvueError(f"Invalid Command: {command}")
                results.append((path, None))
                return
            if index == len(words):
                raise NvueError("Error: Incomplete Command")
            if index + 1 != len(words):
                raise NvueError(f"Invalid Command: {command}")
            attr = path[-1]
            if isinstance(node, OneOf):
                if words[index] not in node.values:
                    raise NvueError(f"Error: At {attr}: '{words[index]}' is not one of {list(node.values)}")
                results.append((path, {words[index]: {}}))
            else:
                results.append((path, node.check(attr, words[index])))

    walk(ROOT, 0, [])
    return results


CREATE = object()  # a named object set with no attribute: created if missing, kept as it is otherwise


def _set(tree: dict, path: list[str], value: Any) -> None:
    node = tree
    for part in path[:-1]:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise NvueError(f"Error: {'.'.join(path)} is not an object")
    if value is CREATE:
        node.setdefault(path[-1], {})
    else:
        node[path[-1]] = copy.deepcopy(value)


def _unset(tree: dict, path: list[str]) -> None:
    parents = [tree]
    for part in path[:-1]:
        child = parents[-1].get(part)
        if not isinstance(child, dict):
            return
        parents.append(child)
    parents[-1].pop(path[-1], None)
    # An attribute object left empty goes with it (`nv unset interface swp1 link mtu` leaves no empty
    # `link`); a named object (an interface, a bridge) stays.
    kinds = _kinds(path)
    for depth in range(len(path) - 2, -1, -1):
        if parents[depth + 1] or kinds[depth] != "attribute":
            break
        parents[depth].pop(path[depth], None)


def _kinds(path: list[str]) -> list[str]:
    """For each element of a path: 'attribute' (a key of an object) or 'id' (a key of a collection)."""
    kinds, node = [], ROOT
    for part in path:
        if isinstance(node, Obj):
            kinds.append("attribute")
            node = node.children.get(part)
        elif isinstance(node, Coll):
            kinds.append("id")
            node = node.child
        else:
            kinds.append("attribute")
    return kinds


def _interface_type(name: str) -> str:
    if name == "peerlink":
        return "peerlink"
    if re.fullmatch(r"swp\d+(s\d+)?", name):
        return "swp"
    if re.fullmatch(r"eth\d+", name):
        return "eth"
    return "bond"


# ---------------------------------------------------------------------------------- the switch
class Revision:
    """One NVUE revision: its id, its configuration and its state (pending, detached, applied, invalid)."""

    def __init__(self, rev_id: int, config: dict, state: str, user: str = "cumulus", message: str = ""):
        self.rev_id, self.config, self.state, self.user, self.message = rev_id, config, state, user, message

    def as_dict(self) -> dict:
        return {"rev_id": self.rev_id, "config": self.config, "state": self.state, "user": self.user, "message": self.message}


class NvueSwitch:
    """One switch's NVUE state: the applied and startup revisions, a pending one, the history."""

    def __init__(self, hostname: str = "cumulus", ports: int = 64, applied: dict | None = None, startup: dict | None = None,
                 pending: Revision | None = None, revisions: list[Revision] | None = None, next_rev: int = 1):
        self.hostname, self.ports = hostname, ports          # front-panel ports: swp1..swpN exist
        self.applied, self.startup = applied or {}, startup or {}
        self.pending, self.revisions, self.next_rev = pending, revisions or [], next_rev

    @classmethod
    def factory(cls, hostname: str = "cumulus", ports: int = 64) -> NvueSwitch:
        """A switch as it ships: the default bridge, every port down, no MLAG, nothing else."""
        config = {"bridge": {"domain": {"br_default": {"type": "vlan-aware", "untagged": 1}}},
                  "system": {"hostname": hostname}}
        return cls(hostname=hostname, ports=ports, applied=copy.deepcopy(config), startup=copy.deepcopy(config))

    # -- editing
    def edit(self, verb: str, words: list[str]) -> None:
        command = " ".join([verb, *words])
        edits = _walk(self.applied, words, verb, command)
        if self.pending is None:
            self.pending = Revision(self.next_rev, copy.deepcopy(self.applied), "pending")
            self.next_rev += 1
        for path, value in edits:
            if value is None:
                _unset(self.pending.config, path)
            else:
                _set(self.pending.config, path, value)
                if path[0] == "interface" and len(path) >= 2:
                    self.pending.config["interface"][path[1]].setdefault("type", _interface_type(path[1]))

    def detach(self) -> None:
        if self.pending is not None:
            self.pending.state = "detached"
            self.revisions.append(self.pending)
            self.pending = None

    # -- reading
    def config(self, rev: str = "applied") -> dict:
        if rev == "applied":
            return self.applied
        if rev == "startup":
            return self.startup
        if rev == "pending":
            return self.pending.config if self.pending else self.applied
        if rev == "empty":
            return {}
        found = next((r for r in self.revisions + ([self.pending] if self.pending else []) if str(r.rev_id) == rev), None)
        if found is None:
            raise NvueError(f"Error: Revision {rev} does not exist")
        return found.config

    def show(self, path: list[str], rev: str = "applied") -> Any:
        node: Any = self.config(rev)
        for part in path:
            if not isinstance(node, dict) or part not in node:
                raise NvueError("Error: The requested item does not exist.")
            node = node[part]
        return node

    def diff_parts(self, old: str = "applied", new: str = "pending") -> list[dict]:
        """`nv config diff -o json`: [{"set": {...}}, {"unset": {...}}], the parts that are not empty."""
        before, after = self.config(old), self.config(new)
        sets, unsets = _difference(before, after), _removed(before, after)
        parts = []
        if sets:
            parts.append({"set": sets})
        if unsets:
            parts.append({"unset": unsets})
        return parts

    def diff(self, old: str = "applied", new: str = "pending") -> str:
        """`nv config diff`: nested YAML of what the new revision sets and unsets; nothing when equal."""
        parts = self.diff_parts(old, new)
        return to_yaml(parts) if parts else ""

    # -- applying
    def apply(self, rev: str | None = None, message: str = "") -> str:
        """`nv config apply [rev]`: validate, then make it applied and (auto-save) startup."""
        if rev is None:
            if self.pending is None or _same(self.pending.config, self.applied):
                self.pending = None
                return "Warning: The following revision has no changes to apply: applied"
            revision = self.pending
        else:
            revision = Revision(self.next_rev, copy.deepcopy(self.config(rev)), "pending")
            self.next_rev += 1
        problems = self.invalid(revision.config)
        if problems:
            revision.state = "invalid"
            if revision is self.pending:
                self.pending = None
            self.revisions.append(revision)
            raise NvueError(f"Invalid config [rev_id: {revision.rev_id}]\n" + "\n".join(f"  {p}" for p in problems))
        revision.state = "applied"
        revision.message = message or f"Config update by {revision.user}"
        self.applied = copy.deepcopy(revision.config)
        self.startup = copy.deepcopy(revision.config)
        if revision is self.pending:
            self.pending = None
        self.revisions.append(revision)
        return f"applied [rev_id: {revision.rev_id}]"

    def invalid(self, config: dict) -> list[str]:
        """What `nv config apply` refuses: ports the switch lacks, reserved or undeclared VLANs, bad bonds."""
        problems = []
        interfaces = config.get("interface", {})
        bridge_vlans = {int(v) for v in config.get("bridge", {}).get("domain", {}).get("br_default", {}).get("vlan", {})}
        for name, body in interfaces.items():
            match = re.fullmatch(r"swp(\d+)(?:s(\d+))?", name)
            if match:
                if not 1 <= int(match[1]) <= self.ports:
                    problems.append(f"Config invalid at interface.{name}: the switch has no port {name}")
                elif match[2] is not None:
                    parent = interfaces.get(f"swp{match[1]}", {}).get("link", {}).get("breakout", {})
                    lanes = {"2x": 2, "4x": 4, "8x": 8}.get(next(iter(parent), ""), 0)
                    if int(match[2]) >= lanes:
                        problems.append(f"Config invalid at interface.{name}: swp{match[1]} is not broken out into {name}")
            for member in body.get("bond", {}).get("member", {}):
                if member not in interfaces and not re.fullmatch(r"swp\d+(s\d+)?", member):
                    problems.append(f"Config invalid at interface.{name}.bond.member.{member}: no such interface")
            domain = body.get("bridge", {}).get("domain", {}).get("br_default", {})
            used = [int(v) for v in domain.get("vlan", {})] + ([domain["access"]] if isinstance(domain.get("access"), int) else [])
            for vid in used:
                if vid in RESERVED_VLANS:
                    problems.append(f"Config invalid at interface.{name}.bridge.domain.br_default: VLAN {vid} is reserved "
                                    f"({RESERVED_VLANS.start}-{RESERVED_VLANS.stop - 1})")
                elif vid not in bridge_vlans:
                    problems.append(f"Config invalid at interface.{name}.bridge.domain.br_default: VLAN {vid} is not a VLAN of "
                                    "bridge br_default")
        owners: dict[str, str] = {}
        for name, body in interfaces.items():
            for member in body.get("bond", {}).get("member", {}):
                if member in owners:
                    problems.append(f"Config invalid at interface.{name}.bond.member.{member}: {member} is already a member of "
                                    f"{owners[member]}")
                    continue
                owners[member] = name
                settings = interfaces.get(member, {})
                if settings.get("bridge") or settings.get("ip", {}).get("address"):
                    problems.append(f"Config invalid at interface.{member}: {member} is a member of {name}; a bond member "
                                    "takes no bridge or address settings of its own")
        for vid in bridge_vlans:
            if vid in RESERVED_VLANS:
                problems.append(f"Config invalid at bridge.domain.br_default.vlan.{vid}: VLAN {vid} is reserved "
                                f"({RESERVED_VLANS.start}-{RESERVED_VLANS.stop - 1})")
        return problems

    def history(self) -> list[dict]:
        return [{"rev_id": r.rev_id, "state": r.state, "user": r.user, "message": r.message} for r in self.revisions]


_PLAIN = re.compile(r"^[A-Za-z0-9_./-][A-Za-z0-9 _./:()-]*$")
_YAML_WORD = re.compile(r"[-+]?\d+(\.\d+)?|true|false|null|yes|no|on|off|~", re.IGNORECASE)  # read back as non-strings


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    plain = (_PLAIN.match(text) and not text.endswith((" ", ":")) and ": " not in text
             and not _YAML_WORD.fullmatch(text))
    return text if plain else json.dumps(text)


def to_yaml(value: Any, indent: int = 0) -> str:
    """Block YAML of nested dicts, lists and scalars, as NVUE prints its trees (keys in their order)."""
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            return pad + "{}\n"
        lines = []
        for key, item in value.items():
            if isinstance(item, (dict, list)) and item:
                lines.append(f"{pad}{_scalar(key)}:\n" + to_yaml(item, indent + 2))
            else:
                lines.append(f"{pad}{_scalar(key)}: {'{}' if item == {} else '[]' if item == [] else _scalar(item)}\n")
        return "".join(lines)
    if isinstance(value, list):
        lines = []
        for item in value:
            if isinstance(item, (dict, list)) and item:
                nested = to_yaml(item, indent + 2)
                lines.append(f"{pad}- {nested.lstrip()}")
            else:
                lines.append(f"{pad}- {_scalar(item)}\n")
        return "".join(lines)
    return pad + _scalar(value) + "\n"


def _same(a: Any, b: Any) -> bool:
    return a == b


def _difference(before: Any, after: Any) -> dict:
    """What after sets that before lacks or holds differently (nested)."""
    result = {}
    for key, value in after.items():
        old = before.get(key) if isinstance(before, dict) else None
        if isinstance(value, dict) and value and isinstance(old, dict):
            nested = _difference(old, value)
            if nested:
                result[key] = nested
        elif value != old:
            result[key] = copy.deepcopy(value)
    return result


def _removed(before: Any, after: Any) -> dict:
    """What before holds that after no longer does (nested; a removed leaf is null)."""
    result = {}
    for key, value in before.items():
        if not isinstance(after, dict) or key not in after:
            result[key] = None
        elif isinstance(value, dict) and value and isinstance(after[key], dict):
            nested = _removed(value, after[key])
            if nested:
                result[key] = nested
    return result
