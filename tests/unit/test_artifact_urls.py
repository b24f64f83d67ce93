"""What the run downloads and executes travels over TLS: http:// (and ftp://) artifact URLs in the
model and in the inventory's role variables are refused, unless pod.security.allow_plain_http_artifacts
says the site mirrors them without TLS."""
from __future__ import annotations

import shutil

import pytest
from corpus import apply_edit
from project_paths import SAMPLE

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.rules.artifacts import plain_scheme, shown
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site

HTTP_RELEASE = dict(file="group_vars/all/kubernetes.yml", set=["kubernetes", "deepops", "release_url"],
                    value="http://mirror.example.com/deepops/26.07.tar.gz")
ALLOW = dict(file="group_vars/all/pod.yml", set=["pod", "security", "allow_plain_http_artifacts"], value=True)


def site_with(tmp_path, decrypt, *edits):
    inventory = tmp_path / "site"
    shutil.copytree(SAMPLE, inventory)
    for edit in edits:
        apply_edit(inventory, edit)
    return validate_site(str(inventory), decrypt=decrypt, check_files=False)


def url_findings(report, severity="error"):
    return [f for f in report.findings if f.rule == "artifact-url" and f.severity == severity]


@pytest.mark.parametrize(("url", "scheme"), [
    ("http://m/x", "http"), ("HTTP://m/x", "http"), (" http://m/x", "http"), ("ftp://m/x", "ftp"),
    ("https://m/x", None), ("file:///srv/x.tar.gz", None), ("oci://m/charts", None), ("mirror:5000/trident", None), (7, None),
])
def test_plain_schemes(url, scheme):
    assert plain_scheme(url) == scheme


@pytest.mark.parametrize("registry", ["http://mirror.example.com:5000/trident", "https://mirror.example.com/trident", "mirror example/x"])
def test_an_image_registry_is_a_host_and_path_without_a_scheme(tmp_path, decrypt, registry):
    report = site_with(tmp_path, decrypt, dict(file="group_vars/all/trident.yml", set=["trident", "install", "image_registry"], value=registry))
    [error] = report.errors
    assert error.rule == "schema" and error.key_path() == "trident.install.image_registry" and error.location.line


@pytest.mark.parametrize(("url", "problem"), [("https://", "names no host"), ("https://mirror.example.com/a b", "white space"),
                                              ("file://relative/x.tgz", "without an absolute path")])
def test_a_model_url_that_is_no_url_is_refused(tmp_path, decrypt, url, problem):
    report = site_with(tmp_path, decrypt, dict(HTTP_RELEASE, value=url))
    [error] = url_findings(report)
    assert problem in error.message and error.location.line


@pytest.mark.parametrize(("url", "seen"), [
    ("http://deploy:s3cret@mirror.example.com:8080/x.tgz", "http://<user part not shown>@mirror.example.com:8080/x.tgz"),
    ("https://ghp_T0ken@mirror.example.com/x.tgz", "https://<user part not shown>@mirror.example.com/x.tgz"),
    ("https://u:p#w@mirror.example.com/x.tgz", "https://<user part not shown>@mirror.example.com/x.tgz"),
    ("https://mirror.example.com/x.tgz", "https://mirror.example.com/x.tgz"),
])
def test_no_part_of_a_user_part_is_ever_shown(url, seen):
    assert shown(url) == seen


CREDENTIAL_URLS = ["https://deploy:s3cret@mirror.example.com/deepops.tgz", "https://ghp_T0ken@mirror.example.com/deepops.tgz"]


@pytest.mark.parametrize("url", CREDENTIAL_URLS)
def test_a_model_url_with_a_credential_is_refused_unshown(tmp_path, decrypt, url):
    report = site_with(tmp_path, decrypt, dict(HTTP_RELEASE, value=url))
    [error] = [f for f in report.errors if f.rule == "secret"]
    assert error.key_path() == "kubernetes.deepops.release_url" and error.location.line
    assert "user part (a token or a password, not shown)" in error.message and "vault" in error.hint
    assert "s3cret" not in report.text() and "ghp_T0ken" not in report.text() and "deploy" not in report.text()


