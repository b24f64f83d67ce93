"""Derivations of the Kubernetes and Trident layers (aipod_kubernetes: deepops, trident, apply, verify) on the sample and lab pods."""
from __future__ import annotations

import copy

import pytest
import yaml
from project_paths import COLLECTION

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes import apply, deepops, trident, verify
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site


@pytest.fixture(scope="module")
def sample(decrypt_module) -> dict:
    report = validate_site("inventories/sample", decrypt=decrypt_module)
    assert report.ok, report.text()
    return report.site.model


@pytest.fixture(scope="module")
def lab(decrypt_module) -> dict:
    report = validate_site("inventories/lab", decrypt=decrypt_module, check_files=False)
    assert report.ok, report.text()
    return report.site.model


@pytest.fixture(scope="module")
def decrypt_module():
    from project_paths import LAB_VAULT_PASSWORD, SAMPLE_VAULT_PASSWORD, make_decryptor

    return make_decryptor(SAMPLE_VAULT_PASSWORD, LAB_VAULT_PASSWORD)


def test_export_cidrs_are_the_storage_networks_of_the_workers(sample, lab):
    assert deepops.kube_node_cidrs(sample) == ["100.127.111.0/24", "100.127.112.0/24"]
    assert deepops.kube_node_cidrs(lab) == ["172.31.251.0/24", "172.31.252.0/24"]


def test_sample_trident_plan(sample):
    plan = trident.trident_plan(sample)
    assert plan["namespace"] == "trident"
    assert plan["install"]["method"] == "helm"
    assert plan["secrets"] == [{"name": "trident-ontap-aipod-data", "kind": "ontap", "svm": "aipod-data",
                                "username": "trident", "secret_variable": "vault_ontap_trident_password"}]
    flexgroups = plan["backends"][0]["manifest"]
    assert flexgroups == {
        "apiVersion": "trident.netapp.io/v1",
        "kind": "TridentBackendConfig",
        "metadata": {"name": "aipod-flexgroups", "namespace": "trident", "labels": {"app.kubernetes.io/managed-by": "aipod"}},
        "spec": {
            "version": 1,
            "storageDriverName": "ontap-nas-flexgroup",
            "backendName": "aipod-flexgroups",
            "managementLIF": "10.61.219.20",
            "svm": "aipod-data",
            "credentials": {"name": "trident-ontap-aipod-data"},
            "autoExportPolicy": True,
            "autoExportCIDRs": ["100.127.111.0/24", "100.127.112.0/24"],
        },
    }
    assert [b["driver"] for b in plan["backends"]] == ["ontap-nas-flexgroup", "ontap-nas"]


def test_sample_storage_classes_and_snapshot_class(sample):
    plan = trident.trident_plan(sample)
    default, flexvol = plan["storage_classes"]
    assert plan["default_class"] == "ontap-flexgroup"
    assert default["provisioner"] == "csi.trident.netapp.io"
    assert default["parameters"] == {"backendType": "ontap-nas-flexgroup", "storagePools": "aipod-flexgroups:.*"}
    assert default["mountOptions"] == ["vers=4.1", "nconnect=16", "rsize=262144", "wsize=262144", "hard"]
    assert default["metadata"]["annotations"] == {"storageclass.kubernetes.io/is-default-class": "true"}
    # Every class carries the mark, so moving the default clears the old one.
    assert flexvol["metadata"]["annotations"] == {"storageclass.kubernetes.io/is-default-class": "false"}
    assert (default["reclaimPolicy"], flexvol["reclaimPolicy"]) == ("Retain", "Delete")
    assert default["volumeBindingMode"] == "Immediate" and default["allowVolumeExpansion"] is True
    assert plan["snapshot_class"] == {
        "apiVersion": "snapshot.storage.k8s.io/v1",
        "kind": "VolumeSnapshotClass",
        "metadata": {"name": "csi-snapclass", "labels": {"app.kubernetes.io/managed-by": "aipod"},
                     "annotations": {"snapshot.storage.kubernetes.io/is-default-class": "true"}},
        "driver": "csi.trident.netapp.io",
        "deletionPolicy": "Delete",
    }


def test_snapshot_class_defaults_when_the_model_has_none(sample):
    model = copy.deepcopy(sample)
    del model["trident"]["snapshot_class"]
    snapshot = trident.trident_plan(model)["snapshot_class"]
    assert (snapshot["metadata"]["name"], snapshot["deletionPolicy"]) == ("csi-snapclass", "Delete")


