"""Secrets are typed and never printed: a vault secret is non-empty text (YAML reads 01234567 as the
integer 342391: refused, with the fix to quote it, and neither form shown), and a connection password
in a plain vars file is refused unless it only names a vault secret."""
from __future__ import annotations

import re

import pytest
from ansible.parsing.vault import VaultLib, VaultSecret
from project_paths import SAMPLE_VAULT_PASSWORD

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import is_secret_name, secret_type_problem
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site

LIB = VaultLib([("sample", VaultSecret(SAMPLE_VAULT_PASSWORD))])


def with_admin_password(inventory, written: str) -> None:
    path = inventory / "group_vars" / "all" / "vault.yml"
    text = LIB.decrypt(path.read_bytes()).decode()
    text = re.sub(r"(?m)^vault_ontap_admin_password:.*$", f"vault_ontap_admin_password: {written}", text)
    path.write_bytes(LIB.encrypt(text.encode(), VaultSecret(SAMPLE_VAULT_PASSWORD), "sample"))


def secret_findings(report) -> list:
    return [f for f in report.findings if f.rule == "secret"]


@pytest.mark.parametrize(("written", "problem", "never_shown"), [
    ("01234567", "is written as a number (not shown)", ("01234567", "342391")),
    ("12345678", "is written as a number (not shown)", ("12345678",)),
    ("0x1F2E3D", "is written as a number (not shown)", ("0x1F2E3D", "2043453")),
    ('""', "is empty", ()),
    ("['Sample-1', 'Sample-2']", "is a list, not text", ("Sample-1",)),
    ("true", "is a bool, not text", ()),
    ("", "is a null, not text", ()),
])
def test_a_vault_secret_that_is_not_text_is_refused_unshown(sample_copy, decrypt, written, problem, never_shown):
    with_admin_password(sample_copy, written)
    report = validate_site(str(sample_copy), decrypt=decrypt)
    (finding,) = secret_findings(report)
    assert finding.severity == "error" and finding.path == ("vault_ontap_admin_password",)
    assert problem in finding.message and str(finding.location) .endswith("group_vars/all/vault.yml:4")
    assert 'quoted text: vault_ontap_admin_password: "..."' in finding.hint
    assert not [f for f in report.findings if f.rule == "integer-form"]
    for text in never_shown:
        assert text not in report.text()


def test_a_quoted_password_passes(sample_copy, decrypt):
    with_admin_password(sample_copy, '"01234567"')
    assert secret_findings(validate_site(str(sample_copy), decrypt=decrypt)) == []


@pytest.mark.parametrize(("where", "line"), [
    ("group_vars/switches.yml", "ansible_password: Switch-Admin-Pw1"),
    ("host_vars/dgx01.yml", "ansible_become_password: hunter2"),
    ("group_vars/ontap.yml", "ansible_httpapi_password: '{{ vault_ontap_admin_password }}x'"),
])
def test_a_connection_password_in_plain_text_is_refused_unshown(sample_copy, decrypt, where, line):
    path = sample_copy / where
    text = path.read_text() if path.exists() else "---\n"
    text = re.sub(r"(?m)^ansible_password:.*\n", "", text)
    path.write_text(text.rstrip("\n") + "\n" + line + "\n")
    report = validate_site(str(sample_copy), decrypt=decrypt)
    (finding,) = secret_findings(report)
    key, value = line.split(": ", 1)
    assert finding.path == (key,) and f"{where}:" in str(finding.location)
    assert "holds a password in plain text (not shown)" in finding.message and "AWX machine credential" in finding.hint
    assert value.strip("'") not in report.text()


def test_a_connection_password_that_names_a_vault_secret_passes(sample_copy, decrypt):
    assert 'ansible_password: "{{ vault_switch_admin_password }}"' in (sample_copy / "group_vars" / "switches.yml").read_text()
    assert secret_findings(validate_site(str(sample_copy), decrypt=decrypt)) == []


def test_secret_names_and_types():
    assert is_secret_name("vault_anything") and is_secret_name("ansible_become_pass") and not is_secret_name("ansible_user")
    assert secret_type_problem("Sample-Pw-1") is None and secret_type_problem("   ") == "is empty"

