"""Models that must pass: the shipped inventories and variants that use the optional parts of the schema."""
from __future__ import annotations

import json
import pathlib

import pytest
from ansible.parsing.vault import VaultLib, VaultSecret
from corpus import apply_edit
from jsonschema import Draft202012Validator
from project_paths import COLLECTION, LAB, LAB_VAULT_PASSWORD, REPO, SAMPLE

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site

# Validation decrypts inline values with the run's vault ids: a variant's secret is a real one of the lab's.
LAB_INLINE_SECRET = "!vault |\n" + "".join(
    f"  {line}\n" for line in VaultLib().encrypt("anf-client-secret", VaultSecret(LAB_VAULT_PASSWORD), vault_id="lab").decode().splitlines())


# The NVA-1173 sample (DGX H100, AFF A90, Spectrum SN4600 on Cumulus): docs/sample-aipod.md.
SAMPLE_AIPOD = REPO / "inventories" / "sample-aipod"


def errors_of(report):
    return "\n".join(str(f) for f in report.errors)


@pytest.mark.parametrize("inventory, summary", [
    (SAMPLE, {"switches": 2, "ontap_nodes": 2, "svms": 1, "data_lifs": 16, "dgx": 4,
              "servers": 3, "kube_control_plane": 3, "kube_node": 4}),
    (SAMPLE_AIPOD, {"switches": 2, "ontap_nodes": 2, "svms": 2, "data_lifs": 18, "dgx": 4,
                    "servers": 3, "kube_control_plane": 3, "kube_node": 4}),
], ids=["sample", "sample-aipod"])
def test_sample_inventory_is_valid(decrypt, inventory, summary):
    report = validate_site(str(inventory), decrypt=decrypt)
    assert report.ok, errors_of(report)
    assert report.warnings == []
    assert report.summary() == summary


def test_lab_inventory_is_valid(decrypt):
    # Files the lab creates at start (its CA, its kubeconfig) are not checked here.
    report = validate_site(str(LAB), decrypt=decrypt, check_files=False)
    assert report.ok, errors_of(report)


@pytest.mark.parametrize("schema", ["site.schema.json", "host.schema.json"])
def test_schemas_are_valid_json_schema(schema):
    Draft202012Validator.check_schema(json.loads((COLLECTION / "schemas" / schema).read_text()))


@pytest.mark.parametrize("inventory", [SAMPLE, SAMPLE_AIPOD, LAB], ids=["sample", "sample-aipod", "lab"])
def test_every_model_file_names_its_schema_for_editors(inventory: pathlib.Path):
    for path in list((inventory / "group_vars" / "all").glob("*.yml")) + list((inventory / "host_vars").glob("*.yml")):
        text = path.read_text()
        if text.startswith("$ANSIBLE_VAULT"):
            continue
        line = next(entry for entry in text.splitlines() if "yaml-language-server" in entry)
        target = (path.parent / line.split("$schema=")[1].strip()).resolve()
        assert target.is_file(), f"{path}: modeline points at {target}"


