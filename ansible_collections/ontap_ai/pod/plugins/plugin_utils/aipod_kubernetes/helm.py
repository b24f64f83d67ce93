"""A Helm release against its plan: the pending items of one chart the bundle installs.

The plan carries {namespace, release, chart {name, version, repo, file}, values}; the release is
kubernetes.core.helm_info's status (None when it does not exist).
"""
from __future__ import annotations

from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m


def release_object(plan: dict) -> str:
    return f"helm release {plan.get('namespace')}/{plan.get('release')}"


def chart_arguments(chart: dict, chart_file: str | None) -> dict:
    """kubernetes.core.helm's chart_ref, chart_repo_url and chart_version for a plan's chart (None: leave
    it out). A chart archive beside the inventory, an air-gapped site's copy, replaces the repository; an
    oci:// repository is part of the reference, as helm takes it."""
    if chart_file:
        return {"chart_ref": chart_file, "chart_repo_url": None, "chart_version": None}
    name, version, repo = chart.get("name"), chart.get("version"), m.as_str(chart.get("repo")) or ""
    if repo.startswith("oci://"):
        return {"chart_ref": f"{repo.rstrip('/')}/{name}", "chart_repo_url": None, "chart_version": version}
    return {"chart_ref": name, "chart_repo_url": repo or None, "chart_version": version}


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
