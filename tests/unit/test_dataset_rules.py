"""Data sets in the site model: the schema takes them, the layer derives them, and its rules refuse
what cannot work, each naming the file and line. Cases edit the lab pod's model in memory; one
writes a datasets.yml into a copy of the sample inventory to check the location."""
from __future__ import annotations

import copy
import dataclasses
import shutil

import pytest
from project_paths import LAB, LAB_VAULT_PASSWORD, REPO, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_datasets import model as datasets_model
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import check_model, validate_site

SITE = load_site(str(LAB), decrypt=make_decryptor(LAB_VAULT_PASSWORD))
# The lab's peer cluster, whose admin password the lab vault holds.
PEER = {"name": "lab-dr", "addresses": ["192.0.2.10"], "svms": ["dr-data"], "mgmt_address": "127.0.10.11"}


def dataset(**overrides) -> dict:
    entry = {"name": "imagenet", "svm": "lab-data", "size": "2TB", "max_size": "4TB",
             "versions": {"schedules": [{"schedule": "hourly", "count": 24}, {"schedule": "daily", "count": 7}],
                          "reserve_percent": 5},
             "owner": {"uid": 1000, "gid": 1000, "mode": "0775"},
             "namespaces": [{"name": "team-vision", "access": "read_only"}],
             "protection": {"snapmirror": {"cluster": "lab-dr", "svm": "dr-data", "schedule": "hourly"}},
             "caches": [{"cluster": "lab-dr", "svm": "dr-data", "size": "500GB", "prepopulate": ["/train"]}]}
    entry.update(overrides)
    return entry


def with_datasets(*entries: dict, peers: list | None = None) -> dict:
    model = copy.deepcopy(SITE.model)
    model["datasets"] = list(entries)
    model["ontap"]["peers"] = [PEER] if peers is None else peers
    return model


def findings(model: dict, severity: str = "error") -> list[tuple[str, str, str]]:
    site = dataclasses.replace(SITE, model=model, findings=[])
    return [(f.rule, f.key_path(), f.message) for f in check_model(site, check_files=False) if f.severity == severity]


def rules_of(model: dict, severity: str = "error") -> set[str]:
    return {rule for rule, _key, _message in findings(model, severity)}


def test_a_complete_data_set_is_valid_and_derived_with_its_defaults():
    model = with_datasets(dataset())
    assert findings(model) == [] and findings(model, "warning") == []
    derived = datasets_model.datasets(model)[0]
    assert derived["junction_path"] == "/imagenet" and derived["style"] == "flexgroup"
    assert derived["aggregates"] == ["lab_ontap_01_ssd_1", "lab_ontap_02_ssd_1"]
    assert derived["snapshot_policy"] == "dataset_imagenet" and derived["retained_versions"] == 31
    assert derived["snapmirror"]["policy"] == "MirrorAllSnapshots"
    assert derived["namespaces"] == [{"name": "team-vision", "access": "read_only"}]


@pytest.mark.parametrize(("entry", "peers", "rule", "key_end"), [
    (dataset(svm="nowhere"), None, "dangling-reference", "svm"),
    (dataset(name="data"), None, "dataset", "name"),  # the lab's FlexGroup data
    (dataset(junction_path="/data"), None, "dataset", "junction_path"),
    (dataset(junction_path="/datasets/x/"), None, "dataset", "junction_path"),
    (dataset(aggregates=["nope"]), None, "dangling-reference", "aggregates[0]"),
    (dataset(max_size="1TB"), None, "dataset-size", "max_size"),
    (dataset(size="200GB", constituents_per_aggregate=4), None, "dataset-size", "size"),
    (dataset(versions={"schedules": [{"schedule": "hourly", "count": 0}]}), None, "dataset-versions", "schedules"),
    (dataset(caches=[{"svm": "lab-data", "size": "1TB"}]), None, "dataset-cache", "svm"),
    (dataset(), [], "dataset-peer", "cluster"),
    (dataset(protection={"snapmirror": {"cluster": "lab-dr", "svm": "elsewhere"}}), None, "dataset-peer", "svm"),
    (dataset(protection={"snapmirror": {"cluster": "lab-ontap", "svm": "lab-data"}}), None, "dataset-peer", "cluster"),
    (dataset(namespaces=[{"name": "Team_Vision"}]), None, "dataset-namespace", "name"),
    (dataset(namespaces=[{"name": "a"}, {"name": "a"}]), None, "dataset-namespace", "name"),
])
def test_a_data_set_that_cannot_work_is_refused(entry, peers, rule, key_end):
    found = [(r, key) for r, key, _message in findings(with_datasets(entry, peers=peers)) if r == rule]
    assert found and any(key.endswith(key_end) for _r, key in found), findings(with_datasets(entry, peers=peers))


def test_a_cache_on_another_svm_of_this_cluster_is_taken():
    model = with_datasets(dataset(caches=[{"svm": "lab-other", "size": "1TB"}]))
    model["ontap"]["svms"].append({**copy.deepcopy(model["ontap"]["svms"][0]), "name": "lab-other"})
    assert "dataset-cache" not in rules_of(model)


