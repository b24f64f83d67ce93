"""Every string field of the model, as the sample and the lab fill them, refuses hostile text with
its file and line: control characters (a line break starts a second CLI command), bidi overrides,
zero-width and line-separator characters, whatever the field is. Host names also refuse look-alike
letters and inventory syntax; paths also refuse `..`."""
from __future__ import annotations

import copy
import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from project_paths import LAB, LAB_VAULT_PASSWORD, SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import GLOBAL_KEYS, HOST_KEYS, load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.validate import check_model

DECRYPT = make_decryptor(SAMPLE_VAULT_PASSWORD, LAB_VAULT_PASSWORD)
SITES = {"sample": load_site(str(SAMPLE), decrypt=DECRYPT), "lab": load_site(str(LAB), decrypt=DECRYPT)}
HIDDEN = st.sampled_from(["\n", "\r", "\t", "\x00", "\x1b", "\u202e", "\u200b", "\u2028", "\u2029", "\ufeff", "\u061c"])


def string_paths(site) -> list[tuple]:
    found = []

    def walk(value, path):
        if isinstance(value, str):
            found.append(path)
        elif isinstance(value, dict):
            for key, child in value.items():
                walk(child, path + (key,))
        elif isinstance(value, list):
            for index, child in enumerate(value):
                walk(child, path + (index,))

    for key in GLOBAL_KEYS:
        walk(site.model.get(key), (key,))
    for host, body in site.model["hosts"].items():
        for key in HOST_KEYS:
            walk(body.get(key), ("hosts", host, key))
    return found


# Sorted: the hosts' order comes from sets, and every pytest-xdist worker must collect the same tests.
FIELDS = sorted(((name, path) for name, site in SITES.items() for path in string_paths(site)),
                key=lambda field: (field[0], [str(part) for part in field[1]]))


def with_value(site, path: tuple, value: str):
    model = copy.deepcopy(site.model)
    parent = model
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = value
    return dataclasses.replace(site, model=model)


def test_the_sites_have_many_string_fields():
    assert len(FIELDS) > 200, len(FIELDS)


@pytest.mark.parametrize(("site_name", "path"), FIELDS, ids=[f"{name}:{'.'.join(map(str, path))}" for name, path in FIELDS])
@settings(max_examples=2, deadline=None)
@given(hidden=HIDDEN, where=st.integers(min_value=0, max_value=64))
def test_a_hidden_character_in_any_string_field_is_refused_at_its_line(site_name, path, hidden, where):
    site = SITES[site_name]
    original = site.model
    for part in path:
        original = original[part]
    position = where % (len(original) + 1)
    findings = check_model(with_value(site, path, original[:position] + hidden + original[position:]), check_files=False)
    # Refused by the rule hidden-character, or first by the schema where the field has a pattern.
    refusals = [finding for finding in findings if finding.severity == "error" and tuple(finding.path) == path]
    assert refusals, [str(finding) for finding in findings]
    assert refusals[0].location.line is not None and refusals[0].location.file.endswith(".yml"), str(refusals[0])
