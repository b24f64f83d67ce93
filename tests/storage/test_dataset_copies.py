"""A data set's SnapMirror copy and its cache on the lab's peer cluster, made by the storage layer.

A private lab serves the lab cluster and its peer lab-dr in one process (docs/lab-ontap-endpoint.md).
playbooks/storage.yml peers them, peers the SVMs and makes the copy and the cache on the peer with
NetApp's own modules; a second run changes nothing; a schedule changed by hand on the peer is pending in a
check run and put back by the next; a copy broken off on the peer stops the layer with what to do.
"""
from __future__ import annotations

import pytest
import requests

pytestmark = [pytest.mark.lab, pytest.mark.slow]


def peer_password(lab) -> str:
    from lab_secrets import inventory_secret

    return inventory_secret(str(lab.inventory), "vault_ontap_peer_password_lab_dr")


def on_peer(lab, method: str, path: str, **kwargs):
    response = requests.request(method, f"https://127.0.10.11:{lab.port}/api/{path}", auth=("admin", peer_password(lab)),
                                verify=str(lab.root / ".lab" / "ontap" / "pki" / "ca.pem"), timeout=30, **kwargs)
    assert response.status_code < 300, response.text
    return response.json()


def copy_on_peer(lab) -> dict:
    [record] = on_peer(lab, "GET", "snapmirror/relationships", params={"fields": "*"})["records"]
    return record


def test_the_storage_layer_makes_the_data_sets_copy_on_the_peer_and_keeps_it(private_lab):
    rc, recap, output = private_lab.play()
    assert rc == 0, output[-4000:]
    copy = copy_on_peer(private_lab)
    assert (copy["source"]["path"], copy["destination"]["path"], copy["state"], copy["healthy"]) == (
        "lab-data:imagenet", "dr-data:imagenet", "snapmirrored", True)
    assert (copy["policy"]["name"], copy["transfer_schedule"]["name"]) == ("MirrorAllSnapshots", "hourly")
    peers = private_lab.records("/api/cluster/peers?fields=*")
    assert [(p["name"], p["status"]["state"], p["encryption"]["state"]) for p in peers] == [("lab-dr", "available", "tls_psk")]
    [cache] = on_peer(private_lab, "GET", "storage/flexcache/flexcaches", params={"fields": "*"})["records"]
    assert (cache["name"], cache["svm"]["name"], cache["path"], cache["origins"][0]["volume"]["name"]) == (
        "imagenet_cache", "dr-cache", "/imagenet_cache", "imagenet")
    lifs = private_lab.records("/api/network/ip/interfaces?service_policy.name=default-intercluster&fields=name,ip")
    assert sorted((lif["name"], lif["ip"]["address"]) for lif in lifs) == [
        ("lab-ontap-01_ic1", "127.0.10.21"), ("lab-ontap-02_ic1", "127.0.10.22")]

    rc, recap, output = private_lab.play()
    assert rc == 0 and all(host["changed"] == 0 for host in recap.values()), output[-4000:]

    on_peer(private_lab, "PATCH", f"snapmirror/relationships/{copy['uuid']}", json={"transfer_schedule": {"name": "daily"}},
            params={"return_timeout": "30"})
    rc, recap, output = private_lab.play("--check", "--diff")
    assert rc == 0 and "relationships lab-dr:dr-data:imagenet" in output, output[-4000:]
    assert copy_on_peer(private_lab)["transfer_schedule"]["name"] == "daily"  # check mode changed nothing
    rc, recap, output = private_lab.play()
    assert rc == 0, output[-4000:]
    assert copy_on_peer(private_lab)["transfer_schedule"]["name"] == "hourly"

    on_peer(private_lab, "PATCH", f"snapmirror/relationships/{copy['uuid']}", json={"state": "broken_off"},
            params={"return_timeout": "30"})
    rc, recap, output = private_lab.play()
    assert rc != 0 and "broken_off" in output and "resync or resume it by hand" in " ".join(output.split()), output[-4000:]
    assert copy_on_peer(private_lab)["state"] == "broken_off"
    # The operator resyncs it; the layer has nothing left to do.
    on_peer(private_lab, "PATCH", f"snapmirror/relationships/{copy['uuid']}", json={"state": "snapmirrored"},
            params={"return_timeout": "30"})
    rc, recap, output = private_lab.play()
    assert rc == 0 and all(host["changed"] == 0 for host in recap.values()), output[-4000:]


# The lab cluster itself refuses the peer's password; no cluster answers on the other address.
@pytest.mark.parametrize(("address", "words"), [("127.0.10.1", "User is not authorized"),
                                                ("127.0.10.99", "Connection refused")])
def test_a_peer_that_does_not_answer_as_itself_stops_the_layer_before_any_change(private_lab, address, words):
    ontap_yml = private_lab.inventory / "group_vars" / "all" / "ontap.yml"
    original = ontap_yml.read_text()
    policy = private_lab.records("/api/protocols/nfs/export-policies?name=dataset_imagenet&fields=id")
    ontap_yml.write_text(original.replace("mgmt_address: 127.0.10.11", f"mgmt_address: {address}"))
    try:
        # A change the layer would make: the data set's export rule, widened by hand.
        status, body = private_lab.client().request("PATCH", f"/api/protocols/nfs/export-policies/{policy[0]['id']}/rules/1",
                                                    {"clients": [{"match": "0.0.0.0/0"}]})
        assert status == 200, body
        rc, recap, output = private_lab.play()
        assert rc != 0 and words in " ".join(output.split()), output[-3000:]
        assert recap["lab-ontap"]["changed"] == 0
        [rule] = private_lab.records(f"/api/protocols/nfs/export-policies/{policy[0]['id']}/rules?fields=clients")
        assert rule["clients"] == [{"match": "0.0.0.0/0"}]  # still as the hand left it: nothing was changed
    finally:
        ontap_yml.write_text(original)
    rc, recap, output = private_lab.play()  # the peer back where it is: the widened rule is put back
    assert rc == 0 and recap["lab-ontap"]["changed"] > 0, output[-3000:]
