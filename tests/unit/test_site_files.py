"""Files the model names (ontap.ca_file, kubernetes.existing.kubeconfig) lie inside the inventory, or
the site's files directory, unless pod.security.allow_files_outside_inventory says otherwise; the
validator reads no other file, and describes a file that is not what it should be without quoting it."""
from __future__ import annotations

import os
import pathlib
import shutil
import sys

import pytest
from corpus import apply_edit
from project_paths import LAB, REPO, SAMPLE

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site

SECRET = "hunter2-do-not-print"
ALLOW = dict(file="group_vars/all/pod.yml", set=["pod", "security", "allow_files_outside_inventory"], value=True)
EXISTING = dict(file="group_vars/all/kubernetes.yml", set=["kubernetes"],
                value={"deployment": "existing", "existing": {"kubeconfig": "files/kubeconfig"}})
KUBECONFIG = ("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: 'https://10.61.218.40:6443'}\n"
              "contexts: []\nusers: []\n")


@pytest.fixture
def site(tmp_path):
    inventory = tmp_path / "site"
    shutil.copytree(SAMPLE, inventory)
    return inventory


def report_of(inventory, decrypt, *edits, **options):
    for edit in edits:
        apply_edit(inventory, edit)
    return validate_site(str(inventory), decrypt=decrypt, **options)


def file_findings(report, severity="error"):
    return [f for f in report.findings if f.rule == "file" and f.severity == severity]


def ca_file(value):
    return dict(file="group_vars/all/ontap.yml", set=["ontap", "ca_file"], value=value)


@pytest.mark.parametrize("value", ["../outside.pem", "files/../../outside.pem", "ABSOLUTE"])
def test_a_file_outside_the_inventory_is_refused_and_not_read(site, decrypt, value):
    outside = site.parent / "outside.pem"
    outside.write_text(SECRET)
    value = str(outside) if value == "ABSOLUTE" else value
    for check_files in (True, False):
        report = report_of(site, decrypt, ca_file(value), check_files=check_files)
        [error] = file_findings(report)
        assert error.key_path() == "ontap.ca_file" and error.location.line
        assert "allow_files_outside_inventory" in error.hint
        assert SECRET not in report.text() and "does not exist" not in error.message


def test_a_symbolic_link_leading_out_is_refused(site, decrypt):
    (site.parent / "outside.pem").write_text(SECRET)
    (site / "files" / "link.pem").symlink_to(site.parent / "outside.pem")
    [error] = file_findings(report_of(site, decrypt, ca_file("files/link.pem")))
    assert "symbolic link" in error.message


def test_the_switch_allows_files_outside_and_they_are_still_checked_unquoted(site, decrypt):
    (site.parent / "outside.pem").write_text(SECRET)
    report = report_of(site, decrypt, ALLOW, ca_file("../outside.pem"))
    [error] = file_findings(report)
    assert error.message.endswith("holds no PEM certificate") and SECRET not in report.text()
    shutil.copy(SAMPLE / "files" / "ontap-ca.pem", site.parent / "outside.pem")
    assert file_findings(validate_site(str(site), decrypt=decrypt)) == []


@pytest.mark.parametrize(("content", "message"), [
    (SECRET, "holds no PEM certificate"),
    (f"-----BEGIN PRIVATE KEY-----\n{SECRET}\n-----END PRIVATE KEY-----\n", "holds no PEM certificate (it holds a private key)"),
    (f"-----BEGIN CERTIFICATE-----\n{SECRET}\n-----END CERTIFICATE-----\n", "holds a PEM block that OpenSSL cannot read"),
    ("x" * (1024 * 1024 + 1), "bytes, more than a CA file holds"),
])
def test_a_ca_file_that_is_not_a_certificate_is_described_never_quoted(site, decrypt, content, message):
    (site / "files" / "ontap-ca.pem").write_text(content)
    report = report_of(site, decrypt)
    [error] = file_findings(report)
    assert message in error.message and SECRET not in report.text() and "xxxxxxxx" not in report.text()


def test_a_ca_file_with_a_private_key_beside_the_certificate_is_a_warning(site, decrypt):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    with open(site / "files" / "ontap-ca.pem", "a", encoding="utf-8") as handle:
        handle.write(key)
    report = report_of(site, decrypt)
    assert file_findings(report) == []
    [warning] = file_findings(report, "warning")
    assert "private key" in warning.message and key.splitlines()[1] not in report.text()


@pytest.mark.skipif(sys.platform != "linux", reason="FIFOs")
def test_what_is_not_a_regular_file_is_not_opened(site, decrypt):
    os.mkfifo(site / "files" / "pipe.pem")  # opening it would block the validator
    (site / "files" / "dir.pem").mkdir()
    for name in ("pipe.pem", "dir.pem"):
        [error] = file_findings(report_of(site, decrypt, ca_file(f"files/{name}")))
        assert error.message.endswith("is not a regular file")


@pytest.mark.parametrize(("content", "message"), [
    (f"password: {SECRET}\n", "is not a kubeconfig (no clusters list)"),
    (f"[{SECRET}\n", "is not a YAML kubeconfig"),
    (f"-----BEGIN CERTIFICATE-----\n{SECRET}\n", "is not a kubeconfig (no clusters list)"),
])
def test_a_kubeconfig_that_is_not_one_is_described_never_quoted(site, decrypt, content, message):
    (site / "files" / "kubeconfig").write_text(content)
    report = report_of(site, decrypt, EXISTING)
    [error] = file_findings(report)
    assert error.key_path() == "kubernetes.existing.kubeconfig" and message in error.message
    assert SECRET not in report.text()


def test_a_kubeconfig_inside_the_inventory_passes_and_a_missing_one_is_a_warning(site, decrypt):
    report = report_of(site, decrypt, EXISTING)
    assert file_findings(report) == [] and [w.key_path() for w in file_findings(report, "warning")] == ["kubernetes.existing.kubeconfig"]
    (site / "files" / "kubeconfig").write_text(KUBECONFIG)
    assert file_findings(validate_site(str(site), decrypt=decrypt), "warning") == []


def test_with_a_files_directory_paths_stay_inside_it(site, decrypt):
    files_dir = str(site / "files")
    assert file_findings(report_of(site, decrypt, ca_file("ontap-ca.pem"), files_dir=files_dir)) == []
    [error] = file_findings(report_of(site, decrypt, ca_file("../hosts.yml"), files_dir=files_dir))
    assert "leads outside" in error.message and "hosts:" not in error.message


def test_the_lab_and_the_sites_generated_from_it_keep_validating(tmp_path, decrypt):
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        from scale_site import scale
    finally:
        sys.path.remove(str(REPO / "scripts"))
    # Where benchmarks put them (.lab/inventories/lab-N), their files lead out of the inventory.
    generated = pathlib.Path(scale(str(LAB), 6, str(tmp_path / ".lab" / "inventories" / "lab-6")))
    for inventory in (LAB, generated):
        report = validate_site(str(inventory), decrypt=decrypt, check_files=False)
        assert report.ok, report.text()
    assert "../" in (generated / "group_vars" / "all" / "ontap.yml").read_text()


@pytest.mark.parametrize("value", ["files/ontap-ca.pem\x00x", "x" * 5000, "files", "files/..", ""])
def test_no_path_makes_the_validator_raise_with_or_without_the_switch(site, decrypt, value):
    for edits in ((ca_file(value),), (ALLOW, ca_file(value))):
        report = report_of(site, decrypt, *edits)
        assert report.errors and {f.key_path() for f in report.errors} == {"ontap.ca_file"}, report.text()
