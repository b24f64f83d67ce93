"""The pod's verification result: checks of every layer and host judged together.

A check is ``{layer, host, name, status, detail}`` with status one of
``pass``, ``fail``, ``not_applicable`` (nothing to check here, and why: a host without GPUs) and
``not_checked`` (it should have been checked but could not be: a host that did not answer).
The result's exit code is 0 when every check passed or did not apply, 1 when one failed, and 2
when none failed but something could not be checked.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending

STATUSES = ("pass", "fail", "not_applicable", "not_checked")
EXIT_CODES = {"pass": 0, "fail": 1, "not_checked": 2}


def pending_checks(pending: Mapping[str, Any], source: str | None = None, layer: str = "storage",
                   prefix: str = "ONTAP") -> list[dict[str, str]]:
    """One check per area from its pending items (module_utils/aipod_pending.py): "<prefix> <area>"
    passes with nothing pending and fails naming what differs; refused items make a failed check
    "<prefix> <area> (left to an operator)" of their own.

    source, when given, says where the items were read (it ends every detail in parentheses).
    """
    checks = []
    for area, items in pending.items():
        wrong = aipod_pending.problems(items)
        if wrong:
            raise ValueError(f"{area}: " + "; ".join(wrong[:3]))
        refused = [entry for entry in items if entry["action"] == "refuse"]
        different = [entry for entry in items if entry["action"] != "refuse"]
        if refused:
            checks.append({"layer": layer, "name": f"{prefix} {area} (left to an operator)", "status": "fail",
                           "detail": "; ".join(aipod_pending.lines(refused))})
        checks.append({"layer": layer, "name": f"{prefix} {area}", "status": "fail" if different else "pass",
                       "detail": ("differs from the model: " + "; ".join(aipod_pending.lines(different))) if different
                       else "as the model says"})
    if source:
        for check in checks:
            check["detail"] += f" ({source})"
    return checks


def checks_of(value: Any) -> list[dict] | None:
    """A host's checks from what its layer left: a list of checks, or a registered module result that
    carries them (``checks``). None - the host is then not checked - for anything else, such as the
    result of a task that failed, did not reach the host or was skipped."""
    if isinstance(value, list):
        return list(value)
    if isinstance(value, Mapping) and isinstance(value.get("checks"), list) and not (
            value.get("failed") or value.get("unreachable") or value.get("skipped")):
        return list(value["checks"])
    return None


def pod_result(layers: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Judge all checks: ``layers[layer][host]`` is the host's list of checks, or None when it produced none.

    A host that produced no checks for its layer (unreachable, or its play failed before the checks)
    gets one not_checked record, so a silent host can never pass.
    """
    checks: list[dict[str, Any]] = []
    for layer, hosts in layers.items():
        for host, records in hosts.items():
            if records is None:
                checks.append({"layer": layer, "host": host, "name": f"{layer} verification", "status": "not_checked",
                               "detail": "no result from this host: it did not answer or its checks could not run"})
                continue
            for record in records:
                record = dict(record)
                record.setdefault("layer", layer)
                record["host"] = record.get("host") or host
                if record.get("status") not in STATUSES:
                    record["detail"] = f"unknown status {record.get('status')!r}: {record.get('detail', '')}"
                    record["status"] = "not_checked"
                checks.append(record)
    failures = [c for c in checks if c["status"] == "fail"]
    not_checked = [c for c in checks if c["status"] == "not_checked"]
    exit_code = EXIT_CODES["fail"] if failures else EXIT_CODES["not_checked"] if not_checked else EXIT_CODES["pass"]
    counts = {status: sum(1 for c in checks if c["status"] == status) for status in STATUSES}
    by_layer = {layer: {status: sum(1 for c in checks if c["layer"] == layer and c["status"] == status) for status in STATUSES}
                for layer in layers}
    return {"ok": exit_code == 0, "exit_code": exit_code, "counts": counts, "layers": by_layer,
            "checks": checks, "failures": failures, "not_checked": not_checked}


def summary_lines(result: Mapping[str, Any], limit: int = 40) -> list[str]:
    """What a person reads at the end: the verdict, counts per layer, then every failure and gap."""
    verdict = {0: "PASS", 1: "FAIL", 2: "INCOMPLETE (some checks could not be made)"}[int(result["exit_code"])]
    lines = [f"verification: {verdict}; " + ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in result["counts"].items())]
    for layer, counts in result["layers"].items():
        lines.append(f"  {layer:<11} " + ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in counts.items() if n))
    shown: Iterable[Mapping] = (result["failures"] + result["not_checked"])[:limit]
    for check in shown:
        lines.append(f"  {check['status'].upper()} [{check['layer']}] {check['host']}: {check['name']}: {check.get('detail', '')}")
    hidden = len(result["failures"]) + len(result["not_checked"]) - limit
    if hidden > 0:
        lines.append(f"  ... and {hidden} more in the JSON result")
    return lines