def test_a_data_set_no_one_uses_or_that_keeps_no_versions_is_a_warning():
    entry = dataset(namespaces=[])
    entry.pop("versions")
    assert rules_of(with_datasets(entry), "warning") == {"dataset-unused", "dataset-versions"}
    assert rules_of(with_datasets(entry)) == set()


def test_a_data_set_a_dgx_mounts_is_used():
    model = with_datasets(dataset(namespaces=[]))
    model["compute"]["mounts"].append({"dataset": "imagenet", "path": "/mnt/imagenet"})
    assert "dataset-unused" not in rules_of(model, "warning") and rules_of(model) == set()


def test_a_mount_of_a_data_set_the_model_lacks_is_refused():
    model = with_datasets(dataset())
    model["compute"]["mounts"].append({"dataset": "cifar", "path": "/mnt/cifar"})
    assert [(rule, key) for rule, key, _m in findings(model)] == [("dangling-reference", "compute.mounts[2].dataset")]


def test_a_mount_names_a_flexgroup_or_a_data_set_not_both():
    model = with_datasets(dataset())
    model["compute"]["mounts"].append({"dataset": "imagenet", "svm": "lab-data", "flexgroup": "data", "path": "/mnt/x"})
    assert [(rule, key) for rule, key, _m in findings(model)] == [("mount", "compute.mounts[2].svm")]
    model["compute"]["mounts"][-1] = {"path": "/mnt/x", "svm": "lab-data"}
    assert [(rule, key) for rule, key, _m in findings(model)] == [("mount", "compute.mounts[2]")]


def test_consumers_the_svm_root_policy_does_not_let_through_are_refused():
    model = with_datasets(dataset())
    model["ontap"]["svms"][0]["export_policies"][0]["rules"][0]["clients"] = ["storage-a"]
    found = [(key, message) for rule, key, message in findings(model) if rule == "dataset-export"]
    assert [key for key, _m in found] == ["datasets[0]"] and "172.31.252.11" in found[0][1] and "k8s-nodes" in found[0][1]


def test_an_export_policy_with_the_data_sets_own_name_is_refused():
    model = with_datasets(dataset())
    model["ontap"]["svms"][0]["export_policies"].append({"name": "dataset_imagenet", "rules": []})
    assert ("dataset", "datasets[0].name") in {(rule, key) for rule, key, _m in findings(model)}


def test_a_snapshot_class_the_toolkit_does_not_use_by_default_is_a_warning():
    model = with_datasets(dataset())
    assert "dataset-snapshot-class" not in rules_of(model, "warning")  # the lab names it csi-snapclass
    model["trident"]["snapshot_class"]["name"] = "trident-snapshotclass"
    assert [key for rule, key, _m in findings(model, "warning") if rule == "dataset-snapshot-class"] == ["trident.snapshot_class.name"]


def test_the_schema_refuses_a_key_a_data_set_does_not_have():
    assert findings(with_datasets(dataset(colour="blue"))) == [("schema", "datasets[0].colour", "unknown key 'colour'")]


def test_a_refusal_names_the_file_and_line_of_the_data_set(tmp_path):
    inventory = tmp_path / "sample"
    shutil.copytree(REPO / "inventories" / "sample", inventory)
    (inventory / "group_vars" / "all" / "datasets.yml").write_text(
        "datasets:\n"
        "  - name: imagenet\n"
        "    svm: aipod-data\n"
        "    size: 2TB\n"
        "    namespaces:\n"
        "      - name: Team_Vision\n")
    report = validate_site(str(inventory), check_files=False)
    namespace = [f for f in report.errors if f.rule == "dataset-namespace"]
    assert namespace, report.text()
    assert namespace[0].location.file.endswith("datasets.yml") and namespace[0].location.line == 6, namespace[0]


def test_the_rules_derive_the_data_sets_once_per_validation(monkeypatch):
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_datasets import model as datasets_model
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_datasets import rules as dataset_rules
    calls = []
    by_name = datasets_model.by_name
    monkeypatch.setattr(datasets_model, "by_name", lambda model: calls.append(1) or by_name(model))
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.rule_context import Context
    ctx = Context(dataclasses.replace(SITE, model=with_datasets(dataset()), findings=[]), check_files=False)
    for rule in dataset_rules.RULES:
        rule(ctx)
    assert len(calls) == 1 and len(dataset_rules.RULES) > 1


def test_two_data_sets_that_one_namespace_would_claim_under_one_name_are_refused():
    model = with_datasets(dataset(name="ImageNet", caches=[], protection={}), dataset(name="imagenet", caches=[], protection={}))
    found = [(key, message) for rule, key, message in findings(model) if rule == "dataset-namespace"]
    assert found == [("datasets[1].namespaces[0].name",
                      "data sets ImageNet and imagenet would both be claim dataset-imagenet in namespace team-vision")]


def test_a_pv_name_longer_than_kubernetes_takes_is_refused():
    model = with_datasets(dataset(name="d" * 200, caches=[], protection={}, namespaces=[{"name": "n" * 50}]))
    assert any("more than Kubernetes' 253" in message for rule, _key, message in findings(model) if rule == "dataset-namespace")
