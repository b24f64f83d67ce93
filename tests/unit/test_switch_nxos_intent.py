"""NX-OS intent from the switch plan: resource-module configs, QoS text, vPC, and the pending check."""
from __future__ import annotations

import copy

import pytest
from switch_test_models import sample_model

from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import nxos


@pytest.fixture(scope="module")
def intent():
    return nxos.intent(m.switch_plan(sample_model(), "n3232c-a"))


def by_name(items):
    return {item["name"]: item for item in items}


def test_every_owned_interface_gets_the_switch_mtu_and_its_far_end_as_description(intent):
    interfaces = by_name(intent["interfaces"])
    assert set(interfaces) >= {"Ethernet1/1", "Ethernet1/9", "port-channel11", "port-channel101", "port-channel10"}
    assert {i["mtu"] for i in intent["interfaces"]} == {"9216"}
    assert interfaces["Ethernet1/1"]["description"] == "dgx01 enp225s0f0"
    assert interfaces["port-channel11"]["description"] == "aipod-a800-01 a0a"
    assert all(i["description"] for i in intent["interfaces"] + intent["member_interfaces"])


def test_only_ethernet_ports_are_brought_up_explicitly(intent):
    # NX-OS prints no "no shutdown" for a port-channel (up by default); asking for it would never settle
    interfaces = by_name(intent["interfaces"])
    assert interfaces["Ethernet1/1"]["enabled"] is True
    assert "enabled" not in interfaces["port-channel11"]
    assert all(member["enabled"] for member in intent["member_interfaces"])


def test_roce_ports_classify_by_dscp(intent):
    interfaces = by_name(intent["interfaces"])
    assert interfaces["Ethernet1/1"]["service_policy"] == {"type_options": {"qos": {"input": "AIPOD-QOS-IN"}}}
    assert "service_policy" not in interfaces["Ethernet1/9"]     # ONTAP port, NFS over TCP in the sample
    assert "service_policy" not in interfaces["port-channel101"]


def test_layer2_access_ports_name_no_mode_and_trunks_list_their_vlans(intent):
    l2 = by_name(intent["l2_interfaces"])
    assert l2["Ethernet1/1"] == {"name": "Ethernet1/1", "cdp_enable": True, "access": {"vlan": 3111}}
    assert l2["Ethernet1/9"]["mode"] == "trunk" and l2["Ethernet1/9"]["trunk"] == {"allowed_vlans": "3111"}
    assert l2["port-channel10"]["trunk"]["allowed_vlans"] == "3101,3111-3112"
    assert l2["port-channel101"] == {"name": "port-channel101", "cdp_enable": True, "access": {"vlan": 3101}}


def test_port_channels_bundle_members_with_force_and_lacp(intent):
    lags = by_name(intent["lag_interfaces"])
    assert lags["port-channel11"]["members"] == [{"member": "Ethernet1/13", "mode": "active", "force": True}]
    assert [x["member"] for x in lags["port-channel10"]["members"]] == ["Ethernet1/31", "Ethernet1/32"]
    lacp = by_name(intent["lacp_interfaces"])
    assert lacp["Ethernet1/13"] == {"name": "Ethernet1/13", "rate": "fast"}
    assert "Ethernet1/31" not in lacp                              # peer link members keep the default rate
    assert lacp["port-channel11"] == {"name": "port-channel11", "suspend_individual": False}


def test_vpc_arguments_and_interfaces(intent):
    assert intent["features"] == ["lacp", "vpc", "lldp"]
    assert intent["vpc"] == {"domain": "10", "pkl_dest": "10.61.218.12", "pkl_src": "10.61.218.11", "pkl_vrf": "management",
                             "peer_gw": True, "auto_recovery": True, "role_priority": "10"}
    assert intent["vpc_interfaces"][0] == {"portchannel": "10", "peer_link": True}
    assert {"portchannel": "101", "vpc": "101"} in intent["vpc_interfaces"]


def test_qos_block_is_lossless_on_priority_3_with_jumbo_everywhere(intent):
    text = intent["qos_config"]
    assert "  class type network-qos AIPOD-NQ-ROCE\n    pause pfc-cos 3\n    mtu 9216\n" in text
    assert "  class type network-qos class-default\n    mtu 9216\n" in text
    assert "  match dscp 26\n" in text and "  match dscp 48\n" in text
    assert "random-detect minimum-threshold 150 kbytes maximum-threshold 1500 kbytes drop-probability 7 weight 0 ecn" in text
    assert "  class type queuing c-out-q2\n    priority level 1\n" in text
    queues = [line.split()[-1] for line in text.splitlines() if line.startswith("  class type queuing")]
    assert queues == ["c-out-q3", "c-out-q2", "c-out-q1", "c-out-q-default"]
    assert text.endswith("system qos\n  service-policy type network-qos AIPOD-NQ\n"
                         "  service-policy type queuing output AIPOD-QUEUING-OUT\n")


