"""host_storage_plan (model.py) and its filter aipod_host_storage_plan: what a DGX's OS configures."""
from __future__ import annotations

import copy

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.ontap_ai.pod.plugins.filter.aipod_compute import FilterModule
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as site_model
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site

BASE = {
    "networks": [
        {"name": "mgmt", "purpose": "mgmt", "subnet": "10.0.0.0/24", "gateway": "10.0.0.1", "mtu": 1500},
        {"name": "storage-a", "purpose": "storage", "vlan": 3111, "subnet": "100.127.101.0/24", "gateway": "100.127.101.1",
         "mtu": 9000, "routes": [{"to": "100.127.0.0/17", "metric": 20}, {"to": "100.127.128.0/17", "metric": 30}]},
        {"name": "storage-b", "purpose": "storage", "vlan": 3112, "subnet": "100.127.201.0/24", "mtu": 9000,
         "routes": [{"to": "100.127.128.0/17", "via": "100.127.201.254", "metric": 20}]},
    ],
    "hosts": {
        "dgx1": {"groups": ["dgx"], "dgx": {"mgmt_address": "10.0.0.11", "storage_nics": [
            {"name": "enp225s0f0", "network": "storage-a", "address": "100.127.101.11"},
            {"name": "enp225s0f1", "network": "storage-b", "address": "100.127.201.11", "tagged": True, "route_metric": 40},
        ]}},
        "cp1": {"groups": ["servers"], "server": {"mgmt_address": "10.0.0.21", "storage_nics": [
            {"name": "ens1", "network": "storage-a", "address": "100.127.101.21", "mtu": 9000}]}},
    },
}


def test_untagged_nic_carries_its_address_mtu_and_the_networks_routes():
    plan = site_model.host_storage_plan(BASE, "dgx1")
    assert plan[0] == {
        "device": "enp225s0f0", "parent": "enp225s0f0", "links": ["enp225s0f0"], "devices": ["enp225s0f0"], "bond": None,
        "vlan": None, "network": "storage-a",
        "address": "100.127.101.11", "prefix_len": 24, "cidr": "100.127.101.11/24", "mtu": 9000,
        "routes": [{"to": "100.127.0.0/17", "via": "100.127.101.1", "metric": 20},
                   {"to": "100.127.128.0/17", "via": "100.127.101.1", "metric": 30}],
    }


def test_tagged_nic_becomes_a_vlan_device_and_its_route_metric_wins():
    plan = site_model.host_storage_plan(BASE, "dgx1")
    assert plan[1]["device"] == "enp225s0f1.3112"
    assert plan[1]["parent"] == "enp225s0f1"
    assert plan[1]["vlan"] == 3112
    assert plan[1]["routes"] == [{"to": "100.127.128.0/17", "via": "100.127.201.254", "metric": 40}]


def test_a_storage_bond_is_one_addressed_device_over_its_members():
    bonded = copy.deepcopy(BASE)
    bonded["hosts"]["dgx1"]["dgx"]["storage_bonds"] = [
        {"name": "bond1", "members": ["enp41s0f0", "enp170s0f0"], "primary": "enp170s0f0", "network": "storage-a",
         "address": "100.127.101.12", "route_metric": 25}]
    del bonded["hosts"]["dgx1"]["dgx"]["storage_nics"]
    [bond] = site_model.host_storage_plan(bonded, "dgx1")
    assert {key: bond[key] for key in ("device", "parent", "links", "devices", "cidr", "mtu")} == {
        "device": "bond1", "parent": "bond1", "links": ["enp41s0f0", "enp170s0f0"],
        "devices": ["enp41s0f0", "enp170s0f0", "bond1"], "cidr": "100.127.101.12/24", "mtu": 9000}
    assert bond["bond"] == {"mode": "active-backup", "mii_monitor_ms": 100, "fail_over_mac": "active", "name": "bond1",
                            "members": ["enp41s0f0", "enp170s0f0"], "primary": "enp170s0f0"}
    assert {route["metric"] for route in bond["routes"]} == {25}
    interfaces = site_model.host_interfaces(bonded, "dgx1")
    assert interfaces["enp170s0f0"] == {"kind": "storage-member", "network": "storage-a", "tagged": False, "address": None,
                                        "mtu": None, "speed": None, "bond": "bond1", "is_primary": True}
    assert interfaces["enp41s0f0"]["is_primary"] is False
    # Tagged, the bond carries the VLAN device, and the script reconfigures all three.
    bonded["hosts"]["dgx1"]["dgx"]["storage_bonds"][0]["tagged"] = True
    [bond] = site_model.host_storage_plan(bonded, "dgx1")
    assert (bond["device"], bond["devices"]) == ("bond1.3111", ["enp41s0f0", "enp170s0f0", "bond1", "bond1.3111"])
    assert [entry["what"] for entry in site_model.address_assignments(bonded) if entry["address"] == "100.127.101.12"] == ["dgx1 bond1"]


def test_servers_have_a_plan_too():
    assert [nic["cidr"] for nic in site_model.host_storage_plan(BASE, "cp1")] == ["100.127.101.21/24"]


def test_nics_on_unknown_networks_and_unknown_hosts_yield_nothing():
    broken = copy.deepcopy(BASE)
    broken["hosts"]["dgx1"]["dgx"]["storage_nics"][0]["network"] = "nowhere"
    assert [nic["device"] for nic in site_model.host_storage_plan(broken, "dgx1")] == ["enp225s0f1.3112"]
    assert site_model.host_storage_plan(BASE, "nobody") == []


def test_lab_inventory_gives_untagged_jumbo_nics():
    site = load_site("inventories/lab")
    plan = site_model.host_storage_plan(site.model, "dgx03")
    assert [(nic["device"], nic["cidr"], nic["mtu"], nic["vlan"]) for nic in plan] == [
        ("eth1", "172.31.251.13/24", 9000, None), ("eth2", "172.31.252.13/24", 9000, None)]


def test_filter_checks_its_input():
    storage_plan = FilterModule().filters()["aipod_host_storage_plan"]
    assert storage_plan(BASE, "dgx1")[0]["device"] == "enp225s0f0"
    with pytest.raises(AnsibleFilterError, match="expected the site model"):
        storage_plan({"networks": []}, "dgx1")
    with pytest.raises(AnsibleFilterError, match="'switch1' is not a DGX or server"):
        storage_plan(BASE, "switch1")
