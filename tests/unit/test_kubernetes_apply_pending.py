"""Which declared objects a server-side apply would change (aipod_kubernetes.apply.apply_pending),
and the credentials Secrets it compares (secret_manifests).

The live objects below are shaped as the lab's API server returned them after the role applied
the manifests with field manager aipod (managedFields included).
"""
from __future__ import annotations

import base64
import copy
import json

import pytest

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes import apply

CLASS = {
    "apiVersion": "storage.k8s.io/v1",
    "kind": "StorageClass",
    "metadata": {"name": "ontap-flexgroup", "labels": {"app.kubernetes.io/managed-by": "aipod"},
                 "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
    "provisioner": "csi.trident.netapp.io",
    "parameters": {"backendType": "ontap-nas-flexgroup", "storagePools": "lab-flexgroup:.*"},
    "mountOptions": ["vers=4.1", "nconnect=16"],
    "allowVolumeExpansion": True,
    "reclaimPolicy": "Retain",
    "volumeBindingMode": "Immediate",
}


def _applied(manifest: dict, manager: str = "aipod") -> dict:
    """The object as the server holds it after an apply: identity without kind, server fields, managedFields."""
    def fields(value: dict) -> dict:
        return {f"f:{key}": (fields(child) if isinstance(child, dict) and child else {})
                for key, child in value.items()}

    live = copy.deepcopy({key: value for key, value in manifest.items() if key not in ("apiVersion", "kind")})
    owned = fields({key: value for key, value in manifest.items() if key not in ("apiVersion", "kind")})
    owned["f:metadata"].pop("f:name", None)
    owned["f:metadata"].pop("f:namespace", None)
    live["metadata"].update({"uid": "1b2c", "resourceVersion": "237", "creationTimestamp": "2026-11-22T07:10:08Z",
                             "managedFields": [{"apiVersion": manifest["apiVersion"], "fieldsType": "FieldsV1",
                                                "fieldsV1": owned, "manager": manager, "operation": "Apply"}]})
    return live


def test_an_object_the_cluster_holds_as_declared_is_not_pending():
    assert apply.apply_pending([_applied(CLASS)], [CLASS], "aipod") == {}


def test_fields_the_server_adds_are_not_differences():
    live = _applied(CLASS)
    live["status"] = {"phase": "Bound"}
    live["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] = "{}"
    assert apply.apply_pending([live], [CLASS], "aipod") == {}


def test_a_missing_object_is_pending():
    other = copy.deepcopy(CLASS)
    other["metadata"]["name"] = "ontap-new"
    assert apply.apply_pending([_applied(CLASS)], [CLASS, other], "aipod") == {
        "StorageClass": {"ontap-new": "not in the cluster"}}


@pytest.mark.parametrize(("change", "reason"), [
    (lambda o: o.update(allowVolumeExpansion=False), "allowVolumeExpansion differs"),
    (lambda o: o["parameters"].update(storagePools="other:.*"), "parameters.storagePools differs"),
    (lambda o: o["mountOptions"].append("hard"), "mountOptions differs"),
    (lambda o: o["mountOptions"].reverse(), "mountOptions[0] differs"),
    (lambda o: o["metadata"]["labels"].pop("app.kubernetes.io/managed-by"),
     "metadata.labels.app.kubernetes.io/managed-by differs"),
    (lambda o: o["metadata"].pop("annotations"), "metadata.annotations differs"),
    (lambda o: o.pop("parameters"), "parameters differs"),
])
def test_a_value_changed_by_hand_is_pending(change, reason):
    live = _applied(CLASS)
    change(live)
    assert apply.apply_pending([live], [CLASS], "aipod") == {"StorageClass": {"ontap-flexgroup": reason}}


def test_an_empty_declared_field_matches_the_field_left_out():
    declared = copy.deepcopy(CLASS)
    declared["mountOptions"] = []
    declared["parameters"]["extra"] = None
    live = _applied(CLASS)
    live.pop("mountOptions")
    assert apply.apply_pending([live], [declared], "aipod") == {}
    live["mountOptions"] = ["hard"]
    assert apply.apply_pending([live], [declared], "aipod") == {"StorageClass": {"ontap-flexgroup": "mountOptions differs"}}


def test_booleans_and_numbers_are_not_confused():
    declared = copy.deepcopy(CLASS)
    declared["parameters"]["replicas"] = 1
    live = _applied(declared)
    live["parameters"]["replicas"] = True
    assert apply.apply_pending([live], [declared], "aipod") == {"StorageClass": {"ontap-flexgroup": "parameters.replicas differs"}}
    live["parameters"]["replicas"] = "1"
    assert apply.apply_pending([live], [declared], "aipod") == {"StorageClass": {"ontap-flexgroup": "parameters.replicas differs"}}
    live["parameters"]["replicas"] = 1.0
    assert apply.apply_pending([live], [declared], "aipod") == {}


def test_a_field_the_manager_applied_and_the_declaration_dropped_is_pending():
    before = copy.deepcopy(CLASS)
    before["metadata"]["labels"]["team"] = "ml"
    live = _applied(before)
    assert apply.apply_pending([live], [CLASS], "aipod") == {
        "StorageClass": {"ontap-flexgroup": "metadata.labels.team is no longer declared"}}


def test_fields_of_other_managers_or_updates_do_not_count():
    before = copy.deepcopy(CLASS)
    before["metadata"]["labels"]["team"] = "ml"
    assert apply.apply_pending([_applied(before, manager="kubectl")], [CLASS], "aipod") == {}
    live = _applied(before)
    live["metadata"]["managedFields"][0]["operation"] = "Update"
    assert apply.apply_pending([live], [CLASS], "aipod") == {}


def test_list_elements_in_managed_fields_end_at_the_list():
    declared = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa", "namespace": "trident"},
                "secrets": [{"name": "token"}]}
    live = _applied(declared)
    live["metadata"]["managedFields"][0]["fieldsV1"]["f:secrets"] = {".": {}, 'k:{"name":"token"}': {".": {}, "f:name": {}}}
    assert apply.apply_pending([live], [declared], "aipod") == {}
    dropped = {key: value for key, value in declared.items() if key != "secrets"}
    assert apply.apply_pending([live], [dropped], "aipod") == {"ServiceAccount": {"sa": "secrets is no longer declared"}}


def test_objects_are_matched_by_namespace_and_name():
    declared = {"apiVersion": "trident.netapp.io/v1", "kind": "TridentBackendConfig",
                "metadata": {"name": "lab-flexgroup", "namespace": "trident"}, "spec": {"version": 1}}
    elsewhere = _applied(declared)
    elsewhere["metadata"]["namespace"] = "other"
    assert apply.apply_pending([elsewhere], [declared], "aipod") == {
        "TridentBackendConfig": {"lab-flexgroup": "not in the cluster"}}


def _credentials() -> list[dict]:
    return [{"name": "trident-svm-ai", "kind": "ontap", "svm": "svm-ai", "username": "trident",
             "secret_variable": "vault_ontap_trident_password"},
            {"name": "trident-anf-lab", "kind": "azure", "backend": "lab-anf", "client_id": "c1d2",
             "secret_variable": "vault_trident_anf_client_secret"}]


def test_secret_manifests_carry_the_vault_values_base64_encoded():
    manifests = apply.secret_manifests(_credentials(), "trident", ["pä55", "s3cret"])
    assert [s["metadata"] for s in manifests] == [
        {"name": "trident-svm-ai", "namespace": "trident", "labels": {"app.kubernetes.io/managed-by": "aipod"}},
        {"name": "trident-anf-lab", "namespace": "trident", "labels": {"app.kubernetes.io/managed-by": "aipod"}}]
    assert {key: base64.b64decode(value).decode() for key, value in manifests[0]["data"].items()} == {
        "username": "trident", "password": "pä55"}
    assert {key: base64.b64decode(value).decode() for key, value in manifests[1]["data"].items()} == {
        "clientID": "c1d2", "clientSecret": "s3cret"}
    assert {s["type"] for s in manifests} == {"Opaque"}
    with pytest.raises(ValueError):
        apply.secret_manifests(_credentials(), "trident", ["only one"])


def test_a_changed_vault_password_makes_its_secret_pending_without_naming_the_value():
    live = [_applied(s) for s in apply.secret_manifests(_credentials(), "trident", ["hunter2", "s3cret"])]
    pending = apply.apply_pending(live, apply.secret_manifests(_credentials(), "trident", ["correct-horse", "s3cret"]), "aipod")
    assert pending == {"Secret": {"trident-svm-ai": "data.password differs"}}
    for value in ("hunter2", "correct-horse"):
        assert value not in str(pending)
        assert base64.b64encode(value.encode()).decode() not in str(pending)


def _client_side_applied(manifest: dict) -> dict:
    """The object after a client-side apply: the declaration recorded in the annotation (sorted, compact)."""
    live = copy.deepcopy({key: value for key, value in manifest.items() if key not in ("apiVersion", "kind")})
    live["metadata"].setdefault("annotations", {})[apply.LAST_APPLIED_ANNOTATION] = json.dumps(
        manifest, separators=(",", ":"), sort_keys=True)
    live["spec"]["conversion"] = {"strategy": "None"}
    return live


CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "volumesnapshotclasses.snapshot.storage.k8s.io"},
       "spec": {"group": "snapshot.storage.k8s.io", "scope": "Cluster",
                "versions": [{"name": "v1", "served": True, "storage": True,
                              "schema": {"openAPIV3Schema": {"properties": {"driver": {"type": "string"},
                                                                            "parameters": {"type": "object"}}}}}]}}


