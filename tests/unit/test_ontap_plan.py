"""The storage roles' plan: what differs between the site model and a cluster's records.

The converged cluster is tests/golden/ontap_lab_converged.json: the lab endpoint's objects after the
storage play converged the lab pod (refresh: see docs/storage.md). Records are read from it the way
the roles read them (same APIs and fields), through the in-process endpoint.
"""
from __future__ import annotations

import copy
import json
import re

import pytest
from ontap_lab.api import Api
from ontap_lab.seed import set_admin_password
from ontap_lab.state import State
from ontap_lab_client import ADMIN_PASSWORD, LAB_MODEL, REPO, Client, fresh_api
from project_paths import LAB, LAB_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_ontap import plan as ontap_plan
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site

GOLDEN = REPO / "tests" / "golden" / "ontap_lab_converged.json"
# What each role reads: (API, fields, extra query), as in roles/ontap_*/tasks/compare.yml.
READS = {
    "network": [("network/ethernet/ports", "*", {}), ("network/ethernet/broadcast-domains", "*", {}), ("network/ipspaces", "*", {})],
    "svms": [("svm/svms", "*", {}), ("protocols/nfs/services", "*", {}), ("storage/snapshot-policies", "*", {})],
    "lifs": [("network/ip/interfaces", "name,svm,location,ip,service_policy,enabled,rdma_protocols", {"scope": "svm"})],
    "exports": [("protocols/nfs/export-policies", "name,svm,rules", {}),
                ("storage/volumes", "name,svm,is_svm_root,nas.export_policy", {"is_svm_root": "true"})],
    "flexgroups": [("storage/volumes", "name,svm,style,is_svm_root,space.size,space.snapshot.reserve_percent,aggregates,"
                                       "constituent_count,nas,snapshot_policy,guarantee,efficiency.compression,qos.policy.name,"
                                       "granular_data,granular_data_mode,comment,autosize", {}),
                   ("storage/qos/policies", "name,svm,fixed", {}),
                   ("storage/aggregates", "name,space.block_storage.size,space.block_storage.available", {})],
    "accounts": [("security/roles", "*", {}), ("security/accounts", "*", {})],
}
OPTIONS = {"accounts": {"privileges": {"trident": [{"path": "/api/storage/volumes", "access": "all"},
                                                   {"path": "/api/cluster", "access": "readonly"}],
                                       "dataops": [{"path": "/api/storage/volumes", "access": "all"},
                                                   {"path": "/api/svm/svms", "access": "readonly"}],
                                       "harvest": [{"path": "/api/storage/volumes", "access": "readonly"},
                                                   {"path": "/api/cluster", "access": "readonly"}]}}}


def read(client: Client, area: str) -> dict:
    return {api: {"records": client.records(api, fields=fields, **extra)} for api, fields, extra in READS[area]}


def plan(client: Client, area: str, model: dict | None = None, options: dict | None = None) -> dict:
    return ontap_plan.plan(model or LAB_MODEL, read(client, area), area, {**OPTIONS.get(area, {}), **(options or {})})


@pytest.fixture
def converged() -> Client:
    state = State(json.loads(GOLDEN.read_text()))
    set_admin_password(state, "admin", ADMIN_PASSWORD)
    return Client(Api(state))


def with_tool_roles(client: Client) -> None:
    """The golden cluster's tool roles have the role defaults' privileges; trim them to OPTIONS."""
    for tool, role_name in (("trident", "trident"), ("dataops", "dataops_toolkit"), ("harvest", "harvest-rest-role")):
        role = client.one("security/roles", name=role_name, fields="owner")
        client.patch(f"security/roles/{role['owner']['uuid']}/{role_name}", {"privileges": OPTIONS["accounts"]["privileges"][tool]})


# ---------------------------------------------------------------------------- in sync
@pytest.mark.parametrize("area", ["network", "svms", "lifs", "exports", "flexgroups"])
def test_a_converged_cluster_needs_nothing(converged, area):
    result = plan(converged, area)
    assert result["errors"] == []
    assert result["pending"] == 0, result["diff"]


