"""The rolling change's plan and summary: batch sizes as serial takes them, node states, and the resume advice."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.ontap_ai.pod.plugins.filter.aipod_rolling import FilterModule
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_compute import rolling

FILTERS = FilterModule().filters()


@pytest.mark.parametrize(("value", "group", "serial"), [
    (None, "dgx_rolling_batch_1", 1),
    (1, "dgx_rolling_batch_1", 1),
    (4, "dgx_rolling_batch_4", 4),
    ("2", "dgx_rolling_batch_2", 2),
    ("25%", "dgx_rolling_batch_25_percent", "25%"),
    ("100%", "dgx_rolling_batch_100_percent", "100%"),
])
def test_the_batch_size_travels_to_serial_through_a_group_name(value, group, serial):
    assert FILTERS["aipod_rolling_batch_group"](value) == group
    assert FILTERS["aipod_rolling_serial"]({"all": [], "dgx": [], group: ["dgx01"]}) == serial


@pytest.mark.parametrize("value", [0, -1, True, "0%", "101%", "ten", "5.5", "%"])
def test_a_batch_size_that_is_not_a_count_or_percentage_is_refused(value):
    with pytest.raises(AnsibleFilterError, match="batch_size"):
        FILTERS["aipod_rolling_batch_group"](value)


def test_without_a_batch_group_one_host_at_a_time():
    assert FILTERS["aipod_rolling_serial"]({"all": ["dgx01"], "dgx": ["dgx01"]}) == 1


def test_node_states_name_the_rolling_change_s_own_cordon():
    nodes = [
        {"metadata": {"name": "dgx01"}, "spec": {}, "status": {"conditions": [{"type": "Ready", "status": "True"}]}},
        {"metadata": {"name": "dgx02", "annotations": {rolling.CORDON_ANNOTATION: rolling.CORDON_VALUE}},
         "spec": {"unschedulable": True}, "status": {"conditions": [{"type": "Ready", "status": "False"}]}},
        {"metadata": {"name": "dgx03"}, "spec": {"unschedulable": True}, "status": {}},
    ]
    assert FILTERS["aipod_rolling_nodes"](nodes) == {
        "dgx01": {"ready": True, "unschedulable": False, "cordoned_by_rolling": False},
        "dgx02": {"ready": False, "unschedulable": True, "cordoned_by_rolling": True},
        "dgx03": {"ready": False, "unschedulable": True, "cordoned_by_rolling": False},  # an operator's cordon
    }


HOSTS = ["dgx01", "dgx02", "dgx03", "dgx04"]


def test_a_stopped_rolling_change_names_what_was_changed_failed_and_left_and_how_to_resume():
    hostvars = {
        "dgx01": {"dgx_rolling_outcome": {"status": "changed", "seconds": 9.5, "batch": "dgx01"}},
        "dgx02": {"dgx_rolling_outcome": {"status": "failed", "seconds": 20.0, "batch": "dgx02", "cordoned": True,
                                          "reason": "health gate failed"}},
        "dgx03": {}, "dgx04": {},
    }
    summary = FILTERS["aipod_rolling_summary"](HOSTS, hostvars)
    assert (summary["ok"], summary["changed"], summary["failed"], summary["left"]) == (False, ["dgx01"], ["dgx02"], ["dgx03", "dgx04"])
    assert summary["failures"] == {"dgx02": "health gate failed"}
    assert summary["batch_seconds"] == [9.5, 20.0] and summary["total_seconds"] == 29.5
    assert summary["resume"] == (
        "Fix what failed on dgx02, then run the same command again. Hosts already changed have nothing pending and are "
        "skipped; dgx02 stays cordoned (annotation ontap-ai.pod/cordoned-by) and rolls first, then dgx03, dgx04 roll in turn.")


def test_a_batch_lasts_as_long_as_its_slowest_host():
    hostvars = {host: {"dgx_rolling_outcome": {"status": "changed", "seconds": seconds, "batch": batch}}
                for host, seconds, batch in (("dgx01", 10, "dgx01"), ("dgx02", 12, "dgx01"), ("dgx03", 8, "dgx03"), ("dgx04", 7, "dgx03"))}
    summary = FILTERS["aipod_rolling_summary"](HOSTS, hostvars)
    assert summary["ok"] and summary["batch_seconds"] == [12.0, 8.0] and summary["total_seconds"] == 20.0
    assert "resume" not in summary


def test_a_drain_that_failed_leaves_no_cordon_to_resume_from():
    hostvars = {"dgx01": {"dgx_rolling_outcome": {"status": "failed", "batch": "dgx01", "cordoned": False, "reason": "drain"}}}
    summary = FILTERS["aipod_rolling_summary"](["dgx01"], hostvars, "ansible-playbook playbooks/compute.yml")
    assert summary["resume"] == ("Fix what failed on dgx01, then run ansible-playbook playbooks/compute.yml again. Hosts already "
                                 "changed have nothing pending and are skipped; nothing else is left.")
