"""The compute layer's rolling change: which DGX roll, in batches of what size, and what to say when one stops.

A DGX whose plan holds a change that interrupts I/O or pods (pending.disruptive) is changed in a
batch of its own: drained first when it is a Kubernetes node, health-checked after, then
uncordoned. The node keeps the annotation CORDON_ANNOTATION while the rolling play holds it
cordoned, so that a run that stopped (a failed health gate, a killed run) leaves a mark the next
run finds: that node rolls again and is uncordoned only by the run that cordoned it, never one an
operator cordoned by hand.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

CORDON_ANNOTATION = "ontap-ai.pod/cordoned-by"
CORDON_VALUE = "compute-rolling-change"
BATCH_GROUP_PREFIX = "dgx_rolling_batch_"
_PERCENT = re.compile(r"^([1-9][0-9]?|100)%$")


def node_states(nodes: Iterable[Any]) -> dict[str, dict[str, Any]]:
    """{name: {ready, unschedulable, cordoned_by_rolling, pods}} from Node objects (k8s_info resources)."""
    states = {}
    for node in nodes or []:
        if not isinstance(node, Mapping):
            continue
        meta = node.get("metadata") or {}
        name = meta.get("name")
        if not name:
            continue
        conditions = (node.get("status") or {}).get("conditions") or []
        ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions if isinstance(c, Mapping))
        states[name] = {"ready": ready, "unschedulable": bool((node.get("spec") or {}).get("unschedulable")),
                        "cordoned_by_rolling": (meta.get("annotations") or {}).get(CORDON_ANNOTATION) == CORDON_VALUE}
    return states


def batch_size(value: Any) -> int | str:
    """The model's compute.rolling.batch_size as serial takes it: an int >= 1 or "N%"; 1 when not set."""
    if value is None or value == "":
        return 1
    if isinstance(value, bool):
        raise ValueError(f"batch_size must be a number or a percentage, got {value!r}")
    if isinstance(value, int):
        if value < 1:
            raise ValueError(f"batch_size must be at least 1, got {value}")
        return value
    text = str(value).strip()
    if text.isdigit() and int(text) >= 1:
        return int(text)
    if _PERCENT.match(text):
        return text
    raise ValueError(f"batch_size must be a number >= 1 or a percentage such as 25%, got {value!r}")


def batch_group(value: Any) -> str:
    """The inventory group that carries the batch size to the rolling play, whose serial keyword sees groups but no host variable."""
    size = batch_size(value)
    return f"{BATCH_GROUP_PREFIX}{size[:-1]}_percent" if isinstance(size, str) else f"{BATCH_GROUP_PREFIX}{size}"


def serial_from_groups(groups: Mapping[str, Any]) -> int | str:
    """The batch size batch_group() put into the inventory's groups; 1 when none is there."""
    for name in sorted(groups or {}):
        if name.startswith(BATCH_GROUP_PREFIX):
            text = name[len(BATCH_GROUP_PREFIX):]
            return f"{text[:-len('_percent')]}%" if text.endswith("_percent") else int(text)
    return 1


def summary(order: list[str], outcomes: Mapping[str, Mapping[str, Any] | None], command: str = "") -> dict[str, Any]:
    """Which hosts of a rolling change were changed, which failed and which were left, and how to resume.

    order: the hosts of the rolling play in their order; outcomes: host -> {status: changed|failed|
    check, seconds, batch (the first host of its batch), reason, cordoned} or None for a host whose
    turn never came.
    """
    changed = [h for h in order if (outcomes.get(h) or {}).get("status") == "changed"]
    failed = [h for h in order if (outcomes.get(h) or {}).get("status") == "failed"]
    previewed = [h for h in order if (outcomes.get(h) or {}).get("status") == "check"]
    left = [h for h in order if not outcomes.get(h)]
    batches: dict[str, float] = {}  # in the order of the batches; a batch lasts as long as its slowest host
    for host in order:
        outcome = outcomes.get(host)
        if outcome and outcome.get("status") in ("changed", "failed"):
            batch = str(outcome.get("batch") or host)
            batches[batch] = max(batches.get(batch, 0.0), float(outcome.get("seconds") or 0.0))
    result: dict[str, Any] = {
        "ok": not failed and not left,
        "changed": changed, "failed": failed, "left": left, "previewed": previewed,
        "failures": {h: (outcomes.get(h) or {}).get("reason", "") for h in failed},
        "batch_seconds": [round(seconds, 1) for seconds in batches.values()],
        "total_seconds": round(sum(batches.values()), 1),
    }
    if failed:
        cordoned = [h for h in failed if (outcomes.get(h) or {}).get("cordoned")]
        result["resume"] = (
            f"Fix what failed on {', '.join(failed)}, then run {command or 'the same command'} again. "
            f"Hosts already changed have nothing pending and are skipped; "
            + (f"{', '.join(cordoned)} {'stays' if len(cordoned) == 1 else 'stay'} cordoned (annotation {CORDON_ANNOTATION}) "
               f"and {'rolls' if len(cordoned) == 1 else 'roll'} first, then " if cordoned else "")
            + (f"{', '.join(left)} roll in turn." if left else "nothing else is left.")
        )
    return result