def test_backend_lifs_by_name_or_address_and_defaults(sample):
    model = copy.deepcopy(sample)
    lif = m.data_lifs(model)[0]
    backend = model["trident"]["backends"][1]
    backend.update({"management_lif": "aipod-data-mgmt", "data_lif": lif["name"], "storage_prefix": "k8s_",
                    "limit_volume_size": "50Ti",
                    "defaults": {"snapshot_reserve": 10, "snapshot_dir": True, "space_reserve": "none",
                                 "unix_permissions": "0775", "security_style": "unix"}})
    spec = trident.trident_plan(model)["backends"][1]["manifest"]["spec"]
    assert spec["managementLIF"] == "10.61.219.20"
    assert spec["dataLIF"] == lif["address"]
    assert spec["storagePrefix"] == "k8s_" and spec["limitVolumeSize"] == "50Ti"
    # Trident reads defaults as strings.
    assert spec["defaults"] == {"spaceReserve": "none", "snapshotReserve": "10", "snapshotDir": "true",
                                "unixPermissions": "0775", "securityStyle": "unix"}
    assert spec["autoExportPolicy"] is True


def test_named_export_policy_turns_auto_export_off(sample):
    model = copy.deepcopy(sample)
    model["trident"]["backends"][0]["defaults"] = {"export_policy": "k8s-nodes"}
    spec = trident.trident_plan(model)["backends"][0]["manifest"]["spec"]
    assert spec["autoExportPolicy"] is False
    assert "autoExportCIDRs" not in spec
    assert spec["defaults"] == {"exportPolicy": "k8s-nodes"}


ANF = {
    "name": "anf-hybrid",
    "driver": "azure-netapp-files",
    "azure": {
        "subscription_id": "9f87c765-4774-fake-ae98-a721add45451",
        "tenant_id": "68e4f836-edc1-fake-bff9-b2d865ee56cf",
        "client_id": "dd043f63-bf8e-fake-8076-8de91e5713aa",
        "location": "westeurope",
        "service_level": "Premium",
        "virtual_network": "aipod-vnet",
        "subnet": "aipod-anf",
        "capacity_pools": ["aipod-pool"],
        "export_cidrs": ["10.20.0.0/16"],
    },
}


def test_azure_netapp_files_backend(sample):
    model = copy.deepcopy(sample)
    model["trident"]["backends"].append(copy.deepcopy(ANF))
    model["trident"]["storage_classes"].append({"name": "anf-premium", "backend": "anf-hybrid"})
    plan = trident.trident_plan(model)
    spec = plan["backends"][-1]["manifest"]["spec"]
    assert spec == {
        "version": 1, "storageDriverName": "azure-netapp-files", "backendName": "anf-hybrid",
        "subscriptionID": ANF["azure"]["subscription_id"], "tenantID": ANF["azure"]["tenant_id"],
        "location": "westeurope", "serviceLevel": "Premium", "virtualNetwork": "aipod-vnet", "subnet": "aipod-anf",
        "capacityPools": ["aipod-pool"], "credentials": {"name": "trident-anf-anf-hybrid"},
        "defaults": {"exportRule": "10.20.0.0/16"},
    }
    assert plan["secrets"][-1] == {"name": "trident-anf-anf-hybrid", "kind": "azure", "backend": "anf-hybrid",
                                   "client_id": ANF["azure"]["client_id"], "secret_variable": "vault_trident_anf_client_secret"}
    assert plan["storage_classes"][-1]["parameters"] == {"backendType": "azure-netapp-files", "storagePools": "anf-hybrid:.*"}


def test_deepops_plan_of_the_sample(sample):
    plan = deepops.deepops_plan(sample)
    assert plan["control_plane"] == plan["etcd"] == ["k8s-cp01", "k8s-cp02", "k8s-cp03"]
    assert plan["workers"] == ["dgx01", "dgx02", "dgx03", "dgx04"]
    assert plan["hosts"][0] == {"name": "k8s-cp01", "ip": "10.61.219.31"}
    assert plan["hosts"][3] == {"name": "dgx01", "ip": "10.61.219.101"}
    assert plan["user"] == {"username": "aipod", "name": "aipod", "uid": 2000, "group": "aipod", "home": "/home/aipod"}
    assert plan["group"] == {"name": "aipod", "gid": 2000}
    assert (plan["service_cidr"], plan["pod_cidr"]) == ("10.233.0.0/18", "10.233.64.0/18")


def test_kubeconfig_source(sample, lab):
    assert deepops.kubeconfig_source(sample) == {"mode": "deepops", "path": None, "context": None}
    assert deepops.kubeconfig_source(lab) == {"mode": "existing", "path": "../../.lab/kubernetes/kubeconfig", "context": None}


def _class(name, default=None, managed=False, **fields):
    metadata = {"name": name}
    if default is not None:
        metadata["annotations"] = {"storageclass.kubernetes.io/is-default-class": default}
    if managed:
        metadata["labels"] = {"app.kubernetes.io/managed-by": "aipod"}
    return {"metadata": metadata, **fields}