def test_converged_tool_accounts_need_nothing(converged):
    with_tool_roles(converged)
    result = plan(converged, "accounts")
    assert result["pending"] == 0 and result["errors"] == []
    assert result["logins"] == [
        {"key": "lab-data:trident", "svm": "lab-data", "username": "trident", "role": "trident", "tool": "trident",
         "password_variable": "vault_ontap_trident_password"},
        {"key": "lab-data:dataops", "svm": "lab-data", "username": "dataops", "role": "dataops_toolkit", "tool": "dataops",
         "password_variable": "vault_ontap_dataops_password"},
        {"key": "cluster:harvest", "svm": None, "username": "harvest", "role": "harvest-rest-role", "tool": "harvest",
         "password_variable": "vault_ontap_harvest_password"}]


# ---------------------------------------------------------------------------- a new cluster
def test_a_new_cluster_needs_everything_the_model_has():
    client = Client(fresh_api())
    counts = {area: {kind: len(items) for kind, items in plan(client, area).items() if isinstance(items, list)}
              for area in READS}
    assert counts["network"] == {"ipspaces": 0, "interface_groups": 2, "vlans": 6, "broadcast_domains": 3, "errors": 0}
    assert counts["svms"] == {"snapshot_policies": 1, "svms": 1, "nfs": 1, "nfs_rest": 1, "errors": 0}  # the data set's versions
    assert counts["lifs"] == {"lifs": 9, "rdma": 0, "errors": 0}
    # The model's policy k8s-nodes and the data set's own, each with one rule.
    assert counts["exports"]["policies"] == 2 and counts["exports"]["rules"] == 2
    assert counts["flexgroups"] == {"qos_policies": 1, "flexgroups": 3, "errors": 0, "left": 0}  # data, home and the data set imagenet
    result = plan(client, "flexgroups")
    assert all(item["svm_exists"] is False for item in result["flexgroups"])
    data = next(item for item in result["flexgroups"] if item["key"] == "lab-data:data")
    assert data["want"]["aggr_list_multiplier"] == 4 and data["changes"]["constituents"]["after"] == 8
    assert data["want"]["space_guarantee"] == "none" and data["want"]["efficiency"] is True


def test_the_managed_objects_of_the_lab_pod():
    counts = ontap_plan.managed_objects(LAB_MODEL)
    assert counts["lifs"] == 9 and counts["vlan_ports"] == 6 and counts["flexgroups"] == 2
    assert counts["qos_policies"] == 1 and counts["dataset_volumes"] == 1 and counts["tool_accounts"] == 3
    # The copy of imagenet on lab-dr: two intercluster LIFs, a cluster peer, an SVM peer, the relationship.
    assert (counts["intercluster_lifs"], counts["cluster_peers"], counts["svm_peers"], counts["dataset_copies"]) == (2, 1, 2, 1)
    assert counts["dataset_caches"] == 1 and sum(counts.values()) == 43


# ---------------------------------------------------------------------------- drift
def test_domain_mtu_drift_is_put_back(converged):
    domain = converged.one("network/ethernet/broadcast-domains", name="storage-a")
    converged.patch(f"network/ethernet/broadcast-domains/{domain['uuid']}", {"mtu": 1500})
    result = plan(converged, "network")
    assert [item["key"] for item in result["broadcast_domains"]] == ["Default:storage-a"]
    assert result["broadcast_domains"][0]["changes"] == {"mtu": {"before": 1500, "after": 9000}}


