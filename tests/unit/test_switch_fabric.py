"""Several switch pairs: uplinks carry the networks both sides need, and the rules across pairs.

The sample pod split over two vPC pairs: n3232c-a/b keep the ONTAP nodes, the control plane and
dgx01-02; a second pair n3232c-c/d takes dgx03-04; port-channel 20 joins the pairs back to back.
"""
from __future__ import annotations

import collections
import copy
import dataclasses

from project_paths import SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import model as network_model
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import platforms
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import check_model

SITE = load_site(str(SAMPLE), decrypt=make_decryptor(SAMPLE_VAULT_PASSWORD))
MOVED = {"dgx03", "dgx04"}


def _leads_to(entry: dict, hosts: set[str]) -> bool:
    return entry.get("connects_to", {}).get("host") in hosts


def two_pairs() -> dict:
    model = copy.deepcopy(SITE.model)
    hosts = model["hosts"]
    for old, new, address in (("n3232c-a", "n3232c-c", "10.61.218.15"), ("n3232c-b", "n3232c-d", "10.61.218.16")):
        switch = copy.deepcopy(hosts[old]["switch"])
        switch["mgmt_address"] = address
        switch["vpc"].update(domain=20, peer={"n3232c-c": "n3232c-d", "n3232c-d": "n3232c-c"}[new])
        switch["ports"] = [p for p in switch["ports"] if _leads_to(p, MOVED)]
        switch["port_channels"] = [c for c in switch["port_channels"] if _leads_to(c, MOVED)]
        switch["port_channels"].append({"id": 20, "members": ["Ethernet1/29"], "connects_to": {"switch": "n3232c-a", "port_channel": 20}})
        hosts[new] = {"groups": ["switches"], "switch": switch}
        kept = hosts[old]["switch"]
        kept["ports"] = [p for p in kept["ports"] if not _leads_to(p, MOVED)]
        kept["port_channels"] = [c for c in kept["port_channels"] if not _leads_to(c, MOVED)]
        kept["port_channels"].append({"id": 20, "members": ["Ethernet1/29"], "connects_to": {"switch": "n3232c-c", "port_channel": 20}})
    return model


def errors(model: dict) -> list:
    site = dataclasses.replace(SITE, model=model, findings=[])
    return [f for f in check_model(site, check_files=False) if f.severity == "error"]


def messages(model: dict) -> str:
    return "\n".join(f"{f.rule}: {f.message}" for f in errors(model))


def test_two_pairs_joined_by_an_uplink_validate():
    assert errors(two_pairs()) == []


def test_the_uplink_carries_the_networks_both_pairs_need_and_each_pair_only_its_own():
    model = two_pairs()
    first = network_model.switch_plan(model, "n3232c-a")
    second = network_model.switch_plan(model, "n3232c-c")
    uplink = next(c for c in first["port_channels"] if c["id"] == 20)
    # dgx03-04 reach the LIFs over the uplink; in-band too; the pairs share every DGX network
    assert uplink["mode"] == "trunk" and uplink["trunk_vlans"] == [3101, 3111, 3112]
    assert uplink["far_end"]["kind"] == "switch" and uplink["description"] == "uplink n3232c-c/n3232c-d port-channel20"
    assert [v["id"] for v in second["vlans"]] == [3101, 3111, 3112]
    assert second["peer_link"]["trunk_vlans"] == [3101, 3111, 3112]
    assert network_model.switch_plan(model, "n3232c-d")["vpc"]["domain"] == 20


def test_a_network_on_one_pair_only_stays_off_the_uplink():
    model = two_pairs()
    model["networks"].append({"name": "lab-only", "purpose": "storage", "vlan": 3999, "subnet": "100.127.199.0/24", "mtu": 9000})
    model["hosts"]["dgx01"]["dgx"]["storage_nics"][0]["network"] = "lab-only"
    model["hosts"]["dgx01"]["dgx"]["storage_nics"][0]["address"] = "100.127.199.11"
    uplink = next(c for c in network_model.switch_plan(model, "n3232c-a")["port_channels"] if c["id"] == 20)
    assert 3999 not in uplink["trunk_vlans"]
    assert 3999 in [v["id"] for v in network_model.switch_plan(model, "n3232c-a")["vlans"]]


def test_uplink_members_are_cabled_pair_to_pair_and_listed_once():
    model = two_pairs()
    members = {p["name"]: p for p in network_model.switch_plan(model, "n3232c-b")["member_ports"]}
    assert members["Ethernet1/29"]["far_end"] == {"kind": "switch", "device": "n3232c-d", "interface": "Ethernet1/29",
                                                 "bundle": "port-channel20"}
    rows = [r for r in network_model.cabling_plan(model) if r["device_kind"] == "switch" and r["kind"] == "member"]
    assert sorted((r["switch"], r["port"], r["device"], r["device_port"]) for r in rows) == [
        ("n3232c-a", "Ethernet1/29", "n3232c-c", "Ethernet1/29"), ("n3232c-b", "Ethernet1/29", "n3232c-d", "Ethernet1/29")]


