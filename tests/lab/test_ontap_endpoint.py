"""The lab's ONTAP endpoint, in process: ONTAP's shapes, errors, schema checks and cluster behaviour."""
from __future__ import annotations

import time

import pytest
from ontap_lab_client import ADMIN_PASSWORD, Client, fresh_api


@pytest.fixture
def client(tmp_path):
    return Client(fresh_api(tmp_path))


def node_port(client, node, name):
    return client.one("network/ethernet/ports", name=name, **{"node.name": node}, fields="*")


def make_svm(client, name="vs1", **extra):
    body = {"name": name, "aggregates": [{"name": "lab_ontap_01_ssd_1"}, {"name": "lab_ontap_02_ssd_1"}],
            "nfs": {"allowed": True}, **extra}
    status, answer = client.post("svm/svms", body, return_timeout=30)
    assert status == 202, answer
    return client.one("svm/svms", name=name, fields="*")


def make_storage_network(client, vlan=3111, domain="storage-a", mtu=9000):
    client.post("network/ethernet/broadcast-domains", {"name": domain, "ipspace": "Default", "mtu": mtu})
    for node in ("lab-ontap-01", "lab-ontap-02"):
        status, answer = client.post("network/ethernet/ports", {
            "type": "vlan", "node.name": node, "vlan": {"tag": vlan, "base_port": {"name": "e1a", "node": {"name": node}}},
            "broadcast_domain": {"name": domain, "ipspace": {"name": "Default"}}})
        assert status == 201, answer


# ---------------------------------------------------------------------------- shapes
def test_version_probe_answers_like_ontap(client):
    status, body = client.get("cluster", fields="version")
    assert status == 200
    assert body["version"]["generation"] == 9 and body["version"]["major"] >= 14
    assert set(body) == {"version", "_links"}


def test_collections_have_records_num_records_and_links(client):
    status, body = client.get("cluster/nodes")
    assert status == 200
    assert body["num_records"] == 2 == len(body["records"])
    assert body["_links"]["self"]["href"] == "/api/cluster/nodes"
    # without fields=, only the keys and links come back
    assert set(body["records"][0]) == {"uuid", "name", "_links"}


def test_fields_select_nested_values_and_keys(client):
    record = client.records("network/ethernet/ports", fields="node.name,mtu", name="e1a")[0]
    assert set(record) == {"uuid", "name", "node", "mtu", "_links"}
    assert set(record["node"]) == {"name"}


def test_unknown_field_is_rejected(client):
    status, body = client.get("svm/svms", fields="bogus")
    assert status == 400 and body["error"]["code"] == "262197"


def test_query_filters_wildcards_or_and_not(client):
    names = lambda **query: sorted(r["name"] for r in client.records("network/ethernet/ports", **query))  # noqa: E731
    assert names(name="e1*", **{"node.name": "lab-ontap-01"}) == ["e1a", "e1b"]
    assert names(name="e0c|e1b", **{"node.name": "lab-ontap-02"}) == ["e0c", "e1b"]
    assert "e0M" not in names(name="!e0M", **{"node.name": "lab-ontap-01"})
    assert names(mtu=">1500", **{"node.name": "lab-ontap-01"}) == ["e0a", "e0b"]


def test_unknown_query_parameter_is_rejected(client):
    status, body = client.get("network/ethernet/ports", colour="blue")
    assert status == 400 and body["error"]["code"] == "262179"


def test_paging_follows_next_links(client):
    status, first = client.get("network/ethernet/ports", max_records=5)
    assert status == 200 and first["num_records"] == 5
    seen = [r["uuid"] for r in first["records"]]
    link = first["_links"]["next"]["href"]
    while link:
        status, page = client.call("GET", link)
        seen += [r["uuid"] for r in page["records"]]
        link = page["_links"].get("next", {}).get("href")
    assert len(seen) == len(set(seen)) == len(client.records("network/ethernet/ports"))


