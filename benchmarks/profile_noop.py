#!/usr/bin/env python3
"""Profile: the control node's CPU per task in a site.yml no-op, at 16 and at 64 DGX, on the lab.

For each size: the lab from nothing sized for scripts/scale_site.py's pod (one HA pair), site.yml
once to converge it, then one site.yml no-op with the callback benchmarks/callback_plugins/
aipod_task_cpu.py, which records per task the CPU seconds of ansible-playbook and the workers and
ssh processes it reaped. The growth from the small to the large pod is given per extra DGX, task by
task, so that what grows faster than the pod stands out; the whole no-op's control-node CPU per
extra DGX is the issue's figure (target 0.25 CPU s from 16 to 64 DGX).

    .venv/bin/python benchmarks/profile_noop.py [--sizes 16 64] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench_support import ROOT, from_nothing, measure_each, playbook, print_figures, recap, require_venv, scaled_inventory

CALLBACKS = ROOT / "benchmarks" / "callback_plugins"


def site(inventory: Path, log: Path, tasks: Path | None = None) -> float:
    """site.yml; with `tasks`, the callback writes the CPU per task there."""
    extra = {}
    if tasks is not None:
        extra = {"ANSIBLE_CALLBACK_PLUGINS": str(CALLBACKS), "AIPOD_TASK_CPU_FILE": str(tasks),
                 "ANSIBLE_CALLBACKS_ENABLED": "ontap_ai.pod.aipod_progress,aipod_task_cpu"}
    return playbook(inventory, "playbooks/site.yml", log, **extra)


def summarise(tasks: Path) -> dict:
    """CPU seconds per task (tasks of one name in one play summed) and per play."""
    per_task: dict[str, float] = {}
    per_play: dict[str, float] = {}
    for row in json.loads(tasks.read_text()):
        key = f"{row['play']} | {row['task']}"
        per_task[key] = round(per_task.get(key, 0.0) + row["cpu_seconds"], 3)
        per_play[row["play"]] = round(per_play.get(row["play"], 0.0) + row["cpu_seconds"], 3)
    return {"cpu_seconds": round(sum(per_play.values()), 1), "tasks": per_task, "plays": per_play}


def measure(size: int, logs: Path) -> dict:
    inventory = ROOT / "inventories" / "lab" if size == 4 else scaled_inventory(size)
    print(f"== {size} DGX: the lab from nothing, then site.yml once", flush=True)
    from_nothing(inventory)
    first = site(inventory, logs / f"profile-{size}-first.log")
    print(f"   first run {first} s", flush=True)
    tasks = logs / f"profile-{size}-noop-tasks.json"
    log = logs / f"profile-{size}-noop.log"
    noop = site(inventory, log, tasks)
    changed = sum(counts["changed"] for counts in recap(log.read_text()).values())
    if changed:
        sys.exit(f"profile: the no-op at {size} DGX changed {changed}; see {log}")
    summary = summarise(tasks)
    print(f"   no-op {noop} s; control node {summary['cpu_seconds']} CPU s", flush=True)
    return {"size": size, "first_seconds": first, "noop_seconds": noop, **summary}


def growth(small: dict, large: dict, key: str, limit: int = 20) -> list[tuple[str, float, float, float]]:
    """(name, CPU s at the small size, at the large size, CPU s per extra DGX), largest growth first."""
    extra = large["size"] - small["size"]
    names = set(small[key]) | set(large[key])
    rows = [(name, small[key].get(name, 0.0), large[key].get(name, 0.0),
             round((large[key].get(name, 0.0) - small[key].get(name, 0.0)) / extra, 3)) for name in names]
    return sorted(rows, key=lambda row: row[3], reverse=True)[:limit]


def main() -> int:
    require_venv()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs=2, default=[16, 64])
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    results, seconds = measure_each(args.sizes, measure)
    small, large = results
    extra = large["size"] - small["size"]
    summary = {"sizes": args.sizes, "benchmark_seconds": round(seconds, 1),
               "noop_seconds": {result["size"]: result["noop_seconds"] for result in results},
               "cpu_seconds": {result["size"]: result["cpu_seconds"] for result in results},
               "cpu_per_extra_dgx": round((large["cpu_seconds"] - small["cpu_seconds"]) / extra, 3),
               "plays_per_extra_dgx": growth(small, large, "plays"), "tasks_per_extra_dgx": growth(small, large, "tasks", 30)}
    return print_figures(summary, args.json)


if __name__ == "__main__":
    sys.exit(main())
