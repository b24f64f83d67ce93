"""The model that is validated is the model that runs.

The validate action hands validate_site what Ansible resolved (its hosts, each host's model keys).
A host or a model key Ansible resolves differently from the inventory's files is refused, whatever
put it there: a second inventory file read with -i <directory>, another -i, extra vars. A host whose
groups set one ansible_* variable differently is refused from the files alone.
"""
from __future__ import annotations

import copy
import os
import pathlib
import subprocess
import sys

import pytest
import yaml
from project_paths import REPO, SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.resolved import (
    AnsibleView,
    ansible_differences,
    competing_connection_settings,
    first_difference,
    model_keys,
    shared_connection_addresses,
)

BIN = pathlib.Path(sys.executable).parent
VALIDATION_CONNECTION = REPO / "ansible_collections/ontap_ai/pod/playbooks/vars/validation_connection.yml"
DECRYPT = make_decryptor(SAMPLE_VAULT_PASSWORD)


def view_of(site) -> AnsibleView:
    """What Ansible resolves when it reads exactly the files."""
    values = {}
    for host in site.groups["all"]:
        values[host] = {key: copy.deepcopy(site.model[key]) for key in model_keys() if key in site.model}
        values[host].update({key: copy.deepcopy(value) for key, value in site.model["hosts"][host].items() if key != "groups"})
    return AnsibleView(hosts=list(site.groups["all"]), values=values)


@pytest.fixture
def sample():
    return load_site(str(SAMPLE), decrypt=DECRYPT)


@pytest.mark.parametrize(("expected", "actual", "where"), [
    ({"a": [1, {"b": 2}]}, {"a": [1, {"b": 2}]}, ""),
    ({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}, "x.a[1].b"),
    ({"a": 1}, {"a": 1, "c": 2}, "x.c is not in the files"),
    ({"a": 1, "c": 2}, {"a": 1}, "x.c is missing"),
    ([1, 2], [1], "x has 1 items, not 2"),
    ({"on": True}, {"on": 1}, "x.on"),
])
def test_where_two_values_first_differ(expected, actual, where):
    assert first_difference(expected, actual, "x") == where


def test_ansible_reading_exactly_the_files_is_no_finding(sample):
    assert ansible_differences(sample, view_of(sample)) == []
    assert competing_connection_settings(sample) == []


def test_a_host_from_another_source_and_a_host_ansible_did_not_read_are_named(sample):
    view = view_of(sample)
    view.hosts = [host for host in view.hosts if host != "dgx04"] + ["dgx09"]
    texts = [str(finding) for finding in ansible_differences(sample, view)]
    assert any("Ansible reads host 'dgx09'" in text and "does not list" in text for text in texts), texts
    assert any("lists host 'dgx04', which Ansible did not read" in text for text in texts), texts


def test_a_global_key_resolved_otherwise_is_located_in_its_file_and_shows_no_value(sample):
    view = view_of(sample)
    for host in ("dgx01", "dgx02"):
        view.values[host]["networks"][2]["mtu"] = 1500
    findings = ansible_differences(sample, view)
    assert len(findings) == 1, findings
    text = str(findings[0])
    assert "networks.yml:" in text and "networks[2].mtu on dgx01, dgx02" in text and "1500" not in text, text


def test_a_host_key_resolved_otherwise_is_located_in_the_hosts_file(sample):
    view = view_of(sample)
    view.values["dgx03"]["dgx"]["mgmt_address"] = "10.0.0.3"
    findings = ansible_differences(sample, view)
    assert len(findings) == 1 and "host_vars/dgx03.yml:" in str(findings[0]) and "dgx.mgmt_address" in str(findings[0])


def write_group_vars(inventory: pathlib.Path, group: str, text: str) -> None:
    (inventory / "group_vars" / f"{group}.yml").write_text("---\n" + text)


def test_groups_that_set_a_connection_variable_differently_are_refused(sample_copy):
    write_group_vars(sample_copy, "kube_node", "ansible_host: 10.9.9.9\n")
    findings = competing_connection_settings(load_site(str(sample_copy), decrypt=DECRYPT))
    hosts = sorted(finding.path[1] for finding in findings)
    assert hosts == ["dgx01", "dgx02", "dgx03", "dgx04"], findings
    text = str(findings[0])
    assert "group_vars/dgx.yml:" in text and "group_vars/kube_node.yml:2" in text and "'ansible_host'" in text, text