def test_missing_object_is_404_with_code_4(client):
    status, body = client.get("storage/volumes/00000000-0000-0000-0000-000000000000")
    assert status == 404 and body["error"]["code"] == "4"


def test_authentication_is_required(client):
    assert client.call("GET", "cluster", auth=False)[0] == 401
    assert client.as_user("admin", "wrong-password1").get("cluster")[0] == 401
    assert client.as_user("admin", ADMIN_PASSWORD).get("cluster")[0] == 200


# ---------------------------------------------------------------------------- schema checks
def test_body_fields_outside_the_schema_are_rejected(client):
    status, body = client.post("network/ethernet/broadcast-domains", {"name": "x", "mtu": 1500, "colour": "blue"})
    assert status == 400 and body["error"]["code"] == "262179" and "colour" in body["error"]["message"]


def test_unknown_keys_inside_nested_objects_are_rejected(client):
    make_svm(client)
    status, body = client.post("storage/volumes", {"name": "v", "svm": {"name": "vs1"}, "nas": {"pth": "/v"}})
    assert status == 400 and "nas.pth" in body["error"]["message"]


def test_fields_that_cannot_be_set_by_the_method_are_rejected(client):
    status, body = client.post("network/ethernet/broadcast-domains",
                               {"name": "x", "mtu": 1500, "ports": [{"name": "e0c", "node": {"name": "lab-ontap-01"}}]})
    assert status == 400 and body["error"]["code"] == "262196"


def test_invalid_enum_value_is_rejected(client):
    make_svm(client)
    status, body = client.post("storage/volumes", {"name": "v", "svm.name": "vs1", "style": "flexgrp"})
    assert status == 400 and body["error"]["code"] == "262197" and "style" in body["error"]["message"]


def test_dotted_keys_and_name_shorthands_are_accepted_and_values_typed(client):
    status, _ = client.post("network/ethernet/broadcast-domains", {"name": "x", "mtu": "9000", "ipspace": "Default"})
    assert status == 201
    domain = client.one("network/ethernet/broadcast-domains", name="x", fields="mtu,ipspace")
    assert domain["mtu"] == 9000 and domain["ipspace"]["name"] == "Default"


# ---------------------------------------------------------------------------- cluster behaviour
def test_vlan_ports_take_their_domain_mtu_and_follow_its_changes(client):
    make_storage_network(client)
    assert node_port(client, "lab-ontap-01", "e1a-3111")["mtu"] == 9000
    domain = client.one("network/ethernet/broadcast-domains", name="storage-a", fields="ports")
    assert sorted(p["name"] for p in domain["ports"]) == ["e1a-3111", "e1a-3111"]
    assert client.patch(f"network/ethernet/broadcast-domains/{domain['uuid']}", {"mtu": 8000})[0] == 200
    assert node_port(client, "lab-ontap-02", "e1a-3111")["mtu"] == 8000


def test_duplicate_vlan_and_domain_are_refused(client):
    make_storage_network(client)
    status, body = client.post("network/ethernet/broadcast-domains", {"name": "storage-a", "mtu": 9000})
    assert status == 409
    status, body = client.post("network/ethernet/ports", {"type": "vlan", "node.name": "lab-ontap-01",
                                                          "vlan": {"tag": 3111, "base_port": {"name": "e1a"}}})
    assert status == 409


def test_interface_groups_are_named_by_ontap_and_take_their_ports_out_of_domains(client):
    body = {"type": "lag", "node": {"name": "lab-ontap-01"},
            "lag": {"mode": "multimode_lacp", "distribution_policy": "port",
                    "member_ports": [{"name": "e0c", "node": {"name": "lab-ontap-01"}}]}}
    assert client.post("network/ethernet/ports", body)[0] == 201
    body["lag"]["member_ports"] = [{"name": "e0d", "node": {"name": "lab-ontap-01"}}]
    assert client.post("network/ethernet/ports", body)[0] == 201
    lags = client.records("network/ethernet/ports", type="lag", fields="lag")
    assert sorted(lag["name"] for lag in lags) == ["a0a", "a0b"]
    assert "broadcast_domain" not in node_port(client, "lab-ontap-01", "e0c")
    # a member port cannot join a second group
    assert client.post("network/ethernet/ports", body)[0] == 400