def test_interface_groups_the_module_would_get_wrong_stop_the_run():
    client = Client(fresh_api())
    lag = {"type": "lag", "node": {"name": "lab-ontap-01"},
           "lag": {"mode": "multimode_lacp", "distribution_policy": "port", "member_ports": [{"name": "e1a"}]}}
    client.post("network/ethernet/ports", lag)  # ONTAP names it a0a, with none of the model's ports
    result = plan(client, "network")
    assert any("a0a has ports e1a" in error and "none in common" in error for error in result["errors"])
    lag["lag"]["member_ports"] = [{"name": "e0c"}]
    client.post("network/ethernet/ports", lag)  # a0b, holding a port of the model's a0a
    first = client.one("network/ethernet/ports", name="a0a", **{"node.name": "lab-ontap-01"})
    client.delete(f"network/ethernet/ports/{first['uuid']}")
    result = plan(client, "network")
    assert any("a0b" in error and "ONTAP names interface groups itself" in error for error in result["errors"])
    assert [item["key"] for item in result["interface_groups"]] == ["lab-ontap-02:a0a"]


def test_a_deleted_lif_and_a_moved_home_are_planned(converged):
    lif = converged.one("network/ip/interfaces", name="lab-ontap-01_e1a-3111_1")
    converged.delete(f"network/ip/interfaces/{lif['uuid']}")
    other = converged.one("network/ip/interfaces", name="lab-ontap-02_e1b-3112_2")
    converged.patch(f"network/ip/interfaces/{other['uuid']}", {"location": {"auto_revert": False}})
    result = plan(converged, "lifs")
    actions = {item["key"]: (item["action"], sorted(item["changes"])) for item in result["lifs"]}
    assert actions == {"lab-data:lab-ontap-01_e1a-3111_1": ("create", ["address", "auto_revert", "enabled", "home_node",
                                                                       "home_port", "netmask", "service_policy"]),
                       "lab-data:lab-ontap-02_e1b-3112_2": ("modify", ["auto_revert"])}


def test_rdma_in_the_model_asks_for_roce_on_every_data_lif(converged):
    model = copy.deepcopy(LAB_MODEL)
    model["ontap"]["svms"][0]["nfs"]["rdma"] = True
    assert len(plan(converged, "lifs", model)["rdma"]) == 8
    nfs_rest = plan(converged, "svms", model)["nfs_rest"]
    assert nfs_rest[0]["changes"] == {"rdma": {"before": False, "after": True}}


def test_rules_beyond_the_model_are_removed_and_world_open_rules_refused(converged):
    policy = converged.one("protocols/nfs/export-policies", name="k8s-nodes")
    converged.post(f"protocols/nfs/export-policies/{policy['id']}/rules", {"clients": [{"match": "10.9.9.0/24"}], "ro_rule": ["sys"]})
    result = plan(converged, "exports")
    assert [(item["key"], item["action"]) for item in result["stale_rules"]] == [("lab-data:k8s-nodes#2", "delete")]
    model = copy.deepcopy(LAB_MODEL)
    model["ontap"]["svms"][0]["export_policies"][0]["rules"][0]["clients"] = ["0.0.0.0/0"]
    assert "every address" in plan(converged, "exports", model)["errors"][0]


def test_a_flexgroup_grows_but_never_shrinks(converged):
    model = copy.deepcopy(LAB_MODEL)
    model["ontap"]["svms"][0]["flexgroups"][0]["size"] = "12TB"
    grow = plan(converged, "flexgroups", model)
    assert grow["errors"] == [] and grow["flexgroups"][0]["changes"] == {"size": {"before": 10 * 1024 ** 4, "after": 12 * 1024 ** 4}}
    model["ontap"]["svms"][0]["flexgroups"][0]["size"] = "8TB"
    shrink = plan(converged, "flexgroups", model)
    assert shrink["flexgroups"] == [] and "never shrunk" in shrink["errors"][0]


def test_a_same_named_volume_of_another_style_is_an_error_not_a_recreate():
    client = Client(fresh_api())
    client.post("svm/svms", {"name": "lab-data", "aggregates": [{"name": "lab_ontap_01_ssd_1"}]}, return_timeout=30)
    client.post("storage/volumes", {"name": "data", "svm.name": "lab-data"}, return_timeout=30)
    result = plan(client, "flexgroups")
    assert [item["key"] for item in result["flexgroups"]] == ["lab-data:home", "lab-data:imagenet"]
    assert "data in SVM lab-data is a flexvol" in result["errors"][0] and "never deletes or re-creates" in result["errors"][0]


