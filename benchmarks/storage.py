#!/usr/bin/env python3
"""Storage layer benchmark: ONTAP API calls per managed object in a no-op re-run, and the storage
play's wall time on a fresh cluster against a no-op re-run, measured in one run of this script.

A private copy of the lab's ONTAP endpoint is started with lab/lab (fresh cluster, own state and
port, the main lab untouched); playbooks/storage.yml runs twice; the endpoint's call log counts
the calls of each run; the managed objects are counted from the site model (aipod_ontap_objects).

    .venv/bin/python benchmarks/storage.py [--inventory inventories/lab] [--json]

Target: at most 1.5 calls per managed object in the no-op re-run.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "lab" / "ontap"))
sys.path.insert(0, str(REPO))

from ontap_lab.private import PrivateLab  # noqa: E402

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_ontap.plan import managed_objects  # noqa: E402
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site  # noqa: E402

TARGET_CALLS_PER_OBJECT = 1.5


def timed_run(lab: PrivateLab, client, label: str) -> dict:
    mark = client.request("GET", "/lab/mark")[1]["last"]
    started = time.monotonic()
    rc, recap, output = lab.play()
    seconds = time.monotonic() - started
    if rc != 0:
        raise SystemExit(f"{label} run failed (rc {rc}):\n{output[-4000:]}")
    counters = client.request("GET", f"/lab/counters?since={mark}")[1]
    return {"seconds": round(seconds, 1), "calls": counters["total"], "writes": counters["writes"],
            "changed": recap["lab-ontap"]["changed"], "by_resource": counters["by_resource"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inventory", default=str(REPO / "inventories" / "lab"), help="base inventory (copied)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()

    objects = managed_objects(load_site(args.inventory).model)
    total_objects = sum(objects.values())
    with tempfile.TemporaryDirectory(prefix="storage-bench-") as root:
        lab = PrivateLab(pathlib.Path(root), pathlib.Path(args.inventory))
        lab.lab("start")
        try:
            client = lab.client()
            first = timed_run(lab, client, "first")
            noop = timed_run(lab, client, "no-op")
        finally:
            lab.lab("stop")
    figures = {
        "managed_objects": total_objects,
        "objects_by_kind": {kind: count for kind, count in objects.items() if count},
        "first_run": {key: first[key] for key in ("seconds", "calls", "writes", "changed")},
        "noop_run": {key: noop[key] for key in ("seconds", "calls", "writes", "changed")},
        "noop_calls_per_object": round(noop["calls"] / total_objects, 2),
        "first_run_calls_per_object": round(first["calls"] / total_objects, 2),
        "noop_to_first_wall_time": round(noop["seconds"] / first["seconds"], 2),
        "noop_calls_by_resource": noop["by_resource"],
        "target_calls_per_object": TARGET_CALLS_PER_OBJECT,
    }
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        print(f"storage benchmark ({pathlib.Path(args.inventory).name}): {total_objects} managed ONTAP objects")
        print(f"  first run : {first['seconds']:7.1f} s  {first['calls']:4d} calls ({first['writes']} writes, "
              f"{first['changed']} tasks changed)  {figures['first_run_calls_per_object']:.2f} calls/object")
        print(f"  no-op run : {noop['seconds']:7.1f} s  {noop['calls']:4d} calls ({noop['writes']} writes, "
              f"{noop['changed']} tasks changed)  {figures['noop_calls_per_object']:.2f} calls/object "
              f"(target <= {TARGET_CALLS_PER_OBJECT})")
        print(f"  no-op / first wall time: {figures['noop_to_first_wall_time']:.2f}")
    ok = figures["noop_calls_per_object"] <= TARGET_CALLS_PER_OBJECT and noop["changed"] == 0 and noop["writes"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
