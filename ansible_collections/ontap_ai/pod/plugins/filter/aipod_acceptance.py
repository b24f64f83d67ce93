"""Filters of the data path's acceptance test (playbooks/acceptance.yml).

Docs: aipod_acceptance_targets.yml and aipod_acceptance_verdict.yml beside this file; the logic is
plugins/plugin_utils/aipod_report/acceptance.py.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ansible.errors import AnsibleFilterError

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_report import acceptance


def aipod_acceptance_targets(mounts: Any, verification: Any = None) -> list[dict]:
    if not isinstance(mounts, list):
        raise AnsibleFilterError(f"aipod_acceptance_targets: expected the host's mount plan (a list), got {type(mounts).__name__}")
    checks = verification.get("checks") if isinstance(verification, Mapping) else verification
    return acceptance.targets(mounts, checks if isinstance(checks, list) else None)


def aipod_acceptance_verdict(model: Any, hostvars: Any, hosts: Any, targets_var: str = "acceptance_targets",
                             result_var: str = "acceptance_measurement") -> dict:
    if not isinstance(model, Mapping) or "hosts" not in model:
        raise AnsibleFilterError("aipod_acceptance_verdict: expected the site model (hostvars | ontap_ai.pod.aipod_model(groups))")
    gathered: dict[str, dict[str, Any]] = {}
    for host in hosts or []:
        values = hostvars[host] if host in hostvars else {}
        result = values.get(result_var)
        ran = isinstance(result, Mapping) and not result.get("failed") and not result.get("skipped") and "mounts" in result
        error = None
        if isinstance(result, Mapping) and not ran:
            error = str(result.get("msg") or ("skipped: no healthy mount" if result.get("skipped") else "the test failed"))
        gathered[host] = {"targets": values.get(targets_var) or [], "result": result if ran else None,
                          "error": error or (None if ran else "the host did not answer")}
    verdict = acceptance.verdict(model, gathered)
    return {**verdict, "title": "Acceptance: reads from every DGX against the sizing", "markdown": acceptance.markdown(verdict),
            "svg": acceptance.svg(verdict)}


class FilterModule:
    """Acceptance test filters."""

    def filters(self):
        return {"aipod_acceptance_targets": aipod_acceptance_targets, "aipod_acceptance_verdict": aipod_acceptance_verdict}
