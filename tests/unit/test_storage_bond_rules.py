"""NVA-1173's RDMA bond in the site model: each DGX's two storage NICs in one active-backup bond on
one storage network, a member cabled to each switch of the pair and the primaries spread over the
two switches. Each case edits the sample, with every DGX bonded, in memory."""
from __future__ import annotations

import copy
import dataclasses

from project_paths import SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.filter.aipod_compute import FilterModule
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import model as network_model
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import check_model

SITE = load_site(str(SAMPLE), decrypt=make_decryptor(SAMPLE_VAULT_PASSWORD))
DGX = ["dgx01", "dgx02", "dgx03", "dgx04"]


def bonded() -> dict:
    """The sample with each DGX's storage NICs (enp225s0f0 on n3232c-a, enp225s0f1 on n3232c-b) in bond1 on
    storage-a, the primaries alternating between the switches."""
    model = copy.deepcopy(SITE.model)
    for index, host in enumerate(DGX):
        dgx = model["hosts"][host]["dgx"]
        address = dgx["storage_nics"][0]["address"]
        del dgx["storage_nics"]
        dgx["storage_bonds"] = [{"name": "bond1", "members": ["enp225s0f0", "enp225s0f1"],
                                 "primary": ["enp225s0f0", "enp225s0f1"][index % 2], "network": "storage-a", "address": address}]
    return model


def findings(model: dict, severity: str = "error") -> list[tuple[str, str, str]]:
    site = dataclasses.replace(SITE, model=model, findings=[])
    return [(f.rule, f.key_path(), f.message) for f in check_model(site, check_files=False) if f.severity == severity]


def test_a_pod_of_bonds_with_spread_primaries_is_valid_and_warns_of_the_peer_link():
    model = bonded()
    assert findings(model) == []
    [(rule, _key, message)] = findings(model, "warning")
    assert rule == "storage-bond" and "reaches ONTAP on n3232c-a only" in message


def test_the_member_ports_carry_the_bonds_vlan_with_pfc_on_both_switches():
    model = bonded()
    ends = {switch: network_model.far_end(model, {"host": "dgx02", "nic": nic}, switch)
            for switch, nic in (("n3232c-a", "enp225s0f0"), ("n3232c-b", "enp225s0f1"))}
    assert {switch: (end["memberships"], end["roce"], end["bond"]) for switch, end in ends.items()} == {
        "n3232c-a": ([("storage-a", False)], True, "bond1"), "n3232c-b": ([("storage-a", False)], True, "bond1")}


def test_primaries_on_one_switch_are_refused_naming_the_hosts_to_flip():
    model = bonded()
    for host in DGX:
        model["hosts"][host]["dgx"]["storage_bonds"][0]["primary"] = "enp225s0f0"
    [(rule, key, message)] = findings(model)
    assert rule == "storage-bond" and key.endswith("storage_bonds[0].primary")
    assert message.startswith("4 storage bonds on n3232c-a/n3232c-b have their primary on n3232c-a and 0 on n3232c-b")
    # Three on one switch and one on the other differ by two: still refused; two and two are spread.
    model["hosts"]["dgx04"]["dgx"]["storage_bonds"][0]["primary"] = "enp225s0f1"
    assert [rule for rule, _key, _message in findings(model)] == ["storage-bond"]
    model["hosts"]["dgx03"]["dgx"]["storage_bonds"][0]["primary"] = "enp225s0f1"
    assert findings(model) == []
    # A decommissioned DGX is not counted: three on n3232c-a and one on n3232c-b are refused, and
    # with dgx01 (on n3232c-a) leaving, two and one are spread.
    model["hosts"]["dgx03"]["dgx"]["storage_bonds"][0]["primary"] = "enp225s0f0"
    assert [rule for rule, _key, _message in findings(model)] == ["storage-bond"]
    model["hosts"]["dgx01"]["groups"] = [*model["hosts"]["dgx01"]["groups"], "decommission"]
    assert findings(model) == []


