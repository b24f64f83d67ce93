"""Filters that hand the monitoring layer values derived from the site model.

Docs: aipod_alert_rules.yml beside this file. The derivation lives in
plugins/plugin_utils/aipod_monitoring/alerts.py, unit-tested without Ansible.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ansible.errors import AnsibleFilterError

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_monitoring.alerts import alert_rules


def aipod_alert_rules(model: Any) -> dict[str, Any]:
    if not isinstance(model, Mapping) or "hosts" not in model:
        raise AnsibleFilterError("aipod_alert_rules: expected the site model (hostvars | ontap_ai.pod.aipod_model(groups))")
    return alert_rules(dict(model))


class FilterModule:
    """Monitoring filters of the site model."""

    def filters(self):
        return {"aipod_alert_rules": aipod_alert_rules}