def test_port_block_turns_pfc_on_roce_ports_only(intent):
    text = intent["port_config"]
    assert "interface Ethernet1/1\n  priority-flow-control mode on\n  spanning-tree port type edge\n" in text
    assert "interface Ethernet1/9\n  spanning-tree port type edge trunk\n" in text
    assert text.count("priority-flow-control mode on") == 4
    assert "interface port-channel10\n  spanning-tree port type network\n" in text


def test_options_change_the_constants_and_bad_queues_are_refused():
    plan = m.switch_plan(sample_model(), "n3232c-a")
    custom = nxos.intent(plan, {"roce_cos": 2, "cnp_qos_group": 1, "qos_prefix": "POD", "lacp_rate": "normal"})
    assert "pause pfc-cos 2" in custom["qos_config"] and "policy-map type network-qos POD-NQ" in custom["qos_config"]
    assert all("rate" not in entry for entry in custom["lacp_interfaces"])
    with pytest.raises(ValueError, match="different queues"):
        nxos.qos_config(plan, {"roce_cos": 3, "cnp_qos_group": 3})


def test_unrendered_lines_follow_the_module_templates(intent):
    lines = nxos.unrendered_lines(intent)
    assert lines[:4] == ["feature lacp", "feature vpc", "feature lldp", "vpc domain 10"]
    assert "  peer-keepalive destination 10.61.218.12 source 10.61.218.11 vrf management" in lines
    assert lines[-2:] == ["interface port-channel104", "  vpc 104"]


def gathered_from(intent):
    """What a switch that carries the intent reports (gathered state)."""
    interfaces = []
    for entry in intent["interfaces"] + intent["member_interfaces"]:
        item = {k: v for k, v in entry.items() if k != "mode"}
        interfaces.append(item)
    l2 = []
    for entry in intent["l2_interfaces"]:
        item = copy.deepcopy(entry)
        item.pop("cdp_enable")
        l2.append(item)
    lag = [{"name": e["name"], "members": [{"member": x["member"], "mode": x["mode"]} for x in e["members"]]}
           for e in intent["lag_interfaces"]]
    return {"vlans": [dict(v, enabled=True, state="active", mode="ce") for v in intent["vlans"]] + [{"vlan_id": 1, "name": "default"}],
            "interfaces": interfaces, "l2_interfaces": l2, "lag_interfaces": lag,
            "lacp_interfaces": copy.deepcopy(intent["lacp_interfaces"])}


def test_pending_is_empty_when_the_switch_matches(intent):
    assert nxos.pending(intent, gathered_from(intent)) == []


def test_pending_names_each_difference(intent):
    gathered = gathered_from(intent)
    by_name(gathered["interfaces"])["Ethernet1/1"]["mtu"] = "1500"
    gathered["vlans"] = [v for v in gathered["vlans"] if v["vlan_id"] != 3112]
    by_name(gathered["l2_interfaces"])["port-channel10"]["trunk"]["allowed_vlans"] = "3101,3111"
    by_name(gathered["lag_interfaces"])["port-channel10"]["members"].pop()
    del by_name(gathered["interfaces"])["Ethernet1/2"]["service_policy"]
    found = nxos.pending(intent, gathered)
    assert aipod_pending.problems(found) == []
    fields = {(entry["object"], entry["field"]): (entry["before"], entry["after"], entry["action"]) for entry in found}
    assert fields[("Ethernet1/1", "mtu")] == ("1500", "9216", "modify")
    assert fields[("VLAN 3112", "name")][0] is None and fields[("VLAN 3112", "name")][2] == "create"
    assert fields[("port-channel10", "trunk allowed VLANs")][:2] == ("3101,3111", "3101,3111-3112")
    assert ("port-channel10", "members") in fields
    assert fields[("Ethernet1/2", "input QoS policy")] == (None, "AIPOD-QOS-IN", "modify")
    assert len(found) == 5
    assert "Ethernet1/1: mtu is 1500, the model says 9216" in aipod_pending.lines(found)


def running_config_of(intent) -> str:
    """What `show running-config` prints on a switch that carries the whole intent, plus lines
    the model does not own (they must not count as differences)."""
    return "\n".join(["version 9.3(10) Bios:version 05.45", "hostname n3232c-a", "feature ssh", "username admin role network-admin"]
                     + intent["compare_config"].splitlines() + ["interface mgmt0", "  vrf member management"]) + "\n"