def test_host_vars_settle_the_competition(sample_copy):
    write_group_vars(sample_copy, "kube_node", "ansible_host: 10.9.9.9\n")
    for host in ("dgx01", "dgx02", "dgx03", "dgx04"):
        with open(sample_copy / "host_vars" / f"{host}.yml", "a", encoding="utf-8") as handle:
            handle.write("ansible_host: \"{{ dgx.mgmt_address }}\"\n")
    assert competing_connection_settings(load_site(str(sample_copy), decrypt=DECRYPT)) == []


@pytest.fixture
def password_file(tmp_path) -> pathlib.Path:
    path = tmp_path / "sample-vault-password"
    path.write_bytes(SAMPLE_VAULT_PASSWORD + b"\n")
    return path


def validate(source: pathlib.Path, password_file: pathlib.Path, *extra: str) -> str:
    environment = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1")
    result = subprocess.run([str(BIN / "ansible-playbook"), "-i", str(source), "--vault-id", f"sample@{password_file}",
                             *extra, "playbooks/validate.yml"], cwd=REPO, env=environment, capture_output=True, text=True,
                            timeout=300, check=False)
    output = result.stdout + result.stderr
    assert (result.returncode == 0) == ("validate.yml: SUCCESS" in output), output[-3000:]
    return output if result.returncode else ""


def test_a_run_refuses_a_host_that_a_second_inventory_file_adds(sample_copy, password_file):
    (sample_copy / "more.ini").write_text("[dgx]\ndgx09 ansible_host=10.61.218.109\n")
    assert validate(sample_copy / "hosts.yml", password_file) == ""  # the hosts file alone: more.ini is not read
    refused = validate(sample_copy, password_file)
    assert "Ansible reads host 'dgx09'" in refused, refused[-3000:]


def test_a_run_refuses_a_model_key_that_extra_vars_replace(sample_copy, password_file):
    refused = validate(sample_copy / "hosts.yml", password_file, "-e", '{"pod": {"name": "another-pod"}}')
    findings = [line for line in refused.splitlines() if "Ansible resolves 'pod' differently" in line]
    assert findings and not any("another-pod" in line for line in findings), refused[-3000:]


def test_a_run_refuses_settings_that_extra_vars_bring(sample_copy, password_file):
    """Role overrides and connection settings from -e reach devices as the model does: the resolved
    values are judged like the files' (hidden characters, connection grammars), never shown."""
    refused = validate(sample_copy / "hosts.yml", password_file, "-e", '{"switch_nxos_qos_prefix": "AIPOD\\nreload"}',
                       "-e", "ansible_user=ubuntu;reboot", "-e", '{"dgx_node_sysctl": {"net.core.rmem_max": "1\\u202e0"}}')
    assert "'switch_nxos_qos_prefix' holds U+000A LINE FEED" in refused, refused[-3000:]
    assert "'ansible_user' is not a user name" in refused
    assert "'dgx_node_sysctl' holds U+202E RIGHT-TO-LEFT OVERRIDE" in refused
    assert "extra vars (-e)" in refused and "reboot" not in refused        # the values are never shown
    assert validate(sample_copy / "hosts.yml", password_file, "-e", "switch_nxos_qos_prefix=SITE1") == ""


def test_settings_the_files_already_refuse_are_not_reported_twice(sample_copy, password_file):
    (sample_copy / "group_vars" / "all" / "extra.yml").write_text("---\ndgx_node_mount_extra_options: [\"a\\tb\"]\n")
    refused = validate(sample_copy / "hosts.yml", password_file)
    assert "'dgx_node_mount_extra_options' holds U+0009 TAB in a value" in refused and "extra.yml" in refused, refused[-3000:]
    assert "extra vars (-e)" not in refused        # not reported a second time as resolved from elsewhere


def test_a_qos_prefix_nxos_would_not_take_is_refused_before_the_run(sample_copy, password_file):
    refused = validate(sample_copy / "hosts.yml", password_file, "-e", "switch_nxos_qos_prefix=AIPOD.1")
    assert "'switch_nxos_qos_prefix' is not one NX-OS word" in refused, refused[-3000:]


