"""QoS policy groups and Granular Data Distribution in the site model (NVA-1175's data SVM): the lab
pod uses both; each case edits its model in memory."""
from __future__ import annotations

import copy
import dataclasses

from project_paths import LAB, LAB_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import check_model

SITE = load_site(str(LAB), decrypt=make_decryptor(LAB_VAULT_PASSWORD))


def findings(edit) -> list[tuple[str, str, str]]:
    model = copy.deepcopy(SITE.model)
    edit(model["ontap"], model["ontap"]["svms"][0])
    site = dataclasses.replace(SITE, model=model, findings=[])
    return [(f.rule, f.key_path(), f.message) for f in check_model(site, check_files=False) if f.severity == "error"]


def data_flexgroup(svm: dict) -> dict:
    return next(fg for fg in svm["flexgroups"] if fg["name"] == "data")


def test_the_lab_pod_with_a_qos_floor_and_gdd_is_valid():
    assert findings(lambda ontap, svm: None) == []


def test_gdd_needs_a_declared_ontap_9_16_1():
    def older(ontap, svm):
        ontap["version"] = "9.15.1"
    [(rule, key, message)] = findings(older)
    assert rule == "flexgroup" and key.endswith("flexgroups[0].granular_data")
    assert "needs ONTAP 9.16.1 or later; ontap.version is 9.15.1" in message

    def undeclared(ontap, svm):
        del ontap["version"]
    [(_rule, _key, message)] = findings(undeclared)
    assert "ontap.version is not declared" in message


def test_a_flexgroup_names_a_qos_policy_of_its_own_svm():
    def dangling(ontap, svm):
        data_flexgroup(svm)["qos_policy"] = "gold"
    [(rule, key, message)] = findings(dangling)
    assert rule == "dangling-reference" and key.endswith("qos_policy") and "QoS policy gold is not declared" in message


def test_a_policy_sets_a_limit_and_no_floor_above_its_ceiling_and_is_declared_once():
    def bad(ontap, svm):
        svm["qos_policies"] += [{"name": "empty"}, {"name": "upside-down", "min_throughput_iops": 5000, "max_throughput_iops": 1000},
                                {"name": "lab-data-floor", "max_throughput_mbps": 1}]
    found = findings(bad)
    assert [rule for rule, _key, _message in found] == ["qos-policy"] * 3
    messages = " | ".join(message for _rule, _key, message in found)
    assert "empty sets no limit" in messages and "the floor 5000 is above the ceiling 1000 (iops)" in messages
    assert "lab-data-floor is declared twice" in messages


def test_a_management_svm_serves_home_over_the_in_band_network():
    """NVA-1173/1175: the data SVM over the storage network, the management SVM's home directories over in-band."""
    from project_paths import REPO, SAMPLE_VAULT_PASSWORD

    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m

    model = load_site(str(REPO / "inventories" / "sample-aipod"), decrypt=make_decryptor(SAMPLE_VAULT_PASSWORD)).model
    mounts = {entry["path"]: entry for entry in m.mount_plan(model, "dgx01")}
    assert (mounts["/mnt/data"]["svm"], mounts["/mnt/data"]["network"], mounts["/mnt/data"]["nic"]) == ("basepod-data", "storage", "bond1")
    home = mounts["/home"]
    assert (home["svm"], home["network"], home["nic"]) == ("basepod-mgmt", "inband", "bond0")
    assert home["server"] in ("192.168.31.21", "192.168.31.22")  # a management-SVM LIF, spread like the others
    assert home["options"][:2] == ["vers=3", "proto=tcp"]
    model["hosts"]["dgx01"]["dgx"].pop("inband")
    site = dataclasses.replace(SITE, model=model, findings=[])
    refused = [f.message for f in check_model(site, check_files=False) if f.severity == "error" and f.rule == "mount"]
    assert any("dgx01 has no storage or in-band network on which SVM basepod-mgmt has a data LIF" in text for text in refused), refused
