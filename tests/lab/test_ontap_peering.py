"""Cluster and SVM peering between two lab clusters, driven by NetApp's netapp_ontap client.

The lab's clusters run in one process and reach each other by their intercluster LIFs (the
fabric, lab/ontap/ontap_lab/fabric.py); here two are served over HTTPS in threads of the test,
each with its own state, as lab/lab serves the main cluster and its peers.
"""
from __future__ import annotations

import contextlib
import copy
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator

import pytest
from netapp_ontap import HostConnection
from netapp_ontap.error import NetAppRestError
from netapp_ontap.resources import (
    ClusterPeer,
    Flexcache,
    FlexcacheOrigin,
    SnapmirrorRelationship,
    SnapmirrorTransfer,
    Snapshot,
    SvmPeer,
    Volume,
)
from ontap_lab.api import Api
from ontap_lab.fabric import Fabric
from ontap_lab.seed import seed_state, set_admin_password
from ontap_lab_client import ADMIN_PASSWORD, LAB_MODEL, REPO, Client, https_endpoint

PASSPHRASE = "lab-peering-passphrase"
LOCAL_IC = ["172.31.254.11", "172.31.254.12"]
PEER_IC = ["172.31.254.201", "172.31.254.202"]


def peer_model() -> dict:
    """The lab's peer cluster: the lab cluster's shape under other names."""
    ontap = copy.deepcopy(LAB_MODEL["ontap"])
    ontap["cluster_name"] = "lab-dr"
    ontap["mgmt_address"] = "127.0.10.2"
    for index, node in enumerate(ontap["nodes"], start=1):
        node["name"] = f"lab-dr-{index:02d}"
        node.pop("mgmt_address", None)
        for aggregate in node.get("aggregates") or []:
            aggregate["name"] = aggregate["name"].replace("lab_ontap", "lab_dr")
    return ontap


def cluster(ontap: dict, intercluster: list[str]) -> Api:
    state = seed_state(ontap)
    set_admin_password(state, "admin", ADMIN_PASSWORD)
    api = Api(state, job_seconds=0.0)
    client = Client(api)
    for index, address in enumerate(intercluster):
        node = ontap["nodes"][index % len(ontap["nodes"])]["name"]
        status, body = client.post("network/ip/interfaces", {
            "name": f"{node}_ic{index + 1}", "ip": {"address": address, "netmask": "24"},
            "location": {"home_port": {"name": "e0c", "node": {"name": node}}},
            "service_policy": {"name": "default-intercluster"}, "ipspace": {"name": "Default"}})
        assert status in (201, 202), body
    aggregates = [a["name"] for a in ontap["nodes"][0]["aggregates"]]
    svm = "dr-data" if ontap["cluster_name"] == "lab-dr" else "lab-data"
    status, body = client.post("svm/svms", {"name": svm, "aggregates": [{"name": a} for a in aggregates]}, return_timeout=30)
    assert status in (201, 202), body
    return api


@pytest.fixture
def fabric() -> tuple[Api, Api]:
    local, peer = cluster(LAB_MODEL["ontap"], LOCAL_IC), cluster(peer_model(), PEER_IC)
    joined = Fabric()
    joined.join(local)
    joined.join(peer)
    return local, peer


@contextlib.contextmanager
def served(api: Api, directory, pki, host: str) -> Iterator[HostConnection]:
    """The cluster on a loopback address of its own, as the lab serves its clusters (the modules tell a
    remote peer from a local one by its host name)."""
    directory.mkdir()
    shutil.copytree(pki, directory / "pki")
    with https_endpoint(api, directory, host=host) as (url, ca, _service):
        connection = HostConnection(host, port=int(url.rsplit(":", 1)[1]), username="admin", password=ADMIN_PASSWORD,
                                    verify=ca, poll_interval=1)
        connection.ca = ca
        yield connection