def test_storage_class_changes(sample):
    planned = trident.trident_plan(sample)["storage_classes"]
    existing = copy.deepcopy(planned)
    assert apply.storage_class_changes(existing, planned) == {"replace": [], "foreign_defaults": [], "stale": []}
    existing[1]["mountOptions"] = ["vers=3"]
    existing[1]["reclaimPolicy"] = None  # Kubernetes' default is Delete, as planned
    existing += [_class("standard", default="true"),
                 _class("legacy", default="false"),
                 {"metadata": {"name": "beta", "annotations": {"storageclass.beta.kubernetes.io/is-default-class": "true"}}},
                 _class("old-trident", managed=True)]
    changes = apply.storage_class_changes(existing, planned)
    assert changes["replace"] == [{"name": "ontap-flexvol", "fields": ["mountOptions"]}]
    assert changes["foreign_defaults"] == ["beta", "standard"]
    assert changes["stale"] == ["old-trident"]


def test_snapshot_api_state():
    def crd(name, served=True, managed=False, version="v1", group="snapshot.storage.k8s.io"):
        item = {"metadata": {"name": f"{name}.{group}"},
                "spec": {"versions": [{"name": version, "served": served}]}}
        if managed:
            item["metadata"]["labels"] = {"app.kubernetes.io/managed-by": "aipod"}
        return item

    names = ["volumesnapshotclasses", "volumesnapshots", "volumesnapshotcontents"]
    groups = ["volumegroupsnapshotclasses", "volumegroupsnapshots", "volumegroupsnapshotcontents"]
    assert apply.snapshot_api_state([]) == {"count": 0, "managed": False, "serves_v1": False, "group_count": 0, "serves_group": False}
    # Kubespray's csi_crd and DeepOps' release-8.3 manifests: VolumeSnapshot v1, group snapshots v1beta1 only.
    kubespray = [crd(n) for n in names] + [crd(n, version="v1beta1", group="groupsnapshot.storage.k8s.io") for n in groups]
    assert apply.snapshot_api_state(kubespray) == {"count": 3, "managed": False, "serves_v1": True, "group_count": 3,
                                                   "serves_group": False}
    current = [crd(n, managed=True) for n in names] + [crd(n, version="v1beta2", group="groupsnapshot.storage.k8s.io") for n in groups]
    assert apply.snapshot_api_state(current)["managed"] is True and apply.snapshot_api_state(current)["serves_group"] is True
    assert apply.snapshot_api_state(current[:5])["serves_group"] is False
    assert apply.snapshot_api_state([crd(n, version="v1beta1") for n in names])["serves_v1"] is False


def test_other_default_snapshot_classes_of_the_driver_are_named():
    planned = {"metadata": {"name": "csi-snapclass"}, "driver": "csi.trident.netapp.io"}

    def snapshot_class(name, driver="csi.trident.netapp.io", default="true"):
        return {"metadata": {"name": name, "annotations": {apply.SNAPSHOT_CLASS_DEFAULT: default}}, "driver": driver}

    existing = [snapshot_class("csi-snapclass"), snapshot_class("trident-snapshotclass"), snapshot_class("old", default="false"),
                snapshot_class("ebs", driver="ebs.csi.aws.com"), {"metadata": {"name": "bare"}, "driver": "csi.trident.netapp.io"}]
    assert apply.snapshot_class_defaults(existing, planned) == ["trident-snapshotclass"]
    assert apply.snapshot_class_defaults([], planned) == []


def test_the_bundles_snapshot_crds_serve_volume_snapshots_v1_and_group_snapshots_v1beta2():
    crds = yaml.safe_load_all((COLLECTION / "roles" / "trident" / "files" / "snapshot-crds.yml").read_text())
    state = apply.snapshot_api_state([crd for crd in crds if crd])
    assert state == {"count": 3, "managed": True, "serves_v1": True, "group_count": 3, "serves_group": True}


def _node(name, ready="True", gpus=None, unschedulable=False):
    node = {"metadata": {"name": name}, "spec": {"unschedulable": unschedulable},
            "status": {"conditions": [{"type": "Ready", "status": ready}], "allocatable": {}}}
    if gpus is not None:
        node["status"]["allocatable"]["nvidia.com/gpu"] = str(gpus)
    return node


def _status(checks):
    return {c["name"]: c["status"] for c in checks}


def test_judge_nodes_without_nodes(sample, lab):
    assert _status(verify.judge_nodes(lab, [])) == {"nodes_ready": "not_checked", "gpus_allocatable": "not_checked"}
    # DeepOps deployed the cluster: no nodes is a failure, not a blind spot.
    assert _status(verify.judge_nodes(sample, [])) == {"nodes_ready": "fail", "gpus_allocatable": "fail"}


