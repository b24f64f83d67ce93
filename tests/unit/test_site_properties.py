"""Property-based: random mutations of the sample model never crash the validator, and every
finding it reports carries a location (a file, and a line wherever the file has one)."""
from __future__ import annotations

import copy
import dataclasses
import os
import shutil

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from project_paths import SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import GLOBAL_KEYS, HOST_KEYS, load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import check_model, validate_site

SITE = load_site(str(SAMPLE), decrypt=make_decryptor(SAMPLE_VAULT_PASSWORD))


def all_paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from all_paths(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from all_paths(item, path + (index,))


MODEL_PATHS = [p for key in GLOBAL_KEYS for p in all_paths(SITE.model[key], (key,))] + [
    p for host, body in SITE.model["hosts"].items() for key in HOST_KEYS if key in body
    for p in all_paths(body[key], ("hosts", host, key))
]

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-5, max_value=70000), st.floats(allow_nan=False, width=32),
    st.text(max_size=12), st.sampled_from(["", "0.0.0.0/0", "10.61.218.101", "100.127.111.101", "999.1.1.1", "storage-a",
                                           "e6a-3111", "aipod-a800-01:e6a-3111", "Ethernet1/1", "{{ x }}", "-1", "9000"]),
)
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                      max_leaves=6)
mutation = st.tuples(st.sampled_from(MODEL_PATHS), st.sampled_from(["replace", "delete", "duplicate"]), values)


def mutate(model, path, kind, value):
    if len(path) < 2:
        if kind == "replace":
            model[path[0]] = value
        return
    parent = model
    for key in path[:-1]:
        try:
            parent = parent[key]
        except (KeyError, IndexError, TypeError):
            return  # an earlier mutation removed or replaced this part
    key = path[-1]
    try:
        if kind == "replace":
            parent[key] = value
        elif kind == "delete":
            del parent[key]
        elif kind == "duplicate" and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[key]))
    except (KeyError, IndexError, TypeError):
        pass


@settings(max_examples=int(os.environ.get("AIPOD_HYPOTHESIS_EXAMPLES", "300")), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(mutation, min_size=1, max_size=4))
def test_mutated_models_never_crash_and_every_finding_is_located(mutations):
    model = copy.deepcopy(SITE.model)
    for path, kind, value in mutations:
        mutate(model, path, kind, value)
    site = dataclasses.replace(SITE, model=model, findings=[])
    findings = check_model(site, check_files=False)
    for finding in findings:
        assert finding.location.file, finding
        assert finding.location.line is not None, f"no line for {finding}"
        assert finding.message


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(file_index=st.integers(min_value=0, max_value=50), position=st.floats(min_value=0, max_value=1),
       junk=st.text(alphabet=":-[]{}#&*!|>'\"% \n\tab1", min_size=1, max_size=6))
def test_corrupted_files_never_crash_the_validator(tmp_path_factory, file_index, position, junk):
    inventory = tmp_path_factory.mktemp("fuzz") / "site"
    shutil.copytree(SAMPLE, inventory)
    files = sorted(p for p in inventory.rglob("*.yml") if "vault" not in p.name)
    target = files[file_index % len(files)]
    text = target.read_text()
    cut = int(len(text) * position)
    target.write_text(text[:cut] + junk + text[cut:])
    report = validate_site(str(inventory))
    for finding in report.findings:
        assert finding.location.file
