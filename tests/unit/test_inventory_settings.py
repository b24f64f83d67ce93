"""Issue 24: what the inventory sets besides the model reaches sinks too. Role overrides and
ansible_* settings hold no hidden character and connection settings are one token; a host that
hosts.yml lists twice gets one value per variable; every inventory source Ansible reads is the
site's hosts file."""
from __future__ import annotations

import pytest
from inventory_edits import edit_inventory as edit

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import rules as switches
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation import rules
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.resolved import (
    competing_connection_settings,
    extra_inventory_sources,
)
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.rules import text

IGNORED_EXTS = (".md", ".txt", ".orig", ".cfg", ".retry")


def settings_findings(inventory, decrypt):
    site = load_site(str(inventory), decrypt=decrypt)
    found = rules.run_rules(site, check_files=False, rules=[text.no_hidden_characters_in_settings])
    return [(f.rule, f.location.file.split("/")[-1], f.location.line, f.message) for f in found]


def test_the_samples_settings_are_clean(sample_copy, decrypt):
    assert settings_findings(sample_copy, decrypt) == []


@pytest.mark.parametrize("written, shown", [
    (r'"AIPOD\nreload"', "U+000A LINE FEED"),
    ('"AIPOD\u202e"', "U+202E RIGHT-TO-LEFT OVERRIDE"),
])
def test_a_role_override_with_a_hidden_character_is_refused_at_its_line(sample_copy, decrypt, written, shown):
    (sample_copy / "group_vars" / "switches.yml").write_text(
        (sample_copy / "group_vars" / "switches.yml").read_text() + f"switch_nxos_qos_prefix: {written}\n")
    [(rule, file, line, message)] = settings_findings(sample_copy, decrypt)
    assert (rule, file, line) == ("hidden-character", "switches.yml", 11)
    assert "'switch_nxos_qos_prefix' holds " + shown in message


@pytest.mark.parametrize("key, value", [
    ("ansible_host", '"10.0.0.1;reboot"'),
    ("ansible_host", '"10.0.0.1 ansible_connection=local"'),
    ("ansible_user", '"admin -oProxyCommand=sh"'),
    ("ansible_port", "70000"),
    ("ansible_connection", '"ssh; id"'),
])
def test_a_connection_setting_that_is_not_one_token_is_refused(sample_copy, decrypt, key, value):
    (sample_copy / "host_vars" / "dgx01.yml").write_text(
        (sample_copy / "host_vars" / "dgx01.yml").read_text() + f"{key}: {value}\n")
    [(rule, file, _line, message)] = settings_findings(sample_copy, decrypt)
    assert (rule, file) == ("connection-setting", "dgx01.yml")
    assert f"'{key}' is not" in message


def test_a_zero_width_character_in_an_inline_user_is_refused_in_hosts_yml(sample_copy, decrypt):
    edit(sample_copy, "hosts.yml", "        dgx01:\n        dgx02:", '        dgx01:\n          ansible_user: "ubu\u200bntu"\n        dgx02:')
    [(rule, file, line, _message)] = settings_findings(sample_copy, decrypt)
    assert (rule, file, line) == ("hidden-character", "hosts.yml", 18)


def test_a_templated_connection_setting_is_left_to_the_model_it_reads(sample_copy, decrypt):
    # group_vars/switches.yml: ansible_host: "{{ switch.mgmt_address }}", which the address rules check.
    assert settings_findings(sample_copy, decrypt) == []


def test_a_host_listed_twice_with_two_addresses_is_refused(sample_copy, decrypt):
    edit(sample_copy, "hosts.yml", "        dgx01:\n        dgx02:", "        dgx01:\n          ansible_host: 10.0.0.1\n        dgx02:")
    edit(sample_copy, "hosts.yml", "    kube_node:\n      hosts:\n        dgx01:",
         "    kube_node:\n      hosts:\n        dgx01:\n          ansible_host: 10.0.0.2")
    site = load_site(str(sample_copy), decrypt=decrypt)
    [finding] = [f for f in site.findings if f.rule == "competing-groups"]
    assert finding.location.file.endswith("hosts.yml") and finding.location.line == 35
    assert "first at" in finding.message and "hosts.yml:18" in finding.message