VARIANTS = {
    "explicit-lifs": [dict(file="group_vars/all/ontap.yml", set=["ontap", "svms", 0, "data_lifs"], value={"explicit": [
        {"name": "n1_a", "node": "lab-ontap-01", "port": "e1a-3111", "address": "172.31.251.101"},
        {"name": "n2_a", "node": "lab-ontap-02", "port": "e1a-3111", "address": "172.31.251.102"},
        {"name": "n1_b", "node": "lab-ontap-01", "port": "e1b-3112", "address": "172.31.252.101"},
        {"name": "n2_b", "node": "lab-ontap-02", "port": "e1b-3112", "address": "172.31.252.102"}]})],
    "azure-backend-for-hybrid": [
        dict(file="group_vars/all/trident.yml", append=["trident", "backends"], value={
            "name": "anf-cloud", "driver": "azure-netapp-files", "azure": {
                "subscription_id": "9f7fdcb6-4a2b-4d1e-8a43-37b1c0a1b2c3", "tenant_id": "0f5b8d3e-1c2a-4b6f-9e7d-2a3b4c5d6e7f",
                "client_id": "6e4d2c1b-3a5f-4e8d-9c7b-1a2b3c4d5e6f", "location": "eastus", "service_level": "Premium",
                "virtual_network": "anf-vnet", "subnet": "anf-subnet", "export_cidrs": ["172.31.241.0/24"]}}),
        dict(file="group_vars/all/trident.yml", append=["trident", "storage_classes"], value={
            "name": "anf-cloud-standard", "backend": "anf-cloud", "mount_options": ["vers=4.1"]}),
        dict(file="group_vars/all/secrets.yml", write="---\nvault_trident_anf_client_secret: " + LAB_INLINE_SECRET)],
    "cumulus-pair": [
        dict(file="host_vars/lab-sw-a.yml", replace="platform: nxos", with_="platform: cumulus"),
        dict(file="host_vars/lab-sw-b.yml", replace="platform: nxos", with_="platform: cumulus"),
        dict(file="host_vars/lab-sw-a.yml", replace="Ethernet1/", with_="swp"),
        dict(file="host_vars/lab-sw-b.yml", replace="Ethernet1/", with_="swp")],
    "tagged-nics-and-routes": [
        dict(file="host_vars/dgx01.yml", set=["dgx", "storage_nics", 0, "tagged"], value=True),
        dict(file="host_vars/lab-sw-a.yml", set=["switch", "ports", 0, "mode"], value="trunk"),
        dict(file="group_vars/all/networks.yml", set=["networks", 3, "gateway"], value="172.31.251.1"),
        dict(file="group_vars/all/networks.yml", set=["networks", 3, "routes"], value=[{"to": "10.200.0.0/16", "metric": 20}])],
    "custom-snapshot-policy-and-ipspace": [
        dict(file="group_vars/all/ontap.yml", set=["ontap", "snapshot_policies"], value=[
            {"name": "aipod-hourly", "schedules": [{"schedule": "hourly", "count": 6}]}]),
        dict(file="group_vars/all/ontap.yml", set=["ontap", "svms", 0, "flexgroups", 0, "snapshot_policy"], value="aipod-hourly"),
        dict(file="group_vars/all/ontap.yml", set=["ontap", "ipspaces"], value=["aipod"]),
        dict(file="group_vars/all/ontap.yml", set=["ontap", "broadcast_domains", 0, "ipspace"], value="Default")],
    "rdma-everywhere": [
        dict(file="group_vars/all/ontap.yml", set=["ontap", "svms", 0, "nfs", "rdma"], value=True),
        dict(file="group_vars/all/compute.yml", set=["compute", "mounts", 0, "transport"], value="rdma")],
    "world-open-export-allowed-explicitly": [
        dict(file="group_vars/all/pod.yml", set=["pod", "security", "allow_world_open_exports"], value=True),
        dict(file="group_vars/all/ontap.yml", append=["ontap", "svms", 0, "export_policies"], value={
            "name": "public-datasets", "rules": [{"clients": ["0.0.0.0/0"], "ro": ["sys"], "rw": ["never"], "superuser": ["none"]}]})],
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_optional_parts_of_the_model_pass(name, tmp_path, decrypt):
    inventory = tmp_path / name
    import shutil

    shutil.copytree(LAB, inventory)
    for edit in VARIANTS[name]:
        edit = dict(edit)
        if "with_" in edit:
            edit["with"] = edit.pop("with_")
        apply_edit(inventory, edit)
    report = validate_site(str(inventory), decrypt=decrypt, check_files=False)
    assert report.ok, errors_of(report)


def test_sizing_shortfall_is_a_warning_not_an_error(tmp_path, decrypt):
    inventory = tmp_path / "hungry"
    import shutil

    shutil.copytree(SAMPLE, inventory)
    apply_edit(inventory, dict(file="group_vars/all/pod.yml", set=["pod", "sizing", "gpu_ingest_mb_s"], value=1000))
    report = validate_site(str(inventory), decrypt=decrypt)
    assert report.ok
    assert [f.rule for f in report.warnings] == ["sizing"]
    assert report.sizing["ratio"] == round(18000 / 32000, 2)
    assert "ratio 0.56" in report.warnings[0].message


def test_all_errors_are_reported_in_one_run(tmp_path, decrypt):
    from corpus import CORPUS, load_case

    names = ["nic-outside-subnet", "world-open-export", "two-default-storage-classes", "vpc-domain-mismatch",
             "constituents-out-of-range", "unknown-top-level-key"]
    inventory = tmp_path / "many"
    import shutil

    shutil.copytree(LAB, inventory)
    expected = []
    for name in names:
        case = load_case(CORPUS / f"{name}.yml")
        for edit in case["edits"]:
            apply_edit(inventory, edit)
        expected += case["expect"]
    report = validate_site(str(inventory), decrypt=decrypt, check_files=False)
    found = {(f.rule, f.key_path()) for f in report.errors}
    assert {(e["rule"], e["key"]) for e in expected} <= found


def test_error_points_at_the_exact_line(tmp_path, decrypt):
    inventory = tmp_path / "line"
    import shutil

    shutil.copytree(LAB, inventory)
    host_file = inventory / "host_vars" / "dgx03.yml"
    text = host_file.read_text().replace("172.31.252.13", "172.31.99.13")
    host_file.write_text(text)
    line = next(number for number, content in enumerate(text.splitlines(), 1) if "172.31.99.13" in content)
    report = validate_site(str(inventory), decrypt=decrypt, check_files=False)
    [finding] = [f for f in report.errors if f.rule == "address-in-subnet"]
    assert finding.location.line == line
    assert finding.location.file.endswith("host_vars/dgx03.yml")
    assert finding.key_path() == "dgx03: dgx.storage_nics[1].address"
    assert "outside 172.31.252.0/24" in finding.message and finding.hint


def test_without_the_vault_password_the_secret_names_are_not_checked_but_nothing_breaks():
    report = validate_site(str(SAMPLE))
    assert report.ok


def test_a_dgx_without_expected_gpus_is_a_warning(tmp_path, decrypt):
    import shutil

    inventory = tmp_path / "no-gpus"
    shutil.copytree(LAB, inventory)
    apply_edit(inventory, dict(file="host_vars/dgx02.yml", delete=["dgx", "gpus"]))
    report = validate_site(str(inventory), decrypt=decrypt, check_files=False)
    assert report.ok
    [warning] = [f for f in report.warnings if f.rule == "gpu"]
    assert warning.key_path() == "dgx02: dgx" and warning.location.file.endswith("host_vars/dgx02.yml")
