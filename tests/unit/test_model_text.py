"""Model text is data (issue 24 item 2): no string of the model holds a control or invisible
character, and host names are names every sink takes (Kubernetes node, file, generated inventory)."""
from __future__ import annotations

import pytest
from inventory_edits import edit_inventory as edit

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation import rules
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.rules import text


@pytest.fixture
def sample(sample_copy):
    return sample_copy


def text_findings(inventory, decrypt):
    site = load_site(str(inventory), decrypt=decrypt)
    found = rules.run_rules(site, check_files=False, rules=[text.no_hidden_characters, text.host_names])
    return [(f.rule, f.location.file.split("/")[-1], f.location.line, f.message) for f in found]


def test_the_sample_holds_only_visible_text_and_good_host_names(sample, decrypt):
    assert text_findings(sample, decrypt) == []


@pytest.mark.parametrize("written, shown", [
    (r'"dgx01 storage\nreboot"', "U+000A LINE FEED"),
    (r'"dgx01 storage\r\nshutdown"', "U+000D CARRIAGE RETURN, U+000A LINE FEED"),
    ('"dgx01\u202estorage"', "U+202E RIGHT-TO-LEFT OVERRIDE"),
    ('"dgx01\u200bstorage"', "U+200B ZERO WIDTH SPACE"),
    ('"dgx01\\u0000"', "U+0000 control"),
])
def test_a_port_description_that_would_be_more_than_text_is_refused_at_its_line(sample, decrypt, written, shown):
    edit(sample, "host_vars/n3232c-a.yml", "{name: Ethernet1/1, connects_to:", f"{{name: Ethernet1/1, description: {written}, connects_to:")
    [(rule, file, line, message)] = text_findings(sample, decrypt)
    assert (rule, file, line) == ("hidden-character", "n3232c-a.yml", 24)
    assert f"holds {shown}," in message


def test_a_hidden_character_in_a_key_or_a_network_name_is_refused(sample, decrypt):
    edit(sample, "group_vars/all/networks.yml", "name: storage-a", "name: \"storage-\u2066a\"")
    found = text_findings(sample, decrypt)
    assert [(rule, file) for rule, file, _line, _message in found] == [("hidden-character", "networks.yml")]


@pytest.mark.parametrize("host", [
    "dgx04 ansible_connection=local",    # a second inventory word
    "DGX04",                             # not a Kubernetes node name
    "dgx_04",
    "dgx04;reboot",
    "-dgx04",
    "dgx\uff10\uff14",                   # fullwidth digits
    "dg\u044504",                        # Cyrillic ha, which looks like x
    "dgx04\u200b",                       # zero-width space
])
def test_host_names_that_a_sink_cannot_take_are_refused(sample, decrypt, host):
    edit(sample, "hosts.yml", "        dgx04:\n    servers:", f'        "{host}":\n    servers:')
    host_vars = sample / "host_vars"
    (host_vars / "dgx04.yml").rename(host_vars / f"{host}.yml")
    found = [finding for finding in text_findings(sample, decrypt) if finding[0] == "host-name"]
    assert len(found) == 1, found
    rule, file, line, message = found[0]
    assert (file, line) == ("hosts.yml", 20)
    assert "becomes a Kubernetes node name" in message and "\u200b" not in message


def test_hidden_characters_are_named():
    assert text.hidden_characters("a\tb\u202ec\ufeff") == ["U+0009 TAB", "U+202E RIGHT-TO-LEFT OVERRIDE",
                                                          "U+FEFF ZERO WIDTH NO-BREAK SPACE"]
    assert text.hidden_characters("Ethernet1/1 - dgx01 enp225s0f0 (storage-a)") == []


@pytest.mark.parametrize("relative, old, new, line, meaning", [
    ("group_vars/all/compute.yml", "path: /mnt/data", "path: /mnt/../etc", 9, "goes up with '..': it means /etc"),
    ("group_vars/all/compute.yml", "path: /mnt/data", "path: /mnt/./data", 9, "holds a '.' component: it means /mnt/data"),
    ("group_vars/all/compute.yml", "path: /mnt/data", "path: /mnt//data/", 9, "holds an empty component"),
    ("group_vars/all/ontap.yml", "junction_path: /data", "junction_path: /data/..", 94, "goes up with '..': it means /"),
])
def test_paths_that_normalise_elsewhere_are_refused(sample, decrypt, relative, old, new, line, meaning):
    edit(sample, relative, old, new)
    site = load_site(str(sample), decrypt=decrypt)
    [finding] = rules.run_rules(site, check_files=False, rules=[text.normalised_paths])
    assert (finding.rule, finding.location.line) == ("path-form", line)
    assert meaning in finding.message
