"""A slice of a sliced job (AWX job slicing) validates the whole model and runs on its own hosts.

AWX gives each slice the inventory's hosts sorted by name, every N-th from the slice's number
(awx/main/models/inventory.py, get_sliced_hosts), with every group and its variables. The model is
read from the project's files in every slice; Ansible's hosts must be a share of it.
"""
from __future__ import annotations

import copy
import pathlib

import pytest
import yaml
from project_paths import REPO, SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.filter.aipod import aipod_shared_layer_hosts
from ansible_collections.ontap_ai.pod.plugins.filter.aipod_compute import aipod_dgx_in_service
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.yamlload import VaultValue
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.resolved import AnsibleView, model_keys
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.slices import OTHER_SLICES_GROUP, vaulted_host_keys
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site

DECRYPT = make_decryptor(SAMPLE_VAULT_PASSWORD)
LAYERS = REPO / "ansible_collections/ontap_ai/pod/playbooks/layers"


def awx_slice(hosts: list[str], number: int, count: int) -> list[str]:
    """The hosts AWX gives slice `number` of `count`: sorted by name, every count-th from number - 1."""
    return sorted(hosts)[number - 1::count]


@pytest.fixture(scope="module")
def sample():
    return load_site(str(SAMPLE), decrypt=DECRYPT)


def slice_view(site, hosts: list[str]) -> AnsibleView:
    """What Ansible resolves from a slice's inventory: its hosts, their model keys, every group."""
    values = {}
    for host in hosts:
        values[host] = {key: copy.deepcopy(site.model[key]) for key in model_keys() if key in site.model}
        values[host].update({key: copy.deepcopy(value) for key, value in site.model["hosts"][host].items() if key != "groups"})
    groups = {group: [host for host in members if host in hosts] for group, members in site.groups.items()}
    return AnsibleView(hosts=list(hosts), values=values, groups=groups)


def validate_slice(site, hosts, group="1842", files_dir=str(SAMPLE), sliceable=True):
    return validate_site(str(SAMPLE / "hosts.yml"), decrypt=DECRYPT, files_dir=files_dir,
                         ansible_view=slice_view(site, hosts), slice_group=group, sliceable=sliceable)


@pytest.mark.parametrize("number", [1, 2, 3])
def test_every_slice_reads_the_whole_model_and_runs_on_its_own_hosts(sample, number):
    hosts = awx_slice(sample.groups["all"], number, 3)
    report = validate_slice(sample, hosts)
    assert report.ok, report.text()
    whole = validate_site(str(SAMPLE), decrypt=DECRYPT)
    assert report.summary() == whole.summary()
    assert report.job_slice["group"] == "1842"
    assert sorted(report.job_slice["hosts"]) == sorted(hosts)
    others = report.job_slice["others"]
    assert sorted(others) == sorted(set(sample.groups["all"]) - set(hosts))
    for host, data in others.items():
        assert data["groups"] == sorted(sample.host_groups[host] - {"all"})
        assert {key for key in data if key != "groups"} == {key for key in sample.model["hosts"][host] if key != "groups"}


def test_a_slice_with_a_host_the_model_lacks_is_refused(sample):
    hosts = awx_slice(sample.groups["all"], 1, 2)
    view = slice_view(sample, hosts)
    view.hosts.append("dgx99")
    view.values["dgx99"] = {}
    report = validate_site(str(SAMPLE / "hosts.yml"), decrypt=DECRYPT, files_dir=str(SAMPLE), ansible_view=view,
                           slice_group="1842", sliceable=True)
    assert not report.ok
    assert any(finding.rule == "job-slice" and "'dgx99'" in str(finding) for finding in report.errors), report.text()


