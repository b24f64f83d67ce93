#!/usr/bin/env python3
"""Benchmark of the compute play: 4 and 32 lab hosts, first run and no-op re-run, in one run.

    benchmarks/compute.py [--sizes 4 32] [--strategies ontap_ai.pod.aipod_mitogen_linear linear] [--json FILE]

For each size the script writes an N-DGX lab inventory (scripts/scale_site.py), and for each
strategy it starts fresh DGX stand-ins through the lab (lab/lab stop|start hosts), clears the fact
cache, and times ansible-playbook playbooks/compute.yml twice: the first run (everything to do) and
the re-run (which must report changed=0 on every host). It prints the times and the ratios the
issue asks for, all measured in this one run:

    no-op(32) / no-op(4)   target <= 2   (per strategy)
    linear / mitogen       what Mitogen is worth (same size, same kind of run)

It also measures Ansible's own floor on this machine: a play of as many no-op debug tasks as the
compute play runs per host, on the same inventories, contacting no host. Its 32/4 ratio is what
any play of that length costs here before a single module runs.

The lab is left as it was found: running with the default inventory, or stopped.
Times depend on the machine (2 shared cores here); compare the ratios, not the seconds.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench_support import ROOT, VENV_BIN, environment, lab, recap, require_venv, scaled_inventory

TARGET_RATIO = 2.0


def lab_running() -> bool:
    return subprocess.run([str(ROOT / "lab" / "lab"), "status", "hosts"], cwd=ROOT, env=environment(),
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def play(inventory: Path, strategy: str, log: Path) -> tuple[float, dict[str, dict[str, int]]]:
    """Seconds of one ansible-playbook run and its recap per host; fails loudly on a failed run."""
    command = [str(VENV_BIN / "ansible-playbook"), "-i", str(inventory), "playbooks/compute.yml", "-e", f"compute_strategy={strategy}"]
    started = time.monotonic()
    result = subprocess.run(command, cwd=ROOT, env=environment(), capture_output=True, text=True)
    elapsed = time.monotonic() - started
    log.write_text(result.stdout + result.stderr)
    dgx = {host: counts for host, counts in recap(result.stdout).items() if host != "localhost"}
    if result.returncode != 0 or not dgx or any(c["failed"] or c["unreachable"] for c in dgx.values()):
        sys.exit(f"benchmark: the compute play failed (rc {result.returncode}); see {log}")
    return elapsed, dgx


CALIBRATION_TASKS = 15  # per-host tasks of a no-op compute run (ok + skipped in its recap)


def calibrate(size: int, strategy: str, inventory: Path, logs: Path) -> float:
    """Seconds of a play of CALIBRATION_TASKS debug tasks on every DGX of inventory (no host contacted)."""
    tasks = "".join(f"    - name: Task {n}\n      ansible.builtin.debug:\n        msg: calibration\n" for n in range(CALIBRATION_TASKS))
    path = logs / "calibration.yml"
    path.write_text(f"---\n- name: Calibration\n  hosts: dgx\n  gather_facts: false\n"
                    f"  strategy: \"{{{{ compute_strategy }}}}\"\n  tasks:\n{tasks}")
    try:
        started = time.monotonic()
        result = subprocess.run([str(VENV_BIN / "ansible-playbook"), "-i", str(inventory), str(path), "-e", f"compute_strategy={strategy}"],
                                cwd=ROOT, env=environment(),
                                capture_output=True, text=True)
        elapsed = time.monotonic() - started
    finally:
        path.unlink(missing_ok=True)
    (logs / f"calibration-{size}-{strategy}.log").write_text(result.stdout + result.stderr)
    if result.returncode != 0:
        sys.exit(f"benchmark: the calibration play failed; see {logs}")
    return elapsed


def measure(size: int, strategy: str, inventory: Path, logs: Path) -> dict:
    print(f"== {size} hosts, strategy {strategy}: fresh DGX stand-ins", flush=True)
    lab("stop", "hosts", inventory=inventory)
    lab("start", "hosts", inventory=inventory)
    shutil.rmtree(ROOT / ".cache" / "facts", ignore_errors=True)
    first, first_recap = play(inventory, strategy, logs / f"compute-{size}-{strategy}-first.log")
    changed_first = sum(c["changed"] for c in first_recap.values())
    print(f"   first run  {first:7.1f} s  ({len(first_recap)} hosts, {changed_first} changes)", flush=True)
    noop, noop_recap = play(inventory, strategy, logs / f"compute-{size}-{strategy}-noop.log")
    changed_noop = sum(c["changed"] for c in noop_recap.values())
    print(f"   no-op run  {noop:7.1f} s  (changed={changed_noop})", flush=True)
    if changed_noop:
        sys.exit(f"benchmark: the re-run on {size} hosts reported changed={changed_noop}; it must be 0")
    if len(noop_recap) != size:
        sys.exit(f"benchmark: {len(noop_recap)} hosts ran, {size} expected")
    return {"size": size, "strategy": strategy, "first_s": round(first, 1), "noop_s": round(noop, 1),
            "changes_first": changed_first, "changes_noop": changed_noop}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[4, 32])
    parser.add_argument("--strategies", nargs="+", default=["ontap_ai.pod.aipod_mitogen_linear", "linear"])
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    require_venv()
    logs = ROOT / ".lab" / "benchmarks"
    logs.mkdir(parents=True, exist_ok=True)
    was_running = lab_running()
    started = time.monotonic()
    results = []
    try:
        for size in args.sizes:
            inventory = scaled_inventory(size)
            for strategy in args.strategies:
                results.append(measure(size, strategy, inventory, logs))
                results[-1]["floor_s"] = round(calibrate(size, strategy, inventory, logs), 1)
                print(f"   floor      {results[-1]['floor_s']:7.1f} s  ({CALIBRATION_TASKS} debug tasks per host)", flush=True)
    finally:
        print("== restoring the lab", flush=True)
        lab("stop", "hosts")
        if was_running:
            lab("start", "hosts")
    print_summary(results, args.sizes, args.strategies, time.monotonic() - started)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


def print_summary(results: list[dict], sizes: list[int], strategies: list[str], total: float) -> None:
    by = {(r["size"], r["strategy"]): r for r in results}
    print(f"\ncompute play, {', '.join(map(str, sizes))} lab hosts; {os.cpu_count()} CPUs; whole benchmark {total:.0f} s")
    print(f"{'strategy':<22}" + "".join(f"{f'first {n}':>11}{f'no-op {n}':>11}{f'floor {n}':>11}" for n in sizes))
    for strategy in strategies:
        print(f"{strategy:<22}" + "".join(f"{by[(n, strategy)]['first_s']:>10.1f}s{by[(n, strategy)]['noop_s']:>10.1f}s"
                                          f"{by[(n, strategy)]['floor_s']:>10.1f}s" for n in sizes))
    if len(sizes) >= 2:
        small, large = min(sizes), max(sizes)
        for strategy in strategies:
            ratio = by[(large, strategy)]["noop_s"] / by[(small, strategy)]["noop_s"]
            floor = by[(large, strategy)]["floor_s"] / by[(small, strategy)]["floor_s"]
            verdict = "meets" if ratio <= TARGET_RATIO else "misses"
            print(f"no-op({large}) / no-op({small}) with {strategy}: {ratio:.2f} ({verdict} the target <= {TARGET_RATIO:g}); "
                  f"floor({large}) / floor({small}): {floor:.2f}")
    if len(strategies) >= 2:
        base, other = strategies[-1], strategies[0]
        for size in sizes:
            for kind in ("first_s", "noop_s"):
                ratio = by[(size, base)][kind] / by[(size, other)][kind]
                print(f"{base} / {other}, {size} hosts, {kind[:-2].replace('_', ' ')} run: {ratio:.2f}")


if __name__ == "__main__":
    sys.exit(main())
