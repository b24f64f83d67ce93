"""Drift filters: one judgement of the pod from every device's pending items, and its summary (docs: aipod_drift*.yml)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ansible.errors import AnsibleFilterError

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_report import drift


def aipod_drift(hostvars: Any, layers: Any) -> dict:
    if not isinstance(layers, Mapping) or not all(isinstance(spec, Mapping) and "var" in spec for spec in layers.values()):
        raise AnsibleFilterError("aipod_drift: expected {layer: {hosts: [...], var: name}}")
    gathered: dict[str, dict[str, Any]] = {}
    for layer, spec in layers.items():
        gathered[layer] = {host: (hostvars[host].get(spec["var"]) if host in hostvars else None) for host in spec.get("hosts") or []}
    try:
        return drift.result(gathered)
    except ValueError as error:
        raise AnsibleFilterError(f"aipod_drift: {error}") from error


def aipod_drift_summary(outcome: Any, limit: int = 40) -> list[str]:
    if not isinstance(outcome, Mapping) or "devices" not in outcome:
        raise AnsibleFilterError("aipod_drift_summary: expected the result of aipod_drift")
    return drift.summary_lines(outcome, int(limit))


class FilterModule:
    """Drift filters."""

    def filters(self):
        return {
            "aipod_drift": aipod_drift,
            "aipod_drift_summary": aipod_drift_summary,
        }
