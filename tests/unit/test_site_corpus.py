"""Every broken site model of the corpus is rejected, each problem located in its file and key."""
from __future__ import annotations

import pytest
from corpus import build_case, cases, lab_secret_values, load_case

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site

CASES = cases()


def test_corpus_is_large_enough():
    assert len(CASES) >= 40


@pytest.mark.parametrize("case_path", CASES, ids=[c.stem for c in CASES])
def test_broken_model_is_rejected_with_a_located_error(case_path, tmp_path, decrypt):
    case = load_case(case_path)
    inventory = build_case(case_path, tmp_path)
    report = validate_site(str(inventory), decrypt=decrypt)
    assert not report.ok, f"{case_path.stem}: accepted, but: {case['description']}"
    for expected in case["expect"]:
        matches = [
            f for f in report.errors
            if f.rule == expected["rule"]
            and f.key_path() == expected["key"]
            and (("file" not in expected) or f.location.file.endswith(expected["file"]))
        ]
        assert matches, (
            f"{case_path.stem}: no {expected['rule']} error at {expected['key']}; got:\n" + report.text()
        )
        if "hint" in expected:
            assert any(expected["hint"] in f.hint for f in matches)
    for finding in report.errors:
        assert finding.location.file, finding
        assert finding.message and finding.hint is not None
    text = report.text()
    for secret in lab_secret_values() + [e["secret"] for e in case["expect"] if "secret" in e]:
        assert secret not in text, f"{case_path.stem}: a secret value appears in the report"


@pytest.mark.parametrize("case_path", CASES, ids=[c.stem for c in CASES])
def test_errors_carry_a_line_when_the_file_has_one(case_path, tmp_path, decrypt):
    inventory = build_case(case_path, tmp_path)
    report = validate_site(str(inventory), decrypt=decrypt)
    for finding in report.errors:
        if finding.rule in ("required-key",):
            continue
        assert finding.location.line is not None, f"{case_path.stem}: {finding} has no line"
