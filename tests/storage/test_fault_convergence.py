"""With 10 % of ONTAP calls answered 503, the storage play converges and leaves no duplicates.

The endpoint injects the errors both before a change is made and after it (the change happened,
the answer was lost), the case that duplicates objects when a client re-creates blindly. The
roles retry transient failures and re-read before writing; a re-run then has nothing left to do.
"""
from __future__ import annotations

import collections

import pytest

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_ontap import plan as ontap_plan
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site

pytestmark = [pytest.mark.lab, pytest.mark.slow, pytest.mark.release_check]
FAULT_RUNS = 3


def records(client, path: str) -> list[dict]:
    status, body = client.request("GET", path)
    assert status == 200, (path, status, body)
    return body["records"]


def test_a_run_with_ten_percent_503s_converges_without_duplicates(private_lab, tmp_path):
    client = private_lab.client()
    status, mark = client.request("GET", "/lab/mark")
    status, _ = client.request("POST", "/lab/faults", {"error_rate": 0.1, "error_status": 503, "error_phase": "mixed", "seed": 20})
    assert status == 200

    outcomes = []
    for attempt in range(1, FAULT_RUNS + 1):
        rc, recap, _ = private_lab.play(log=tmp_path / f"faulted-{attempt}.log")
        outcomes.append(rc)
        if rc == 0:
            break
    assert outcomes[-1] == 0, f"no faulted run converged in {FAULT_RUNS} runs: {outcomes} (logs in {tmp_path})"

    status, counters = client.request("GET", f"/lab/counters?since={mark['last']}")
    faulted = [call for call in client.request("GET", f"/lab/calls?since={mark['last']}")[1]["calls"] if call["fault"]]
    assert 0.05 * counters["total"] < len(faulted) < 0.15 * counters["total"], (len(faulted), counters["total"])
    assert any(call["fault"] == "error-after" and call["method"] in ("POST", "PATCH") for call in faulted), \
        "no change was lost after being made: the test did not exercise the duplicate case"

    client.request("DELETE", "/lab/faults")
    rc, recap, output = private_lab.play(log=tmp_path / "clean.log")
    assert rc == 0 and recap["lab-ontap"]["changed"] == 0, output[-3000:]

    model = load_site(str(private_lab.inventory)).model
    expected = ontap_plan.managed_objects(model)
    ports = records(client, "/api/network/ethernet/ports?fields=name,node,type")
    assert collections.Counter(p["type"] for p in ports)["lag"] == expected["interface_groups"]
    assert collections.Counter(p["type"] for p in ports)["vlan"] == expected["vlan_ports"]
    assert len({(p["node"]["name"], p["name"]) for p in ports}) == len(ports)
    domains = [d["name"] for d in records(client, "/api/network/ethernet/broadcast-domains") if d["name"] not in ("Default", "Cluster")]
    assert sorted(domains) == sorted(set(domains)) and len(domains) == expected["broadcast_domains"]
    assert len(records(client, "/api/svm/svms")) == expected["svms"]
    lifs = [lif["name"] for lif in records(client, "/api/network/ip/interfaces?scope=svm")]
    assert len(lifs) == len(set(lifs)) == expected["lifs"]
    policies = {p["name"]: p for p in records(client, "/api/protocols/nfs/export-policies?fields=rules")}
    assert len(policies["k8s-nodes"]["rules"]) == expected["export_rules"]
    volumes = [v["name"] for v in records(client, "/api/storage/volumes?is_svm_root=false")]
    assert sorted(volumes) == sorted(set(volumes)) and len(volumes) == expected["flexgroups"] + expected["dataset_volumes"]
    constituents = records(client, "/api/storage/volumes?is_constituent=true")
    assert len(constituents) == sum(fg["constituents"] for fg in ontap_plan.m.flexgroups(model) + ontap_plan.datasets.volumes(model))
    assert sorted(r["name"] for r in records(client, "/api/security/roles?builtin=false")) == [
        "dataops_toolkit", "harvest-rest-role", "trident"]
    assert sorted(a["name"] for a in records(client, "/api/security/accounts")) == ["admin", "dataops", "harvest", "trident"]


def edit(path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def test_inventory_edits_are_applied_and_refusals_change_nothing(private_lab):
    """Re-running after an inventory edit applies it (RDMA, a snapshot policy, a bigger FlexGroup, a new
    Trident password); a shrink, or a vault password ONTAP will not take back, stops the run unchanged."""
    from ontap_lab.cli import LabClient

    client = private_lab.client()
    rc, recap, output = private_lab.play()  # converged, with the inventory's vault password
    assert rc == 0, output[-3000:]
    ontap_vars = private_lab.inventory / "group_vars" / "all" / "ontap.yml"
    edit(ontap_vars, "        rdma: false", "        rdma: true")
    edit(ontap_vars, "  svms:\n", "  snapshot_policies:\n    - name: aipod-hourly\n      schedules:\n"
                                      "        - {schedule: hourly, count: 12}\n  svms:\n")
    edit(ontap_vars, "          snapshot_policy: default\n", "          snapshot_policy: aipod-hourly\n")
    edit(ontap_vars, "          size: 10TB", "          size: 12TB")
    new_password = ("-e", "vault_ontap_trident_password=NewTrident2026")

    rc, recap, output = private_lab.play(*new_password)
    assert rc == 0 and recap["lab-ontap"]["changed"] >= 5, output[-3000:]
    lifs = records(client, "/api/network/ip/interfaces?scope=svm&fields=name,rdma_protocols,service_policy")
    assert {tuple(lif["rdma_protocols"]) for lif in lifs if lif["service_policy"]["name"] == "default-data-files"} == {("roce",)}
    assert records(client, "/api/protocols/nfs/services?fields=transport")[0]["transport"]["rdma_enabled"] is True
    volumes = {v["name"]: v for v in records(client, "/api/storage/volumes?fields=space.size,snapshot_policy")}
    assert volumes["data"]["space"]["size"] == 12 * 1024 ** 4 and volumes["home"]["snapshot_policy"]["name"] == "aipod-hourly"
    trident = LabClient(client.settings, "trident", "NewTrident2026")
    assert trident.request("GET", "/api/storage/volumes")[0] == 200
    assert trident.request("POST", "/api/svm/svms", {"name": "not-for-trident"})[0] == 403

    rc, recap, output = private_lab.play(*new_password)
    assert rc == 0 and recap["lab-ontap"]["changed"] == 0, output[-3000:]

    edit(ontap_vars, "          size: 12TB", "          size: 8TB")
    mark = client.request("GET", "/lab/mark")[1]["last"]
    rc, recap, output = private_lab.play(*new_password)
    assert rc != 0 and "never shrunk" in output, output[-3000:]
    assert client.request("GET", f"/lab/counters?since={mark}")[1]["writes"] == 0
    edit(ontap_vars, "          size: 8TB", "          size: 12TB")

    rc, recap, output = private_lab.play()  # back to the inventory's vault password: used before on this account
    assert rc != 0 and "do not accept vault_ontap_trident_password" in " ".join(output.split()), output[-3000:]
    assert "choose a new password in the vault" in " ".join(output.split()), output[-3000:]