def test_a_slice_whose_groups_differ_from_the_model_is_refused(sample):
    hosts = awx_slice(sample.groups["all"], 1, 2)
    view = slice_view(sample, hosts)
    dgx = next(host for host in hosts if host in sample.groups["kube_node"])
    view.groups["kube_node"].remove(dgx)
    report = validate_site(str(SAMPLE / "hosts.yml"), decrypt=DECRYPT, files_dir=str(SAMPLE), ansible_view=view,
                           slice_group="1842", sliceable=True)
    assert any("group 'kube_node'" in str(finding) and dgx in str(finding) for finding in report.errors), report.text()


def test_a_slice_without_the_projects_inventory_directory_is_refused(sample):
    report = validate_slice(sample, awx_slice(sample.groups["all"], 1, 2), files_dir=None)
    assert not report.ok and "aipod_site_files_dir" in report.text() and report.job_slice is None


def test_a_secret_inside_a_hosts_model_is_refused_rather_than_dropped():
    site = load_site(str(SAMPLE), decrypt=DECRYPT)
    dgx = site.groups["dgx"][0]
    site.model["hosts"][dgx]["dgx"]["bmc_password"] = VaultValue("$ANSIBLE_VAULT;1.1;AES256\n00")
    findings = vaulted_host_keys(site)
    assert [finding.path for finding in findings] == [("hosts", dgx, "dgx")]


def test_a_slice_of_a_playbook_that_cannot_run_sliced_is_refused(sample):
    report = validate_slice(sample, awx_slice(sample.groups["all"], 1, 2), sliceable=False)
    assert any("cannot run as a slice" in str(finding) for finding in report.errors), report.text()


@pytest.mark.parametrize("group", ["../x", "a b", "-1", "x" * 65])
def test_a_slice_group_that_is_not_a_plain_id_is_refused(sample, group):
    report = validate_slice(sample, awx_slice(sample.groups["all"], 1, 2), group=group)
    assert any(finding.rule == "job-slice" for finding in report.errors), report.text()


def test_a_run_that_is_not_sliced_keeps_every_host_required(sample):
    hosts = awx_slice(sample.groups["all"], 1, 2)
    report = validate_site(str(SAMPLE), decrypt=DECRYPT, ansible_view=slice_view(sample, hosts))
    assert any("which Ansible did not read" in str(finding) for finding in report.errors)


def test_the_shared_layers_are_skipped_in_a_slice_and_run_otherwise():
    assert aipod_shared_layer_hosts("switches", "1842") == []
    assert aipod_shared_layer_hosts("switches", 1842) == []  # "{{ awx_workflow_job_id }}" renders an integer
    assert aipod_shared_layer_hosts("switches", "") == "switches"
    assert aipod_shared_layer_hosts(["localhost"]) == ["localhost"]


def test_a_slice_runs_the_per_dgx_plays_on_its_own_dgx_only():
    groups = {"all": ["dgx01", "dgx02", "dgx03"], "dgx": ["dgx01", "dgx02", "dgx03"], OTHER_SLICES_GROUP: ["dgx02"]}
    assert aipod_dgx_in_service(groups) == ["dgx01", "dgx03"]


SHARED_PLAYS = {
    "switches.yml": ["Configure the switches"],
    "storage.yml": ["Storage - configure the ONTAP cluster from the site model"],
    "kubernetes.yml": ["Kubernetes cluster"],
    "trident.yml": ["Trident"],
    "release.yml": ["Return the switch ports of decommissioned hosts to the unused configuration"],
    "verify.yml": ["Verify - switches", "Verify - storage", "Verify - Kubernetes and Trident"],
}


@pytest.mark.parametrize("layer", sorted(SHARED_PLAYS))
def test_every_play_of_a_shared_layer_takes_its_hosts_through_the_slice_filter(layer):
    plays = yaml.safe_load(pathlib.Path(LAYERS / layer).read_text())
    gated = {play["name"] for play in plays if "aipod_shared_layer_hosts(aipod_slice_group" in str(play["hosts"])}
    assert gated == set(SHARED_PLAYS[layer])
    per_dgx = [play for play in plays if play["name"] not in gated]
    assert all("aipod_dgx_in_service" in str(play["hosts"]) or play["hosts"] == "localhost" for play in per_dgx)
