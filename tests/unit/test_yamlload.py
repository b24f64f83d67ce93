"""The YAML reader behind every located error."""
from __future__ import annotations

import pytest

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.yamlload import VaultValue, YamlProblem, is_vault_file, load_with_lines


def test_lines_of_keys_and_items():
    data, lines, duplicates = load_with_lines("---\nnetworks:\n  - name: a\n    mtu: 9000\n  - name: b\n")
    assert data == {"networks": [{"name": "a", "mtu": 9000}, {"name": "b"}]}
    assert lines[("networks",)] == 2
    assert lines[("networks", 0, "mtu")] == 4
    assert lines[("networks", 1)] == 5
    assert duplicates == []


def test_duplicate_keys_are_reported_with_both_lines():
    _data, _lines, duplicates = load_with_lines("a: 1\nb:\n  c: 1\n  c: 2\na: 3\n")
    assert sorted(duplicates) == [(("a",), 1, 5), (("b", "c"), 3, 4)]


def test_ansible_tags_are_read_without_their_secret():
    data, _lines, _dups = load_with_lines("vault_x: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  3132\nraw: !unsafe '{{ x }}'\n")
    assert isinstance(data["vault_x"], VaultValue) and "3132" not in data["vault_x"]
    assert data["raw"] == "{{ x }}"


def test_syntax_errors_carry_a_line():
    with pytest.raises(YamlProblem) as problem:
        load_with_lines("a:\n  b: [1, 2\nc: 3\n")
    assert problem.value.line is not None


def test_vault_files_are_recognised():
    assert is_vault_file("$ANSIBLE_VAULT;1.2;AES256;lab\n3132\n")
    assert not is_vault_file("---\na: 1\n")


@pytest.mark.parametrize(("text", "line", "problem"), [
    ("a: 1\nb: " + "9" * 5000 + "\n", 2, "an integer of 5,000 digits"),
    ("a: -" + "1" * 101 + "\n", 1, "an integer of 101 digits"),
    ("a: 1\nb: !!int twelve\n", 2, "tagged as an integer that is not one"),
    ("a:\n  b: !!float many\n", 2, "tagged as a float that is not one"),
    ("a: !!timestamp 2026-13-45\n", 1, "tagged as a timestamp that is not one"),
])
def test_a_value_yaml_cannot_construct_is_a_located_problem(text, line, problem):
    """Python refuses to read an integer of over 4,300 digits (ValueError); an odd tag's text raises
    in its constructor. Both are findings at their line, never an uncaught error."""
    with pytest.raises(YamlProblem) as raised:
        load_with_lines(text)
    assert problem in str(raised.value) and raised.value.line == line


def test_a_huge_integer_in_the_model_names_its_file_and_line(sample_copy, decrypt):
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site

    path = sample_copy / "group_vars" / "all" / "pod.yml"
    path.write_text(path.read_text().replace("gpu_ingest_mb_s: 82", "gpu_ingest_mb_s: " + "9" * 5000))
    report = validate_site(str(sample_copy), decrypt=decrypt)
    [finding] = [f for f in report.errors if f.rule == "yaml"]
    assert str(finding.location).endswith("group_vars/all/pod.yml:10") and "5,000 digits" in finding.message