def test_a_template_in_a_setting_is_refused_at_its_line_and_never_runs(sample_copy, password_file, tmp_path):
    """Validation renders nothing: a lookup in a role variable, a connection setting, a host's line in
    hosts.yml, a playbook setting or extra vars is refused where it is written, and its command never runs.
    Ansible renders a local task's connection variables before the task starts: the validate play
    pins them (playbooks/vars/validation_connection.yml), so the inventory's are not rendered there."""
    def runs(name: str) -> str:
        return "\"{{ lookup('ansible.builtin.pipe', 'touch %s') }}\"" % (tmp_path / f"ran-{name}")

    pinned = yaml.safe_load(VALIDATION_CONNECTION.read_text())
    write_group_vars(sample_copy, "switches", f"switch_nxos_qos_prefix: {runs('role')}\n")
    write_group_vars(sample_copy, "all/settings", "".join(f"{name}: {runs(name)}\n" for name in pinned))
    hosts = sample_copy / "hosts.yml"
    hosts.write_text(hosts.read_text().replace("dgx01:", f"dgx01:\n          dgx_node_ring_size: {runs('inline')}", 1))
    refused = validate(hosts, password_file, "-e", f"dgx_node_mount_extra_options={runs('extra')}")
    assert not list(tmp_path.glob("ran-*")), sorted(path.name for path in tmp_path.glob("ran-*"))
    assert "switches.yml:2: " in refused and "'switch_nxos_qos_prefix' holds a Jinja template" in refused, refused[-3000:]
    lines = [line for line in refused.splitlines() if "holds a template with the lookup 'ansible.builtin.pipe'" in line]
    assert {name for name in pinned if name.startswith("ansible_")} <= {
        name for name in pinned if any(f"'{name}' holds" in line for line in lines)}
    assert "'dgx_node_ring_size' holds a Jinja template" in refused and "hosts.yml:" in refused
    assert "'dgx_node_mount_extra_options' holds a Jinja template" in refused and "extra vars (-e)" in refused
    assert "touch" not in refused  # the values are never shown


def test_a_connection_setting_may_name_the_model_and_the_vault(sample_copy, password_file):
    """The narrow allowance: the sample's own templates ({{ dgx.mgmt_address }}, {{ vault_* }}) pass,
    and a template over a variable outside the model does not."""
    assert validate(sample_copy / "hosts.yml", password_file) == ""
    write_group_vars(sample_copy, "dgx", "ansible_host: \"{{ dgx.mgmt_address }}\"\nansible_user: \"{{ pod.name | upper }}\"\n")
    refused = validate(sample_copy / "hosts.yml", password_file)
    assert "'ansible_user' holds a template with the filter 'upper'" in refused, refused[-3000:]


def test_multi_line_kubespray_settings_stay_allowed(sample_copy, password_file):
    """deepops_cluster_config_vars is written out as YAML: a line break in it is data, not a second command."""
    write_group_vars(sample_copy, "all/kubespray", "deepops_cluster_config_vars:\n  containerd_extra_args: |\n"
                                                     "    [plugins]\n      x = 1\n")
    assert validate(sample_copy / "hosts.yml", password_file, "-e",
                    '{"deepops_cluster_config_vars": {"containerd_extra_args": "[plugins]\\n  x = 1\\n"}}') == ""


def test_two_hosts_reached_at_one_address_are_refused():
    view = AnsibleView(hosts=["dgx01", "dgx02", "dgx03", "sw"], values={}, settings={
        "dgx01": {"ansible_host": "10.0.0.1"}, "dgx02": {"ansible_host": "10.0.0.1 "}, "dgx03": {"ansible_host": "10.0.0.3"},
        "sw": {"ansible_host": "10.0.0.1", "ansible_port": 2222}})
    [finding] = shared_connection_addresses(view, "hosts.yml")
    assert finding.path == ("hosts", "dgx02", "ansible_host") and "hosts dgx01, dgx02 are all reached at 10.0.0.1" in finding.message


def test_a_run_refuses_a_host_set_to_another_hosts_address(sample_copy, password_file):
    (sample_copy / "host_vars" / "dgx02.yml").write_text(
        (sample_copy / "host_vars" / "dgx02.yml").read_text() + "ansible_host: 10.61.218.101\n")
    refused = validate(sample_copy / "hosts.yml", password_file)
    assert "hosts dgx01, dgx02 are all reached at 10.61.218.101" in refused, refused[-3000:]


def test_a_group_ansible_holds_otherwise_is_named(sample):
    view = view_of(sample)
    view.groups = {group: list(hosts) for group, hosts in sample.groups.items()}
    assert ansible_differences(sample, view) == []
    view.groups["kube_node"] = []
    [finding] = ansible_differences(sample, view)
    assert finding.path == ("groups", "kube_node") and "it lacks dgx01, dgx02, dgx03, dgx04" in finding.message


def test_a_group_loop_in_the_hosts_file_is_refused_and_ansibles_groups_compared(sample_copy, password_file):
    hosts = sample_copy / "hosts.yml"
    hosts.write_text(hosts.read_text() + "      children:\n        k8s_cluster:\n    k8s_cluster:\n      children:\n        kube_node:\n")
    refused = validate(hosts, password_file)
    assert "group 'k8s_cluster' is its own descendant (k8s_cluster -> kube_node -> k8s_cluster)" in refused, refused[-3000:]
    assert "Ansible's group 'k8s_cluster' is not the one" in refused
