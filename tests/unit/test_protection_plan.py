"""The plan of the data sets' copies on peer clusters (area protection of aipod_ontap.plan), against
the lab's cluster and its peer lab-dr in one fabric, read as roles/ontap_protection reads them."""
from __future__ import annotations

import copy

import pytest
import yaml
from ontap_lab.api import Api
from ontap_lab.cli import seed_peer
from ontap_lab.fabric import Fabric
from ontap_lab_client import ADMIN_PASSWORD, LAB_MODEL, REPO, Client, fresh_api

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_ontap import plan as ontap_plan

PEER_DEFINITION = yaml.safe_load((REPO / "lab" / "ontap" / "peers" / "lab-dr.yml").read_text())
PEER_DEFINITION["ontap"]["mgmt_address"] = "127.0.10.11"  # where the lab inventory puts it


@pytest.fixture
def clusters() -> tuple[Client, Client]:
    local = fresh_api()
    peer = Api(seed_peer(PEER_DEFINITION, ADMIN_PASSWORD, "admin"), job_seconds=0.0)
    fabric = Fabric()
    fabric.join(local)
    fabric.join(peer)
    a = Client(local)
    status, body = a.post("svm/svms", {"name": "lab-data", "aggregates": [{"name": "lab_ontap_01_ssd_1"}]}, return_timeout=30)
    assert status in (201, 202), body
    status, body = a.post("storage/volumes", {"name": "imagenet", "svm": {"name": "lab-data"}, "size": 4 * 1024 ** 3,
                                              "aggregates": [{"name": "lab_ontap_01_ssd_1"}]}, return_timeout=30)
    assert status in (201, 202), body
    return a, Client(peer)


def read(local: Client, peer: Client) -> dict:
    info = {api: {"records": local.records(api, fields="*")} for api in ("network/ip/interfaces", "cluster/peers", "svm/peers")}
    info["storage/flexcache/flexcaches"] = {"records": local.records("storage/flexcache/flexcaches", fields="*")}
    info.update({f"peers/lab-dr/{api}": {"records": peer.records(api, fields="*")}
                 for api in ("cluster/peers", "snapmirror/relationships", "storage/flexcache/flexcaches")})
    return info


def kinds(result: dict) -> dict[str, list[str]]:
    return {kind: [f"{item['action']} {item['key']}" for item in items] for kind, items in result.items()
            if kind not in ("errors", "pending", "diff") and items}


def converge(local: Client, peer: Client) -> None:
    """What roles/ontap_protection's modules do, call by call, from the plan's wants."""
    result = ontap_plan.plan(LAB_MODEL, read(local, peer), "protection")
    for item in result["intercluster_lifs"]:
        want = item["want"]
        assert local.post("network/ip/interfaces", {"name": want["interface_name"], "ip": {"address": want["address"], "netmask": want["netmask"]},
                                                    "location": {"home_port": {"name": want["home_port"], "node": {"name": want["home_node"]}}},
                                                    "service_policy": {"name": want["service_policy"]}, "ipspace": {"name": "Default"}},
                          return_timeout=30)[0] in (201, 202)
    for item in result["cluster_peers"]:
        want = item["want"]
        for side, addresses in ((local, want["dest_intercluster_lifs"]), (peer, want["source_intercluster_lifs"])):
            assert side.post("cluster/peers", {"remote": {"ip_addresses": addresses}, "authentication": {"passphrase": "passphrase-1"},
                                               "encryption": {"proposed": "tls_psk"}})[0] == 201
    for item in result["svm_peers"]:
        want = item["want"]
        status, body = local.post("svm/peers", {"svm": {"name": want["vserver"]}, "peer": {"svm": {"name": want["peer_vserver"]},
                                                "cluster": {"name": want["peer_cluster"]}}, "applications": want["applications"]},
                                  return_records="true")
        assert status in (201, 202), body
        assert peer.patch(f"svm/peers/{body['records'][0]['uuid']}", {"state": "peered"})[0] in (200, 202)
    for item in result["relationships"]:
        want = item["want"]
        status, body = peer.post("snapmirror/relationships", {
            "source": {"path": want["source_path"], "cluster": {"name": want["source_cluster"]}},
            "destination": {"path": want["destination_path"]}, "policy": {"name": want["policy"]},
            "transfer_schedule": {"name": want["schedule"]}, "create_destination": {"enabled": True}, "state": "snapmirrored"},
            return_timeout=30)
        assert status in (201, 202), body
    for item in result["caches"]:
        want = item["want"]
        status, body = peer.post("storage/flexcache/flexcaches", {
            "name": want["name"], "svm": {"name": want["vserver"]}, "path": want["junction_path"], "size": want["size"],
            "origins": [{"volume": {"name": want["origin_volume"]}, "svm": {"name": want["origin_vserver"]}}],
            "prepopulate": {"dir_paths": want["prepopulate"]}}, return_timeout=30)
        assert status in (201, 202), body