def test_a_host_listed_twice_with_one_address_is_accepted(sample_copy, decrypt):
    edit(sample_copy, "hosts.yml", "        dgx01:\n        dgx02:", "        dgx01:\n          ansible_host: 10.0.0.1\n        dgx02:")
    edit(sample_copy, "hosts.yml", "    kube_node:\n      hosts:\n        dgx01:",
         "    kube_node:\n      hosts:\n        dgx01:\n          ansible_host: 10.0.0.1")
    site = load_site(str(sample_copy), decrypt=decrypt)
    assert [f for f in site.findings if f.rule == "competing-groups"] == []


def test_an_inline_host_setting_settles_competing_groups_as_ansible_does(sample_copy, decrypt):
    (sample_copy / "group_vars" / "kube_node.yml").write_text("---\nansible_user: other\n")
    (sample_copy / "group_vars" / "dgx.yml").write_text("---\nansible_user: root\n")
    found = competing_connection_settings(load_site(str(sample_copy), decrypt=decrypt))
    assert [f.path[1] for f in found] == ["dgx01", "dgx02", "dgx03", "dgx04"]
    edit(sample_copy, "hosts.yml", "        dgx01:\n        dgx02:", "        dgx01:\n          ansible_user: root\n        dgx02:")
    found = competing_connection_settings(load_site(str(sample_copy), decrypt=decrypt))
    assert [f.path[1] for f in found] == ["dgx02", "dgx03", "dgx04"]


def test_the_site_hosts_file_alone_is_no_extra_source(sample_copy):
    (sample_copy / "README.md").write_text("notes\n")
    (sample_copy / "vault-password.txt").write_text("x\n")
    hosts = str(sample_copy / "hosts.yml")
    assert extra_inventory_sources([hosts], hosts, IGNORED_EXTS, ["^files$"]) == []
    assert extra_inventory_sources([str(sample_copy)], hosts, IGNORED_EXTS, ["^files$"]) == []


def test_a_second_file_in_the_inventory_directory_is_an_extra_source(sample_copy):
    (sample_copy / "extra.yml").write_text("extra:\n  hosts:\n    dgx01:\n      ansible_host: 10.9.9.9\n")
    hosts = str(sample_copy / "hosts.yml")
    [finding] = extra_inventory_sources([str(sample_copy)], hosts, IGNORED_EXTS, ["^files$"])
    assert finding.rule == "inventory-source" and finding.location.file.endswith("extra.yml")
    # the files directory is Ansible's to skip only when ansible.cfg says so
    assert len(extra_inventory_sources([str(sample_copy)], hosts, IGNORED_EXTS, [])) == 2


def test_a_second_inventory_source_is_refused(sample_copy, tmp_path):
    other = tmp_path / "other.ini"
    other.write_text("dgx01 ansible_host=10.9.9.9\n")
    hosts = str(sample_copy / "hosts.yml")
    [finding] = extra_inventory_sources([hosts, str(other)], hosts, IGNORED_EXTS, ["^files$"])
    assert finding.location.file == str(other)


def test_a_port_below_its_far_ends_mtu_is_refused_without_jumbo_frames(sample_copy, decrypt):
    site = load_site(str(sample_copy), decrypt=decrypt)
    assert rules.run_rules(site, check_files=False, rules=[switches.switch_ports]) == []
    edit(sample_copy, "host_vars/n3232c-a.yml", "mtu: 9216", "mtu: 1400")
    found = rules.run_rules(load_site(str(sample_copy), decrypt=decrypt), check_files=False, rules=[switches.switch_ports])
    assert found and all(f.rule == "mtu" for f in found)
    assert any("1500-byte frames" in f.message or "below what the far ends" in f.message for f in found)
