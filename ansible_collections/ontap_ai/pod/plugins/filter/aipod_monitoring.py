"""Filters that hand the monitoring layer values derived from the site model.

Docs: aipod_alert_rules.yml, aipod_monitoring_plan.yml, aipod_monitoring_secrets.yml,
aipod_monitoring_pending.yml and aipod_judge_monitoring.yml beside this file. The derivations live in
plugins/plugin_utils/aipod_monitoring/ (alerts.py, deploy.py, dashboards.py, verify.py), unit-tested
without Ansible.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ansible.errors import AnsibleFilterError

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_monitoring import deploy, verify
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_monitoring.alerts import alert_rules


def _model(model: Any, name: str) -> dict[str, Any]:
    if not isinstance(model, Mapping) or "hosts" not in model:
        raise AnsibleFilterError(f"{name}: expected the site model (hostvars | ontap_ai.pod.aipod_model(groups))")
    return dict(model)


def _plan(plan: Any, name: str) -> dict[str, Any]:
    if not isinstance(plan, Mapping) or "objects" not in plan or "secrets" not in plan:
        raise AnsibleFilterError(f"{name}: expected the plan of aipod_monitoring_plan")
    return dict(plan)


def aipod_alert_rules(model: Any) -> dict[str, Any]:
    return alert_rules(_model(model, "aipod_alert_rules"))


def aipod_monitoring_plan(model: Any, ca_pem: Any = "", switch_ca_pem: Any = "", dashboard_files: Any = None) -> dict[str, Any]:
    if ca_pem is not None and not isinstance(ca_pem, str):
        raise AnsibleFilterError("aipod_monitoring_plan: ca_pem is the text of ontap.ca_file")
    if switch_ca_pem is not None and not isinstance(switch_ca_pem, str):
        raise AnsibleFilterError("aipod_monitoring_plan: switch_ca_pem is the text of monitoring.harvest.switches.ca_file")
    if dashboard_files is not None and (not isinstance(dashboard_files, Mapping)
                                        or not all(isinstance(text, str) for text in dashboard_files.values())):
        raise AnsibleFilterError("aipod_monitoring_plan: dashboard_files maps a dashboard file's name to its text")
    try:
        return deploy.monitoring_plan(_model(model, "aipod_monitoring_plan"), ca_pem or "", switch_ca_pem or "",
                                      dict(dashboard_files or {}))
    except ValueError as error:
        raise AnsibleFilterError(f"aipod_monitoring_plan: {error}") from error


def aipod_monitoring_secrets(plan: Any, values: Any) -> list[dict[str, Any]]:
    try:
        return deploy.secret_manifests(_plan(plan, "aipod_monitoring_secrets"), list(values or []))
    except ValueError as error:
        raise AnsibleFilterError(f"aipod_monitoring_secrets: {error}") from error


def aipod_monitoring_pending(plan: Any, existing: Any, secrets: Any, release: Any, crds: Any, field_manager: str) -> list[dict]:
    if not isinstance(existing, Mapping):
        raise AnsibleFilterError("aipod_monitoring_pending: existing maps a kind to the cluster's objects of that kind")
    if release is not None and not isinstance(release, Mapping):
        raise AnsibleFilterError("aipod_monitoring_pending: the release is helm_info's status, or none when it does not exist")
    if not field_manager:
        raise AnsibleFilterError("aipod_monitoring_pending: the field manager is empty")
    return deploy.pending(_plan(plan, "aipod_monitoring_pending"), dict(existing), list(secrets or []),
                          dict(release) if release else None, list(crds or []), str(field_manager))


def aipod_judge_monitoring(plan: Any, crds: Any, rules: Any, deployments: Any) -> list[dict[str, str]]:
    if not all(isinstance(value, list) for value in (crds, rules, deployments)):
        raise AnsibleFilterError("aipod_judge_monitoring: expected the CRD names, the PrometheusRules and the Deployments as lists")
    return verify.judge(_plan(plan, "aipod_judge_monitoring"), crds, rules, deployments)


class FilterModule:
    """Monitoring filters of the site model."""

    def filters(self):
        return {"aipod_alert_rules": aipod_alert_rules, "aipod_monitoring_plan": aipod_monitoring_plan,
                "aipod_monitoring_secrets": aipod_monitoring_secrets, "aipod_monitoring_pending": aipod_monitoring_pending,
                "aipod_judge_monitoring": aipod_judge_monitoring}
