"""The monitoring layer's verification: the alert rules loaded, Harvest's pollers available."""
from __future__ import annotations

import copy

from project_paths import SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.filter.aipod_monitoring import aipod_judge_monitoring
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_monitoring import deploy, verify
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site

MODEL = load_site(str(SAMPLE), decrypt=make_decryptor(SAMPLE_VAULT_PASSWORD)).model
PLAN = deploy.monitoring_plan(MODEL)
CRDS = list(deploy.MONITORING_CRDS)


def declared(kind: str) -> list[dict]:
    return [copy.deepcopy(o) for o in PLAN["objects"] if o["kind"] == kind]


def available(deployments: list[dict], count: int = 1) -> list[dict]:
    return [dict(d, status={"availableReplicas": count}) for d in deployments]


def by_name(checks: list[dict]) -> dict[str, dict]:
    return {c["name"]: c for c in checks}


def test_the_declared_rules_and_an_available_poller_pass():
    checks = by_name(aipod_judge_monitoring(PLAN, CRDS, declared("PrometheusRule"), available(declared("Deployment"))))
    assert checks["monitoring_rules"]["status"] == "pass" and "aipod-alerts" in checks["monitoring_rules"]["detail"]
    assert checks["harvest_pollers"] == {"name": "harvest_pollers", "status": "pass",
                                         "detail": "1 Harvest poller(s) available: harvest-aipod-a800"}


def test_a_missing_crd_rule_group_or_poller_fails_and_says_which():
    assert verify.judge(PLAN, [], [], [])[0]["detail"].startswith("the cluster has no prometheusrules.monitoring.coreos.com CRD")
    rule = declared("PrometheusRule")[0]
    dropped = rule["spec"]["groups"].pop()["name"]
    checks = by_name(verify.judge(PLAN, CRDS, [rule], available(declared("Deployment"), 0)))
    assert checks["monitoring_rules"]["status"] == "fail" and dropped in checks["monitoring_rules"]["detail"]
    assert checks["harvest_pollers"]["status"] == "fail" and "no pod available: harvest-aipod-a800" in checks["harvest_pollers"]["detail"]
    assert "missing: harvest-aipod-a800" in by_name(verify.judge(PLAN, CRDS, [rule], []))["harvest_pollers"]["detail"]


def test_nothing_is_judged_when_the_pod_is_not_watched():
    model = copy.deepcopy(MODEL)
    model["monitoring"]["enabled"] = False
    assert verify.judge(deploy.monitoring_plan(model), CRDS, [], []) == []