def test_lif_home_port_must_be_in_a_domain_of_the_lif_ipspace(client):
    make_svm(client)
    lif = {"name": "lif1", "svm": {"name": "vs1"}, "ip": {"address": "172.31.251.10", "netmask": "24"},
           "location": {"home_port": {"name": "e1b-3112", "node": {"name": "lab-ontap-01"}}},
           "service_policy": "default-data-files"}
    status, body = client.post("network/ip/interfaces", lif)
    assert status == 404  # no such port yet
    client.post("network/ethernet/ports", {"type": "vlan", "node.name": "lab-ontap-01",
                                           "vlan": {"tag": 3112, "base_port": {"name": "e1b"}}})
    status, body = client.post("network/ip/interfaces", lif)
    assert status == 400 and "not in a broadcast domain" in body["error"]["message"]
    client.post("network/ipspaces", {"name": "other"})
    client.post("network/ethernet/broadcast-domains", {"name": "b", "mtu": 9000, "ipspace": "other"})
    port = node_port(client, "lab-ontap-01", "e1b-3112")
    client.patch(f"network/ethernet/ports/{port['uuid']}", {"broadcast_domain": {"name": "b", "ipspace": {"name": "other"}}})
    status, body = client.post("network/ip/interfaces", lif)
    assert status == 400 and "IPspace" in body["error"]["message"]


def test_lifs_have_unique_names_and_addresses(client):
    make_svm(client)
    make_storage_network(client)
    lif = {"name": "lif1", "svm": {"name": "vs1"}, "ip": {"address": "172.31.251.10", "netmask": "24"},
           "location": {"home_port": {"name": "e1a-3111", "node": {"name": "lab-ontap-01"}}}}
    status, body = client.post("network/ip/interfaces", lif, return_records="true")
    assert status == 201 and body["records"][0]["uuid"]
    record = client.one("network/ip/interfaces", name="lif1", fields="*")
    assert record["location"]["broadcast_domain"]["name"] == "storage-a"
    assert record["service_policy"]["name"] == "default-data-files"
    assert client.post("network/ip/interfaces", lif)[0] == 409
    assert client.post("network/ip/interfaces", {**lif, "name": "lif2"})[0] == 409


def test_roce_is_refused_through_an_interface_group(client):
    make_svm(client)
    client.post("network/ethernet/ports", {"type": "lag", "node": {"name": "lab-ontap-01"},
                                           "lag": {"mode": "multimode_lacp", "distribution_policy": "port",
                                                   "member_ports": [{"name": "e0c"}, {"name": "e0d"}]}})
    client.post("network/ethernet/broadcast-domains", {"name": "inband", "mtu": 1500})
    client.post("network/ethernet/ports", {"type": "vlan", "node.name": "lab-ontap-01",
                                           "vlan": {"tag": 3101, "base_port": {"name": "a0a"}}, "broadcast_domain": {"name": "inband"}})
    lif = {"name": "m", "svm": {"name": "vs1"}, "ip": {"address": "172.31.253.5", "netmask": "24"},
           "location": {"home_port": {"name": "a0a-3101", "node": {"name": "lab-ontap-01"}}}, "rdma_protocols": ["roce"]}
    status, body = client.post("network/ip/interfaces", lif)
    assert status == 400 and "interface groups" in body["error"]["message"]