@pytest.fixture
def connections(fabric, tmp_path, monkeypatch) -> Iterator[tuple[HostConnection, HostConnection]]:
    for variable in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(variable, raising=False)
    from ontap_lab.pki import ensure_pki

    ensure_pki(str(tmp_path / "pki"), ["127.0.0.1", "127.0.0.2"], ["localhost"])
    local, peer = fabric
    with served(local, tmp_path / "local", tmp_path / "pki", "127.0.0.1") as a, \
            served(peer, tmp_path / "peer", tmp_path / "pki", "127.0.0.2") as b:
        yield a, b


def peers_of(connection: HostConnection) -> list[ClusterPeer]:
    with connection:
        return list(ClusterPeer.get_collection(fields="name,remote,status,authentication,encryption,ipspace"))


def test_a_cluster_peer_is_pending_until_the_other_side_offers_the_same_passphrase(connections):
    local, peer = connections
    with local:
        offer = ClusterPeer(remote={"ip_addresses": PEER_IC}, authentication={"generate_passphrase": True},
                            encryption={"proposed": "tls_psk"})
        answer = offer.post()
        # Shown once, in the records of the answer to the POST that generated it.
        generated = answer.http_response.json()["records"][0]["authentication"]["passphrase"]
    [first] = peers_of(local)
    assert (first.name, first.status.state, first.authentication.state) == ("lab-dr", "pending", "pending")
    with peer:
        ClusterPeer(remote={"ip_addresses": LOCAL_IC}, authentication={"passphrase": generated},
                    encryption={"proposed": "tls_psk"}).post()
    for connection, remote in ((local, "lab-dr"), (peer, "lab-ontap")):
        [record] = peers_of(connection)
        assert (record.remote.name, record.status.state, record.authentication.state, record.encryption.state) == (
            remote, "available", "ok", "tls_psk")
    with local:  # the passphrase is shown once, in the answer that generated it
        assert not hasattr(ClusterPeer.find(name="lab-dr", fields="authentication").authentication, "passphrase")


def test_a_peer_offer_ontap_would_refuse_is_refused(connections):
    local, peer = connections
    with local:
        with pytest.raises(NetAppRestError, match="No cluster answers"):
            ClusterPeer(remote={"ip_addresses": ["192.0.2.1"]}, authentication={"passphrase": PASSPHRASE}).post()
        ClusterPeer(remote={"ip_addresses": PEER_IC}, authentication={"passphrase": PASSPHRASE}).post()
        with pytest.raises(NetAppRestError, match="already exists"):
            ClusterPeer(remote={"ip_addresses": PEER_IC}, authentication={"passphrase": PASSPHRASE}).post()
    with peer:
        with pytest.raises(NetAppRestError, match="passphrase does not match"):
            ClusterPeer(remote={"ip_addresses": LOCAL_IC}, authentication={"passphrase": "another-passphrase"}).post()
    assert [p.status.state for p in peers_of(peer)] == []


def test_an_svm_peer_is_accepted_on_the_peer_cluster_and_holds_the_cluster_peer(connections):
    local, peer = connections
    with local:
        with pytest.raises(NetAppRestError, match="not a peer"):
            SvmPeer(svm={"name": "lab-data"}, peer={"svm": {"name": "dr-data"}, "cluster": {"name": "lab-dr"}},
                    applications=["snapmirror"]).post()
        ClusterPeer(remote={"ip_addresses": PEER_IC}, authentication={"passphrase": PASSPHRASE}).post()
    with peer:
        ClusterPeer(remote={"ip_addresses": LOCAL_IC}, authentication={"passphrase": PASSPHRASE}).post()
    with local:
        offer = SvmPeer(svm={"name": "lab-data"}, peer={"svm": {"name": "dr-data"}, "cluster": {"name": "lab-dr"}},
                        applications=["snapmirror", "flexcache"])
        offer.post(hydrate=True)
        assert SvmPeer.find(uuid=offer.uuid, fields="state").state == "initiated"
    with peer:
        pending = SvmPeer.find(uuid=offer.uuid, fields="state,svm,peer,applications,name")
        assert (pending.state, pending.svm.name, pending.peer.svm.name, pending.peer.cluster.name, pending.name) == (
            "pending", "dr-data", "lab-data", "lab-ontap", "lab-data")
        assert sorted(pending.applications) == ["flexcache", "snapmirror"]
        pending.state = "peered"
        pending.patch()
    for connection in (local, peer):
        with connection:
            assert SvmPeer.find(uuid=offer.uuid, fields="state").state == "peered"
    with local:
        with pytest.raises(NetAppRestError, match="SVM peer relationships"):
            ClusterPeer.find(name="lab-dr").delete()
        SvmPeer(uuid=offer.uuid).delete()
    with peer:
        assert list(SvmPeer.get_collection()) == []