def test_a_primary_that_is_not_a_member_and_a_member_declared_twice_are_refused():
    model = bonded()
    model["hosts"]["dgx01"]["dgx"]["storage_bonds"][0]["primary"] = "enp41s0f0"
    model["hosts"]["dgx02"]["dgx"]["storage_nics"] = [{"name": "enp225s0f1", "network": "storage-b", "address": "100.127.112.12"}]
    errors = findings(model)
    assert ("host-nic", "dgx01: dgx.storage_bonds[0].primary", "primary enp41s0f0 is not a member of bond bond1 of dgx01") in errors
    assert ("host-nic", "dgx02: dgx.storage_bonds[0].members[1]",
            "member enp225s0f1 of bond bond1 is also declared as another interface of dgx02") in errors


def test_members_on_one_switch_uncabled_or_a_cable_to_the_bond_are_refused():
    model = bonded()
    ports_b = model["hosts"]["n3232c-b"]["switch"]["ports"]
    # dgx01's second member moves to switch a; dgx02's loses its cable; switch b's old dgx02 port leads to the bond.
    model["hosts"]["n3232c-a"]["switch"]["ports"].append({"name": "Ethernet1/30", "connects_to": {"host": "dgx01", "nic": "enp225s0f1"}})
    ports_b[:] = [port for port in ports_b if port.get("connects_to") != {"host": "dgx01", "nic": "enp225s0f1"}]
    for port in ports_b:
        if port.get("connects_to") == {"host": "dgx02", "nic": "enp225s0f1"}:
            port["connects_to"] = {"host": "dgx02", "nic": "bond1"}
    errors = findings(model)
    assert ("storage-bond", "dgx01: dgx.storage_bonds[0].members", "bond bond1 of dgx01 has both members on n3232c-a") in errors
    assert ("storage-bond", "dgx02: dgx.storage_bonds[0].members[1]",
            "member enp225s0f1 of bond bond1 of dgx02 is cabled to no switch port") in errors
    assert any(rule == "switch-port" and "dgx02 bond1 is an active-backup storage bond" in message for rule, _key, message in errors)


def test_a_dgx_needs_a_storage_interface_and_gets_a_warning_for_two_on_one_network():
    model = bonded()
    del model["hosts"]["dgx01"]["dgx"]["storage_bonds"]
    assert ("host-nic", "dgx01: dgx", "dgx01 has no storage interface") in findings(model)
    model = bonded()
    model["hosts"]["dgx01"]["dgx"]["storage_nics"] = [{"name": "enp41s0f0", "network": "storage-a", "address": "100.127.111.91"}]
    assert any(rule == "host-nic" and message == "network 'storage-a' is on both enp41s0f0 and bond1 of dgx01"
               for rule, _key, message in findings(model, "warning"))


def test_the_compute_plan_of_a_bonded_dgx_configures_the_bond_over_its_members():
    plans = FilterModule().filters()["aipod_compute_plans"](bonded(), ["dgx01", "dgx02"])
    [nic] = plans["dgx02"]["nics"]
    assert (nic["device"], nic["links"], nic["bond"]["primary"]) == ("bond1", ["enp225s0f0", "enp225s0f1"], "enp225s0f1")
    assert {mount["nic"] for mount in plans["dgx01"]["mounts"]} == {"bond1"}


def test_the_cabling_plan_names_the_bond_of_each_member_port():
    rows = [row for row in network_model.cabling_plan(bonded()) if row["device"] == "dgx02" and row["device_port"].startswith("enp225")]
    assert sorted((row["switch"], row["device_port"], row["bundle"], row["vlans"]) for row in rows) == [
        ("n3232c-a", "enp225s0f0", "bond1", [3111]), ("n3232c-b", "enp225s0f1", "bond1", [3111])]


def test_a_model_without_switches_has_no_bond_cabling_to_check():
    model = bonded()
    for host in ("n3232c-a", "n3232c-b"):
        del model["hosts"][host]
    assert not [finding for finding in findings(model) if finding[0] == "storage-bond"]