def test_compare_config_holds_features_vpc_memberships_qos_and_port_lines(intent):
    lines = intent["compare_config"].splitlines()
    assert lines[:3] == ["feature lacp", "feature vpc", "feature lldp"]
    assert "interface port-channel10" in lines and "  vpc peer-link" in lines
    assert ["interface port-channel11", "  vpc 11"] == lines[lines.index("interface port-channel11"):][:2]
    assert intent["compare_config"].endswith(intent["qos_config"] + intent["port_config"])


def test_missing_lines_are_what_the_running_configuration_lacks(intent):
    running = running_config_of(intent)
    assert nxos.missing_lines(intent["compare_config"], running) == []
    without = running.replace("feature lldp\n", "").replace("interface port-channel11\n  vpc 11\n", "interface port-channel11\n")
    assert nxos.missing_lines(intent["compare_config"], without) == ["feature lldp", "interface port-channel11", "vpc 11"]
    assert nxos.missing_lines(intent["compare_config"], "")[:3] == ["feature lacp", "feature vpc", "feature lldp"]


def test_compare_finds_nothing_pending_on_a_matching_switch(intent):
    comparison = nxos.compare(intent, gathered_from(intent), running_config_of(intent))
    assert comparison["pending"] == [] and comparison["release_pending"] == []
    assert comparison["steps"]["concerns"] == []
    assert comparison["steps"]["features"] == [] and comparison["steps"]["vpc_interfaces"] == []


def test_compare_sorts_a_new_port_into_its_concerns_only(intent):
    """A DGX port the switch lacks is pending as an interface and as per-port lines, nothing else."""
    gathered = gathered_from(intent)
    gathered["interfaces"] = [i for i in gathered["interfaces"] if i["name"] != "Ethernet1/2"]
    gathered["l2_interfaces"] = [i for i in gathered["l2_interfaces"] if i["name"] != "Ethernet1/2"]
    running = running_config_of(intent).replace(
        "interface Ethernet1/2\n  priority-flow-control mode on\n  spanning-tree port type edge\n", "")
    assert running != running_config_of(intent)
    compared = nxos.compare(intent, gathered, running)
    assert compared["steps"]["concerns"] == ["qos", "interfaces"]
    assert {entry["object"] for entry in compared["pending"]} == {"Ethernet1/2"}
    assert [(entry["field"], entry["after"]) for entry in compared["pending"] if entry["field"] == "line"] == [
        ("line", "priority-flow-control mode on"), ("line", "spanning-tree port type edge")]
    assert {"object": "Ethernet1/2", "field": None, "before": None, "after": None, "action": "create", "reason": None} in compared["pending"]


def test_compare_names_the_features_and_vpc_members_left_to_do(intent):
    running = running_config_of(intent).replace("feature lldp\n", "").replace(
        "interface port-channel11\n  vpc 11\n", "interface port-channel11\n")
    comparison = nxos.compare(intent, gathered_from(intent), running, ["vpc domain 10", "peer-gateway"])
    assert comparison["steps"]["features"] == ["lldp"]
    assert comparison["steps"]["vpc_interfaces"] == [{"portchannel": "11", "vpc": "11"}]
    assert comparison["steps"]["concerns"] == ["features", "vpc_domain", "vpc_members"]
    assert aipod_pending.lines(comparison["pending"]) == [
        "feature lldp: missing", "vPC domain 10: nxos_vpc would send: vpc domain 10", "vPC domain 10: nxos_vpc would send: peer-gateway",
        "port-channel11: vPC is none, the model says 11"]


def test_compare_on_a_factory_switch_has_every_concern_pending(intent):
    empty = {"vlans": [{"vlan_id": 1, "name": "default"}], "interfaces": [], "l2_interfaces": [], "lag_interfaces": [], "lacp_interfaces": []}
    comparison = nxos.compare(intent, empty, "")
    assert comparison["steps"]["features"] == intent["features"]
    assert comparison["steps"]["vpc_interfaces"] == intent["vpc_interfaces"]
    assert [c for c in nxos.CONCERNS if c not in comparison["steps"]["concerns"]] == ["users", "vpc_domain", "released"]  # no metrics user, none decommissioned
    assert aipod_pending.problems(comparison["pending"]) == []


# --------------------------------------------------------------- trunk allowed lists, set whole
def trunks(intent):
    return [e for e in intent["l2_interfaces"] if e.get("mode") == "trunk" and (e.get("trunk") or {}).get("allowed_vlans")]