def test_an_uplink_that_does_not_lead_back_is_refused():
    model = two_pairs()
    model["hosts"]["n3232c-c"]["switch"]["port_channels"][-1]["connects_to"]["port_channel"] = 21
    found = messages(model)
    assert "n3232c-c port-channel 20 does not lead back here (it names n3232c-a port-channel 21)" in found
    assert "n3232c-a has no port-channel 21 for this uplink" in found


def test_pairs_sharing_a_domain_are_refused():
    model = two_pairs()
    for name in ("n3232c-c", "n3232c-d"):
        model["hosts"][name]["switch"]["vpc"]["domain"] = 10
    assert "uses vPC/MLAG domain 10, as pair" in messages(model)


def test_a_bond_across_two_pairs_is_refused():
    model = two_pairs()
    channel = next(c for c in SITE.model["hosts"]["n3232c-a"]["switch"]["port_channels"] if c["id"] == 101)
    model["hosts"]["n3232c-c"]["switch"]["port_channels"].append(dict(copy.deepcopy(channel), members=["Ethernet1/20"]))
    model["hosts"]["n3232c-d"]["switch"]["port_channels"].append(dict(copy.deepcopy(channel), members=["Ethernet1/20"]))
    assert "dgx01 bond0 is bundled on pair n3232c-c/n3232c-d and on pair n3232c-a/n3232c-b" in messages(model)


def test_pairs_no_uplink_joins_are_refused():
    model = two_pairs()
    for name in ("n3232c-a", "n3232c-b", "n3232c-c", "n3232c-d"):
        model["hosts"][name]["switch"]["port_channels"] = [c for c in model["hosts"][name]["switch"]["port_channels"] if c["id"] != 20]
    assert "which no uplink joins" in messages(model)


def test_a_loop_of_uplinks_is_refused():
    model = two_pairs()
    for old, new in (("n3232c-a", "n3232c-e"), ("n3232c-b", "n3232c-f")):
        switch = copy.deepcopy(model["hosts"][old]["switch"])
        switch["mgmt_address"] = {"n3232c-e": "10.61.218.17", "n3232c-f": "10.61.218.18"}[new]
        switch["vpc"].update(domain=30, peer={"n3232c-e": "n3232c-f", "n3232c-f": "n3232c-e"}[new])
        switch["ports"], switch["port_channels"] = [], [
            {"id": 21, "members": ["Ethernet1/27"], "connects_to": {"switch": "n3232c-a", "port_channel": 21}},
            {"id": 22, "members": ["Ethernet1/28"], "connects_to": {"switch": "n3232c-c", "port_channel": 22}}]
        model["hosts"][new] = {"groups": ["switches"], "switch": switch}
    for name, channel, far in (("n3232c-a", 21, "n3232c-e"), ("n3232c-b", 21, "n3232c-e"),
                               ("n3232c-c", 22, "n3232c-e"), ("n3232c-d", 22, "n3232c-e")):
        model["hosts"][name]["switch"]["port_channels"].append(
            {"id": channel, "members": [f"Ethernet1/{channel + 6}"], "connects_to": {"switch": far, "port_channel": channel}})
    assert "form a loop" in messages(model)


def test_ports_beyond_the_switch_model_are_refused():
    model = copy.deepcopy(SITE.model)
    model["hosts"]["n3232c-a"]["switch"]["ports"][0]["name"] = "Ethernet1/35"
    model["hosts"]["n3232c-a"]["switch"]["ports"][1]["name"] = "Ethernet2/1"
    model["hosts"]["n3232c-a"]["switch"]["ports"][2]["name"] = "Ethernet1/33/1"
    found = messages(model)
    # 32 QSFP28 ports that break out, and two SFP+ ports (Ethernet1/33-34) that do not
    assert "n3232c-a has no port Ethernet1/35: the Nexus 3232C has 34 front-panel ports (Ethernet1/1-34)" in found
    assert "n3232c-a has no port Ethernet2/1: the Nexus 3232C has one module" in found
    assert "n3232c-a has no port Ethernet1/33/1: only Ethernet1/1-32 of the Nexus 3232C break out" in found


def test_port_maps_know_the_current_designs_switches():
    assert platforms.port_map("cumulus", "NVIDIA SN5600")["ports"] == 65  # 64 OSFP and one SFP28
    assert platforms.port_problem("cumulus", "swp1s0", platforms.port_map("cumulus", "SN2201")) == \
        "only swp49-52 of the Spectrum SN2201 break out"  # swp1-48 are RJ45
    assert platforms.port_map("cumulus", "MSN4600-CS2FC")["ports"] == 64
    assert platforms.port_problem("cumulus", "swp65s1", platforms.port_map("cumulus", "SN4600")).startswith("the Spectrum SN4600 has 64")
    # NVUE numbers breakout ports from 0, NX-OS from 1
    assert platforms.port_problem("cumulus", "swp64s0", platforms.port_map("cumulus", "SN4600")) is None
    assert platforms.port_problem("cumulus", "swp1s4", platforms.port_map("cumulus", "SN4600")) == \
        "a Spectrum SN4600 port breaks out into at most 4 ports (swpNs0-s3)"
    assert platforms.port_problem("nxos", "Ethernet1/1/4", platforms.port_map("nxos", "N3K-C3232C")) is None
    assert platforms.port_problem("nxos", "Ethernet1/1/0", platforms.port_map("nxos", "N3K-C3232C")) == \
        "a Nexus 3232C port breaks out into at most 4 ports (Ethernet1/N/1-4)"
    assert platforms.port_map("nxos", "SN4600") is None and platforms.port_map("nxos", "some future switch") is None