def test_constituent_changes_are_refused(converged):
    model = copy.deepcopy(LAB_MODEL)
    model["ontap"]["svms"][0]["flexgroups"][1]["constituents_per_aggregate"] = 4
    result = plan(converged, "flexgroups", model)
    assert "constituents" in result["errors"][0] and result["flexgroups"] == []


def test_trident_privileges_and_account_drift(converged):
    with_tool_roles(converged)
    role = converged.one("security/roles", name="trident", fields="owner")
    converged.delete(f"security/roles/{role['owner']['uuid']}/trident/privileges/%2Fapi%2Fcluster")
    account = converged.one("security/accounts", name="trident", fields="owner")
    converged.patch(f"security/accounts/{account['owner']['uuid']}/trident", {"locked": True})
    result = plan(converged, "accounts")
    assert result["roles"][0]["changes"] == {"privileges": {"before": [], "after": [["/api/cluster", "readonly"]]}}
    assert result["accounts"][0]["changes"] == {"locked": {"before": True, "after": False}}


def test_harvest_gets_a_cluster_scoped_read_only_role_and_an_svm_role_of_its_name_is_not_it(converged):
    with_tool_roles(converged)
    role = converged.one("security/roles", name="harvest-rest-role", scope="cluster", fields="owner")
    converged.delete(f"security/accounts/{role['owner']['uuid']}/harvest")  # ONTAP keeps a role an account holds
    converged.delete(f"security/roles/{role['owner']['uuid']}/harvest-rest-role")
    svm = converged.one("svm/svms", name="lab-data", fields="uuid")
    converged.post("security/roles", {"name": "harvest-rest-role", "owner": {"uuid": svm["uuid"]},
                                      "privileges": [{"path": "/api/storage/volumes", "access": "readonly"}]})
    result = plan(converged, "accounts")
    assert [(item["key"], item["action"], item["want"]["vserver"]) for item in result["roles"]] == [
        ("cluster:harvest-rest-role", "create", None)]
    assert [(item["key"], item["action"]) for item in result["accounts"]] == [("cluster:harvest", "create")]
    assert all(p["access"] == "readonly" for p in result["roles"][0]["want"]["privileges"])


def test_no_harvest_account_when_the_model_does_not_watch_the_pod(converged):
    model = copy.deepcopy(LAB_MODEL)
    model["monitoring"]["enabled"] = False
    assert [login["tool"] for login in plan(converged, "accounts", model)["logins"]] == ["trident", "dataops"]


def test_a_data_set_its_aggregates_cannot_hold_is_refused_with_its_key_before_any_change():
    model = copy.deepcopy(LAB_MODEL)
    model["datasets"][0]["size"] = "200TB"  # the lab's two aggregates hold 2 x 66.7 TiB
    result = plan(Client(fresh_api()), "flexgroups", model)
    [refusal] = [e for e in result["errors"] if "imagenet" in e]
    assert "more than its aggregates (lab_ontap_01_ssd_1, lab_ontap_02_ssd_1) hold in all (133.31 TiB)" in refusal
    assert "lower datasets[0].size," in refusal
    # The validation hands the storage layer where each size was written: the refusal names the line.
    located = plan(Client(fresh_api()), "flexgroups", model, {"locations": {"datasets[0].size": "group_vars/all/datasets.yml:7"}})
    assert "lower datasets[0].size (group_vars/all/datasets.yml:7)," in [e for e in located["errors"] if "imagenet" in e][0]


