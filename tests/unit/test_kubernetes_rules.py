"""Validator rules of the Kubernetes and Trident layers: each bad model is refused before anything is applied."""
from __future__ import annotations

import copy

import pytest
from test_kubernetes_model import ANF

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes import rules as kubernetes
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes import trident_rules as trident
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation import rules
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.rules import secrets


@pytest.fixture
def site(decrypt):
    return load_site("inventories/sample", decrypt=decrypt)


def findings(site, *functions):
    return [(f.severity, f.rule, f.message) for f in rules.run_rules(site, check_files=False, rules=list(functions))]


LAYER_RULES = (kubernetes.kubernetes, kubernetes.kubernetes_networks, trident.trident, trident.trident_backends, secrets.secrets)


def test_sample_passes_the_layer_rules(site):
    assert findings(site, *LAYER_RULES) == []


def test_site_network_overlapping_kubespray_pod_network(site):
    site.model["networks"][0]["subnet"] = "10.233.100.0/24"
    result = findings(site, kubernetes.kubernetes_networks)
    assert result == [("error", "kubernetes", "network 'oob-mgmt' overlaps the Kubernetes pod network 10.233.64.0/18 that DeepOps (Kubespray) uses")]
    site.model["kubernetes"]["deployment"] = "existing"
    assert findings(site, kubernetes.kubernetes_networks) == []


def test_azure_backend_needs_export_cidrs(site):
    backend = copy.deepcopy(ANF)
    del backend["azure"]["export_cidrs"]
    site.model["trident"]["backends"].append(backend)
    assert any("exports volumes to 0.0.0.0/0" in message for _, _, message in findings(site, trident.trident_backends))
    backend["azure"]["export_cidrs"] = ["0.0.0.0/0"]
    assert any("opens the volumes to every address" in message for _, _, message in findings(site, trident.trident_backends))
    site.model["pod"]["security"]["allow_world_open_exports"] = True
    assert findings(site, trident.trident_backends) == []
    backend["azure"]["export_cidrs"] = ["10.20.0.0/16"]
    site.model["pod"]["security"]["allow_world_open_exports"] = False
    assert findings(site, trident.trident_backends) == []


def test_azure_backend_needs_its_client_secret(site):
    site.model["trident"]["backends"].append(copy.deepcopy(ANF))
    assert ("error", "secret", "the secret vault_trident_anf_client_secret is missing") in findings(site, secrets.secrets)


def test_backend_export_policy_must_be_declared(site):
    site.model["trident"]["backends"][0]["defaults"] = {"export_policy": "nope"}
    result = findings(site, trident.trident_backends)
    assert result[0][:2] == ("error", "dangling-reference") and "export policy nope is not declared" in result[0][2]
    site.model["trident"]["backends"][0]["defaults"] = {"export_policy": "k8s-nodes"}
    assert findings(site, trident.trident_backends) == []


def test_workers_without_storage_networks_leave_auto_export_empty(site):
    for host in ("dgx01", "dgx02", "dgx03", "dgx04"):
        site.model["hosts"][host]["dgx"]["storage_nics"] = []
    messages = [message for _, _, message in findings(site, trident.trident_backends)]
    assert "backend aipod-flexgroups: no Kubernetes worker has a storage network, so autoExportCIDRs would be empty" in messages


def test_worker_without_a_nic_on_the_lif_networks_is_warned(site):
    site.model["networks"].append({"name": "storage-c", "purpose": "storage", "vlan": 3113,
                                   "subnet": "100.127.113.0/24", "mtu": 9000})
    site.model["hosts"]["dgx04"]["dgx"]["storage_nics"] = [
        {"name": "enp1", "network": "storage-c", "address": "100.127.113.14", "speed": "200G"}]
    warnings = [m for severity, _, m in findings(site, trident.trident_backends) if severity == "warning"]
    assert "dgx04 has no storage NIC on a network where SVM aipod-data has data LIFs; its pods cannot mount aipod-flexgroups volumes" in warnings


def test_data_lif_must_be_a_data_lif(site):
    site.model["trident"]["backends"][0]["data_lif"] = "aipod-data-mgmt"
    result = findings(site, trident.trident_backends)
    assert ("error", "trident", "aipod-data-mgmt is the management LIF of SVM aipod-data, not a data LIF") in result


def test_storage_class_nfs_version_must_be_enabled_on_the_svm(site):
    site.model["ontap"]["svms"][0]["nfs"]["v41"] = False
    result = findings(site, trident.trident_backends)
    assert ("error", "mount-options",
            "StorageClass ontap-flexgroup mounts with NFS 4.1, which SVM aipod-data (backend aipod-flexgroups) does not enable") in result
    site.model["ontap"]["svms"][0]["nfs"]["v41"] = True
    site.model["trident"]["storage_classes"][1]["mount_options"] = ["vers=4.2"]
    assert [s for s, _, _ in findings(site, trident.trident_backends)] == ["warning"]


def test_schema_accepts_anf_export_cidrs_and_refuses_a_bad_one(decrypt, tmp_path):
    import shutil

    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site

    target = tmp_path / "inventories" / "sample"
    shutil.copytree("inventories/sample", target)
    path = target / "group_vars" / "all" / "trident.yml"
    text = path.read_text()
    anf = ("    - name: anf-hybrid\n      driver: azure-netapp-files\n      azure:\n"
           "        subscription_id: 9f87c765-4774-4bc1-ae98-a721add45451\n"
           "        tenant_id: 68e4f836-edc1-4f5c-bff9-b2d865ee56cf\n"
           "        client_id: dd043f63-bf8e-4d63-8076-8de91e5713aa\n"
           "        location: westeurope\n        service_level: Premium\n"
           "        virtual_network: aipod-vnet\n        subnet: aipod-anf\n"
           "        export_cidrs: [EXPORT]\n")
    marker = "  # StorageClass mountOptions"
    path.write_text(text.replace(marker, anf + marker).replace("EXPORT", "10.20.0.0/16"))
    report = validate_site(str(target), decrypt=decrypt, check_files=False)
    assert [f.message for f in report.errors] == ["the secret vault_trident_anf_client_secret is missing"]
    path.write_text(text.replace(marker, anf + marker).replace("EXPORT", "10.20.0.0"))
    report = validate_site(str(target), decrypt=decrypt, check_files=False)
    assert any(f.rule == "schema" and "export_cidrs" in str(f.path) for f in report.errors), report.text()


def test_decommission_names_workers_only(site):
    site.groups["decommission"] = ["dgx02"]
    assert findings(site, kubernetes.kubernetes) == []
    site.groups["decommission"] = ["k8s-cp01", "dgx09"]
    assert findings(site, kubernetes.kubernetes) == [
        ("error", "kubernetes", "k8s-cp01 in decommission is a control-plane host"),
        ("error", "dangling-reference", "dgx09 in decommission is not a kube_node host")]
    site.groups["decommission"] = list(site.groups["kube_node"])
    assert findings(site, kubernetes.kubernetes) == [("warning", "kubernetes", "every Kubernetes worker is being decommissioned")]


def test_helm_chart_must_install_the_model_s_trident_release(site):
    site.model["trident"]["install"]["chart_version"] = "100.2510.0"
    assert findings(site, trident.trident) == [
        ("error", "trident", "chart 100.2510.0 does not install Trident 26.02.1")]
    site.model["trident"]["install"]["chart_version"] = "100.2602.1"
    assert findings(site, trident.trident) == []
