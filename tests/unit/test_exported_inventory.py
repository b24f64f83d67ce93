"""Validation from an inventory without files, as AWX hands it to a job: the JSON of
`ansible-inventory --list --export`, as a file or as an executable inventory script."""
from __future__ import annotations

import copy
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest
from project_paths import LAB, LAB_VAULT_PASSWORD, REPO, SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site

BIN = pathlib.Path(sys.executable).parent
LAB_VAULT = f"lab@{LAB / 'vault-password.txt'}"
# The NVA-1173 sample (docs/sample-aipod.md), under the sample's vault id.
SAMPLE_AIPOD = REPO / "inventories" / "sample-aipod"


def export(inventory: pathlib.Path, vault_id: str) -> dict:
    result = subprocess.run([str(BIN / "ansible-inventory"), "-i", str(inventory), "--vault-id", vault_id, "--list", "--export"],
                            cwd=REPO, env=dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg")), capture_output=True, text=True,
                            timeout=120, check=True)
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def sample_password(tmp_path_factory) -> pathlib.Path:
    path = tmp_path_factory.mktemp("vault") / "sample-vault-password"
    path.write_bytes(SAMPLE_VAULT_PASSWORD + b"\n")
    return path


@pytest.fixture(scope="module")
def exported(sample_password) -> dict[str, dict]:
    return {"sample": export(SAMPLE, f"sample@{sample_password}"), "lab": export(LAB, LAB_VAULT),
            "sample-aipod": export(SAMPLE_AIPOD, f"sample@{sample_password}")}


def write(directory: pathlib.Path, document: dict, name: str = "inventory.json") -> pathlib.Path:
    path = directory / name
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize("name, inventory", [("sample", SAMPLE), ("lab", LAB), ("sample-aipod", SAMPLE_AIPOD)])
def test_the_exported_model_is_the_model_of_the_files(exported, tmp_path, name, inventory):
    files = load_site(str(inventory), decrypt=make_decryptor(SAMPLE_VAULT_PASSWORD, LAB_VAULT_PASSWORD))
    # The lab's CA and kubeconfig exist once the lab runs; the files check is another test's.
    report = validate_site(str(write(tmp_path, exported[name])), files_dir=str(inventory), check_files=name != "lab")
    assert report.site.model == files.model
    assert report.site.groups["dgx"] == files.groups["dgx"]
    assert not report.errors, report.text()


def test_secrets_that_arrive_decrypted_are_a_warning_naming_the_fix(exported, tmp_path):
    report = validate_site(str(write(tmp_path, exported["sample"])), files_dir=str(SAMPLE))
    secrets = [finding for finding in report.warnings if finding.rule == "secret"]
    assert secrets and all("inventory.json (group all)" in str(finding) and "__ansible_vault" in finding.hint for finding in secrets)


def test_inline_vault_values_stay_encrypted_and_count_as_secrets(exported, tmp_path):
    document = copy.deepcopy(exported["sample"])
    variables = document["all"]["vars"]
    for name in [key for key in variables if key.startswith("vault_")]:
        variables[name] = {"__ansible_vault": "$ANSIBLE_VAULT;1.1;AES256\n6162636465"}
    report = validate_site(str(write(tmp_path, document)), files_dir=str(SAMPLE))
    assert not [finding for finding in report.findings if finding.rule == "secret"], report.text()


def test_errors_name_the_group_or_host_and_the_key(exported, tmp_path):
    document = copy.deepcopy(exported["sample"])
    del document["all"]["vars"]["networks"]
    document["_meta"]["hostvars"]["dgx01"]["dgx"]["gpus"]["count"] = "eight"
    document["_meta"]["hostvars"]["dgx02"]["dgx_typo"] = 1
    text = validate_site(str(write(tmp_path, document)), files_dir=str(SAMPLE)).text()
    assert "inventory.json (group all): networks: the site model has no 'networks'" in text
    assert "inventory.json (host dgx01): dgx01: dgx.gpus.count" in text
    assert "inventory.json (host dgx02): dgx_typo: unknown top-level key 'dgx_typo' in host_vars/dgx02" in text


def test_an_inventory_script_is_read_like_awx_runs_it(exported, tmp_path):
    report = validate_site(str(awx_script(tmp_path, exported["sample"])), files_dir=str(SAMPLE))
    assert not report.errors, report.text()
    assert report.site.model["pod"]["name"] == "aipod-sample"


