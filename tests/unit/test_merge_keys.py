"""Merge keys (<<) read as YAML and Ansible define them: a key written in the mapping wins over a
merged one, an earlier merged mapping over a later one, and neither is a duplicate. A finding on a
merged value points at the line where it is written."""
from __future__ import annotations

import pytest
from ansible.parsing.yaml.loader import AnsibleLoader
from inventory_edits import edit_inventory as edit
from project_paths import SAMPLE_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.yamlload import load_with_lines
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site

MERGES = {
    "override": "base: &b\n  mtu: 9000\n  vlan: 3111\nnet:\n  <<: *b\n  vlan: 3112\n",
    "override before the merge": "base: &b\n  mtu: 9000\nnet:\n  mtu: 1500\n  <<: *b\n",
    "list, earliest wins": "a: &a\n  vlan: 1\nb: &b\n  vlan: 2\n  mtu: 9000\nnet:\n  <<: [*a, *b, {extra: 1}]\n",
    "nested value": "base: &b\n  opts: {x: 1}\nnet:\n  <<: *b\n",
    "merge inside a list item": "nets:\n  - <<: &s {purpose: storage, mtu: 9000}\n    vlan: 3111\n  - <<: *s\n    vlan: 3112\n",
}


def ansible_reads(text: str):
    loader = AnsibleLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


@pytest.mark.parametrize("text", MERGES.values(), ids=MERGES.keys())
def test_the_values_are_ansibles_and_nothing_is_a_duplicate(text):
    data, _lines, duplicates = load_with_lines(text)
    assert data == ansible_reads(text)
    assert duplicates == []


def test_merged_keys_are_located_where_they_are_written():
    _data, lines, _dups = load_with_lines(MERGES["list, earliest wins"])
    assert lines[("net", "vlan")] == 2  # from *a, the first in the list
    assert lines[("net", "mtu")] == 5
    assert lines[("net", "extra")] == 7
    _data, lines, _dups = load_with_lines(MERGES["override"])
    assert lines[("net", "vlan")] == 6 and lines[("net", "mtu")] == 2


def test_a_key_written_twice_beside_a_merge_is_still_a_duplicate():
    _data, _lines, duplicates = load_with_lines("base: &b\n  mtu: 1\nnet:\n  <<: *b\n  vlan: 1\n  vlan: 2\n")
    assert duplicates == [(("net", "vlan"), 5, 6)]


STORAGE_AS_WRITTEN = """  - name: storage-a
    purpose: storage
    vlan: 3111
    subnet: 100.127.111.0/24
    mtu: 9000
  - name: storage-b
    purpose: storage
    vlan: 3112
    subnet: 100.127.112.0/24
    mtu: 9000
"""
STORAGE_MERGED = """  - name: storage-a
    <<: &storage
      purpose: storage
      mtu: {mtu}
    vlan: 3111
    subnet: 100.127.111.0/24
  - name: storage-b
    <<: *storage
    vlan: 3112
    subnet: 100.127.112.0/24
"""


def test_a_site_written_with_merge_keys_is_the_same_model(sample_copy):
    decrypt = make_decryptor(SAMPLE_VAULT_PASSWORD)
    before = validate_site(str(sample_copy), decrypt=decrypt, check_files=False)
    edit(sample_copy, "group_vars/all/networks.yml", STORAGE_AS_WRITTEN, STORAGE_MERGED.format(mtu=9000))
    after = validate_site(str(sample_copy), decrypt=decrypt, check_files=False)
    assert after.site.model["networks"] == before.site.model["networks"]
    assert [str(finding) for finding in after.findings] == [str(finding) for finding in before.findings]


def test_a_wrong_merged_value_is_refused_at_the_line_of_the_anchor(sample_copy):
    edit(sample_copy, "group_vars/all/networks.yml", STORAGE_AS_WRITTEN, STORAGE_MERGED.format(mtu=9216))
    lines = (sample_copy / "group_vars" / "all" / "networks.yml").read_text().splitlines()
    anchor_mtu = next(number for number, line in enumerate(lines, 1) if line.strip() == "mtu: 9216")
    report = validate_site(str(sample_copy), decrypt=make_decryptor(SAMPLE_VAULT_PASSWORD), check_files=False)
    texts = [str(finding) for finding in report.errors if "9216" in str(finding) or "mtu" in str(finding)]
    assert texts and all(f"networks.yml:{anchor_mtu}" in text for text in texts), texts
