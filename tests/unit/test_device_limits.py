"""Device limits caught by validation (issue 24 item 6): VLANs a switch reserves or that every port
defaults to, ONTAP's MTU ceiling, and integers written as floats or in other bases than decimal."""
from __future__ import annotations

import pytest
from inventory_edits import edit_inventory as edit

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import rules as switches
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.yamlload import load_with_lines
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation import rules
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.rules import limits
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site


@pytest.fixture
def sample(sample_copy):
    return sample_copy


def limit_findings(inventory, decrypt):
    site = load_site(str(inventory), decrypt=decrypt)
    found = rules.run_rules(site, check_files=False, rules=[limits.vlan_limits, limits.ontap_mtu_limit])
    return [(f.rule, f.location.file.split("/")[-1], f.location.line, f.message) for f in found]


def test_the_sample_is_within_every_limit(sample, decrypt):
    assert limit_findings(sample, decrypt) == []


@pytest.mark.parametrize("vlan", ["3968", "4000", "4094"])
def test_a_vlan_nxos_reserves_is_refused(sample, decrypt, vlan):
    edit(sample, "group_vars/all/networks.yml", "vlan: 3111", f"vlan: {vlan}")
    [(rule, file, line, message)] = limit_findings(sample, decrypt)
    assert (rule, file) == ("vlan-limit", "networks.yml") and line == 19
    assert f"VLAN {vlan} of network 'storage-a' is in NX-OS's reserved range 3968-4094" in message


def test_vlan_3967_is_the_highest_nxos_takes(sample, decrypt):
    edit(sample, "group_vars/all/networks.yml", "vlan: 3111", "vlan: 3967")
    assert limit_findings(sample, decrypt) == []


@pytest.mark.parametrize("old", ["vlan: 3111", "vlan: 3101"])
def test_vlan_1_is_refused_for_storage_and_in_band(sample, decrypt, old):
    edit(sample, "group_vars/all/networks.yml", old, "vlan: 1")
    messages = [message for _rule, _file, _line, message in limit_findings(sample, decrypt)]
    assert len(messages) == 1 and "is on VLAN 1, the default VLAN of every switch port" in messages[0]


def test_an_ontap_broadcast_domain_over_9000_is_refused_at_the_network_that_sets_it(sample, decrypt):
    edit(sample, "group_vars/all/networks.yml", "    vlan: 3111\n    subnet: 100.127.111.0/24\n    mtu: 9000",
         "    vlan: 3111\n    subnet: 100.127.111.0/24\n    mtu: 9216")
    found = [f for f in limit_findings(sample, decrypt) if f[0] == "mtu-limit"]
    assert found and all(file == "networks.yml" and "ONTAP takes at most 9000" in message for _r, file, _l, message in found)


def test_an_mtu_written_as_a_float_is_refused_by_the_schema(sample, decrypt):
    edit(sample, "group_vars/all/networks.yml", "mtu: 9000", "mtu: 9000.0")
    report = validate_site(str(sample), decrypt=decrypt)
    messages = [(f.location.line, f.message, f.hint) for f in report.errors]
    assert (21, "9000.0 is a number with a decimal point, expected an integer", "write 9000") in messages


@pytest.mark.parametrize("written, read_as", [("02000", 1024), ("0x7d0", 2000), ("2_000", 2000), ("0o3720", None)])
def test_an_integer_in_another_form_than_decimal_is_refused_with_what_yaml_reads(sample, decrypt, written, read_as):
    edit(sample, "group_vars/all/networks.yml", "mtu: 9000", f"mtu: {written}")
    report = validate_site(str(sample), decrypt=decrypt)
    forms = [f for f in report.errors if f.rule == "integer-form"]
    if read_as is None:  # YAML 1.1 has no 0o: it stays a string, which the schema refuses
        assert not forms and any(f.location.line == 21 for f in report.errors)
        return
    assert [(f.location.line, f.message) for f in forms] == [
        (21, f"'{written}' is an integer written in another form than decimal, which YAML reads as {read_as}")]


def test_decimal_integers_and_quoted_text_are_not_flagged():
    forms = []
    load_with_lines("a: 2000\nb: -5\nc: 0\nd: '02000'\ne: 1.5\n", integer_forms=forms)
    assert forms == []


def test_an_octal_role_variable_of_the_site_is_only_a_warning(sample, decrypt):
    (sample / "group_vars" / "dgx_mode.yml").write_text("---\ndgx_node_file_mode: 0644\n")
    report = validate_site(str(sample), decrypt=decrypt)
    forms = [f for f in report.findings if f.rule == "integer-form"]
    assert [(f.severity, f.message) for f in forms] == [
        ("warning", "'0644' is an integer written in another form than decimal, which YAML reads as 420")]


@pytest.mark.parametrize("text, shown", [("dgx01 storage?", "'?'"), ("ｄｇｘ01", "U+FF44"), ("dgx01\u00a0storage", "U+00A0")])
def test_an_nxos_description_outside_printable_ascii_or_with_a_question_mark_is_refused(sample_copy, decrypt, text, shown):
    edit(sample_copy, "host_vars/n3232c-a.yml", "{name: Ethernet1/1, connects_to:", f'{{name: Ethernet1/1, description: "{text}", connects_to:')
    found = rules.run_rules(load_site(str(sample_copy), decrypt=decrypt), check_files=False, rules=[switches.nxos_descriptions])
    [(rule, file, line, message)] = [(f.rule, f.location.file.split("/")[-1], f.location.line, f.message) for f in found]
    assert (rule, file, line) == ("switch-text", "n3232c-a.yml", 24)
    assert shown in message
