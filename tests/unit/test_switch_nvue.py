"""NVUE commands from the switch plan (NVIDIA Spectrum on Cumulus Linux)."""
from __future__ import annotations

import shlex

import pytest
from switch_test_models import cumulus_model

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import nvue


@pytest.fixture(scope="module")
def commands():
    return nvue.commands(m.switch_plan(cumulus_model(), "n3232c-a"))


def set_lines(commands):
    return [shlex.split(line)[2:] for line in commands if line.startswith("nv set ")]


def test_every_line_is_a_comment_or_an_nv_set_or_unset_command_the_shell_can_split(commands):
    assert all(line.startswith(("# ", "nv set ", "nv unset ")) for line in commands)
    assert set_lines(commands)


def test_what_the_model_owns_is_unset_before_it_is_set(commands):
    """nv set adds to a collection: without the unset, a VLAN or member the model dropped would stay."""
    index = {line: number for number, line in enumerate(commands)}
    for owned, first_set in (("nv unset interface swp9 bridge domain br_default", "nv set interface swp9 bridge domain br_default vlan 3111"),
                             ("nv unset interface bond11 bond member", "nv set interface bond11 bond member swp13"),
                             ("nv unset interface peerlink bond member", "nv set interface peerlink bond member swp31"),
                             ("nv unset qos pfc default-global switch-priority", "nv set qos pfc default-global switch-priority 3")):
        assert index[owned] < index[first_set]
    assert not any(line.startswith("nv unset bridge domain br_default vlan") for line in commands)  # foreign VLANs stay


def test_bridge_vlans_roce_and_lldp(commands):
    lines = set_lines(commands)
    assert ["bridge", "domain", "br_default", "vlan", "3101,3111-3112"] in lines
    assert ["qos", "roce", "mode", "lossless"] in lines
    assert ["qos", "pfc", "default-global", "switch-priority", "3"] in lines
    assert ["service", "lldp", "dot1-tlv", "on"] in lines


def test_ports_get_description_mtu_vlan_and_edge(commands):
    lines = set_lines(commands)
    assert ["interface", "swp1", "description", "dgx01 enp225s0f0"] in lines
    assert ["interface", "swp1", "link", "mtu", "9216"] in lines
    assert ["interface", "swp1", "bridge", "domain", "br_default", "access", "3111"] in lines
    assert ["interface", "swp9", "bridge", "domain", "br_default", "vlan", "3111"] in lines
    assert ["interface", "swp1", "bridge", "domain", "br_default", "stp", "bpdu-guard", "on"] in lines


def test_bonds_have_members_lacp_and_mlag_ids(commands):
    lines = set_lines(commands)
    assert ["interface", "bond11", "bond", "member", "swp13"] in lines
    assert ["interface", "bond11", "bond", "mlag", "id", "11"] in lines
    assert ["interface", "bond11", "bond", "lacp-rate", "fast"] in lines
    assert ["interface", "bond101", "bridge", "domain", "br_default", "access", "3101"] in lines
    assert ["interface", "swp13", "link", "mtu", "9216"] in lines


def test_peerlink_and_mlag(commands):
    lines = set_lines(commands)
    assert ["interface", "peerlink", "bond", "member", "swp31"] in lines
    assert ["interface", "peerlink", "bond", "member", "swp32"] in lines
    assert ["mlag", "mac-address", "44:38:39:ff:00:0a"] in lines
    assert ["mlag", "peer-ip", "linklocal"] in lines
    assert ["mlag", "backup", "10.61.218.12", "vrf", "mgmt"] in lines
    assert ["mlag", "priority", "10"] in lines


def test_no_roce_lines_without_roce_ports():
    model = cumulus_model()
    for body in model["hosts"].values():
        if "dgx" in body:
            body["dgx"]["roce"] = False
    lines = set_lines(nvue.commands(m.switch_plan(model, "n3232c-a")))
    assert not [line for line in lines if line[0] == "qos"]


def test_options(commands):
    plan = m.switch_plan(cumulus_model(), "n3232c-a")
    lines = set_lines(nvue.commands(plan, {"lacp_bypass": True, "bridge": "br_pod", "lldp_dot1_tlv": False}))
    assert ["interface", "bond101", "bond", "lacp-bypass", "on"] in lines
    assert ["bridge", "domain", "br_pod", "vlan", "3101,3111-3112"] in lines
    assert ["service", "lldp", "dot1-tlv", "on"] not in lines
