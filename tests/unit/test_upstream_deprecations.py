"""The stdout callback ontap_ai.pod.aipod_default holds back exactly the upstream deprecations that
docs/deprecations.md lists, and only when a task result raises nothing else."""
from __future__ import annotations

from collections import Counter

from deprecation_table import documented_upstream_deprecations

from ansible_collections.ontap_ai.pod.plugins.callback.aipod_default import (
    UPSTREAM_DEPRECATIONS,
    held_back,
    summary_line,
)

NXOS_TEXT = "Importing 'to_text' from 'ansible.module_utils._text' is deprecated."


def test_the_callback_holds_back_the_rows_of_the_documented_table_and_no_other():
    assert sorted(message.replace("`", "") for message in UPSTREAM_DEPRECATIONS) == sorted(documented_upstream_deprecations())


def test_a_result_raising_only_listed_deprecations_is_held_back():
    deprecations = [{"msg": NXOS_TEXT + " This feature will be removed from ansible-core version 2.24."},
                    {"msg": "Passing `warnings` to `exit_json` or `fail_json` is deprecated."}]
    assert held_back(deprecations) == [NXOS_TEXT, "Passing `warnings` to `exit_json` or `fail_json` is deprecated."]


def test_a_result_with_any_other_deprecation_is_shown_whole():
    assert held_back([{"msg": NXOS_TEXT}, {"msg": "The bundle's own thing is deprecated."}]) is None
    assert held_back([{"msg": "Importing 'to_text'"}]) is None  # a prefix of a listed message is not that message
    assert held_back([]) is None
    assert held_back(["not a mapping"]) is None


def test_the_summary_is_one_line_naming_the_collections_and_the_doc():
    line = summary_line(Counter({NXOS_TEXT: 7, "Importing 'to_native' from 'ansible.module_utils._text' is deprecated.": 2}))
    assert "\n" not in line
    assert "2 message(s) from cisco.nxos, netapp.ontap, in 9 task result(s)" in line
    assert "docs/deprecations.md" in line
    assert "[WARNING]" not in line and "[DEPRECATION WARNING]" not in line