def test_the_side_that_initiated_an_svm_peer_cannot_accept_it(fabric):
    local, peer = fabric
    a, b = Client(local), Client(peer)
    assert a.post("cluster/peers", {"remote": {"ip_addresses": PEER_IC}, "authentication": {"passphrase": PASSPHRASE}})[0] == 201
    assert b.post("cluster/peers", {"remote": {"ip_addresses": LOCAL_IC}, "authentication": {"passphrase": PASSPHRASE}})[0] == 201
    status, body = a.post("svm/peers", {"svm": {"name": "lab-data"}, "peer": {"svm": {"name": "dr-data"}, "cluster": {"name": "lab-dr"}},
                                        "applications": ["snapmirror"]}, return_records="true")
    assert status in (201, 202), body
    uuid = body["records"][0]["uuid"]
    status, body = a.patch(f"svm/peers/{uuid}", {"state": "peered"})
    assert status == 400 and "accepted on the peer cluster" in body["error"]["message"]
    status, body = b.patch(f"svm/peers/{uuid}", {"state": "initiated"})
    assert status == 400 and body["error"]["code"] == "262197"


PEERING_PLAY = """
- hosts: localhost
  connection: local
  gather_facts: false
  module_defaults:
    group/netapp.ontap.netapp_ontap: {hostname: %(local_host)s, http_port: %(local)d, username: admin, password: %(password)s,
                                       validate_certs: true, use_rest: always}
  vars:
    peer: {hostname: %(peer_host)s, http_port: %(peer)d, username: admin, password: %(password)s, validate_certs: true}
  tasks:
    - name: Peer the clusters
      netapp.ontap.na_ontap_cluster_peer:
        source_intercluster_lifs: %(local_ic)s
        dest_intercluster_lifs: %(peer_ic)s
        source_cluster_name: lab-ontap
        dest_cluster_name: lab-dr
        passphrase: %(passphrase)s
        encryption_protocol_proposed: tls_psk
        peer_options: "{{ peer }}"
    - name: Peer the SVMs
      netapp.ontap.na_ontap_vserver_peer:
        vserver: lab-data
        peer_vserver: dr-data
        peer_cluster: lab-dr
        applications: [snapmirror, flexcache]
        peer_options: "{{ peer }}"
    - name: Mirror the data set on the peer (the module runs on the destination)
      netapp.ontap.na_ontap_snapmirror:
        hostname: "{{ peer.hostname }}"
        http_port: "{{ peer.http_port }}"
        source_endpoint: {path: "lab-data:imagenet", cluster: lab-ontap}
        destination_endpoint: {path: "dr-data:imagenet_dr"}
        policy: MirrorAllSnapshots
        schedule: hourly
        create_destination: {enabled: true}
        initialize: true
        update: false
        transferring_time_out: 0
        time_out: 60
    - name: Cache the data set on the peer (prepopulated once)
      netapp.ontap.na_ontap_flexcache:
        hostname: "{{ peer.hostname }}"
        http_port: "{{ peer.http_port }}"
        name: imagenet_cache
        vserver: dr-data
        origin_volume: imagenet
        origin_vserver: lab-data
        origin_cluster: lab-ontap
        junction_path: /imagenet_cache
        size: 2
        size_unit: gb
        prepopulate: {dir_paths: [/], force_prepopulate_if_already_created: false}
        time_out: 30
"""


