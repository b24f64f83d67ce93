"""Verification of the monitoring layer: what it declared is on the cluster and running.

Judged from the cluster only: the pod's alert rules are on the cluster as the PrometheusRule the layer
declares, with every rule group the model gives, and each Harvest poller's Deployment has a pod
available. Whether Prometheus scrapes them is Prometheus's to say (its `up` series), which this
check does not read.
"""
from __future__ import annotations

from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_monitoring import deploy
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m


def _check(name: str, status: str, detail: str) -> dict[str, str]:
    return {"name": name, "status": status, "detail": detail}


def _name(item: Any) -> str:
    return m.as_str(m.as_dict(m.as_dict(item).get("metadata")).get("name")) or ""


def judge(plan: dict, crds: list, rules: list, deployments: list) -> list[dict[str, str]]:
    """monitoring_rules and harvest_pollers; nothing when the model does not watch the pod."""
    if not plan.get("enabled"):
        return []
    declared = [o for o in m.as_list(plan.get("objects")) if isinstance(o, dict)]
    checks = []
    wanted_rules = next((o for o in declared if o.get("kind") == "PrometheusRule"), None)
    if wanted_rules is not None:
        crd = deploy.CRD_OF_KIND["PrometheusRule"]
        found = next((r for r in m.as_list(rules) if _name(r) == _name(wanted_rules)), None)
        wanted_groups = [g.get("name") for g in m.as_list(m.as_dict(wanted_rules.get("spec")).get("groups")) if isinstance(g, dict)]
        if crd not in m.as_list(crds):
            checks.append(_check("monitoring_rules", "fail", f"the cluster has no {crd} CRD: no Prometheus Operator loads the pod's alerts"))
        elif found is None:
            checks.append(_check("monitoring_rules", "fail", f"PrometheusRule {_name(wanted_rules)} is missing: run the Kubernetes layer"))
        else:
            groups = [g.get("name") for g in m.as_list(m.as_dict(found.get("spec")).get("groups")) if isinstance(g, dict)]
            missing = [g for g in wanted_groups if g not in groups]
            checks.append(_check("monitoring_rules", "fail" if missing else "pass",
                                 f"PrometheusRule {_name(found)} lacks the group(s) {', '.join(missing)}" if missing else
                                 f"PrometheusRule {_name(found)}: {len(groups)} rule groups ({', '.join(groups)})"))
    pollers = [_name(o) for o in declared if o.get("kind") == "Deployment"]
    if pollers:
        by_name = {_name(d): m.as_dict(d.get("status")) for d in m.as_list(deployments) if isinstance(d, dict)}
        missing = [name for name in pollers if name not in by_name]
        idle = [name for name in pollers if name in by_name and not (m.as_int(by_name[name].get("availableReplicas")) or 0)]
        problems = ([f"missing: {', '.join(missing)}"] if missing else []) + (
            [f"no pod available: {', '.join(idle)} (kubectl -n {plan.get('namespace')} describe deployment <name>)"] if idle else [])
        checks.append(_check("harvest_pollers", "fail" if problems else "pass",
                             "; ".join(problems) or f"{len(pollers)} Harvest poller(s) available: {', '.join(pollers)}"))
    return checks
