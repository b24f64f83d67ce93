"""What an NVUE revision changes, as pending items, and the brownfield bonds model ports must leave."""
from __future__ import annotations

from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending
from ansible_collections.ontap_ai.pod.plugins.module_utils.aipod_nvue.revision import pending, stray_bond_members


def test_each_leaf_of_the_diff_is_one_item_named_by_its_object():
    parts = [{"set": {"interface": {"swp1": {"link": {"mtu": 9216, "state": {"up": {}}}}},
                      "bridge": {"domain": {"br_default": {"vlan": {"3111": {}}}}}, "qos": {"roce": {"mode": "lossless"}}}},
             {"unset": {"interface": {"swp2": {"bridge": {"domain": {"br_default": {"vlan": {"999": None}}}}}, "bond40": None}}}]
    found = pending(parts)
    assert aipod_pending.problems(found) == []
    assert [(entry["object"], entry["field"], entry["after"], entry["action"]) for entry in found] == [
        ("interface swp1", "link mtu", 9216, "modify"), ("interface swp1", "link state up", None, "create"),
        ("bridge domain br_default", "vlan 3111", None, "create"), ("qos roce", "mode", "lossless", "modify"),
        ("interface swp2", "bridge domain br_default vlan 999", None, "delete"), ("interface bond40", None, None, "delete")]
    assert aipod_pending.lines(found) == [
        "interface swp1: the model sets link mtu 9216",
        "interface swp1: the model adds link state up",
        "bridge domain br_default: the model adds vlan 3111",
        "qos roce: the model sets mode lossless",
        "interface swp2: the model removes bridge domain br_default vlan 999",
        "interface bond40: the model removes it",
    ]


def test_an_empty_diff_has_no_items_and_a_diff_without_leaves_one():
    assert pending([]) == [] and pending(None) == []
    assert [entry["object"] for entry in pending([{"set": {}}])] == ["configuration"]


def test_a_model_port_leaves_a_foreign_bond_and_nothing_else_is_touched():
    applied = {"interface": {
        "bond40": {"bond": {"member": {"swp3": {}, "swp30": {}}}, "type": "bond"},   # foreign: swp3 is the model's
        "bond11": {"bond": {"member": {"swp13": {}}}, "type": "bond"},               # the model's own bond
        "peerlink": {"bond": {"member": {"swp31": {}}}},
        "swp3": {"type": "swp"},
    }}
    assert stray_bond_members(applied, ["swp1", "swp3", "swp13", "swp31"], ["bond11", "peerlink"]) == [
        ["nv", "unset", "interface", "bond40", "bond", "member", "swp3"]]


def test_a_factory_switch_has_no_stray_members():
    assert stray_bond_members(None, ["swp1"], []) == []
    assert stray_bond_members({"interface": {"swp1": {"type": "swp"}}}, ["swp1"], []) == []


def test_the_applied_configuration_is_read_as_nvue_prints_it():
    shown = [{"header": {"model": "SN4600C", "rev-id": 3.0}},
             {"set": {"interface": {"bond40": {"bond": {"member": {"swp3": {}}}}}}}]
    assert stray_bond_members(shown, ["swp3"], []) == [["nv", "unset", "interface", "bond40", "bond", "member", "swp3"]]
    assert stray_bond_members([{"header": {}}], ["swp3"], []) == []