def test_a_new_pair_of_clusters_needs_the_whole_chain_then_nothing(clusters):
    local, peer = clusters
    result = ontap_plan.plan(LAB_MODEL, read(local, peer), "protection")
    assert result["errors"] == []
    assert kinds(result) == {"intercluster_lifs": ["create lab-ontap-01_ic1", "create lab-ontap-02_ic1"],
                             "cluster_peers": ["create lab-dr"],
                             "svm_peers": ["create lab-data:lab-dr:dr-cache", "create lab-data:lab-dr:dr-data"],
                             "relationships": ["create lab-dr:dr-data:imagenet"], "caches": ["create lab-dr:dr-cache:imagenet_cache"]}
    [cache] = result["caches"]
    assert (cache["want"]["junction_path"], cache["want"]["size"], cache["want"]["prepopulate"]) == ("/imagenet_cache", 1024 ** 4, ["/"])
    [mirror] = result["relationships"]
    assert (mirror["want"]["source_path"], mirror["want"]["policy"], mirror["want"]["schedule"]) == (
        "lab-data:imagenet", "MirrorAllSnapshots", "hourly")
    assert mirror["want"]["peer"] == {"hostname": "127.0.10.11", "http_port": 8443, "username": "admin",
                                      "password_variable": "vault_ontap_peer_password_lab_dr"}
    converge(local, peer)
    again = ontap_plan.compare(LAB_MODEL, read(local, peer), "protection")
    assert again["pending"] == []


def test_a_copy_changed_by_hand_is_put_back_and_one_broken_off_is_left_to_an_operator(clusters):
    local, peer = clusters
    converge(local, peer)
    [relationship] = peer.records("snapmirror/relationships", fields="uuid")
    assert peer.patch(f"snapmirror/relationships/{relationship['uuid']}", {"transfer_schedule": {"name": "daily"}},
                      return_timeout=30)[0] in (200, 202)
    pending = ontap_plan.compare(LAB_MODEL, read(local, peer), "protection")["pending"]
    assert [(p["field"], p["before"], p["after"], p["action"]) for p in pending] == [("schedule", "daily", "hourly", "modify")]
    assert peer.patch(f"snapmirror/relationships/{relationship['uuid']}", {"state": "broken_off"}, return_timeout=30)[0] in (200, 202)
    [refusal] = ontap_plan.compare(LAB_MODEL, read(local, peer), "protection")["pending"]
    assert refusal["action"] == "refuse" and "broken_off" in refusal["reason"] and "by hand" in refusal["reason"]


def test_an_svm_peering_left_offered_is_accepted_on_the_peer(clusters):
    local, peer = clusters
    converge(local, peer)
    [offer] = local.records("svm/peers", fields="uuid", **{"peer.svm.name": "dr-data"})
    peer.patch(f"svm/peers/{offer['uuid']}", {"state": "suspended"})
    local.patch(f"svm/peers/{offer['uuid']}", {"state": "suspended"})
    # Back to a state a lost answer leaves: offered here, pending there.
    local.api.state.get("svm_peers", offer["uuid"])["state"] = "initiated"
    peer.api.state.get("svm_peers", offer["uuid"])["state"] = "pending"
    result = ontap_plan.plan(LAB_MODEL, read(local, peer), "protection")
    assert result["errors"] == [] and kinds(result) == {"svm_peers": ["modify lab-data:lab-dr:dr-data"]}
    assert result["svm_peers"][0]["want"]["uuid"] == offer["uuid"]


def test_a_half_made_peering_is_refused_with_what_to_do(clusters):
    local, peer = clusters
    assert local.post("network/ip/interfaces", {"name": "ic1", "ip": {"address": "127.0.10.21", "netmask": "8"},
                                                "location": {"home_port": {"name": "e0M", "node": {"name": "lab-ontap-01"}}},
                                                "service_policy": {"name": "default-intercluster"}}, return_timeout=30)[0] in (201, 202)
    assert local.post("cluster/peers", {"remote": {"ip_addresses": ["172.31.254.201"]},
                                        "authentication": {"passphrase": "passphrase-1"}})[0] == 201
    result = ontap_plan.plan(LAB_MODEL, read(local, peer), "protection")
    assert result["cluster_peers"] == [] and len(result["errors"]) == 1
    assert "half made" in result["errors"][0] and "this cluster" in result["errors"][0]


def test_no_copy_needs_no_peering():
    model = copy.deepcopy(LAB_MODEL)
    model["datasets"][0].pop("protection")
    model["datasets"][0].pop("caches")
    result = ontap_plan.plan(model, {}, "protection")
    assert kinds(result) == {"intercluster_lifs": ["create lab-ontap-01_ic1", "create lab-ontap-02_ic1"]}
    assert result["errors"] == []
