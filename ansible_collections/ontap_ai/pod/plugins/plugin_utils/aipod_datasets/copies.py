"""How a data set's copy on a peer cluster is doing: mirrored, healthy, and no further behind than
its schedule allows (verification of the storage layer)."""
from __future__ import annotations

import re
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_datasets import model as datasets_model
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m

# ONTAP's built-in schedules, by how often they run (seconds).
SCHEDULE_SECONDS = {"5min": 300, "8hour": 8 * 3600, "hourly": 3600, "daily": 86400, "weekly": 7 * 86400}
# A copy may miss one update: behind by more than two periods, it is stalled.
PERIODS_ALLOWED = 2
DURATION = re.compile(r"^P(?:(?P<days>\d+)D)?(?:T(?:(?P<hours>\d+)H)?(?:(?P<minutes>\d+)M)?(?:(?P<seconds>\d+(?:\.\d+)?)S)?)?$")


def seconds(duration: Any) -> float | None:
    """An ISO 8601 duration as ONTAP writes lag_time (PT1H2M3S, P1DT2H) in seconds; None when unreadable."""
    match = DURATION.match(duration) if isinstance(duration, str) else None
    if not match or duration in ("P", "PT"):
        return None
    parts = {key: float(value or 0) for key, value in match.groupdict().items()}
    return parts["days"] * 86400 + parts["hours"] * 3600 + parts["minutes"] * 60 + parts["seconds"]


def judge(model: dict, relationships: list, flexcaches: list | None = None) -> list[dict[str, str]]:
    """One check per copy: "copy of <data set> on <peer>" passes when its relationship (read on the
    peer) is snapmirrored, healthy and behind by at most two periods of its schedule; one per cache:
    "cache of <data set> on <cluster>" passes when it exists there and its origin is online."""
    checks = []
    for cache in datasets_model.caches(model):
        name = f"cache of data set {cache['dataset']} on {cache['cluster']}"
        found = next((c for c in m.as_list(flexcaches) if isinstance(c, dict) and c.get("name") == cache["volume"]
                      and m.as_dict(c.get("svm")).get("name") == cache["svm"]), None)
        origin = m.as_dict((m.as_list((found or {}).get("origins")) or [{}])[0])
        if found is None:
            checks.append({"layer": "storage", "name": name, "status": "fail",
                           "detail": f"no FlexCache volume {cache['svm']}:{cache['volume']} on {cache['cluster']}"})
        elif origin.get("state") != "online":
            checks.append({"layer": "storage", "name": name, "status": "fail",
                           "detail": f"its origin {cache['origin_svm']}:{cache['origin_volume']} is {origin.get('state')}"})
        else:
            checks.append({"layer": "storage", "name": name, "status": "pass",
                           "detail": f"{cache['svm']}:{cache['volume']} in front of {cache['origin_svm']}:{cache['origin_volume']}, online"})
    for copy in datasets_model.copies(model):
        name = f"copy of data set {copy['dataset']} on {copy['peer']}"
        found = next((r for r in m.as_list(relationships) if isinstance(r, dict)
                      and m.as_dict(r.get("destination")).get("path") == copy["destination_path"]), None)
        if found is None:
            checks.append({"layer": "storage", "name": name, "status": "fail",
                           "detail": f"no SnapMirror relationship to {copy['destination_path']} on {copy['peer']}"})
            continue
        state, healthy = found.get("state"), found.get("healthy")
        lag = seconds(found.get("lag_time"))
        period = SCHEDULE_SECONDS.get(copy["schedule"] or "")
        problems = []
        if state != "snapmirrored":
            problems.append(f"state {state}")
        if healthy is not True:
            reasons = "; ".join(m.as_dict(r).get("message", "") for r in m.as_list(found.get("unhealthy_reason")))
            problems.append(f"unhealthy{': ' + reasons if reasons else ''}")
        if period and lag is not None and lag > PERIODS_ALLOWED * period:
            problems.append(f"{found.get('lag_time')} behind, more than {PERIODS_ALLOWED} periods of schedule {copy['schedule']}")
        if problems:
            checks.append({"layer": "storage", "name": name, "status": "fail", "detail": ", ".join(problems)})
            continue
        if lag is None:
            detail = "snapmirrored and healthy; no lag reported yet"
        elif period is None:
            detail = f"snapmirrored and healthy, {found.get('lag_time')} behind (schedule {copy['schedule'] or 'none'}: lag not judged)"
        else:
            detail = f"snapmirrored and healthy, {found.get('lag_time')} behind (schedule {copy['schedule']})"
        checks.append({"layer": "storage", "name": name, "status": "pass", "detail": detail})
    return checks
