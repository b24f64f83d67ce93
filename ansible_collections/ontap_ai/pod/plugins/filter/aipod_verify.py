"""Filters of the whole-pod verification (playbooks/verify.yml).

Docs: aipod_pending_checks.yml, aipod_pod_verification.yml and
aipod_verification_summary.yml beside this file; the logic is plugins/plugin_utils/aipod_report/verification.py.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ansible.errors import AnsibleFilterError

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_report import verification


def aipod_pending_checks(pending: Any, source: str | None = None) -> list[dict]:
    if not isinstance(pending, Mapping):
        raise AnsibleFilterError(f"aipod_pending_checks: expected a dict of area -> pending items, got {type(pending).__name__}")
    try:
        return verification.pending_checks(pending, source or None)
    except ValueError as error:
        raise AnsibleFilterError(f"aipod_pending_checks: {error}") from None


def aipod_pod_verification(hostvars: Any, layers: Any) -> dict:
    if not isinstance(layers, Mapping):
        raise AnsibleFilterError("aipod_pod_verification: expected {layer: {hosts: [...], var: name}}")
    gathered: dict[str, dict[str, Any]] = {}
    for layer, spec in layers.items():
        gathered[layer] = {}
        for host in spec.get("hosts") or []:
            gathered[layer][host] = verification.checks_of(hostvars[host].get(spec["var"]) if host in hostvars else None)
    return verification.pod_result(gathered)


def aipod_verification_summary(result: Any, limit: int = 40) -> list[str]:
    if not isinstance(result, Mapping) or "exit_code" not in result:
        raise AnsibleFilterError("aipod_verification_summary: expected the result of aipod_pod_verification")
    return verification.summary_lines(result, int(limit))


class FilterModule:
    """Whole-pod verification filters."""

    def filters(self):
        return {
            "aipod_pending_checks": aipod_pending_checks,
            "aipod_pod_verification": aipod_pod_verification,
            "aipod_verification_summary": aipod_verification_summary,
        }
