"""What an NVUE revision changes, and the brownfield bonds it must take model ports out of.

Pure functions over NVUE's JSON: the parts of `nv config diff -o json` ([{"set": {...}},
{"unset": {...}}]) and the applied configuration of `nv config show -o json` ([{"header": {...}},
{"set": {...}}]).
"""
from __future__ import annotations

from typing import Any

from ansible_collections.ontap_ai.pod.plugins.module_utils.aipod_pending import item

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


def pending(parts: Any) -> list[dict[str, Any]]:
    """The pending items (module_utils/aipod_pending.py) of an NVUE diff, one per leaf, in the diff's order.

    NVUE's diff says what the staged revision sets or unsets, not what the switch has now, so an
    item carries the model's value only: a set leaf is modify ("the model sets link mtu 9216"), a
    collection entry set is create ("the model adds vlan 3111"), an unset leaf is delete ("the model
    removes vlan 200"). A diff with parts but no leaf still differs, as one item.
    """
    found = []
    for part in parts if isinstance(parts, list) else []:
        for verb, tree in (part.items() if isinstance(part, dict) else []):
            for path, value in _leaves(tree):
                if not path:
                    continue
                target, rest = _split(path)
                if verb == "set" and value not in ({}, None):
                    change = item(target, rest or None, None, value, reason=f"the model sets {rest} {value}".replace("  ", " "))
                elif verb == "set":
                    change = item(target, rest or None, action="create", reason=f"the model adds {rest}" if rest else "the model adds it")
                else:
                    change = item(target, rest or None, action="delete", reason=f"the model removes {rest}" if rest else "the model removes it")
                found.append(change)
    if not found and parts:
        found.append(item("configuration", action="modify", reason="the staged revision differs from the applied one"))
    return found


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
