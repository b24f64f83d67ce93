"""Verification of a data set's copy on its peer: mirrored, healthy, behind by at most two periods."""
from __future__ import annotations

import copy

import pytest
from ontap_lab_client import LAB_MODEL

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_datasets import copies


def relationship(**changes) -> dict:
    found = {"destination": {"path": "dr-data:imagenet"}, "state": "snapmirrored", "healthy": True, "lag_time": "PT0H12M5S"}
    found.update(changes)
    return found


@pytest.mark.parametrize(("text", "seconds"), [("PT0H12M5S", 725), ("PT2H", 7200), ("P1DT2H", 93600), ("PT1.5S", 1.5),
                                               ("PT", None), ("soon", None), (None, None)])
def test_lag_time_reads_as_ontap_writes_it(text, seconds):
    assert copies.seconds(text) == seconds


def test_a_current_healthy_copy_passes():
    [_cache, check] = copies.judge(LAB_MODEL, [relationship()])
    assert (check["name"], check["status"]) == ("copy of data set imagenet on lab-dr", "pass")
    assert "PT0H12M5S behind (schedule hourly)" in check["detail"]


@pytest.mark.parametrize(("changes", "words"), [
    ({"lag_time": "PT2H1M0S"}, "more than 2 periods of schedule hourly"),
    ({"state": "broken_off"}, "state broken_off"),
    ({"healthy": False, "unhealthy_reason": [{"message": "Transfer failed."}]}, "unhealthy: Transfer failed."),
])
def test_a_copy_behind_broken_or_unhealthy_fails(changes, words):
    [_cache, check] = copies.judge(LAB_MODEL, [relationship(**changes)])
    assert check["status"] == "fail" and words in check["detail"]


def test_a_missing_copy_fails_and_an_unknown_schedule_is_not_judged():
    [_cache, check] = copies.judge(LAB_MODEL, [])
    assert check["status"] == "fail" and "no SnapMirror relationship to dr-data:imagenet" in check["detail"]
    model = copy.deepcopy(LAB_MODEL)
    model["datasets"][0]["protection"]["snapmirror"]["schedule"] = "fortnightly"
    [_cache, check] = copies.judge(model, [relationship(lag_time="P20D")])
    assert check["status"] == "pass" and "lag not judged" in check["detail"]


def test_a_cache_passes_in_front_of_an_online_origin_and_fails_missing_or_offline():
    cache = {"name": "imagenet_cache", "svm": {"name": "dr-cache"}, "origins": [{"state": "online"}]}
    [check, _copy] = copies.judge(LAB_MODEL, [relationship()], [cache])
    assert (check["name"], check["status"]) == ("cache of data set imagenet on lab-dr", "pass")
    [check, _copy] = copies.judge(LAB_MODEL, [relationship()], [dict(cache, origins=[{"state": "offline"}])])
    assert check["status"] == "fail" and "is offline" in check["detail"]
    [check, _copy] = copies.judge(LAB_MODEL, [relationship()], [])
    assert check["status"] == "fail" and "no FlexCache volume dr-cache:imagenet_cache on lab-dr" in check["detail"]