def test_a_thick_volume_needs_its_share_free_on_each_aggregate_and_a_thin_one_does_not():
    model = copy.deepcopy(LAB_MODEL)
    data = next(fg for fg in model["ontap"]["svms"][0]["flexgroups"] if fg["name"] == "data")
    data.update(size="20TB", thin_provisioning=False)  # 10 TiB on each aggregate
    items = plan(Client(fresh_api()), "flexgroups", model)["flexgroups"]
    aggregates = [{"name": name, "space": {"block_storage": {"size": 70 * 1024**4, "available": available * 1024**4}}}
                  for name, available in (("lab_ontap_01_ssd_1", 60), ("lab_ontap_02_ssd_1", 8))]
    [refusal] = ontap_plan.space_refusals(model, items, aggregates)
    assert "volume lab-data:data is thick and needs 10.00 TiB free on each of its aggregates; lab_ontap_02_ssd_1 has 8.00 TiB" in refusal
    assert "lower ontap.svms[0].flexgroups[0].size," in refusal and "thin_provisioning: true on the FlexGroup" in refusal
    data["thin_provisioning"] = True
    assert ontap_plan.space_refusals(model, plan(Client(fresh_api()), "flexgroups", model)["flexgroups"], aggregates) == []


def test_thick_volumes_are_counted_together_and_turning_one_thick_reserves_it_whole(converged):
    model = copy.deepcopy(LAB_MODEL)
    for flexgroup in model["ontap"]["svms"][0]["flexgroups"]:
        flexgroup.update(size="16TB", thin_provisioning=False)  # data and home: 8 TiB each per aggregate
    aggregates = [{"name": name, "space": {"block_storage": {"size": 70 * 1024**4, "available": 12 * 1024**4}}}
                  for name in ("lab_ontap_01_ssd_1", "lab_ontap_02_ssd_1")]
    fresh = plan(Client(fresh_api()), "flexgroups", model)["flexgroups"]
    refusals = ontap_plan.space_refusals(model, fresh, aggregates)
    assert len(refusals) == 1 and "has 4.00 TiB" in refusals[0]  # the second finds what the first left
    # The converged lab's FlexGroups are thin; turned thick at the same size, each reserves its whole size.
    home = next(fg for fg in model["ontap"]["svms"][0]["flexgroups"] if fg["name"] == "home")
    model["ontap"]["svms"][0]["flexgroups"] = [dict(home, size="2TB")]
    turned = [i for i in plan(converged, "flexgroups", model)["flexgroups"] if "space_guarantee" in i["changes"]]
    assert turned and ontap_plan.space_refusals(model, turned, [dict(a, space={"block_storage": {
        "size": 70 * 1024**4, "available": 512 * 1024**3}}) for a in aggregates]) != []


def test_diff_lists_before_and_after_of_each_pending_object(converged):
    domain = converged.one("network/ethernet/broadcast-domains", name="inband")
    converged.patch(f"network/ethernet/broadcast-domains/{domain['uuid']}", {"mtu": 9000})
    result = plan(converged, "network")
    assert result["diff"] == {"before": {"broadcast_domains": {"Default:inband": {"mtu": 9000}}},
                              "after": {"broadcast_domains": {"Default:inband": {"mtu": 1500}}}}


def test_unknown_area_is_refused():
    with pytest.raises(ValueError):
        ontap_plan.plan(LAB_MODEL, {}, "bogus")


# ---------------------------------------------------------------------------- QoS policy groups and GDD
def test_a_qos_limit_changed_by_hand_is_put_back_and_a_foreign_policy_left_alone(converged):
    policy = converged.one("storage/qos/policies", name="lab-data-floor", fields="uuid")
    converged.patch(f"storage/qos/policies/{policy['uuid']}", {"fixed": {"min_throughput_mbps": 500}})
    svm = converged.one("svm/svms", name="lab-data", fields="uuid")
    converged.post("storage/qos/policies", {"name": "someone-elses", "svm": {"uuid": svm["uuid"]},
                                            "fixed": {"max_throughput_iops": 1000}})
    result = plan(converged, "flexgroups")
    assert [(item["key"], item["action"], item["changes"]) for item in result["qos_policies"]] == [
        ("lab-data:lab-data-floor", "modify", {"min_throughput_mbps": {"before": 500, "after": 10000}})]
    assert result["flexgroups"] == [] and result["pending"] == 1


