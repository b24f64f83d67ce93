"""Every string field of the model, as the sample and the lab fill them, refuses hostile text with
its file and line: control characters (a line break starts a second CLI command), bidi overrides,
zero-width and line-separator characters, whatever the field is. Host names also refuse look-alike
letters and inventory syntax; paths also refuse `..`."""
from __future__ import annotations

import copy
import dataclasses
import json

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from model_walk import leaves
from project_paths import COLLECTION, LAB, LAB_VAULT_PASSWORD, SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import GLOBAL_KEYS, HOST_KEYS, load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.rule_context import Context
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.rules.text import no_hidden_characters
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import check_model

DECRYPT = make_decryptor(SAMPLE_VAULT_PASSWORD, LAB_VAULT_PASSWORD)
SITES = {"sample": load_site(str(SAMPLE), decrypt=DECRYPT), "lab": load_site(str(LAB), decrypt=DECRYPT)}
HIDDEN = st.sampled_from(["\n", "\r", "\t", "\x00", "\x1b", "\u202e", "\u200b", "\u2028", "\u2029", "\ufeff", "\u061c"])


def string_paths(site) -> list[tuple]:
    found = [path for key in GLOBAL_KEYS for path, value in leaves(site.model.get(key), (key,)) if isinstance(value, str)]
    for host, body in site.model["hosts"].items():
        for key in HOST_KEYS:
            found += [path for path, value in leaves(body.get(key), ("hosts", host, key)) if isinstance(value, str)]
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
URL_FIELDS = {("kubernetes", "deepops", "release_url"), ("trident", "install", "chart_repo"), ("gpu", "operator", "chart_repo")}
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


# ---------------------------------------------------------------------------- every field of the schemas
SCHEMAS = {name: json.loads((COLLECTION / "schemas" / f"{name}.schema.json").read_text()) for name in ("site", "host")}
# The only string definitions without a grammar: free text for people and hardware names, NFS mount
# options (their form is the rule mount-options'), switch port descriptions (the rules hidden-character
# and switch-text judge them per platform, with messages that name the character), and vaulted
# secrets (never rendered as text).
FREE_DEFS = {"#/$defs/text", "#/$defs/mount_option"}
FREE_PATHS = {"patternProperties/^vault_[a-z0-9_]+$", "$defs/switch/properties/ports/items/properties/description",
              "$defs/switch/properties/port_channels/items/properties/description"}


def string_leaves(schema: dict) -> list[tuple[str, dict]]:
    """(where, subschema) of every string-typed subschema of a schema, $refs left as they are."""
    found = []

    def walk(node, where):
        if not isinstance(node, dict):
            return
        kinds = node.get("type") if isinstance(node.get("type"), list) else [node.get("type")]
        if "string" in kinds or "$ref" in node:
            found.append((where, node))
        for key in ("properties", "patternProperties", "$defs"):
            for name, child in (node.get(key) or {}).items():
                walk(child, f"{where}/{key}/{name}" if where else f"{key}/{name}")
        for key in ("items", "additionalProperties", "if", "then", "else", "not"):
            walk(node.get(key), f"{where}/{key}")
        for key in ("oneOf", "anyOf", "allOf"):
            for index, child in enumerate(node.get(key) or []):
                walk(child, f"{where}/{key}/{index}")

    walk(schema, "")
    return found


@pytest.mark.parametrize("schema_name", sorted(SCHEMAS))
def test_every_string_field_of_the_schemas_has_a_grammar_or_is_declared_free_text(schema_name):
    schema = SCHEMAS[schema_name]
    ungoverned = []
    for where, node in string_leaves(schema):
        if "$ref" in node:
            continue
        if any(key in node for key in ("pattern", "format", "enum", "const")):
            continue
        definition = "#/" + where if where.startswith("$defs/") else None
        if definition in FREE_DEFS or where in FREE_PATHS:
            continue
        ungoverned.append(where)
    assert not ungoverned, f"string fields with no grammar: {ungoverned}"


@pytest.mark.parametrize("schema_name", sorted(SCHEMAS))
def test_every_grammar_of_the_schemas_refuses_a_line_break_inside(schema_name):
    """JSON Schema patterns are searched, and Python's '$' also matches before a final newline: the
    schema refuses a break inside the text, and the rule hidden-character every hidden character
    anywhere (the next test)."""
    schema = SCHEMAS[schema_name]
    for where, node in string_leaves(schema):
        if "pattern" not in node:
            continue
        validator = jsonschema.Draft202012Validator({**node, "$defs": schema.get("$defs", {})})
        for hostile in ("a\nb", "a\rb", "\nab"):
            assert not validator.is_valid(hostile), (where, node["pattern"], hostile)


def _nested():
    text = st.text(alphabet="abcdefghij-._/0123456789", min_size=1, max_size=12)
    keys = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=10)
    return st.recursive(text, lambda children: st.lists(children, min_size=1, max_size=3)
                        | st.dictionaries(keys, children, min_size=1, max_size=3), max_leaves=12)


@settings(max_examples=150, deadline=None)
@given(key=st.sampled_from(GLOBAL_KEYS + tuple(HOST_KEYS)), value=_nested(), hidden=HIDDEN, pick=st.integers(min_value=0))
def test_the_hidden_character_rule_reaches_every_string_wherever_the_model_holds_it(key, value, hidden, pick):
    """Also fields no sample fills, and shapes no schema allows: the rule walks the whole model."""
    site = SITES["sample"]
    model = copy.deepcopy(site.model)
    if key in HOST_KEYS:
        model["hosts"]["dgx01"][key] = value
        base = ("hosts", "dgx01", key)
    else:
        model[key] = value
        base = (key,)
    strings = [path for path, leaf in leaves(value) if isinstance(leaf, str)]
    target = strings[pick % len(strings)]
    parent = model
    for part in (base + target)[:-1]:
        parent = parent[part]
    parent[(base + target)[-1]] = parent[(base + target)[-1]] + hidden
    ctx = Context(dataclasses.replace(site, model=model), check_files=False)
    no_hidden_characters(ctx)
    assert any(tuple(finding.path) == base + target for finding in ctx.findings), (base + target, [str(f) for f in ctx.findings])
