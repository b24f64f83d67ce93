"""The model's monitoring section: alert rules derived from the pod the model describes, and the rules
that refuse what cannot work, each at its file and line."""
from __future__ import annotations

import copy
import dataclasses
import re

import pytest
from project_paths import LAB, LAB_VAULT_PASSWORD, SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_monitoring import alerts
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import check_model

SITE = load_site(str(SAMPLE), decrypt=make_decryptor(SAMPLE_VAULT_PASSWORD))
# The lab pod copies its data set to a peer cluster, which the sample does not.
LAB_MODEL = load_site(str(LAB), decrypt=make_decryptor(LAB_VAULT_PASSWORD)).model


def by_alert(model: dict) -> dict[str, list[dict]]:
    found: dict[str, list[dict]] = {}
    for group in alerts.alert_rules(model)["groups"]:
        for rule in group["rules"]:
            found.setdefault(rule["alert"], []).append(rule)
    return found


def edited(change) -> dict:
    model = copy.deepcopy(SITE.model)
    change(model)
    return model


def findings(model: dict, severity: str = "error") -> list[tuple[str, str, str, str]]:
    site = dataclasses.replace(SITE, model=model, findings=[])
    return [(f.rule, f.key_path(), f.message, f.location or "") for f in check_model(site, check_files=False)
            if f.severity == severity and f.key_path().startswith("monitoring")]


def test_every_alert_family_of_the_issue_has_a_rule_with_a_runbook():
    rules = by_alert(SITE.model) | {"AipodSnapMirrorLag": by_alert(LAB_MODEL)["AipodSnapMirrorLag"]}
    assert set(rules) == {"AipodVolumeFull", "AipodDataLifDown", "AipodDataLifNotHome", "AipodNfsLatencyHigh",
                          "AipodSnapMirrorLag", "AipodStorageLinkDown", "AipodStorageMtuWrong", "AipodRocePauseRising",
                          "AipodRoceEcnRising", "AipodGpuXidError", "AipodGpuHot", "AipodNodeNotReady",
                          "AipodTridentBackendOffline"}
    assert all(rule["annotations"]["runbook"].startswith("docs/monitoring.md#") for group in rules.values() for rule in group)


def test_the_rules_watch_what_the_model_declares_with_its_thresholds():
    rules = by_alert(SITE.model)
    assert rules["AipodVolumeFull"][0]["expr"] == 'volume_size_used_percent{svm=~"aipod-data", volume=~"data|home|imagenet"} > 85'
    assert rules["AipodNfsLatencyHigh"][0]["expr"] == 'svm_nfs_latency{svm=~"aipod-data"} > 10000'  # Harvest: microseconds
    # The storage NICs with the model's MTU; the data set's copy with two periods of its schedule.
    assert rules["AipodStorageMtuWrong"][0]["expr"] == 'node_network_mtu_bytes{device=~"enp225s0f0|enp225s0f1"} != 9000'
    assert by_alert(LAB_MODEL)["AipodSnapMirrorLag"][0]["expr"] == (
        'snapmirror_lag_time{source_vserver="lab-data", source_volume="imagenet"} > 7200')
    assert 'node=~"k8s-cp01|k8s-cp02|k8s-cp03|dgx01|dgx02|dgx03|dgx04"' in rules["AipodNodeNotReady"][0]["expr"]
    tighter = by_alert(edited(lambda model: model["monitoring"]["alerts"].update(volume_full_percent=90.5, gpu_temperature_c=80)))
    assert tighter["AipodVolumeFull"][0]["expr"].endswith("> 90.5") and tighter["AipodGpuHot"][0]["expr"].endswith("> 80")


def test_a_name_is_a_regex_literal_never_promql():
    model = edited(lambda model: model["ontap"]["svms"][0].update(name='a.b"} or vector(1) #'))
    expr = by_alert(model)["AipodNfsLatencyHigh"][0]["expr"]
    # Regex metacharacters escaped for RE2, then the string escaped for PromQL: still one label matcher.
    assert expr == 'svm_nfs_latency{svm=~"a\\\\.b\\"\\\\} or vector\\\\(1\\\\) #"} > 10000'


def test_a_pod_without_roce_or_copies_gets_no_rules_for_them():
    def plain(model):
        for body in model["hosts"].values():
            if "dgx" in body:
                body["dgx"]["roce"] = False
        model.pop("datasets", None)
    rules = by_alert(edited(plain))
    assert not {"AipodRocePauseRising", "AipodRoceEcnRising", "AipodSnapMirrorLag"} & set(rules)


@pytest.mark.parametrize(("change", "key", "words"), [
    (lambda mon: mon["alerts"].update(volume_full_percent=120), "monitoring.alerts.volume_full_percent", "above the maximum 100"),
    (lambda mon: mon["alerts"].update(volume_full_percent=0), "monitoring.alerts.volume_full_percent", "below the minimum 0"),
    (lambda mon: mon["storage"].update({"class": "fast"}), "monitoring.storage.class", "StorageClass fast is not one the model declares"),
    (lambda mon: mon["harvest"]["account"].update(username="trident"), "monitoring.harvest.account.username",
     "is the name of Trident's account"),
    (lambda mon: mon.update(scrape_interval="1s"), "monitoring.scrape_interval", "a scrape every 1s"),
    (lambda mon: mon["harvest"]["account"].update(username="admin"), "monitoring.harvest.account.username",
     "is the account the storage layer runs as"),
    (lambda mon: mon["harvest"]["account"].update(username="diag"), "monitoring.harvest.account.username",
     "is ONTAP's built-in account"),
    (lambda mon: mon["harvest"]["account"].update(role="readonly"), "monitoring.harvest.account.role",
     "is ONTAP's built-in role"),
])
def test_bad_monitoring_input_is_refused_at_its_line(change, key, words):
    errors = findings(edited(lambda model: change(model["monitoring"])))
    assert [k for _rule, k, _message, _where in errors] == [key], errors
    assert words in errors[0][2] and "group_vars/all/monitoring.yml:" in str(errors[0][3])


def test_the_sample_is_valid_and_watched():
    assert alerts.enabled(SITE.model) and findings(SITE.model) == [] and findings(SITE.model, "warning") == []


def test_every_runbook_names_a_section_of_the_monitoring_doc():
    doc = (SAMPLE.parents[1] / "docs" / "monitoring.md").read_text()
    anchors = {re.sub(r"[^a-z0-9 -]", "", line[4:].strip().lower()).replace(" ", "-")
               for line in doc.splitlines() if line.startswith("### ")}
    rules = by_alert(SITE.model) | by_alert(LAB_MODEL)
    wanted = {rule["annotations"]["runbook"].split("#", 1)[1] for group in rules.values() for rule in group}
    assert wanted <= anchors, wanted - anchors
