"""Drift per device and object from each layer's own comparison, and the pod's verdict."""
from __future__ import annotations

import pytest

from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_report import drift


def item(object_, reason=None, action="modify", **fields):
    return aipod_pending.item(object_, action=action, reason=reason, **fields)


def test_a_pending_list_of_another_shape_is_refused():
    with pytest.raises(ValueError, match="storage cluster1: item 0: expected the keys"):
        drift.result({"storage": {"cluster1": {"items": [{"object": "svms lab-data", "difference": "absent"}]}}})


def test_the_report_keeps_the_items_and_reads_them_as_sentences():
    outcome = drift.result({"storage": {"cluster1": {"items": [
        item("rules aipod-dgx:1", field="clients", before=["0.0.0.0/0"], after=["172.31.251.0/24"]),
        item("svms lab-data", action="create"), item("svms", "same-named FlexVol", action="refuse")]}}})
    assert outcome["devices"][0]["differences"][0]["field"] == "clients"
    assert '| storage | cluster1 | rules aipod-dgx:1 | clients is ["0.0.0.0/0"], the model says ["172.31.251.0/24"] |' in outcome["markdown"]
    assert "| storage | cluster1 | svms lab-data | missing |" in outcome["markdown"]
    assert "storage cluster1: svms: left to an operator: same-named FlexVol" in drift.summary_lines(outcome)


def test_the_verdict_drifted_beats_incomplete_beats_clean():
    clean = {"switches": {"sw-a": {"items": []}}, "compute": {"dgx01": {"items": []}}}
    assert drift.result(clean)["exit_code"] == 0 and drift.result(clean)["status"] == "clean"
    unread = {**clean, "storage": {"cluster1": None}}
    outcome = drift.result(unread)
    assert (outcome["exit_code"], outcome["counts"]) == (2, {"drifted": 0, "clean": 2, "not_checked": 1})
    assert "not read" in outcome["devices"][-1]["reason"]
    drifted = {**unread, "compute": {"dgx01": {"items": [item("host", "x")]}}}
    outcome = drift.result(drifted)
    assert outcome["exit_code"] == 1 and outcome["differences"] == 1
    assert "| compute | dgx01 | host | x |" in outcome["markdown"]
    assert "| storage | cluster1 | - | not checked:" in outcome["markdown"]


def test_a_device_this_release_cannot_read_says_why():
    outcome = drift.result({"switches": {"sn4600-a": {"reason": "reading back an NVUE switch is not in this release"}}})
    assert outcome["exit_code"] == 2
    assert outcome["devices"][0]["reason"] == "reading back an NVUE switch is not in this release"


def test_table_cells_cannot_break_the_markdown():
    outcome = drift.result({"compute": {"dgx01": {"items": [item("a|b", "line1\nline2 | x")]}}})
    assert "| compute | dgx01 | a/b | line1 line2 / x |" in outcome["markdown"]


def test_summary_is_capped():
    many = {"compute": {"dgx01": {"items": [item("host", str(n)) for n in range(50)]}}}
    lines = drift.summary_lines(drift.result(many), limit=10)
    assert lines[0].startswith("drift: drifted - 1 device(s) drifted")
    assert len(lines) == 12 and lines[-1] == "... and 40 more in the run report"


def test_a_part_of_a_host_that_could_not_be_read_is_not_a_difference():
    items = [item("kernel parameter net.core.rmem_max", "dgx_host_facts did not read it", action="unread"),
             item("aipod-roce-qos.service", "dgx_host_facts did not read it", action="unread")]
    outcome = drift.result({"compute": {"dgx01": {"items": items}}})
    assert outcome["exit_code"] == 2 and outcome["devices"][0]["status"] == "not_checked"
    assert "aipod-roce-qos.service: not read (dgx_host_facts did not read it)" in outcome["devices"][0]["reason"]
    mixed = drift.result({"compute": {"dgx01": {"items": items + [item("package x", action="create")]}}})
    assert mixed["exit_code"] == 1 and mixed["differences"] == 1
