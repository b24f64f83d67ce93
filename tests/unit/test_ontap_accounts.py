"""The ONTAP cluster the model describes is one ONTAP can be: no built-in account taken over, one
Trident Secret per SVM, whole HA pairs."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.trident import ontap_secret_name
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.trident_rules import KUBERNETES_NAME, secret_name_problems
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site


@pytest.mark.parametrize(("key", "value"), [("username", "vsadmin"), ("username", "Admin"), ("username", "diag"),
                                            ("role", "vsadmin"), ("role", "vsadmin-volume"), ("role", "readonly")])
def test_the_trident_account_is_never_one_of_ontaps_own(sample_copy, decrypt, key, value):
    """The bundle creates and changes the Trident account and its role: never ONTAP's built-in ones."""
    path = sample_copy / "group_vars" / "all" / "ontap.yml"
    text = path.read_text()
    assert f"{key}: trident" in text
    path.write_text(text.replace(f"{key}: trident", f"{key}: {value}", 1))
    report = validate_site(str(sample_copy), decrypt=decrypt)
    [error] = [f for f in report.errors if f.rule == "ontap-name"]
    assert error.path[-2:] == ("trident_account", key) and "built-in" in error.message and error.location.line


def test_two_svms_whose_trident_secrets_would_share_a_name_are_refused(sample_copy, decrypt):
    import copy

    import yaml

    path = sample_copy / "group_vars" / "all" / "ontap.yml"
    data = yaml.safe_load(path.read_text())
    twin = copy.deepcopy(data["ontap"]["svms"][0])
    assert twin["name"] == "aipod-data"
    twin["name"] = "aipod_data"
    data["ontap"]["svms"].append(twin)
    path.write_text("---\n" + yaml.safe_dump(data, sort_keys=False))
    report = validate_site(str(sample_copy), decrypt=decrypt)
    [error] = [f for f in report.errors if f.rule == "kubernetes-name"]
    assert error.path == ("ontap", "svms", len(data["ontap"]["svms"]) - 1, "name")
    assert "aipod-data and aipod_data map to one Kubernetes Secret, trident-ontap-aipod-data" in error.message


def test_a_node_without_an_ha_partner_is_refused(sample_copy, decrypt):
    import copy

    import yaml

    path = sample_copy / "group_vars" / "all" / "ontap.yml"
    data = yaml.safe_load(path.read_text())
    third = copy.deepcopy(data["ontap"]["nodes"][1])
    third.update(name="aipod-a800-03", mgmt_address="10.61.218.23", aggregates=[{"name": "aipod_a800_03_nvme_ssd_1", "disk_count": 23}])
    data["ontap"]["nodes"].append(third)
    path.write_text("---\n" + yaml.safe_dump(data, sort_keys=False))
    report = validate_site(str(sample_copy), decrypt=decrypt)
    [error] = [f for f in report.errors if f.rule == "ontap-ha"]
    assert error.path == ("ontap", "nodes", 2, "name") and "aipod-a800-03 has no HA partner" in error.message
    data["ontap"]["nodes"].append(dict(copy.deepcopy(third), name="aipod-a800-04", mgmt_address="10.61.218.24",
                                       aggregates=[{"name": "aipod_a800_04_nvme_ssd_1", "disk_count": 23}]))
    path.write_text("---\n" + yaml.safe_dump(data, sort_keys=False))
    assert not [f for f in validate_site(str(sample_copy), decrypt=decrypt).errors if f.rule == "ontap-ha"]


SVM_NAMES = st.from_regex(r"[A-Za-z][A-Za-z0-9._-]{0,46}", fullmatch=True)


@given(st.lists(SVM_NAMES, min_size=1, max_size=4))
def test_the_secret_names_validation_passes_are_kubernetes_names_and_distinct(names):
    """Property: whatever SVM names ONTAP takes, the ones validation accepts map to distinct names that
    Kubernetes takes (injective, within its limits)."""
    names = list(dict.fromkeys(names))
    refused = {index for index, _problem in secret_name_problems(names)}
    accepted = [ontap_secret_name(name) for index, name in enumerate(names) if index not in refused]
    assert len(set(accepted)) == len(accepted)
    assert all(KUBERNETES_NAME.fullmatch(secret) and len(secret) <= 253 for secret in accepted)


def test_an_svm_name_ending_in_a_dash_is_refused():
    assert secret_name_problems(["data-"])[0][1].startswith("SVM data- would get the Kubernetes Secret name 'trident-ontap-data-'")


@pytest.mark.parametrize(("key", "value"), [("username", "vsadmin"), ("role", "vsadmin-volume")])
def test_the_dataops_account_is_never_one_of_ontaps_own(sample_copy, decrypt, key, value):
    path = sample_copy / "group_vars" / "all" / "ontap.yml"
    text = path.read_text()
    written = {"username": "username: dataops", "role": "role: dataops_toolkit"}[key]
    assert written in text
    path.write_text(text.replace(written, f"{key}: {value}", 1))
    report = validate_site(str(sample_copy), decrypt=decrypt)
    [error] = [f for f in report.errors if f.rule == "ontap-name"]
    assert error.path[-2:] == ("dataops_account", key) and "the DataOps Toolkit" in error.message


def test_two_tools_never_share_an_account_or_a_role(sample_copy, decrypt):
    """Each tool's role holds only what that tool needs: Trident's role is not the toolkit's."""
    path = sample_copy / "group_vars" / "all" / "ontap.yml"
    text = path.read_text()
    path.write_text(text.replace("role: dataops_toolkit", "role: trident", 1))
    report = validate_site(str(sample_copy), decrypt=decrypt)
    [error] = [f for f in report.errors if f.rule == "ontap-name"]
    assert error.path[-2:] == ("dataops_account", "role") and "share the role 'trident'" in error.message
