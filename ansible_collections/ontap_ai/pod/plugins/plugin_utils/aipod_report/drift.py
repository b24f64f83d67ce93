"""Drift: what differs between the pod's devices and the site model, per device and object.

Each device role's `compare` entry point is the source (the comparison its role makes before it
changes anything): its pending items, one shape in every layer (module_utils/aipod_pending.py),
read as they are. `result(layers)` judges every device together. Exit codes, as for
verification: 0 nothing drifted, 1 something drifted, 2 a device could not be read (and nothing
drifted on the others).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending


def result(layers: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Judge every device: layers[layer][device] is {items: [pending items]} when it was read, or
    {reason: str} / None when it could not be (the device is then not checked). Unread items are
    parts of a device that could not be read: with no difference beside them, the device is not
    checked, and a drifted device keeps them as its reason."""
    devices = []
    for layer, by_device in layers.items():
        for device, state in by_device.items():
            if isinstance(state, Mapping) and isinstance(state.get("items"), list):
                wrong = aipod_pending.problems(state["items"])
                if wrong:
                    raise ValueError(f"{layer} {device}: " + "; ".join(wrong[:3]))
                found = [dict(entry) for entry in state["items"] if entry["action"] != "unread"]
                unread = [aipod_pending.describe(entry) for entry in state["items"] if entry["action"] == "unread"]
                status = "drifted" if found else "not_checked" if unread else "clean"
                entry = {"layer": layer, "device": device, "status": status, "differences": found}
                if unread:
                    entry["reason"] = "; ".join(unread)
                devices.append(entry)
            else:
                reason = (state or {}).get("reason") if isinstance(state, Mapping) else None
                devices.append({"layer": layer, "device": device, "status": "not_checked", "differences": [],
                                "reason": reason or "not read in this run (its layer was not selected, or it stopped before its comparison)"})
    counts = {status: sum(1 for d in devices if d["status"] == status) for status in ("drifted", "clean", "not_checked")}
    exit_code = 1 if counts["drifted"] else 2 if counts["not_checked"] else 0
    return {"exit_code": exit_code, "status": {0: "clean", 1: "drifted", 2: "incomplete"}[exit_code],
            "counts": counts, "differences": sum(len(d["differences"]) for d in devices), "devices": devices,
            "title": "Drift from the site model", "markdown": markdown(devices, exit_code, counts)}


def _cell(text: Any) -> str:
    return str(text).replace("|", "/").replace("\n", " ")


def markdown(devices: list[dict], exit_code: int, counts: Mapping[str, int]) -> str:
    verdict = {0: "nothing drifted", 1: "**drifted**", 2: "**incomplete** (some devices could not be read)"}[exit_code]
    lines = [f"Result: {verdict} (exit code {exit_code}); {counts['drifted']} drifted, {counts['clean']} clean, "
             f"{counts['not_checked']} not checked.", ""]
    rows = [(d["layer"], d["device"], item["object"], aipod_pending.difference(item)) for d in devices for item in d["differences"]]
    rows += [(d["layer"], d["device"], "-", f"not checked: {d['reason']}") for d in devices if d["status"] == "not_checked"]
    if rows:
        lines += ["| layer | device | object | difference |", "|---|---|---|---|"]
        lines += [f"| {' | '.join(_cell(cell) for cell in row)} |" for row in rows]
    return "\n".join(lines)


def summary_lines(outcome: Mapping[str, Any], limit: int = 40) -> list[str]:
    """What the run prints: the verdict, then one line per difference (at most limit)."""
    counts = outcome["counts"]
    lines = [f"drift: {outcome['status']} - {counts['drifted']} device(s) drifted, {counts['clean']} clean, "
             f"{counts['not_checked']} not checked; {outcome['differences']} difference(s)"]
    details = [f"{d['layer']} {d['device']}: {aipod_pending.describe(item)}"
               for d in outcome["devices"] for item in d["differences"]]
    details += [f"{d['layer']} {d['device']}: not checked: {d['reason']}" for d in outcome["devices"] if d["status"] == "not_checked"]
    lines += details[:limit]
    if len(details) > limit:
        lines.append(f"... and {len(details) - limit} more in the run report")
    return lines