def test_judge_nodes(sample):
    nodes = [_node(f"k8s-cp0{i}") for i in (1, 2, 3)] + [_node(f"dgx0{i}", gpus=8) for i in (1, 2, 3)] + [_node("dgx04", gpus=0)]
    checks = verify.judge_nodes(sample, nodes)
    assert _status(checks) == {"nodes_ready": "pass", "gpus_allocatable": "pass"}
    # The sample cuts dgx04's GPUs into MIG slices: it offers MIG resources, not nvidia.com/gpu.
    assert checks[1]["detail"].endswith("not compared, cut into MIG slices: dgx04 (all-1g.5gb)")
    nodes[3] = _node("dgx01", ready="False", gpus=8)
    nodes[4] = _node("dgx02", gpus=7)
    del nodes[6]
    checks = verify.judge_nodes(sample, nodes)
    assert _status(checks) == {"nodes_ready": "fail", "gpus_allocatable": "fail"}
    assert "not in the cluster: dgx04" in checks[0]["detail"] and "not Ready: dgx01" in checks[0]["detail"]
    assert checks[1]["detail"].startswith("dgx02 offers 7 of its 8 GPUs; not compared")
    assert verify.schedulable_nodes(nodes + [_node("cordoned", unschedulable=True)]) == ["dgx02", "dgx03", "k8s-cp01", "k8s-cp02", "k8s-cp03"]


def test_judge_backends(lab):
    plan = trident.trident_plan(lab)
    configs = [copy.deepcopy(b["manifest"]) for b in plan["backends"]]
    assert _status(verify.judge_backends(plan, configs, [], controller_running=False)) == {
        "backend_online:lab-flexgroups": "not_checked", "backend_online:lab-flexvols": "not_checked",
        "backend_online:lab-anf": "not_checked"}
    assert set(_status(verify.judge_backends(plan, configs, [], controller_running=True)).values()) == {"fail"}
    for config in configs:
        config["status"] = {"phase": "Bound", "lastOperationStatus": "Success"}
    online = [{"backendName": "lab-flexgroups", "state": "online"}, {"backendName": "lab-flexvols", "state": "offline"},
              {"backendName": "lab-anf", "state": "online"}]
    assert _status(verify.judge_backends(plan, configs, online, controller_running=True)) == {
        "backend_online:lab-flexgroups": "pass", "backend_online:lab-flexvols": "fail", "backend_online:lab-anf": "pass"}
    assert _status(verify.judge_backends(plan, configs[:1], online, True))["backend_online:lab-flexvols"] == "fail"


def test_judge_classes(lab):
    plan = trident.trident_plan(lab)
    classes = copy.deepcopy(plan["storage_classes"])
    snapshot = [copy.deepcopy(plan["snapshot_class"])]
    assert set(_status(verify.judge_classes(plan, classes, snapshot)).values()) == {"pass"}
    classes.append(_class("standard", default="true"))
    classes[0]["mountOptions"] = ["nfsvers=3"]
    checks = _status(verify.judge_classes(plan, classes, []))
    assert checks == {"storage_classes": "fail", "one_default_class": "fail", "snapshot_class": "fail"}


def test_verification_result():
    checks = [{"name": "a", "status": "pass", "detail": ""}, {"name": "b", "status": "not_checked", "detail": "why"}]
    result = verify.verification_result(checks)
    assert result["ok"] is True and result["failures"] == [] and result["not_checked"] == [checks[1]]
    assert result["counts"] == {"pass": 1, "fail": 0, "not_checked": 1}
    assert verify.verification_result(checks + [{"name": "c", "status": "fail", "detail": ""}])["ok"] is False


def test_a_decommissioned_worker_is_not_expected_in_the_cluster(sample):
    model = copy.deepcopy(sample)
    model["hosts"]["dgx04"]["groups"].append("decommission")
    nodes = [_node(f"k8s-cp0{i}") for i in (1, 2, 3)] + [_node(f"dgx0{i}", gpus=8) for i in (1, 2, 3)]
    checks = verify.judge_nodes(model, nodes)
    assert _status(checks) == {"nodes_ready": "pass", "gpus_allocatable": "pass"} and checks[0]["detail"] == "6/6 Ready"
    # Still there while Kubespray has not removed it yet: not judged, and its GPUs not counted.
    checks = verify.judge_nodes(model, nodes + [_node("dgx04", ready="False", gpus=0)])
    assert _status(checks) == {"nodes_ready": "pass", "gpus_allocatable": "pass"}