def test_gdd_is_turned_on_for_a_flexgroup_that_lacks_it_and_never_turned_off(converged):
    volume = converged.one("storage/volumes", name="home", fields="uuid")
    model = copy.deepcopy(LAB_MODEL)
    home = next(fg for fg in model["ontap"]["svms"][0]["flexgroups"] if fg["name"] == "home")
    home["granular_data"] = True
    result = plan(converged, "flexgroups", model)
    [item] = result["flexgroups"]
    assert item["key"] == "lab-data:home" and item["gdd"] is True
    assert item["changes"] == {"granular_data_mode": {"before": None, "after": "advanced"}}
    converged.patch(f"storage/volumes/{volume['uuid']}", {"granular_data": True, "granular_data_mode": "advanced"})
    assert plan(converged, "flexgroups", model)["flexgroups"] == []
    home["granular_data"] = False
    refused = plan(converged, "flexgroups", model)
    assert refused["flexgroups"] == [] and "cannot turn it off" in refused["errors"][0]


def test_a_flexgroup_to_create_with_gdd_is_marked_for_the_rest_call():
    model = copy.deepcopy(LAB_MODEL)
    result = plan(Client(fresh_api()), "flexgroups", model)
    assert {item["key"]: item["gdd"] for item in result["flexgroups"]} == {"lab-data:data": True, "lab-data:home": False,
                                                                           "lab-data:imagenet": False}
    data = next(item for item in result["flexgroups"] if item["key"] == "lab-data:data")
    assert data["want"]["qos_policy_group"] == "lab-data-floor"


def test_a_qos_group_that_should_become_per_volume_is_refused_not_sent(converged):
    """ONTAP (and na_ontap_qos_policy_group) cannot change whether a group is shared: the plan stops first."""
    model = copy.deepcopy(LAB_MODEL)
    model["ontap"]["svms"][0]["qos_policies"][0]["shared"] = False
    result = plan(converged, "flexgroups", model)
    assert result["qos_policies"] == [] and "cannot change that of an existing group" in result["errors"][0]


# ---------------------------------------------------------------------------- what the roles hand on
def test_compare_hands_on_the_plan_and_one_pending_item_per_field(converged):
    domain = converged.one("network/ethernet/broadcast-domains", name="storage-a")
    converged.patch(f"network/ethernet/broadcast-domains/{domain['uuid']}", {"mtu": 1500})
    compared = ontap_plan.compare(LAB_MODEL, read(converged, "network"), "network", OPTIONS.get("network", {}))
    assert compared["pending"] == [{"object": "broadcast domains Default:storage-a", "field": "mtu", "before": 1500, "after": 9000,
                                    "action": "modify", "reason": None}]
    assert [(entry["key"], entry["action"]) for entry in compared["plan"]["broadcast_domains"]] == [("Default:storage-a", "modify")]
    assert "changes" not in compared["plan"]["broadcast_domains"][0] and "pending" not in compared["plan"]


def test_compare_makes_a_refusal_an_item_of_its_own(converged):
    model = copy.deepcopy(LAB_MODEL)
    model["ontap"]["svms"][0]["flexgroups"][0]["size"] = "8TB"
    compared = ontap_plan.compare(model, read(converged, "flexgroups"), "flexgroups", OPTIONS.get("flexgroups", {}))
    [refused] = compared["pending"]
    assert refused["object"] == "flexgroups" and refused["action"] == "refuse" and "never shrunk" in refused["reason"]
    assert aipod_pending.problems(compared["pending"]) == []