@pytest.mark.parametrize("url", CREDENTIAL_URLS)
def test_a_role_variable_url_with_a_credential_is_refused_unshown(tmp_path, decrypt, url):
    report = site_with(tmp_path, decrypt, dict(file="group_vars/all/mirrors.yml", write=f"---\ndeepops_cluster_pip_index_url: {url}\n"))
    [error] = [f for f in report.errors if f.rule == "secret"]
    assert error.key_path() == "deepops_cluster_pip_index_url" and error.location.line == 2
    assert "s3cret" not in report.text() and "ghp_T0ken" not in report.text()


@pytest.mark.parametrize("url", ["https://u:p#w@mirror.example.com/deepops.tgz", "https://u:p?w@mirror.example.com/deepops.tgz",
                                 "https://a@b@mirror.example.com/deepops.tgz"])
def test_a_url_parsers_read_differently_is_refused(tmp_path, decrypt, url):
    """urllib (and RFC 3986) read 'https://u:p#w@host' as host 'u' with a fragment; a person reads host."""
    report = site_with(tmp_path, decrypt, dict(HTTP_RELEASE, value=url))
    [error] = url_findings(report)
    assert "read differently by URL parsers" in error.message and "p#w" not in report.text()


@pytest.mark.parametrize(("edit", "key"), [
    (HTTP_RELEASE, "kubernetes.deepops.release_url"),
    (dict(file="group_vars/all/trident.yml", set=["trident", "install", "chart_repo"], value="http://charts.example.com/trident"),
     "trident.install.chart_repo"),
    (dict(file="group_vars/all/trident.yml", set=["trident", "install"],
          value={"method": "operator_manifests", "manifests_url": "http://mirror.example.com/trident/"}), "trident.install.manifests_url"),
    (dict(file="group_vars/all/mirrors.yml", write="---\ntrident_snapshot_crds_url: http://mirror.example.com/crds.yml\n"),
     "trident_snapshot_crds_url"),
    (dict(file="group_vars/all/mirrors.yml", write="---\ndeepops_cluster_pip_index_url: ftp://mirror.example.com/pypi\n"),
     "deepops_cluster_pip_index_url"),
    (dict(file="group_vars/all/mirrors.yml",
          write="---\ndeepops_cluster_config_vars:\n  http_proxy: http://proxy:3128\n  files_repo: http://mirror.example.com/k8s\n"),
     "deepops_cluster_config_vars.files_repo"),
])
def test_a_plain_http_artifact_url_is_refused_with_its_line(tmp_path, decrypt, edit, key):
    report = site_with(tmp_path, decrypt, edit)
    [error] = url_findings(report)
    assert error.key_path() == key and error.location.line is not None
    assert "pod.security.allow_plain_http_artifacts" in error.hint


def test_the_site_switch_allows_a_mirror_without_tls_and_asks_for_a_checksum(tmp_path, decrypt):
    report = site_with(tmp_path, decrypt, HTTP_RELEASE, ALLOW)
    assert url_findings(report) == [] and report.ok
    [warning] = url_findings(report, "warning")
    assert warning.key_path() == "kubernetes.deepops.release_url" and "deepops_cluster_release_checksum" in warning.hint


def test_with_a_checksum_the_allowed_mirror_raises_nothing(tmp_path, decrypt):
    checksum = dict(file="group_vars/all/mirrors.yml", write="---\ndeepops_cluster_release_checksum: sha256:" + "0" * 64 + "\n")
    report = site_with(tmp_path, decrypt, HTTP_RELEASE, ALLOW, checksum)
    assert url_findings(report, "error") == url_findings(report, "warning") == []


def test_proxies_and_tls_urls_are_not_artifacts(tmp_path, decrypt):
    mirrors = dict(file="group_vars/all/mirrors.yml", write=(
        "---\ndeepops_cluster_kubespray_url: https://mirror.example.com/kubespray.tar.gz\n"
        "deepops_cluster_config_vars:\n  http_proxy: http://proxy.example.com:3128\n  files_repo: https://mirror.example.com/k8s\n"))
    assert url_findings(site_with(tmp_path, decrypt, mirrors)) == []
