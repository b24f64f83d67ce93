"""A Helm release against its plan: the pending items of one chart the bundle installs.

The plan carries {namespace, release, chart {name, version}, values}; the release is
kubernetes.core.helm_info's status (None when it does not exist).
"""
from __future__ import annotations

from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m


def release_object(plan: dict) -> str:
    return f"helm release {plan.get('namespace')}/{plan.get('release')}"


def release_pending(plan: dict, release: dict | None) -> list[dict]:
    """Create the release, or change its chart, values or state; a release helm left pending-* is
    refused: helm upgrades no such release."""
    chart = m.as_dict(plan.get("chart"))
    name = release_object(plan)
    if not release:
        return [aipod_pending.item(name, None, None, f"{chart.get('name')} {chart.get('version')}", "create")]
    status = m.as_str(release.get("status")) or ""
    if status.startswith("pending-"):
        reason = (f"helm left the release {status}; a run was stopped while helm worked. "
                  f"Run helm rollback {plan.get('release')} -n {plan.get('namespace')} (or uninstall it if it "
                  "never deployed), then run the layer again")
        return [aipod_pending.item(name, "status", status, "deployed", "refuse", reason)]
    found = []
    installed = m.as_str(release.get("chart")) or ""
    wanted = f"{chart.get('name')}-{chart.get('version')}"
    if installed != wanted:
        found.append(aipod_pending.item(name, "chart", installed, wanted))
    supplied = release.get("release_values", release.get("values"))
    if m.as_dict(supplied) != plan.get("values"):
        found.append(aipod_pending.item(name, "values", supplied, plan.get("values")))
    if status != "deployed":
        found.append(aipod_pending.item(name, "status", status, "deployed"))
    return found