def play(tmp_path, connections) -> dict[str, int]:
    local, peer = connections
    playbook = tmp_path / "peering.yml"
    playbook.write_text(PEERING_PLAY % {"local": local.port, "peer": peer.port, "password": ADMIN_PASSWORD,
                                        "local_host": local.host, "peer_host": peer.host,
                                        "local_ic": json.dumps(LOCAL_IC), "peer_ic": json.dumps(PEER_IC),
                                        "passphrase": PASSPHRASE})
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), REQUESTS_CA_BUNDLE=local.ca, ANSIBLE_NOCOLOR="1")
    done = subprocess.run([str(REPO / ".venv" / "bin" / "ansible-playbook"), "-i", "localhost,", str(playbook)],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    found = re.search(r"ok=(\d+)\s+changed=(\d+)", done.stdout)
    return {"ok": int(found[1]), "changed": int(found[2])}


def test_netapp_s_own_modules_peer_mirror_cache_and_change_nothing_the_second_time(tmp_path, fabric, connections):
    """na_ontap_cluster_peer offers on both sides, na_ontap_vserver_peer creates on one and accepts on the
    other, na_ontap_snapmirror makes and initializes the copy on the peer, na_ontap_flexcache a cache there."""
    status, body = Client(fabric[0]).post("storage/volumes", {"name": "imagenet", "svm": {"name": "lab-data"}, "size": 4 * 1024 ** 3,
                                                              "aggregates": [{"name": "lab_ontap_01_ssd_1"}]}, return_timeout=30)
    assert status in (201, 202), body
    assert play(tmp_path, connections)["changed"] == 4
    for connection, remote in zip(connections, ("lab-dr", "lab-ontap")):
        [record] = peers_of(connection)
        assert (record.remote.name, record.status.state, record.encryption.state) == (remote, "available", "tls_psk")
        with connection:
            [svm_peer] = SvmPeer.get_collection(fields="state,applications")
            assert svm_peer.state == "peered" and sorted(svm_peer.applications) == ["flexcache", "snapmirror"]
    with connections[1]:
        mirror = SnapmirrorRelationship.find(**{"destination.path": "dr-data:imagenet_dr"}, fields="state,healthy,transfer_schedule")
        assert (mirror.state, mirror.healthy, mirror.transfer_schedule.name) == ("snapmirrored", True, "hourly")
        [cache] = Flexcache.get_collection(fields="origins,path")
        assert (cache.path, cache.origins[0].volume.name, cache.origins[0].cluster.name) == ("/imagenet_cache", "imagenet", "lab-ontap")
    assert play(tmp_path, connections)["changed"] == 0


def peered(fabric) -> tuple[Client, Client]:
    """The two clusters peered, and their data SVMs peered for SnapMirror and FlexCache."""
    local, peer = fabric
    a, b = Client(local), Client(peer)
    assert a.post("cluster/peers", {"remote": {"ip_addresses": PEER_IC}, "authentication": {"passphrase": PASSPHRASE}})[0] == 201
    assert b.post("cluster/peers", {"remote": {"ip_addresses": LOCAL_IC}, "authentication": {"passphrase": PASSPHRASE}})[0] == 201
    status, body = b.post("svm/peers", {"svm": {"name": "dr-data"}, "peer": {"svm": {"name": "lab-data"}, "cluster": {"name": "lab-ontap"}},
                                        "applications": ["snapmirror", "flexcache"]}, return_records="true")
    assert status in (201, 202), body
    assert a.patch(f"svm/peers/{body['records'][0]['uuid']}", {"state": "peered"})[0] in (200, 202)
    status, body = a.post("storage/volumes", {"name": "imagenet", "svm": {"name": "lab-data"}, "size": 4 * 1024 ** 3,
                                              "aggregates": [{"name": "lab_ontap_01_ssd_1"}], "nas": {"path": "/imagenet"}},
                          return_timeout=30)
    assert status in (201, 202), body
    return a, b


def test_a_snapmirror_copy_is_made_on_the_peer_and_carries_every_version(fabric, tmp_path, monkeypatch):
    a, b = peered(fabric)
    [source] = a.records("storage/volumes", name="imagenet")
    for name in ("before-training", "epoch-10"):
        assert a.post(f"storage/volumes/{source['uuid']}/snapshots", {"name": name, "snapmirror_label": "daily"},
                      return_timeout=30)[0] in (201, 202)
    for variable in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(variable, raising=False)
    from ontap_lab.pki import ensure_pki

    ensure_pki(str(tmp_path / "pki"), ["127.0.0.2"], ["localhost"])
    with served(fabric[1], tmp_path / "peer", tmp_path / "pki", "127.0.0.2") as destination, destination:
        relationship = SnapmirrorRelationship(source={"path": "lab-data:imagenet", "cluster": {"name": "lab-ontap"}},
                                              destination={"path": "dr-data:imagenet_dr"}, policy={"name": "MirrorAllSnapshots"},
                                              transfer_schedule={"name": "hourly"}, create_destination={"enabled": True},
                                              state="snapmirrored")
        relationship.post(hydrate=True)
        found = SnapmirrorRelationship.find(**{"destination.path": "dr-data:imagenet_dr"},
                                            fields="state,healthy,lag_time,exported_snapshot,policy,transfer_schedule,source")
        assert (found.state, found.healthy, found.policy.name, found.transfer_schedule.name) == (
            "snapmirrored", True, "MirrorAllSnapshots", "hourly")
        assert found.lag_time.startswith("PT0H0M") and found.exported_snapshot.startswith(f"snapmirror.{found.uuid}_1.")
        assert (found.source.cluster.name, found.source.svm.name) == ("lab-ontap", "lab-data")
        copy_ = Volume.find(name="imagenet_dr", svm="dr-data", fields="type,size")
        assert (copy_.type, copy_.size) == ("dp", 4 * 1024 ** 3)
        versions = sorted(s.name for s in Snapshot.get_collection(copy_.uuid))
        assert versions[:2] == ["before-training", "epoch-10"] and versions[2] == found.exported_snapshot
        SnapmirrorTransfer(found.uuid).post()
        again = SnapmirrorRelationship.find(**{"destination.path": "dr-data:imagenet_dr"}, fields="exported_snapshot,last_transfer_type")
        assert again.last_transfer_type == "update" and again.exported_snapshot.startswith(f"snapmirror.{found.uuid}_2.")
        # The older snapmirror snapshot goes on both sides; the data scientist's versions stay.
        assert sorted(s.name for s in Snapshot.get_collection(copy_.uuid)) == ["before-training", "epoch-10", again.exported_snapshot]
    assert sorted(s["name"] for s in a.records(f"storage/volumes/{source['uuid']}/snapshots")) == [
        "before-training", "epoch-10", again.exported_snapshot]
    [listed] = a.records("snapmirror/relationships", list_destinations_only="true", fields="destination")
    assert listed["destination"]["path"] == "dr-data:imagenet_dr"


def test_a_snapmirror_copy_ontap_would_refuse_is_refused(fabric):
    local, peer = fabric
    b = Client(peer)
    status, body = b.post("snapmirror/relationships", {"source": {"path": "lab-data:imagenet"},
                                                       "destination": {"path": "dr-data:imagenet_dr"}})
    assert status == 400 and "no SVM peer" in body["error"]["message"]
    a, b = peered(fabric)
    for change, words in (({"source": {"path": "lab-data:nothing"}}, "does not exist"),
                          ({"create_destination": {"enabled": False}}, "does not exist in SVM \"dr-data\""),
                          ({"policy": {"name": "StrictSync"}}, "not served"),
                          ({"transfer_schedule": {"name": "fortnightly"}}, "does not exist")):
        request = {"source": {"path": "lab-data:imagenet"}, "destination": {"path": "dr-data:imagenet_dr"},
                   "create_destination": {"enabled": True}}
        request.update(change)
        status, body = b.post("snapmirror/relationships", request)
        assert status in (400, 404) and words.replace("\\", "") in body["error"]["message"], body
    # The relationship is made on the destination: a rw volume there is not a destination.
    status, body = b.post("storage/volumes", {"name": "taken", "svm": {"name": "dr-data"}, "size": 4 * 1024 ** 3,
                                              "aggregates": [{"name": "lab_dr_01_ssd_1"}]}, return_timeout=30)
    assert status in (201, 202), body
    status, body = b.post("snapmirror/relationships", {"source": {"path": "lab-data:imagenet"}, "destination": {"path": "dr-data:taken"}})
    assert status == 400 and "not a data protection" in body["error"]["message"]


def test_a_cache_on_the_peer_fronts_the_data_set_and_holds_its_origin(fabric, tmp_path, monkeypatch):
    a, b = peered(fabric)
    for variable in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(variable, raising=False)
    from ontap_lab.pki import ensure_pki

    ensure_pki(str(tmp_path / "pki"), ["127.0.0.1", "127.0.0.2"], ["localhost"])
    with served(fabric[1], tmp_path / "peer", tmp_path / "pki", "127.0.0.2") as cache_side, \
            served(fabric[0], tmp_path / "local", tmp_path / "pki", "127.0.0.1") as origin_side:
        with cache_side:
            with pytest.raises(NetAppRestError, match="does not exist in the origin volume"):
                Flexcache(name="imagenet_cache", svm={"name": "dr-data"}, path="/imagenet_cache",
                          origins=[{"volume": {"name": "imagenet"}, "svm": {"name": "lab-data"}}],
                          prepopulate={"dir_paths": ["/train"]}).post()
            assert list(Volume.get_collection(name="imagenet_cache")) == []
            Flexcache(name="imagenet_cache", svm={"name": "dr-data"}, path="/imagenet_cache", size=2 * 1024 ** 3,
                      origins=[{"volume": {"name": "imagenet"}, "svm": {"name": "lab-data"}}],
                      prepopulate={"dir_paths": ["/"]}).post()
            cache = Flexcache.find(name="imagenet_cache", fields="origins,path,size,svm")
            assert (cache.path, cache.size, cache.svm.name) == ("/imagenet_cache", 2 * 1024 ** 3, "dr-data")
            [origin] = cache.origins
            assert (origin.cluster.name, origin.svm.name, origin.volume.name, origin.state) == (
                "lab-ontap", "lab-data", "imagenet", "online")
            assert Volume.find(name="imagenet_cache", fields="flexcache_endpoint_type").flexcache_endpoint_type == "cache"
        with origin_side:
            [found] = FlexcacheOrigin.get_collection(fields="flexcaches,name")
            assert found.name == "imagenet" and found.flexcaches[0].volume.name == "imagenet_cache"
            assert found.flexcaches[0].cluster.name == "lab-dr"
            with pytest.raises(NetAppRestError, match="origin of FlexCache"):
                Volume.find(name="imagenet", svm="lab-data").delete()
    status, body = b.post("svm/svms", {"name": "dr-cache", "aggregates": [{"name": "lab_dr_01_ssd_1"}]}, return_timeout=30)
    assert status in (201, 202), body
    status, body = b.post("storage/flexcache/flexcaches", {"name": "other", "svm": {"name": "dr-cache"},
                                                           "origins": [{"volume": {"name": "imagenet"}, "svm": {"name": "lab-data"}}]})
    assert status == 400 and "not peered" in body["error"]["message"]
