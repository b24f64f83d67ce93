"""The switch plan's platform names, port-channel members, far-end member mapping and cabling plan."""
from __future__ import annotations

from switch_test_models import cumulus_model, sample_model

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import model as m


def test_nxos_names_port_channels_and_peer_link():
    plan = m.switch_plan(sample_model(), "n3232c-a")
    assert [c["name"] for c in plan["port_channels"]] == [
        "port-channel11", "port-channel12", "port-channel101", "port-channel102", "port-channel103", "port-channel104"]
    assert plan["peer_link"]["name"] == "port-channel10"
    assert plan["peer_link"]["description"] == "vPC peer-link to n3232c-b"


def test_cumulus_names_bonds_and_peerlink_and_derives_an_mlag_mac():
    plan = m.switch_plan(cumulus_model(), "n3232c-a")
    assert plan["platform"] == "cumulus"
    assert plan["port_channels"][0]["name"] == "bond11"
    assert plan["peer_link"]["name"] == "peerlink"
    assert plan["peer_link"]["description"].startswith("MLAG peer-link")
    # domain 10 -> 44:38:39:ff:00:0a, the same on both peers
    assert plan["vpc"]["system_mac"] == "44:38:39:ff:00:0a"
    assert m.switch_plan(cumulus_model(), "n3232c-b")["vpc"]["system_mac"] == plan["vpc"]["system_mac"]


def test_model_system_mac_wins_and_nxos_gets_none():
    model = cumulus_model()
    for name in ("n3232c-a", "n3232c-b"):
        model["hosts"][name]["switch"]["vpc"]["system_mac"] = "44:38:39:be:ef:aa"
    assert m.switch_plan(model, "n3232c-a")["vpc"]["system_mac"] == "44:38:39:be:ef:aa"
    assert m.switch_plan(sample_model(), "n3232c-a")["vpc"]["system_mac"] is None


def test_members_are_mapped_to_far_end_members_in_pair_order():
    model = sample_model()
    a = {p["name"]: p for p in m.switch_plan(model, "n3232c-a")["member_ports"]}
    b = {p["name"]: p for p in m.switch_plan(model, "n3232c-b")["member_ports"]}
    # interface group a0a = [e2a, e2b]: the first switch takes e2a
    assert a["Ethernet1/13"]["far_end"] == {"kind": "ontap", "device": "aipod-a800-01", "interface": "e2a", "bundle": "a0a"}
    assert b["Ethernet1/13"]["far_end"]["interface"] == "e2b"
    assert a["Ethernet1/13"]["speed"] == "100G"
    assert a["Ethernet1/13"]["description"] == "aipod-a800-01 e2a (a0a)"
    # DGX bond0 = [enp97s0f0, enp97s0f1]
    assert a["Ethernet1/5"]["far_end"]["interface"] == "enp97s0f0"
    assert b["Ethernet1/5"]["far_end"]["interface"] == "enp97s0f1"
    assert a["Ethernet1/5"]["channel_name"] == "port-channel101"
    assert a["Ethernet1/5"]["mtu"] == 9216


def test_unmatched_member_counts_leave_the_far_end_member_unknown():
    model = sample_model()
    model["hosts"]["n3232c-a"]["switch"]["port_channels"][0]["members"] = ["Ethernet1/13", "Ethernet1/20"]
    members = {p["name"]: p for p in m.switch_plan(model, "n3232c-a")["member_ports"]}
    assert members["Ethernet1/13"]["far_end"]["interface"] is None
    assert members["Ethernet1/20"]["description"] == "aipod-a800-01 a0a"


def test_peer_link_members_face_the_peer_ports():
    members = [p for p in m.switch_plan(sample_model(), "n3232c-b")["member_ports"] if p["peer_link"]]
    assert [(p["name"], p["far_end"]["device"], p["far_end"]["interface"]) for p in members] == [
        ("Ethernet1/31", "n3232c-a", "Ethernet1/31"), ("Ethernet1/32", "n3232c-a", "Ethernet1/32")]
    assert members[0]["description"] == "vPC peer-link n3232c-a Ethernet1/31"


def test_cabling_plan_lists_every_cable_once():
    model = sample_model()
    rows = m.cabling_plan(model)
    ends = [(r["switch"], r["port"]) for r in rows]
    assert len(ends) == len(set(ends))
    peer = [r for r in rows if r["kind"] == "peer-link"]
    assert [(r["switch"], r["port"], r["device"], r["device_port"]) for r in peer] == [
        ("n3232c-a", "Ethernet1/31", "n3232c-b", "Ethernet1/31"), ("n3232c-a", "Ethernet1/32", "n3232c-b", "Ethernet1/32")]
    # every switch port of the model appears, peer links on the first switch only
    expected = 0
    for name in ("n3232c-a", "n3232c-b"):
        switch = model["hosts"][name]["switch"]
        expected += len(switch["ports"]) + sum(len(c["members"]) for c in switch["port_channels"])
    assert len(rows) == expected + 2
    first = rows[0]
    assert (first["switch"], first["port"], first["device"], first["device_port"], first["vlans"], first["speed"], first["pfc"]) == \
        ("n3232c-a", "Ethernet1/1", "dgx01", "enp225s0f0", [3111], "200G", True)
    storage = next(r for r in rows if r["port"] == "Ethernet1/9" and r["switch"] == "n3232c-b")
    assert (storage["mode"], storage["vlans"], storage["device_port"]) == ("trunk", [3112], "e6b")


def test_vlans_are_the_union_over_the_pair():
    model = sample_model()
    a, b = m.switch_plan(model, "n3232c-a"), m.switch_plan(model, "n3232c-b")
    assert a["vlans"] == b["vlans"] == [{"id": 3101, "name": "inband"}, {"id": 3111, "name": "storage-a"},
                                         {"id": 3112, "name": "storage-b"}]
