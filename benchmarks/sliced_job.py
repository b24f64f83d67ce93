#!/usr/bin/env python3
"""Benchmark: the compute layer of a 64-DGX no-op as one AWX job and as a job of 4 slices, on the lab.

1. The lab from nothing, sized for scripts/scale_site.py's 64-DGX pod (one HA pair), then
   playbooks/site.yml once: the pod is converged.
2. playbooks/compute.yml once more as a plain run (a warm-up: fact caches, SSH masters).
3. The same job template through lab/ee/sliced_job.py: --slices 1 (one job, every host), then
   --slices N (AWX's slicing, the slices side by side). Each must change nothing.

For each job: its wall time, and per slice the CPU seconds of its control process (ansible-runner,
ansible-playbook, its workers and ssh: wait4). The DGX stand-ins and every slice share this
machine's two cores, so wall time here measures the lab as much as the bundle: the CPU of each
slice's control process is the figure that carries to a site whose slices run on their own
execution nodes. The lab is put back to inventories/lab at the end.

    .venv/bin/python benchmarks/sliced_job.py [--size 64] [--slices 4] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from bench_support import ROOT, VENV_BIN, environment, from_nothing, measure_each, playbook, print_figures, require_venv, scaled_inventory


def sliced(inventory: Path, slices: int, work: Path) -> dict:
    result = subprocess.run([str(VENV_BIN / "python"), "lab/ee/sliced_job.py", "--slices", str(slices), "--inventory",
                             str(inventory), "--work", str(work)], cwd=ROOT, env=environment(), capture_output=True,
                            text=True, check=False)
    try:
        outcome = json.loads(result.stdout)
    except ValueError:
        sys.exit(f"benchmark: sliced_job.py gave no result (rc {result.returncode}): {result.stderr[-2000:]}")
    for entry in outcome["slices"]:
        changed = sum(counts["changed"] for counts in entry["recap"].values())
        if entry["rc"] != 0 or changed:
            sys.exit(f"benchmark: slice {entry['number']} of {slices}: rc {entry['rc']}, changed={changed}; see {entry['log']}")
    return {"slices": slices, "wall_seconds": outcome["wall_seconds"],
            "per_slice": [{"hosts": sum(1 for host in entry["recap"] if host != "localhost"), "wall_seconds": entry["wall_seconds"],
                           "cpu_seconds": entry["cpu_seconds"]} for entry in outcome["slices"]]}


def measure(size: int, slices: int, logs: Path) -> dict:
    inventory = scaled_inventory(size)
    print(f"== {size} DGX: the lab from nothing, then site.yml once", flush=True)
    from_nothing(inventory)
    first = playbook(inventory, "playbooks/site.yml", logs / f"sliced-{size}-site.log")
    print(f"   site.yml {first} s", flush=True)
    warm = playbook(inventory, "playbooks/compute.yml", logs / f"sliced-{size}-compute-warm.log")
    print(f"   compute.yml (warm-up) {warm} s", flush=True)
    jobs = []
    for count in (1, slices):
        job = sliced(inventory, count, ROOT / ".lab" / "benchmarks" / f"sliced-{size}-{count}")
        cpu = [entry["cpu_seconds"] for entry in job["per_slice"]]
        print(f"   {count} slice(s): wall {job['wall_seconds']} s; control-process CPU per slice {cpu} s "
              f"(sum {round(sum(cpu), 1)} s)", flush=True)
        jobs.append(job)
    return {"size": size, "site_first_seconds": first, "compute_warm_seconds": warm, "jobs": jobs}


def main() -> int:
    require_venv()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=64)
    parser.add_argument("--slices", type=int, default=4)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    results, seconds = measure_each([args.size], lambda size, logs: measure(size, args.slices, logs))
    whole, split = results[0]["jobs"]
    largest = max(entry["cpu_seconds"] for entry in split["per_slice"])
    summary = {"results": results, "benchmark_seconds": round(seconds, 1),
               "largest_slice_cpu_over_whole_cpu": round(largest / whole["per_slice"][0]["cpu_seconds"], 2),
               "sliced_wall_over_whole_wall": round(split["wall_seconds"] / whole["wall_seconds"], 2)}
    return print_figures(summary, args.json)


if __name__ == "__main__":
    sys.exit(main())