def test_flexgroup_gets_aggregates_times_multiplier_constituents(client):
    make_svm(client)
    status, body = client.post("storage/volumes", {
        "name": "data", "svm.name": "vs1", "aggregates": [{"name": "lab_ontap_01_ssd_1"}, {"name": "lab_ontap_02_ssd_1"}],
        "constituents_per_aggregate": 4, "size": 8 * 1024 ** 4, "nas.path": "/data", "guarantee.type": "none"},
        return_timeout=30)
    assert status == 202
    volume = client.one("storage/volumes", name="data", fields="style,constituent_count,constituents")
    assert volume["style"] == "flexgroup" and volume["constituent_count"] == 8
    parts = client.records("storage/volumes", is_constituent="true", fields="name,aggregates,space.size,flexgroup")
    assert sorted(p["name"] for p in parts) == [f"data__{n:04d}" for n in range(1, 9)]
    assert {p["space"]["size"] for p in parts} == {1024 ** 4}
    assert sorted(p["aggregates"][0]["name"] for p in parts).count("lab_ontap_01_ssd_1") == 4
    # constituents are not listed among the volumes by default
    assert "data__0001" not in {v["name"] for v in client.records("storage/volumes")}
    # growing spreads the new size over the constituents
    assert client.patch(f"storage/volumes/{volume['uuid']}", {"size": 16 * 1024 ** 4}, return_timeout=30)[0] == 202
    parts = client.records("storage/volumes", is_constituent="true", fields="space.size")
    assert {p["space"]["size"] for p in parts} == {2 * 1024 ** 4}


def test_volume_names_are_unique_per_svm_and_junctions_need_a_parent(client):
    make_svm(client)
    body = {"name": "v1", "svm.name": "vs1", "nas.path": "/v1"}
    assert client.post("storage/volumes", body, return_timeout=30)[0] == 202
    status, answer = client.post("storage/volumes", body, return_timeout=30)
    assert status == 409
    status, answer = client.post("storage/volumes", {"name": "v2", "svm.name": "vs1", "nas.path": "/missing/v2"},
                                 return_timeout=30)
    job = client.call("GET", answer["job"]["_links"]["self"]["href"])[1]
    assert job["state"] == "failure" and "parent" in job["message"]


def test_svm_creation_brings_root_volume_default_policy_and_service_policies(client):
    svm = make_svm(client)
    root = client.one("storage/volumes", is_svm_root="true", fields="name,nas")
    assert root["name"] == "vs1_root" and root["nas"]["path"] == "/" and root["nas"]["export_policy"]["name"] == "default"
    assert client.one("protocols/nfs/export-policies", name="default", **{"svm.name": "vs1"})
    names = {p["name"] for p in client.records("network/ip/service-policies", **{"svm.name": "vs1"})}
    assert {"default-data-files", "default-management"} <= names
    assert svm["nfs"] == {"allowed": True, "enabled": False}


def test_asynchronous_writes_report_through_jobs(tmp_path):
    client = Client(fresh_api(tmp_path, job_seconds=0.3))
    status, body = client.post("svm/svms", {"name": "vs1"})
    assert status == 202
    job = body["job"]["_links"]["self"]["href"]
    assert client.call("GET", job)[1]["state"] == "running"
    time.sleep(0.35)
    assert client.call("GET", job)[1]["state"] == "success"
    # a request ONTAP refuses up front gets its error at once; a failure of the work fails the job
    status, body = client.post("svm/svms", {"name": "vs2", "aggregates": [{"name": "nope"}]}, return_timeout=30)
    assert status == 400 and "nope" in body["error"]["message"]
    status, body = client.post("storage/volumes", {"name": "v", "svm.name": "vs1", "size": 10 * 1024 ** 5,
                                                   "guarantee": {"type": "volume"}}, return_timeout=30)
    job = client.call("GET", body["job"]["_links"]["self"]["href"])[1]
    assert job["state"] == "failure" and "Insufficient space" in job["message"]


def test_nfs_settings_follow_ontaps_rules(client):
    make_svm(client)
    assert client.post("protocols/nfs/services", {"svm.name": "vs1", "protocol.v41_enabled": "false"})[0] == 201
    status, body = client.patch("protocols/nfs/services", {"protocol": {"v41_features": {"trunking_enabled": True}}},
                                **{"svm.name": "vs1"})
    assert status == 400 and "4.1" in body["error"]["message"]
    status, body = client.patch("protocols/nfs/services", {"transport": {"tcp_max_transfer_size": 100000}}, **{"svm.name": "vs1"})
    assert status == 400
    assert client.patch("protocols/nfs/services", {"protocol": {"v41_enabled": True, "v41_features": {"trunking_enabled": True}}},
                        **{"svm.name": "vs1"})[0] == 200
    service = client.one("protocols/nfs/services", fields="protocol,svm")
    assert service["protocol"]["v41_features"]["trunking_enabled"] is True
    # a query PATCH must select something
    assert client.patch("protocols/nfs/services", {"enabled": True})[0] == 400


