"""Filters of the compute layer's rolling change (drain, change, health gate, uncordon; a batch at a time).

Docs: aipod_rolling_nodes.yml, aipod_rolling_batch_group.yml, aipod_rolling_serial.yml and
aipod_rolling_summary.yml beside this file; the logic is in plugin_utils/aipod_compute/rolling.py.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ansible.errors import AnsibleFilterError

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_compute import rolling


def aipod_rolling_nodes(nodes: Any) -> dict[str, dict[str, Any]]:
    """{name: {ready, unschedulable, cordoned_by_rolling}} of the cluster's Node objects."""
    if not isinstance(nodes, list):
        raise AnsibleFilterError(f"aipod_rolling_nodes: expected the resources of k8s_info, got {type(nodes).__name__}")
    return rolling.node_states(nodes)


def aipod_rolling_batch_group(batch_size: Any) -> str:
    """The group name that carries compute.rolling.batch_size to the rolling play's serial keyword."""
    try:
        return rolling.batch_group(batch_size)
    except ValueError as error:
        raise AnsibleFilterError(f"aipod_rolling_batch_group: {error}") from error


def aipod_rolling_serial(groups: Any) -> int | str:
    """The batch size carried by aipod_rolling_batch_group's group, as serial takes it; 1 when there is none."""
    if not isinstance(groups, Mapping):
        raise AnsibleFilterError(f"aipod_rolling_serial: expected the groups variable, got {type(groups).__name__}")
    return rolling.serial_from_groups(groups)


def aipod_rolling_summary(order: Any, hostvars: Any, command: str = "") -> dict[str, Any]:
    """Hosts changed, failed and left by a rolling change, wall time per batch, and how to resume.

    hostvars: each host's variables, of which dgx_rolling_outcome (set by dgx_rolling) is read.
    """
    if not isinstance(order, list) or not isinstance(hostvars, Mapping):
        raise AnsibleFilterError("aipod_rolling_summary: expected the list of hosts and hostvars")
    outcomes = {}
    for host in order:
        variables = hostvars.get(host)
        outcome = variables.get("dgx_rolling_outcome") if isinstance(variables, Mapping) else None
        outcomes[str(host)] = dict(outcome) if isinstance(outcome, Mapping) else None
    return rolling.summary([str(h) for h in order], outcomes, command)


class FilterModule:
    """Rolling-change filters."""

    def filters(self):
        return {
            "aipod_rolling_nodes": aipod_rolling_nodes,
            "aipod_rolling_batch_group": aipod_rolling_batch_group,
            "aipod_rolling_serial": aipod_rolling_serial,
            "aipod_rolling_summary": aipod_rolling_summary,
        }