def test_a_directory_holding_only_the_script_is_read_as_the_script(exported, tmp_path):
    """ansible-runner (AWX's job) passes -i /runner/inventory, the directory of the inventory script."""
    job_inventory = tmp_path / "inventory"
    job_inventory.mkdir()
    script = job_inventory / "hosts"
    script.write_text("#!/bin/sh\ncat <<'END'\n" + json.dumps(exported["sample"]) + "\nEND\n")
    script.chmod(0o755)
    report = validate_site(str(job_inventory), files_dir=str(SAMPLE))
    assert not report.errors, report.text()
    assert report.site.source_kind != "directory" and report.site.model["pod"]["name"] == "aipod-sample"
    (job_inventory / "notes.txt").write_text("not an inventory\n")
    assert "the site model has no 'pod'" in validate_site(str(job_inventory), files_dir=str(SAMPLE)).text()


def test_relative_files_resolve_against_the_site_files_directory(exported, tmp_path):
    inventory = write(tmp_path, exported["sample"])
    missing = validate_site(str(inventory)).text()
    assert f"CA file files/ontap-ca.pem does not exist (looked at {tmp_path / 'files' / 'ontap-ca.pem'})" in missing
    assert "CA file" not in validate_site(str(inventory), files_dir=str(SAMPLE)).text()


def test_what_is_not_an_inventory_is_named(tmp_path):
    text = (tmp_path / "hosts.ini")
    text.write_text("[dgx]\ndgx01\n")
    report = validate_site(str(text))
    assert [finding.rule for finding in report.errors] == ["inventory-layout"]
    assert "is not a JSON inventory" in report.text() and "ansible-inventory --list --export" in report.text()


def awx_script(directory: pathlib.Path, document: dict) -> pathlib.Path:
    """The inventory as AWX gives it to a job: an executable that prints the export."""
    data = write(directory, document, "export.json")
    script = directory / "hosts"
    script.write_text(f"#!/bin/sh\n[ \"$1\" = --list ] && exec cat '{data}'\necho '{{}}'\n")
    script.chmod(0o755)
    return script


# What the execution environment sets for AWX's jobs, and what a shell opts in with (ansible.cfg leaves it off).
WITH_SCRIPTS = "ansible.builtin.host_list,ansible.builtin.script,ansible.builtin.yaml,ansible.builtin.ini"


def run_validate(inventory: pathlib.Path, password: pathlib.Path, scripts: bool = True) -> subprocess.CompletedProcess:
    environment = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), AIPOD_SITE_FILES_DIR=str(SAMPLE))
    environment.pop("ANSIBLE_INVENTORY_ENABLED", None)
    if scripts:
        environment["ANSIBLE_INVENTORY_ENABLED"] = WITH_SCRIPTS
    return subprocess.run([str(BIN / "ansible-playbook"), "-i", str(inventory), "--vault-id", f"sample@{password}", "playbooks/validate.yml"],
                          cwd=REPO, env=environment, capture_output=True, text=True, timeout=300, check=False)


def test_validate_playbook_accepts_the_inventory_script(exported, tmp_path, sample_password):
    """ansible-playbook -i <AWX-style script> playbooks/validate.yml, the files directory from the environment."""
    result = run_validate(awx_script(tmp_path, exported["sample"]), sample_password)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "the site model has no" not in result.stdout


def test_validate_playbook_refuses_a_json_file_ansible_reads_no_hosts_from(exported, tmp_path, sample_password):
    """Ansible parses the --list JSON only from a script; from a plain file it gets no hosts, and the run would do nothing."""
    result = run_validate(write(tmp_path, exported["sample"]), sample_password)
    assert result.returncode != 0
    assert "Ansible read 0 host(s) from this inventory, the document lists 10" in result.stdout, result.stdout[-3000:]


def marked_script(directory: pathlib.Path, document: dict, marker: pathlib.Path) -> pathlib.Path:
    """An inventory script that leaves a marker file each time it runs."""
    script = awx_script(directory, document)
    script.write_text(script.read_text().replace("#!/bin/sh\n", f"#!/bin/sh\ntouch '{marker}'\n", 1))
    return script


def test_without_the_opt_in_no_inventory_script_runs(exported, tmp_path, sample_password):
    """ansible.cfg leaves the script plugin off: neither Ansible nor the validator runs the script."""
    marker = tmp_path / "the-script-ran"
    result = run_validate(marked_script(tmp_path, exported["sample"], marker), sample_password, scripts=False)
    assert result.returncode != 0
    assert "is an executable inventory script, and this run's Ansible runs none" in result.stdout, result.stdout[-3000:]
    assert not marker.exists()


def test_an_executable_in_an_inventory_directory_is_not_run(tmp_path, sample_password):
    """-i <directory>: Ansible tries every file in it; an executable one is no inventory script here."""
    inventory = tmp_path / "site"
    shutil.copytree(SAMPLE, inventory)
    marker = tmp_path / "the-file-ran"
    hook = inventory / "hook"
    hook.write_text(f"#!/bin/sh\ntouch '{marker}'\necho '{{}}'\n")
    hook.chmod(0o755)
    result = run_validate(inventory, sample_password, scripts=False)
    assert not marker.exists(), result.stdout[-3000:]
