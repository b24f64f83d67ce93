"""What an NVUE revision changes, and the brownfield bonds it must take model ports out of.

Pure functions over NVUE's JSON: the parts of `nv config diff -o json` ([{"set": {...}},
{"unset": {...}}]) and the applied configuration of `nv config show -o json` ([{"header": {...}},
{"set": {...}}]).
"""
from __future__ import annotations

from typing import Any

# The first words of a path that name the object a difference belongs to: "interface swp1",
# "bridge domain br_default", "qos roce"; anything else is named by its first word.
_OBJECT_DEPTH = {"interface": 2, "bridge": 3, "qos": 2, "mlag": 1, "service": 2, "system": 2, "vrf": 2}


def _leaves(tree: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """(path, value) of each leaf; an empty mapping (a collection entry such as a VLAN) is a leaf."""
    if isinstance(tree, dict) and tree:
        found = []
        for key, value in tree.items():
            found += _leaves(value, path + (str(key),))
        return found
    return [(path, tree)]


def _split(path: tuple[str, ...]) -> tuple[str, str]:
    depth = min(_OBJECT_DEPTH.get(path[0], 1), len(path))
    return " ".join(path[:depth]), " ".join(path[depth:])


def differences(parts: Any) -> list[str]:
    """'<object>: <what the model changes>' for every leaf of an NVUE diff, in the diff's order.

    A set leaf reads "the model sets link mtu 9216" (a collection entry: "the model adds vlan 3111");
    an unset leaf reads "the model removes vlan 200".
    """
    sentences = []
    for part in parts if isinstance(parts, list) else []:
        for verb, tree in (part.items() if isinstance(part, dict) else []):
            for path, value in _leaves(tree):
                if not path:
                    continue
                target, rest = _split(path)
                if verb == "set" and value not in ({}, None):
                    change = f"the model sets {rest} {value}".replace("  ", " ")
                elif verb == "set":
                    change = f"the model adds {rest}" if rest else "the model adds it"
                else:
                    change = f"the model removes {rest}" if rest else "the model removes it"
                sentences.append(f"{target}: {change}")
    return sentences


def applied_tree(shown: Any) -> dict:
    """The configuration tree of `nv config show -o json`, which NVUE prints as
    [{"header": {...}}, {"set": {<tree>}}]; the `set` parts are merged (a bare tree is taken as is)."""
    if isinstance(shown, dict):
        return shown
    tree: dict = {}
    for part in shown if isinstance(shown, list) else []:
        if isinstance(part, dict) and isinstance(part.get("set"), dict):
            _merge(tree, part["set"])
    return tree


def _merge(into: dict, tree: dict) -> None:
    for key, value in tree.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def stray_bond_members(applied: Any, ports: list[str], bonds: list[str]) -> list[list[str]]:
    """`nv unset interface <bond> bond member <port>` for each model port that a bond the model does
    not own holds: NVUE refuses bridge settings on a bond member, so such a port (a brownfield
    switch's old bond) must leave it before the model's configuration can apply. The bond itself,
    not the model's, stays."""
    interfaces = applied_tree(applied).get("interface")
    commands = []
    wanted, owned = set(ports), set(bonds)
    for name, body in sorted((interfaces or {}).items()):
        if name in owned or not isinstance(body, dict):
            continue
        members = ((body.get("bond") or {}).get("member") or {}) if isinstance(body.get("bond"), dict) else {}
        for member in sorted(members):
            if member in wanted:
                commands.append(["nv", "unset", "interface", name, "bond", "member", member])
    return commands