def test_two_members_a_switch_make_a_bow_tie_read_the_same_from_both_sides():
    model = two_pairs()
    for name in ("n3232c-a", "n3232c-b", "n3232c-c", "n3232c-d"):
        model["hosts"][name]["switch"]["port_channels"][-1]["members"] = ["Ethernet1/29", "Ethernet1/30"]
    cables = set()
    for switch in ("n3232c-a", "n3232c-b", "n3232c-c", "n3232c-d"):
        for port in network_model.switch_plan(model, switch)["member_ports"]:
            if port["far_end"]["kind"] == "switch" and not port["peer_link"]:
                cables.add(frozenset({(switch, port["name"]), (port["far_end"]["device"], port["far_end"]["interface"])}))
    assert cables == {frozenset(c) for c in (
        {("n3232c-a", "Ethernet1/29"), ("n3232c-c", "Ethernet1/29")}, {("n3232c-a", "Ethernet1/30"), ("n3232c-d", "Ethernet1/29")},
        {("n3232c-b", "Ethernet1/29"), ("n3232c-c", "Ethernet1/30")}, {("n3232c-b", "Ethernet1/30"), ("n3232c-d", "Ethernet1/30")})}


def test_four_members_a_switch_reach_each_far_switch_twice_read_the_same_from_both_sides():
    """NVA-1175's leaf-spine: two 800G links from each leaf switch to each spine switch."""
    model = two_pairs()
    members = ["Ethernet1/27", "Ethernet1/28", "Ethernet1/29", "Ethernet1/30"]
    for name in ("n3232c-a", "n3232c-b", "n3232c-c", "n3232c-d"):
        model["hosts"][name]["switch"]["port_channels"][-1]["members"] = members
    assert errors(model) == []
    seen = {}
    for switch in ("n3232c-a", "n3232c-b", "n3232c-c", "n3232c-d"):
        for port in network_model.switch_plan(model, switch)["member_ports"]:
            if port["far_end"]["kind"] == "switch" and not port["peer_link"]:
                seen[(switch, port["name"])] = (port["far_end"]["device"], port["far_end"]["interface"])
    assert len(seen) == 16
    for near, far in seen.items():
        assert seen[far] == near, f"{near} says it meets {far}, which says it meets {seen[far]}"
    reached = collections.Counter((near[0], far[0]) for near, far in seen.items())
    assert set(reached.values()) == {2} and len(reached) == 8
    # two members a switch: as before (test above); the cabling plan lists each of the 8 cables once
    rows = [row for row in network_model.cabling_plan(model) if row["device_kind"] == "switch" and row["kind"] == "member"]
    assert len(rows) == 8 and {(row["switch"], row["port"]) for row in rows} == {k for k in seen if k[0] in ("n3232c-a", "n3232c-b")}


def test_a_model_edited_between_calls_is_read_anew():
    model = two_pairs()
    uplink = next(c for c in network_model.switch_plan(model, "n3232c-a")["port_channels"] if c["id"] == 20)
    assert uplink["pfc"] is True  # the DGX run RoCE
    for body in model["hosts"].values():
        if "dgx" in body:
            body["dgx"]["roce"] = False
    uplink = next(c for c in network_model.switch_plan(model, "n3232c-a")["port_channels"] if c["id"] == 20)
    assert uplink["pfc"] is False


def test_a_second_uplink_between_the_same_pairs_is_a_loop():
    model = two_pairs()
    for name, far in (("n3232c-a", "n3232c-c"), ("n3232c-b", "n3232c-c"), ("n3232c-c", "n3232c-a"), ("n3232c-d", "n3232c-a")):
        model["hosts"][name]["switch"]["port_channels"].append(
            {"id": 21, "members": ["Ethernet1/30"], "connects_to": {"switch": far, "port_channel": 21}})
    assert "are joined by port-channels 20, 21: two links between two pairs form a loop" in messages(model)


def test_an_uplink_with_more_members_on_one_side_is_refused():
    model = two_pairs()
    model["hosts"]["n3232c-a"]["switch"]["port_channels"][-1]["members"] = ["Ethernet1/29", "Ethernet1/30"]
    assert "the uplink has 3 member port(s) on n3232c-a/n3232c-b but 2 on n3232c-c/n3232c-d" in messages(model)


def test_each_peer_may_name_either_switch_of_the_far_pair():
    model = two_pairs()
    model["hosts"]["n3232c-b"]["switch"]["port_channels"][-1]["connects_to"]["switch"] = "n3232c-d"
    model["hosts"]["n3232c-d"]["switch"]["port_channels"][-1]["connects_to"]["switch"] = "n3232c-b"
    assert errors(model) == []
