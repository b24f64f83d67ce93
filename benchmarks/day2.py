#!/usr/bin/env python3
"""Benchmark of day-2 changes on the lab: adding a DGX to a converged pod, and a rolling mount change.

    .venv/bin/python benchmarks/day2.py [--add-size 16] [--rolling-size 4] [--json FILE]

Adding a DGX (issue 15's target: <= 1.5x a no-op run of the same pod). The lab is brought to an
N-DGX pod (scripts/scale_site.py) from nothing and converged with playbooks/site.yml; a no-op run
is timed; then the lab starts the (N+1)th stand-in and its kubelet (the N+1 inventory is the N one
plus that host) and the site run with it is timed. It must report changed=0 on every other DGX.

The rolling change: on the converged M-DGX pod (default 4) with one workload pod per node, an edit
of the mounts' rsize rolls through every DGX one at a time (drain, change, health gate, uncordon).
The run report gives the wall time of each batch; the whole compute run is timed and compared with
a no-op compute run. The edit is then rolled back (a second rolling run, not timed).

The lab is left running the default inventory. Times depend on the machine (2 shared cores
here); compare the ratios, which are measured in the same run.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench_support import ROOT, VENV_BIN, environment, lab, recap, require_venv, scaled_inventory

TARGET_ADD_OVER_NOOP = 1.5


def playbook(inventory: Path, name: str, *args: str) -> tuple[float, str]:
    started = time.monotonic()
    result = subprocess.run([str(VENV_BIN / "ansible-playbook"), "-i", str(inventory), f"playbooks/{name}", *args], cwd=ROOT,
                            capture_output=True, text=True, env=environment(inventory))
    seconds = time.monotonic() - started
    if result.returncode not in (0, 2):  # 2: verification could not make every check (the lab has no Trident)
        sys.exit(f"benchmark: {name} on {inventory.name} failed ({result.returncode}):\n{result.stdout[-4000:]}")
    return seconds, result.stdout


def from_nothing(inventory: Path) -> None:
    lab("stop", "hosts", "nxos", "kubernetes")
    lab("start", "ontap", inventory=inventory, AIPOD_LAB_ONTAP_FACTORY="1")
    lab("start", "nxos", inventory=inventory, AIPOD_LAB_NXOS_WRITE_ERASE="1")
    lab("start", "hosts", "kubernetes", inventory=inventory)


def add_dgx(size: int) -> dict:
    small, large = scaled_inventory(size), scaled_inventory(size + 1)
    added = f"dgx{size + 1:02d}"
    from_nothing(small)
    playbook(small, "site.yml")
    noop, output = playbook(small, "site.yml")
    assert all(c["changed"] == 0 for c in recap(output).values()), "the no-op run changed something"
    lab("start", "hosts", "kubernetes", inventory=large)
    add, output = playbook(large, "site.yml")
    changed = {host: counts["changed"] for host, counts in recap(output).items()}
    others = [host for host in changed if host.startswith("dgx") and host != added and changed[host]]
    assert changed.get(added, 0) > 0 and not others, f"adding {added} changed {others}"
    return {"size": size, "added": added, "noop_seconds": round(noop, 1), "add_seconds": round(add, 1),
            "add_over_noop": round(add / noop, 2), "target": TARGET_ADD_OVER_NOOP}


def rolling(size: int) -> dict:
    inventory = scaled_inventory(size)
    from_nothing(inventory)
    playbook(inventory, "site.yml")
    subprocess.run([str(VENV_BIN / "python"), "lab/kubernetes/nodes.py", "workload"], cwd=ROOT, check=True,
                   capture_output=True, env=environment(inventory))
    time.sleep(5)
    noop, _ = playbook(inventory, "compute.yml")
    edited = ROOT / ".lab" / "inventories" / f"{inventory.name}-rsize"
    shutil.rmtree(edited, ignore_errors=True)
    shutil.copytree(inventory, edited)
    for path in edited.rglob("*.yml"):
        path.write_text(path.read_text().replace("rsize: 262144", "rsize: 131072"))
    total, output = playbook(edited, "compute.yml")
    report = json.loads((ROOT / "reports" / "latest" / "report.json").read_text())["rolling"]
    playbook(inventory, "compute.yml")  # back to the model
    shutil.rmtree(edited, ignore_errors=True)
    assert report["changed"] and not report["failed"], output[-3000:]
    return {"size": size, "noop_seconds": round(noop, 1), "rolling_seconds": round(total, 1),
            "rolling_over_noop": round(total / noop, 2), "batches": len(report["batch_seconds"]),
            "batch_seconds": report["batch_seconds"], "batch_total_seconds": report["total_seconds"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--add-size", type=int, default=16)
    parser.add_argument("--rolling-size", type=int, default=4)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    require_venv()
    try:
        results = {"add_dgx": add_dgx(args.add_size), "rolling": rolling(args.rolling_size)}
    finally:
        lab("start")  # the default inventory: extra stand-ins stop
    print(json.dumps(results, indent=2))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0 if results["add_dgx"]["add_over_noop"] <= TARGET_ADD_OVER_NOOP else 1


if __name__ == "__main__":
    sys.exit(main())
