"""Data sets in Kubernetes namespaces: each consuming namespace gets a claim pre-bound to a static
NFS PV on the data set's own volume, never a provisioned one; the claim keeps its size; a PV whose
source the model moved is refused, not replaced; verification judges each claim."""
from __future__ import annotations

import copy

from project_paths import LAB, LAB_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_datasets import kubernetes as k8s
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site

SITE = load_site(str(LAB), decrypt=make_decryptor(LAB_VAULT_PASSWORD))


def lab_model(**dataset_overrides) -> dict:
    model = copy.deepcopy(SITE.model)
    model["datasets"][0].update(dataset_overrides)
    return model


def test_each_namespace_gets_a_claim_bound_to_a_static_pv_on_the_data_sets_volume():
    model = lab_model(namespaces=[{"name": "vision", "access": "read_only"}, {"name": "research", "access": "read_write"}])
    plan = k8s.claims(model)
    lif = next(lif["address"] for lif in m.data_lifs(model) if lif["svm"] == "lab-data")
    assert [n["metadata"]["name"] for n in plan["namespaces"]] == ["vision", "research"]
    by_name = {v["metadata"]["name"]: v for v in plan["volumes"]}
    assert set(by_name) == {"dataset-vision-imagenet", "dataset-research-imagenet"}
    volume = by_name["dataset-vision-imagenet"]["spec"]
    assert volume["nfs"] == {"server": lif, "path": "/imagenet", "readOnly": True}
    assert volume["persistentVolumeReclaimPolicy"] == "Retain" and "storageClassName" not in volume
    assert volume["claimRef"] == {"namespace": "vision", "name": "dataset-imagenet"}
    assert volume["accessModes"] == ["ReadOnlyMany"] and volume["capacity"] == {"storage": str(m.size_bytes("2TB"))}
    # As the default Trident class on the data set's SVM mounts.
    assert volume["mountOptions"] == ["vers=4.1", "nconnect=16", "rsize=262144", "wsize=262144", "hard"]
    assert by_name["dataset-research-imagenet"]["spec"]["accessModes"] == ["ReadWriteMany"]
    assert by_name["dataset-research-imagenet"]["spec"]["nfs"]["readOnly"] is False
    claim = next(c for c in plan["claims"] if c["metadata"]["namespace"] == "research")
    assert claim["spec"]["volumeName"] == "dataset-research-imagenet" and claim["spec"]["storageClassName"] == ""
    assert plan["bindings"][0] == {"dataset": "imagenet", "namespace": "vision", "claim": "dataset-imagenet",
                                   "volume": "dataset-vision-imagenet", "access": "read_only", "size": "2TB"}


def test_a_data_set_name_becomes_a_kubernetes_name():
    assert k8s.kubernetes_name("ImageNet_2012_") == "imagenet-2012"
    assert k8s.claim_name("coco__val") == "dataset-coco-val"


def test_a_claim_keeps_the_size_it_was_made_with_when_the_data_set_grows():
    live = [{"metadata": {"namespace": "vision", "name": "dataset-imagenet"},
             "spec": {"resources": {"requests": {"storage": str(m.size_bytes("2TB"))}}}}]
    plan = k8s.claims(lab_model(size="3TB"), live)
    assert plan["claims"][0]["spec"]["resources"]["requests"]["storage"] == str(m.size_bytes("2TB"))
    assert plan["volumes"][0]["spec"]["capacity"]["storage"] == str(m.size_bytes("3TB"))


def test_no_namespace_no_claim():
    assert k8s.claims(lab_model(namespaces=[]))["claims"] == []


def test_a_pv_whose_source_moved_is_refused_and_says_how_to_move_it():
    plan = k8s.claims(lab_model())
    live = copy.deepcopy(plan["volumes"])
    assert k8s.volume_refusals(live, plan["volumes"]) == []
    live[0]["spec"]["nfs"]["path"] = "/old"
    refused = k8s.volume_refusals(live, plan["volumes"])
    assert [(r["object"], r["field"], r["action"]) for r in refused] == [("PersistentVolume/dataset-vision-imagenet", "nfs.path", "refuse")]
    assert "data stays" in aipod_pending.describe(refused[0])
    assert k8s.volume_refusals([], plan["volumes"]) == []  # not there yet: created, not refused


def test_a_claim_bound_to_its_volume_passes_and_any_other_state_fails():
    bindings = k8s.claims(lab_model())["bindings"]
    bound = {"metadata": {"namespace": "vision", "name": "dataset-imagenet"},
             "spec": {"volumeName": "dataset-vision-imagenet"}, "status": {"phase": "Bound"}}
    assert [c["status"] for c in k8s.judge_claims(bindings, [bound])] == ["pass"]
    pending = copy.deepcopy(bound)
    pending["status"]["phase"] = "Pending"
    assert [c["status"] for c in k8s.judge_claims(bindings, [pending])] == ["fail"]
    elsewhere = copy.deepcopy(bound)
    elsewhere["spec"]["volumeName"] = "pvc-0123"
    check = k8s.judge_claims(bindings, [elsewhere])[0]
    assert check["status"] == "fail" and "dataset-vision-imagenet" in check["detail"]
    assert k8s.judge_claims(bindings, [])[0]["detail"] == "data set imagenet: no claim in the namespace"


def test_pending_creates_what_is_missing_leaves_a_teams_namespace_alone_and_refuses_a_moved_source():
    plan = k8s.claims(lab_model(namespaces=[{"name": "vision"}, {"name": "research", "access": "read_write"}]))
    nothing = {"namespaces": [{"metadata": {"name": "vision", "labels": {"team": "cv"}}}], "volumes": [], "claims": []}
    created = k8s.pending(plan, nothing, "aipod")
    assert sorted(i["object"] for i in created) == [
        "Namespace/research", "PersistentVolume/dataset-research-imagenet", "PersistentVolume/dataset-vision-imagenet",
        "PersistentVolumeClaim/research/dataset-imagenet", "PersistentVolumeClaim/vision/dataset-imagenet"]
    assert {i["action"] for i in created} == {"create"}
    converged = {"namespaces": [n for n in plan["namespaces"]], "volumes": copy.deepcopy(plan["volumes"]),
                 "claims": copy.deepcopy(plan["claims"])}
    assert k8s.pending(plan, converged, "aipod") == []
    converged["volumes"][0]["spec"]["nfs"]["server"] = "192.0.2.99"
    converged["claims"][1]["spec"]["accessModes"] = ["ReadOnlyMany"]
    items = k8s.pending(plan, converged, "aipod")
    assert [(i["object"], i["action"]) for i in items] == [
        ("PersistentVolume/dataset-vision-imagenet", "refuse"), ("PersistentVolumeClaim/research/dataset-imagenet", "modify")]
    assert "accessModes" in items[1]["reason"]


def test_a_pv_released_by_a_deleted_claim_is_bound_again():
    plan = k8s.claims(lab_model())
    live = {"namespaces": plan["namespaces"], "volumes": copy.deepcopy(plan["volumes"]), "claims": []}
    live["volumes"][0]["status"] = {"phase": "Released"}
    items = k8s.pending(plan, live, "aipod")
    assert [(i["object"], i["field"], i["action"]) for i in items] == [
        ("PersistentVolume/dataset-vision-imagenet", "claimRef", "modify"), ("PersistentVolumeClaim/vision/dataset-imagenet", None, "create")]
