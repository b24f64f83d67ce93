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


# The fields that stay free text: names of hardware the sizing and GPU checks look up as data, and
# the pod's description for people. No grammar narrows them, so look-alike letters and shell or
# CLI metacharacters pass; they reach only reports and the topology picture, escaped there.
FREE_TEXT = {("hosts", "*", "dgx", "gpus", "model"), ("hosts", "*", "dgx", "model"), ("hosts", "*", "switch", "model"),
             ("ontap", "platform"), ("pod", "description")}
# URLs keep the characters RFC 3986 allows (';', '$', '(' and ')'): they reach get_url and helm as
# one argument, never a shell.
URL_FIELDS = {("kubernetes", "deepops", "release_url"), ("trident", "install", "chart_repo")}
LOOKALIKES = {"homoglyph": lambda text: text[:1] + "\u0430" + text[1:], "metacharacters": lambda text: text + ";$(id)",
              "a space": lambda text: text + " x", "a quote": lambda text: text + "'\""}


def _shape(path: tuple) -> tuple:
    return tuple("*" if isinstance(part, int) or (index == 1 and path[0] == "hosts") else part for index, part in enumerate(path))


@pytest.mark.parametrize(("site_name", "path"), FIELDS, ids=[f"{name}:{'.'.join(map(str, path))}" for name, path in FIELDS])
def test_every_field_but_free_text_refuses_lookalikes_and_metacharacters(site_name, path):
    site = SITES[site_name]
    original = site.model
    for part in path:
        original = original[part]
    accepted = []
    for label, change in LOOKALIKES.items():
        findings = check_model(with_value(site, path, change(original)), check_files=False)
        if not [finding for finding in findings if finding.severity == "error" and tuple(finding.path) == path]:
            accepted.append(label)
    shape = _shape(path)
    if shape in FREE_TEXT:
        return
    if shape in URL_FIELDS:
        assert accepted == ["metacharacters"], accepted
        return
    assert accepted == [], f"{'.'.join(map(str, path))} accepts {', '.join(accepted)}: give it a grammar, or list it as free text"


def test_free_text_reaches_the_topology_picture_only_escaped(tmp_path):
    import shutil
    import subprocess

    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import cabling
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network.model import cabling_plan

    site = SITES["sample"]
    hostile = '</FONT></TD></TR></TABLE>> shape=box label="x"]; evil [label="\u0430'
    model = copy.deepcopy(site.model)
    for body in model["hosts"].values():
        for kind in ("switch", "dgx"):
            if kind in body:
                body[kind]["model"] = hostile
    model["ontap"]["platform"] = hostile
    graph = cabling.document(model, "dot", cabling_plan(model))
    assert hostile not in graph
    assert "&lt;/FONT&gt;&lt;/TD&gt;" in graph
    if shutil.which("dot"):  # Graphviz reads it back as one label: no node 'evil' appears
        rendered = subprocess.run(["dot", "-Tsvg"], input=graph, capture_output=True, text=True, check=True).stdout
        assert "<title>evil</title>" not in rendered and "<title>dgx01</title>" in rendered