def test_export_rules_are_numbered_and_reordered(client):
    make_svm(client)
    assert client.post("protocols/nfs/export-policies", {"name": "p", "svm.name": "vs1"})[0] == 201
    policy = client.one("protocols/nfs/export-policies", name="p")
    rules = f"protocols/nfs/export-policies/{policy['id']}/rules"
    for subnet in ("10.0.1.0/24", "10.0.2.0/24"):
        status, body = client.post(rules, {"clients": [{"match": subnet}], "ro_rule": ["sys"]}, return_records="true")
        assert status == 201
    assert [r["index"] for r in client.records(rules, fields="index")] == [1, 2]
    assert client.patch(f"{rules}/2", {}, new_index=1)[0] == 200
    assert client.one(rules, index=1, fields="clients")["clients"] == [{"match": "10.0.2.0/24"}]
    status, body = client.post(rules, {"clients": [{"match": "10.0.3.0/33"}], "ro_rule": ["sys"]})
    assert status == 400
    status, body = client.post(rules, {"clients": [{"match": "10.0.3.0/24"}], "ro_rule": ["sysx"]})
    assert status == 400 and "ro_rule" in body["error"]["message"]


def test_rest_roles_limit_an_svm_scoped_account(client):
    make_svm(client)
    make_svm(client, "other")
    client.post("storage/volumes", {"name": "mine", "svm.name": "vs1"}, return_timeout=30)
    client.post("storage/volumes", {"name": "theirs", "svm.name": "other"}, return_timeout=30)
    assert client.post("security/roles", {"name": "trident", "owner.name": "vs1", "privileges": [
        {"path": "/api/storage/volumes", "access": "all"}, {"path": "/api/cluster", "access": "readonly"}]})[0] == 201
    assert client.post("security/accounts", {"name": "trident", "owner.name": "vs1", "role.name": "trident",
                                             "applications": [{"application": "http", "authentication_methods": ["password"]}],
                                             "password": "trident-pass1"})[0] == 201
    trident = client.as_user("trident", "trident-pass1")
    assert trident.get("cluster", fields="version")[0] == 200
    assert {v["name"] for v in trident.records("storage/volumes")} == {"mine", "vs1_root"}
    assert trident.get("svm/svms")[0] == 403
    assert trident.post("storage/volumes", {"name": "x", "svm.name": "other"}, return_timeout=30)[0] == 403
    assert trident.patch("cluster", {"contact": "me"})[0] == 403
    # ONTAP refuses a password used before, in the words na_ontap_user looks for
    account = client.one("security/accounts", name="trident")
    status, body = client.patch(f"security/accounts/{account['owner']['uuid']}/trident", {"password": "trident-pass1"})
    assert status == 400 and body["error"]["message"].startswith("New password must be different than last 6 passwords.")


def test_state_survives_a_reload(tmp_path):
    from ontap_lab.api import Api
    from ontap_lab.state import Store

    client = Client(fresh_api(tmp_path))
    make_svm(client)
    make_storage_network(client)
    store = Store(str(tmp_path / "state.json"))
    again = Client(Api(store.load(), store))
    assert again.one("svm/svms", name="vs1")
    assert node_port(again, "lab-ontap-01", "e1a-3111")["broadcast_domain"]["name"] == "storage-a"
    assert again.get("cluster", fields="name")[1]["name"] == "lab-ontap"