def test_compare_of_an_empty_cluster_creates_the_svm():
    compared = ontap_plan.compare(LAB_MODEL, {}, "svms", OPTIONS.get("svms", {}))
    assert {"object": "svms lab-data", "field": None, "before": None, "after": None, "action": "create", "reason": None} in compared["pending"]
    assert aipod_pending.problems(compared["pending"]) == []


# ---------------------------------------------------------------------------- data sets
def test_a_data_set_is_a_volume_with_its_own_versions_and_owner():
    client = Client(fresh_api())
    svms = plan(client, "svms")
    [policy] = [entry for entry in svms["snapshot_policies"] if entry["key"] == "lab-data:dataset_imagenet"]
    assert (policy["want"]["schedule"], policy["want"]["count"], policy["want"]["snapmirror_label"]) == (
        ["hourly", "daily"], [6, 7], ["hourly", "daily"])
    assert policy["svm_exists"] is False  # the SVM comes in the same run: created after it
    [volume] = [entry for entry in plan(client, "flexgroups")["flexgroups"] if entry["key"] == "lab-data:imagenet"]
    want = volume["want"]
    assert (want["snapshot_policy"], want["user_id"], want["group_id"], want["unix_permissions"], want["percent_snapshot_space"]) == (
        "dataset_imagenet", 2000, 2000, "0770", 5)
    assert (want["junction_path"], want["export_policy"], want["aggr_list_multiplier"]) == ("/imagenet", "dataset_imagenet", 2)
    assert want["autosize"] == {"mode": "grow", "maximum": 4 * 1024 ** 4} and volume["autosize"] is True


def test_a_data_sets_export_policy_admits_its_consumers_only():
    [policy] = [entry for entry in plan(Client(fresh_api()), "exports")["policies"] if entry["key"] == "lab-data:dataset_imagenet"]
    [rule] = [entry for entry in plan(Client(fresh_api()), "exports")["rules"] if entry["key"] == "lab-data:dataset_imagenet#1"]
    assert policy["want"] == {"vserver": "lab-data", "name": "dataset_imagenet"}
    # The namespace vision reads it: every Kubernetes node, from each of its addresses on the LIFs' networks, read-only.
    assert rule["want"]["client_match"] == [f"172.31.{net}.{host}" for net in (251, 252) for host in range(11, 15)]
    assert (rule["want"]["ro_rule"], rule["want"]["rw_rule"]) == (["sys"], ["never"])


def test_a_dgx_mount_of_a_data_set_writes_and_a_namespace_that_writes_widens_the_rule():
    model = copy.deepcopy(LAB_MODEL)
    model["compute"]["mounts"].append({"dataset": "imagenet", "path": "/mnt/imagenet"})
    rules = {entry["key"]: entry["want"] for entry in plan(Client(fresh_api()), "exports", model)["rules"]}
    writers, readers = rules["lab-data:dataset_imagenet#1"], rules["lab-data:dataset_imagenet#2"]
    # Each DGX writes from the one address its mount plan uses, and reads from the other.
    assert len(writers["client_match"]) == 4 and writers["rw_rule"] == ["sys"] and readers["rw_rule"] == ["never"]
    assert not set(writers["client_match"]) & set(readers["client_match"])
    model["datasets"][0]["namespaces"] = [{"name": "vision", "access": "read_write"}]
    rules = {entry["key"]: entry["want"] for entry in plan(Client(fresh_api()), "exports", model)["rules"]}
    assert len(rules["lab-data:dataset_imagenet#1"]["client_match"]) == 8 and "lab-data:dataset_imagenet#2" not in rules


def test_a_data_sets_export_rule_changed_by_hand_is_put_back(converged):
    policy = converged.one("protocols/nfs/export-policies", name="dataset_imagenet", fields="id")
    converged.patch(f"protocols/nfs/export-policies/{policy['id']}/rules/1", {"clients": [{"match": "0.0.0.0/0"}]})
    compared = ontap_plan.compare(LAB_MODEL, read(converged, "exports"), "exports", OPTIONS.get("exports", {}))
    assert [(entry["object"], entry["field"], entry["before"]) for entry in compared["pending"]] == [
        ("rules lab-data:dataset_imagenet#1", "clients", ["0.0.0.0/0"])]


