"""Filters of the storage layer: what differs between the site model and an ONTAP cluster (docs beside this file)."""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ansible.errors import AnsibleFilterError

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_ontap import plan as ontap_plan
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m


def _model(model: Any, name: str) -> dict:
    if not isinstance(model, Mapping) or "hosts" not in model:
        raise AnsibleFilterError(f"{name}: expected the site model (hostvars | ontap_ai.pod.aipod_model(groups)), got {type(model).__name__}")
    return dict(model)


def aipod_ontap_compare(model: Mapping, ontap_info: Any, area: str, options: Mapping | None = None) -> dict:
    """One area's plan and pending items, given na_ontap_rest_info's ontap_info."""
    if area not in ontap_plan.PLANNERS:
        raise AnsibleFilterError(f"aipod_ontap_compare: unknown area {area!r}; use one of {', '.join(ontap_plan.PLANNERS)}")
    if ontap_info is not None and not isinstance(ontap_info, Mapping):
        raise AnsibleFilterError(f"aipod_ontap_compare: expected na_ontap_rest_info's ontap_info (a dict), got {type(ontap_info).__name__}")
    return ontap_plan.compare(_model(model, "aipod_ontap_compare"), dict(ontap_info or {}), area, dict(options or {}))


def aipod_peer_reads(results: Any) -> dict:
    """na_ontap_rest_info results of a loop over peer clusters -> their ontap_info keyed peers/<peer>/<api>."""
    if not isinstance(results, list):
        raise AnsibleFilterError("aipod_peer_reads: expected the results of a loop of na_ontap_rest_info over peers")
    found: dict[str, Any] = {}
    for result in results:
        name = ((result or {}).get("item") or {}).get("name")
        for api, subset in ((result or {}).get("ontap_info") or {}).items():
            if name:
                found[f"peers/{name}/{api}"] = subset
    return found


def aipod_ontap_objects(model: Mapping, options: Mapping | None = None) -> dict:
    """How many ONTAP objects the storage roles manage for the model, by kind."""
    return ontap_plan.managed_objects(_model(model, "aipod_ontap_objects"), dict(options or {}))


def aipod_ontap_disaggregated(ontap: Any) -> bool:
    """Whether the model's ONTAP is disaggregated (AFX): it has no aggregates and places volumes itself."""
    if not isinstance(ontap, Mapping):
        raise AnsibleFilterError(f"aipod_ontap_disaggregated: expected the model's ontap section, got {type(ontap).__name__}")
    return m.ontap_disaggregated({"ontap": dict(ontap)})


# Failures worth another try: the cluster (or a proxy in front of it) was briefly unavailable or
# restarting. A certificate, authentication or validation error is never retried. Some modules
# report a failed version probe (say, a 503) as "REST requires ONTAP 9.x or later": one more try
# tells that apart from a cluster that is really too old (which then fails the same way again).
TRANSIENT = re.compile(r"\b50[234]\b|Service Unavailable|Bad Gateway|Gateway Time-?out|Connection (?:refused|aborted|reset)"
                       r"|RemoteDisconnected|Max retries exceeded|Read timed out|temporarily locked"
                       r"|REST requires ONTAP [0-9.]+ or later", re.IGNORECASE)
PERMANENT = re.compile(r"SSL|CERTIFICATE|not authorized|401", re.IGNORECASE)


def aipod_ontap_transient(result: Any) -> bool:
    """Whether a failed netapp.ontap task failed for a transient reason (503, connection refused, ...)."""
    if not isinstance(result, Mapping) or not result.get("failed"):
        return False
    text = " ".join(str(result.get(key, "")) for key in ("msg", "error_message", "status_code"))
    if TRANSIENT.search(text) and not PERMANENT.search(text):
        return True
    # A module that crashed (an exception, no message) is retried: until runs before Ansible turns
    # the crash into a message, and na_ontap_rest_info crashes that way when a connection drops.
    # A genuine bug fails again on the next try.
    return "msg" not in result and bool(result.get("exception"))


class FilterModule:
    """Storage-layer filters."""

    def filters(self):
        return {"aipod_ontap_compare": aipod_ontap_compare, "aipod_ontap_objects": aipod_ontap_objects,
                "aipod_ontap_disaggregated": aipod_ontap_disaggregated,
                "aipod_ontap_transient": aipod_ontap_transient, "aipod_peer_reads": aipod_peer_reads}