# ---------------------------------------------------------------------------- QoS policy groups, granular data
def make_flexgroup(client, svm, name="fg1", **extra):
    body = {"name": name, "svm": {"name": svm}, "style": "flexgroup", "size": 400 * 1024 ** 3,
            "aggregates": [{"name": "lab_ontap_01_ssd_1"}, {"name": "lab_ontap_02_ssd_1"}], "constituents_per_aggregate": 2, **extra}
    status, answer = client.post("storage/volumes", body, return_timeout=30)
    assert status == 202, answer
    return client.one("storage/volumes", name=name, fields="*")


def job_error(client, status, answer):
    """The refusal of a write: an error answer, or (a write ONTAP takes as a job) the failed job's message."""
    if status >= 400:
        return answer["error"]["message"]
    assert status == 202, answer
    job = client.one("cluster/jobs", uuid=answer["job"]["uuid"], fields="*")
    assert job["state"] == "failure", job
    return job["message"]


def test_qos_policy_groups_limit_volumes_and_refuse_what_ontap_refuses(client):
    make_svm(client)
    status, answer = client.post("storage/qos/policies", {"name": "floor", "svm": {"name": "vs1"},
                                                           "fixed": {"min_throughput_mbps": 1000, "capacity_shared": True}},
                                 return_timeout=30)
    assert status == 202, answer
    policy = client.one("storage/qos/policies", name="floor", fields="*")
    assert policy["fixed"] == {"max_throughput_iops": 0, "max_throughput_mbps": 0, "min_throughput_iops": 0,
                               "min_throughput_mbps": 1000, "capacity_shared": True}
    assert policy["policy_class"] == "user_defined" and policy["object_count"] == 0
    assert "already exists" in job_error(client, *client.post("storage/qos/policies", {"name": "floor", "svm": {"name": "vs1"}},
                                                                return_timeout=30))
    assert "must not exceed" in job_error(client, *client.post("storage/qos/policies", {
        "name": "upside", "svm": {"name": "vs1"}, "fixed": {"min_throughput_iops": 10, "max_throughput_iops": 5}}, return_timeout=30))

    volume = make_flexgroup(client, "vs1", qos={"policy": {"name": "floor"}})
    assert volume["qos"]["policy"]["name"] == "floor"
    assert client.one("storage/qos/policies", name="floor", fields="object_count")["object_count"] == 1
    status, answer = client.delete(f"storage/qos/policies/{policy['uuid']}", return_timeout=30)
    assert "in use by volume" in job_error(client, status, answer)


def test_granular_data_is_a_flexgroup_setting_advanced_needs_9_16_and_neither_goes_back(client):
    make_svm(client)
    client.api.state.cluster["version"].update({"major": 14, "minor": 1})
    status, answer = client.post("storage/volumes", {"name": "fg_old", "svm": {"name": "vs1"}, "style": "flexgroup",
                                                     "size": 400 * 1024 ** 3, "granular_data": True, "granular_data_mode": "advanced",
                                                     "aggregates": [{"name": "lab_ontap_01_ssd_1"}]}, return_timeout=30)
    assert "advanced needs ONTAP 9.16.1" in job_error(client, status, answer)
    client.api.state.cluster["version"].update({"major": 16, "minor": 1})
    basic = make_flexgroup(client, "vs1", granular_data=True)
    assert (basic["granular_data"], basic["granular_data_mode"]) == (True, "basic")
    status, answer = client.patch(f"storage/volumes/{basic['uuid']}", {"granular_data_mode": "advanced"}, return_timeout=30)
    assert status in (200, 202), answer
    assert client.one("storage/volumes", name="fg1", fields="granular_data_mode")["granular_data_mode"] == "advanced"
    for change, refusal in (({"granular_data": False}, "cannot be disabled"), ({"granular_data_mode": "basic"}, "cannot be turned back")):
        assert refusal in job_error(client, *client.patch(f"storage/volumes/{basic['uuid']}", change, return_timeout=30))
    plain = make_flexgroup(client, "vs1", name="fg2")
    assert plain["granular_data"] is False and "granular_data_mode" not in plain