def test_a_data_set_ontap_grew_within_its_max_size_is_left_at_its_size(converged):
    volume = converged.one("storage/volumes", name="imagenet", fields="uuid")
    converged.patch(f"storage/volumes/{volume['uuid']}", {"size": 3 * 1024 ** 4}, return_timeout=30)
    assert plan(converged, "flexgroups")["pending"] == 0
    converged.patch(f"storage/volumes/{volume['uuid']}", {"autosize": {"mode": "off"}}, return_timeout=30)
    compared = ontap_plan.compare(LAB_MODEL, read(converged, "flexgroups"), "flexgroups", OPTIONS.get("flexgroups", {}))
    assert [(entry["field"], entry["before"], entry["after"]) for entry in compared["pending"]] == [("autosize_mode", "off", "grow")]


def test_a_data_set_changed_by_hand_is_pending_field_by_field(converged):
    volume = converged.one("storage/volumes", name="imagenet", fields="uuid")
    converged.patch(f"storage/volumes/{volume['uuid']}", {"nas": {"uid": 0}, "space": {"snapshot": {"reserve_percent": 0}}},
                    return_timeout=30)
    compared = ontap_plan.compare(LAB_MODEL, read(converged, "flexgroups"), "flexgroups", OPTIONS.get("flexgroups", {}))
    assert sorted((entry["object"], entry["field"], entry["before"], entry["after"]) for entry in compared["pending"]) == [
        ("flexgroups lab-data:imagenet", "snapshot_reserve", 0, 5), ("flexgroups lab-data:imagenet", "uid", 0, 2000)]


def test_a_data_set_as_a_flexvol_sits_on_one_aggregate():
    model = copy.deepcopy(LAB_MODEL)
    model["datasets"][0].update(style="flexvol", size="1TB")
    model["datasets"][0].pop("constituents_per_aggregate", None)
    [volume] = [entry for entry in plan(Client(fresh_api()), "flexgroups", model)["flexgroups"] if entry["key"] == "lab-data:imagenet"]
    assert volume["want"]["aggregate_name"] == "lab_ontap_01_ssd_1" and volume["want"]["aggr_list"] is None


def test_a_data_set_removed_from_the_model_is_reported_and_left(converged):
    """Its volume carries the data set's comment: the plan names it under left, and changes nothing of it."""
    model = copy.deepcopy(LAB_MODEL)
    removed = model.pop("datasets")
    assert [d["name"] for d in removed] == ["imagenet"]
    result = plan(converged, "flexgroups", model)
    assert result["left"] == [{"key": "lab-data:imagenet", "dataset": "imagenet"}]
    assert result["pending"] == 0 and result["errors"] == []


def test_a_data_set_volume_says_whose_it_is():
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_datasets import model as datasets_model

    [volume] = datasets_model.volumes(LAB_MODEL)
    assert volume["comment"] == "aipod data set imagenet"
    assert datasets_model.dataset_of_comment(volume["comment"]) == "imagenet"
    assert datasets_model.dataset_of_comment("netapp-dataops") is None and datasets_model.dataset_of_comment(None) is None



def test_the_validation_locates_every_key_that_sizes_a_volume():
    report = validate_site(str(LAB), decrypt=make_decryptor(LAB_VAULT_PASSWORD), check_files=False)
    locations = report.as_dict()["size_locations"]
    assert set(locations) == set(ontap_plan.size_keys(report.site.model))
    assert re.fullmatch(r".*inventories/lab/group_vars/all/datasets\.yml:[0-9]+", locations["datasets[0].size"])
    assert re.fullmatch(r".*inventories/lab/group_vars/all/ontap\.yml:[0-9]+", locations["ontap.svms[0].flexgroups[0].size"])
