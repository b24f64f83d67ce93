"""Validation decrypts every vaulted value, in files and inline, with the run's vault ids.

A value or file that does not decrypt is refused with its file, line and key; no finding, output
or report holds its ciphertext or its plaintext. A playbook run refuses an undecryptable vault
file before any play (Ansible itself would stop on it without naming it) and an undecryptable
inline value in its validation play, before anything is contacted.
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest
from ansible.parsing.vault import VaultLib, VaultSecret
from project_paths import REPO, SAMPLE_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site

BIN = pathlib.Path(sys.executable).parent
SECRET = "s3cret-never-shown"
SAMPLE_DECRYPT = make_decryptor(SAMPLE_VAULT_PASSWORD)


def encrypted(plaintext: str, password: bytes, vault_id: str) -> str:
    return VaultLib().encrypt(plaintext, VaultSecret(password), vault_id=vault_id).decode()


def inline(plaintext: str, password: bytes, vault_id: str) -> str:
    body = "\n".join("  " + line for line in encrypted(plaintext, password, vault_id).splitlines())
    return f"!vault |\n{body}\n"


def vault_findings(inventory: pathlib.Path, decrypt=SAMPLE_DECRYPT) -> list:
    return [finding for finding in validate_site(str(inventory), decrypt=decrypt, check_files=False).errors
            if finding.rule == "vault"]


def add_inline_secret(inventory: pathlib.Path, password: bytes, vault_id: str) -> None:
    with open(inventory / "group_vars" / "switches.yml", "a", encoding="utf-8") as handle:
        handle.write("vault_switch_extra: " + inline(SECRET, password, vault_id))


def test_the_sample_decrypts_with_its_vault_id(sample_copy):
    add_inline_secret(sample_copy, SAMPLE_VAULT_PASSWORD, "sample")
    assert vault_findings(sample_copy) == []


def test_an_inline_value_for_another_vault_id_is_refused_with_file_line_and_key(sample_copy):
    add_inline_secret(sample_copy, b"another-password", "netbox")
    findings = vault_findings(sample_copy)
    assert len(findings) == 1, findings
    text = str(findings[0])
    lines = (sample_copy / "group_vars" / "switches.yml").read_text().splitlines()
    line = next(number for number, text in enumerate(lines, 1) if text.startswith("vault_switch_extra:"))
    assert f"switches.yml:{line}" in text and "vault_switch_extra" in text and "vault id 'netbox'" in text, text
    assert "--vault-id netbox@" in findings[0].hint
    assert SECRET not in text and "$ANSIBLE_VAULT" not in text and "6162" not in text


def test_with_no_vault_secret_at_all_every_vaulted_value_is_refused(sample_copy):
    add_inline_secret(sample_copy, SAMPLE_VAULT_PASSWORD, "sample")
    findings = vault_findings(sample_copy, decrypt=make_decryptor())
    assert {finding.location.file.split("/")[-1] for finding in findings} == {"vault.yml", "switches.yml"}, findings


def test_a_vault_file_under_another_password_is_named(sample_copy):
    (sample_copy / "group_vars" / "all" / "vault.yml").write_text(encrypted("vault_x: 1\n", b"wrong", "sample"))
    findings = vault_findings(sample_copy)
    assert len(findings) == 1 and findings[0].location.file.endswith("group_vars/all/vault.yml"), findings
    assert "cannot decrypt this vault file" in str(findings[0])


def test_a_damaged_vault_file_is_named(sample_copy):
    path = sample_copy / "group_vars" / "all" / "vault.yml"
    lines = path.read_text().splitlines()
    lines[3] = "0" * len(lines[3])  # one line of the ciphertext overwritten: the HMAC no longer matches
    path.write_text("\n".join(lines) + "\n")
    findings = vault_findings(sample_copy)
    assert len(findings) == 1 and findings[0].location.file.endswith("group_vars/all/vault.yml"), findings
    assert "restore it from version control" in findings[0].hint


def test_an_exported_inline_value_is_checked_and_named_by_group(tmp_path):
    document = {"all": {"children": ["switches"]},
                "switches": {"hosts": ["sw-a"], "vars": {"vault_switch_extra": {"__ansible_vault": encrypted(SECRET, b"x", "netbox")}}},
                "_meta": {"hostvars": {"sw-a": {}}}}
    path = tmp_path / "inventory.json"
    path.write_text(json.dumps(document))
    findings = [finding for finding in validate_site(str(path), decrypt=SAMPLE_DECRYPT, check_files=False).errors
                if finding.rule == "vault"]
    assert len(findings) == 1 and "(group switches)" in str(findings[0]) and "vault_switch_extra" in str(findings[0])


def run(inventory: pathlib.Path, password_file: pathlib.Path, playbook: str = "playbooks/validate.yml"):
    environment = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
                       AIPOD_RUN_LOCK_DIR=str(inventory.parent / "locks"))
    return subprocess.run([str(BIN / "ansible-playbook"), "-i", str(inventory / "hosts.yml"), "--vault-id",
                           f"sample@{password_file}", playbook], cwd=REPO, env=environment, capture_output=True,
                          text=True, timeout=300, check=False)


@pytest.fixture
def password_file(tmp_path) -> pathlib.Path:
    path = tmp_path / "sample-vault-password"
    path.write_bytes(SAMPLE_VAULT_PASSWORD + b"\n")
    return path


def test_a_run_refuses_an_inline_value_it_cannot_decrypt_in_validation(sample_copy, password_file):
    add_inline_secret(sample_copy, b"another-password", "netbox")
    result = run(sample_copy, password_file)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-3000:]
    assert "vault_switch_extra" in output and "vault id 'netbox'" in output, output[-3000:]
    report = re.search(r"run report: (\S+)/report\.md", output)
    assert report, output[-2000:]
    assert SECRET not in output and SECRET not in (REPO / report.group(1) / "report.json").read_text()


def test_a_run_refuses_a_vault_file_it_cannot_decrypt_before_any_play(sample_copy, password_file):
    (sample_copy / "group_vars" / "all" / "vault.yml").write_text(encrypted("vault_x: 1\n", b"wrong", "sample"))
    result = run(sample_copy, password_file)
    output = result.stdout + result.stderr
    assert result.returncode == 2, output[-3000:]
    assert "group_vars/all/vault.yml" in output and "cannot decrypt this vault file" in output, output[-3000:]
    assert "PLAY [" not in output, output[-3000:]