def test_a_client_side_applied_object_compares_with_what_was_applied_last():
    assert apply.apply_pending([_client_side_applied(CRD)], [CRD], "", last_applied=True) == {}
    newer = copy.deepcopy(CRD)
    del newer["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["parameters"]
    # The live object still holds the dropped property; only the annotation tells that it was applied.
    assert apply.apply_pending([_client_side_applied(CRD)], [newer], "", last_applied=True) == {
        "CustomResourceDefinition": {CRD["metadata"]["name"]: "the last applied configuration differs"}}
    edited = _client_side_applied(CRD)
    edited["spec"]["scope"] = "Namespaced"
    assert apply.apply_pending([edited], [CRD], "", last_applied=True) == {
        "CustomResourceDefinition": {CRD["metadata"]["name"]: "spec.scope differs"}}
    unannotated = _client_side_applied(CRD)
    del unannotated["metadata"]["annotations"]
    assert apply.apply_pending([unannotated], [CRD], "", last_applied=True) == {
        "CustomResourceDefinition": {CRD["metadata"]["name"]: "the last applied configuration differs"}}


def test_fields_the_server_does_not_keep_are_compared_with_what_was_applied_last_only():
    declared = copy.deepcopy(CRD)
    declared["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["x-kubernetes-validations"] = [{"rule": "has(self.driver)"}]
    live = _client_side_applied(declared)
    # What a 1.20 server holds: the CEL rules dropped, the annotation as sent.
    del live["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["x-kubernetes-validations"]
    name = CRD["metadata"]["name"]
    assert apply.apply_pending([live], [declared], "", last_applied=True) == {
        "CustomResourceDefinition": {name: "spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations differs"}}
    assert apply.apply_pending([live], [declared], "", last_applied=True, unkept=["x-kubernetes-validations"]) == {}
    changed = copy.deepcopy(declared)
    changed["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["x-kubernetes-validations"][0]["rule"] = "true"
    assert apply.apply_pending([live], [changed], "", last_applied=True, unkept=["x-kubernetes-validations"]) == {
        "CustomResourceDefinition": {name: "the last applied configuration differs"}}


def test_pending_items_name_kind_and_object_and_never_a_value():
    to_apply = {"StorageClass": {"ontap-flexgroup": "parameters.backendType differs"}, "Secret": {"backend-lab-data": "not in the cluster"}}
    items = apply.pending_items(to_apply, {"action": "upgrade", "reason": "Trident 26.02.0 is installed and the model says 26.06.0"}, "trident")
    assert [(i["object"], i["action"], i["reason"]) for i in items] == [
        ("Secret/backend-lab-data", "create", "not in the cluster"),
        ("StorageClass/ontap-flexgroup", "modify", "parameters.backendType differs"),
        ("TridentVersion/trident", "modify", "Trident 26.02.0 is installed and the model says 26.06.0")]
    refused = apply.pending_items({}, {"action": "refuse", "reason": "Trident does not support downgrades"}, "trident")
    assert [i["action"] for i in refused] == ["refuse"]
    assert apply.pending_items({}, {"action": "none", "reason": "as the model says"}) == []