def test_trunk_config_sets_every_trunks_list_whole_as_running_config_prints_it(intent):
    lines = intent["trunk_config"].splitlines()
    assert len(lines) == 2 * len(trunks(intent)) > 0
    assert ["interface port-channel10", "  switchport trunk allowed vlan 3101,3111-3112"] == \
        lines[lines.index("interface port-channel10"):][:2]
    assert not any(" add " in line or " remove " in line for line in lines)


# How each supported cisco.nxos release gathers a trunk's list (nxos_l2_interfaces, state gathered).
GATHERED_FORMS = {
    "every VLAN (no list printed)": ({}, None),
    "11.1 none": ({"allowed_vlans": "none"}, set()),
    "11.2 none": ({"allowed_vlans_none": True}, set()),
    "list": ({"allowed_vlans": "3101,3111-3112"}, {3101, 3111, 3112}),
    "11.2 quoted list": ({"allowed_vlans": "'10-12'"}, {10, 11, 12}),
}


@pytest.mark.parametrize("form", GATHERED_FORMS)
def test_gathered_allowed_vlans_reads_every_release_form(form):
    trunk, expected = GATHERED_FORMS[form]
    assert nxos.gathered_allowed_vlans(trunk) == expected


@pytest.mark.parametrize("have_trunk", [{}, {"allowed_vlans": "1-4094"}, {"allowed_vlans": "10-20,3111"},
                                        {"allowed_vlans_none": True}, {"allowed_vlans": "3101"}],
                         ids=["fresh trunk (all VLANs)", "explicit 1-4094", "brownfield list", "none", "a subset"])
def test_a_trunk_whose_list_differs_gets_its_whole_list(intent, have_trunk):
    gathered = gathered_from(intent)
    by_name(gathered["l2_interfaces"])["port-channel10"]["trunk"] = dict(have_trunk, native_vlan=None)
    items = nxos.trunk_items(intent, gathered)
    assert items == [{"parents": ["interface port-channel10"], "lines": ["switchport trunk allowed vlan 3101,3111-3112"]}]
    assert [entry["object"] for entry in nxos.pending(intent, gathered) if entry["field"] == "trunk allowed VLANs"] == ["port-channel10"]


def test_no_trunk_item_when_every_list_is_the_models(intent):
    gathered = gathered_from(intent)
    by_name(gathered["l2_interfaces"])["port-channel10"]["trunk"]["allowed_vlans"] = "3111-3112,3101"
    assert nxos.trunk_items(intent, gathered) == []
    assert nxos.compare(intent, gathered, running_config_of(intent))["steps"]["trunk_vlans"] == []


@pytest.mark.parametrize("prefix", ["AIPOD\nreload", "AI POD", "AI?", "ÄIPOD", "", 7, "A" * 29, "AIPOD.1"])
def test_a_qos_prefix_that_is_not_one_nxos_word_is_refused(prefix):
    plan = m.switch_plan(sample_model(), "n3232c-a")
    with pytest.raises(ValueError, match="qos_prefix must be a letter"):
        nxos.intent(plan, {"qos_prefix": prefix})


@pytest.mark.parametrize("text", ["dgx01\nreload", "dgx01 ?", "dgx\u202e10", "dgx\u00a0"])
def test_text_that_slipped_past_validation_is_never_rendered(text):
    """The second wall: a plan built without validation still sends nothing that NX-OS would read
    as another line, a help request or a character it does not show."""
    plan = copy.deepcopy(m.switch_plan(sample_model(), "n3232c-a"))
    plan["ports"][0]["description"] = text
    with pytest.raises(ValueError, match=r"would send NX-OS a text holding U\+"):
        nxos.intent(plan)


def test_a_plain_port_bundled_into_another_port_channel_leaves_it_before_its_layer2_settings(intent):
    """A brownfield switch (or one that served a larger pod) has Ethernet1/1, a DGX storage port of the
    model, in port-channel 11: NX-OS refuses its mode and VLANs until it leaves."""
    members = {member["member"] for channel in intent["lag_interfaces"] for member in channel["members"]}
    member = sorted(members)[0]
    running = ("interface Ethernet1/1\n  description old\n  channel-group 11 mode active\n"
               f"interface {member}\n  channel-group 99 mode active\ninterface Ethernet1/2\n  switchport mode trunk\n")
    assert nxos.stray_channel_groups(intent, running) == [{"parents": ["interface Ethernet1/1"], "lines": ["no channel-group"]}]
    assert nxos.stray_channel_groups(intent, running.replace("  channel-group 11 mode active\n", "")) == []
