# -*- coding: utf-8 -*-
"""Filters of the storage layer: what differs between the site model and an ONTAP cluster (docs beside this file)."""
from __future__ import annotations

import os
import sys
from typing import Any, Mapping

# Controller-side plugins import the bundle's libraries from the module_utils directory directly
# (see plugins/action/validate_site.py for why).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "module_utils"))

from aipod_ontap import plan as ontap_plan  # noqa: E402
from ansible.errors import AnsibleFilterError  # noqa: E402


def _model(model: Any, name: str) -> dict:
    if not isinstance(model, Mapping) or "hosts" not in model:
        raise AnsibleFilterError(f"{name}: expected the site model (hostvars | aipod_model(groups)), got {type(model).__name__}")
    return dict(model)


def aipod_ontap_plan(model: Mapping, ontap_info: Any, area: str, options: Mapping | None = None) -> dict:
    """The objects of one area that differ from the model, given na_ontap_rest_info's ontap_info."""
    if area not in ontap_plan.PLANNERS:
        raise AnsibleFilterError(f"aipod_ontap_plan: unknown area {area!r}; use one of {', '.join(ontap_plan.PLANNERS)}")
    if ontap_info is not None and not isinstance(ontap_info, Mapping):
        raise AnsibleFilterError(f"aipod_ontap_plan: expected na_ontap_rest_info's ontap_info (a dict), got {type(ontap_info).__name__}")
    return ontap_plan.plan(_model(model, "aipod_ontap_plan"), dict(ontap_info or {}), area, dict(options or {}))


def aipod_ontap_objects(model: Mapping, options: Mapping | None = None) -> dict:
    """How many ONTAP objects the storage roles manage for the model, by kind."""
    return ontap_plan.managed_objects(_model(model, "aipod_ontap_objects"), dict(options or {}))


class FilterModule:
    """Storage-layer filters."""

    def filters(self):
        return {"aipod_ontap_plan": aipod_ontap_plan, "aipod_ontap_objects": aipod_ontap_objects}
