"""AFX (disaggregated ONTAP) in the site model: no aggregates anywhere, and FlexGroups placed by ONTAP;
every other platform keeps naming its aggregates. Each case edits the lab pod's model in memory."""
from __future__ import annotations

import copy
import dataclasses

from inventory_edits import as_afx
from project_paths import LAB, LAB_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_ontap import plan as ontap_plan
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import check_model

SITE = load_site(str(LAB), decrypt=make_decryptor(LAB_VAULT_PASSWORD))


def afx(model: dict) -> dict:
    as_afx(model["ontap"], model["trident"])
    return model


def errors(model: dict) -> list[tuple[str, str, str]]:
    site = dataclasses.replace(SITE, model=model, findings=[])
    return [(f.rule, f.key_path(), f.message) for f in check_model(site, check_files=False) if f.severity == "error"]


def test_an_afx_pod_without_aggregates_is_valid_and_its_flexgroups_are_placed_by_ontap():
    model = afx(copy.deepcopy(SITE.model))
    assert errors(model) == []
    assert m.ontap_disaggregated(model)
    data = next(fg for fg in m.flexgroups(model) if fg["name"] == "data")
    assert (data["aggregates"], data["constituents"], data["placed_by_ontap"]) == ([], None, True)
    plan = ontap_plan.plan(model, {}, "flexgroups")
    want = next(item["want"] for item in plan["flexgroups"] if item["key"] == "lab-data:data")
    assert (want["aggr_list"], want["aggr_list_multiplier"], want["auto_provision"]) == (None, None, True)
    body = want["rest_create_body"]
    assert body["style"] == "flexgroup" and "aggregates" not in body and "constituents_per_aggregate" not in body
    assert body["qos"] == {"policy": {"name": "lab-data-floor"}} and body["nas"]["path"] == "/data"
    svm = ontap_plan.plan(model, {}, "svms")["svms"][0]
    assert svm["want"]["aggregates"] is None


def test_afx_refuses_aggregates_and_constituent_counts():
    model = afx(copy.deepcopy(SITE.model))
    model["ontap"]["nodes"][0]["aggregates"] = [{"name": "aggr1", "disk_count": 23}]
    model["ontap"]["svms"][0]["flexgroups"][0]["constituents_per_aggregate"] = 4
    found = [(rule, key) for rule, key, _message in errors(model) if rule == "aggregates"]
    assert [key.rsplit(".", 1)[-1] for _rule, key in found] == ["aggregates", "constituents_per_aggregate"], found


def test_other_platforms_still_name_their_aggregates():
    model = copy.deepcopy(SITE.model)
    model["ontap"]["nodes"][1].pop("aggregates")
    model["ontap"]["svms"][0]["flexgroups"][1].pop("constituents_per_aggregate")
    messages = [message for rule, _key, message in errors(model) if rule == "aggregates"]
    assert any("lab-ontap-02 declares no aggregates" in text for text in messages), messages
    assert any("FlexGroup home does not say how many constituents" in text for text in messages), messages


def test_afx_runs_ontap_9_17_1_or_later():
    model = afx(copy.deepcopy(SITE.model))
    model["ontap"]["version"] = "9.16.1"
    assert [key for rule, key, _message in errors(model) if rule == "aggregates"] == ["ontap.version"]
