"""The DataOps Toolkit's configuration comes from the model: the SVM with a dataops_account, reached
through the cluster's management address, mounted from the SVM's first data LIF."""
from __future__ import annotations

import copy

from project_paths import LAB, LAB_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_datasets.toolkit import toolkit_config
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site

MODEL = load_site(str(LAB), decrypt=make_decryptor(LAB_VAULT_PASSWORD)).model


def test_the_lab_svm_is_configured_as_the_toolkits_config_command_would():
    found = toolkit_config(MODEL)
    lif = next(lif["address"] for lif in m.data_lifs(MODEL) if lif["svm"] == "lab-data")
    assert found["svm"] == "lab-data" and found["username"] == "dataops"
    assert found["password_variable"] == "vault_ontap_dataops_password"
    assert found["config"] == {
        "connectionType": "ONTAP", "hostname": "127.0.10.1:8443", "svm": "lab-data", "dataLif": lif,
        "defaultVolumeType": "flexgroup", "defaultExportPolicy": MODEL["ontap"]["svms"][0]["root_export_policy"],
        "defaultSnapshotPolicy": "none", "defaultUnixUID": "2000", "defaultUnixGID": "2000",
        "defaultUnixPermissions": "0775", "defaultAggregate": MODEL["ontap"]["svms"][0]["aggregates"][0]}


def test_no_account_no_configuration_and_port_443_is_left_out():
    model = copy.deepcopy(MODEL)
    assert toolkit_config(model, "elsewhere") is None
    model["ontap"]["https_port"] = 443
    assert toolkit_config(model)["config"]["hostname"] == "127.0.10.1"
    del model["ontap"]["svms"][0]["dataops_account"]
    assert toolkit_config(model) is None
