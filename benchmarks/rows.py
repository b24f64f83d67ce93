#!/usr/bin/env python3
"""Benchmark: the whole site (playbooks/site.yml, inventories/lab) on ansible 14 against ansible 13.

For each row of the support matrix measured (docs/support-matrix.md), in one run of this script:
1. the lab is brought to "nothing" (ONTAP at factory state, the NX-OS switches erased, fresh DGX
   stand-ins, a fresh Kubernetes API server), as benchmarks/site.py does;
2. first run: site.yml from nothing to a verified pod (timed);
3. no-op runs: site.yml again, three times by default, each with changed=0 on every host; the
   median is the no-op figure.

Row 14 runs in the machine's .venv (scripts/bootstrap.sh); row 13 runs in the Debian 13 root of
scripts/ansible-row.sh (Python 3.13). The time is the one the run report states (the
aipod_progress callback, from the first play to the recap), so the root's start-up is not counted;
the wall time of each command is kept too. Compare the ratios 14/13, measured in the same run: the
machine's speed varies from run to run.

    .venv/bin/python benchmarks/rows.py [--rows 13 14] [--noop-runs 3] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from bench_support import ROOT, VENV_BIN, environment, from_nothing, measure_each, recap, require_venv

SITE_TIME = re.compile(r"==> site\.yml: SUCCESS in (?P<seconds>[\d.]+) s")
INVENTORY = ROOT / "inventories" / "lab" / "hosts.yml"


def command(row: str) -> list[str]:
    playbook = ["ansible-playbook", "-i", str(INVENTORY), "playbooks/site.yml"]
    if row == "14":
        return [str(VENV_BIN / playbook[0]), *playbook[1:]]
    return [str(ROOT / "scripts" / "ansible-row.sh"), row, *playbook]


def site(row: str, log: Path) -> dict:
    started = time.monotonic()
    result = subprocess.run(command(row), cwd=ROOT, env=environment(), capture_output=True, text=True)
    wall = time.monotonic() - started
    log.write_text(result.stdout + result.stderr)
    reported = SITE_TIME.search(result.stdout)
    if result.returncode != 0 or not reported:
        sys.exit(f"benchmark: site.yml on row {row} failed (rc {result.returncode}); see {log}")
    hosts = recap(result.stdout)
    return {"seconds": float(reported["seconds"]), "wall_seconds": round(wall, 1),
            "changed": sum(counts["changed"] for counts in hosts.values())}


def core_of(row: str) -> str:
    probe = command(row)[:-3] + ["ansible", "--version"] if row != "14" else [str(VENV_BIN / "ansible"), "--version"]
    output = subprocess.run(probe, cwd=ROOT, env=environment(), capture_output=True, text=True, check=True).stdout
    core = re.search(r"\[core ([\d.]+)\]", output)
    python = re.search(r"python version = ([\d.]+)", output)
    return f"ansible-core {core[1] if core else '?'}, Python {python[1] if python else '?'}"


def measure(row: str, logs: Path, noop_runs: int) -> dict:
    version = core_of(row)  # also builds the row's root and virtualenv before anything is timed
    print(f"== row {row} ({version}): the lab from nothing", flush=True)
    from_nothing(ROOT / "inventories" / "lab")
    first = site(row, logs / f"row-{row}-first.log")
    print(f"   first run  {first['seconds']:7.1f} s  ({first['changed']} changes)", flush=True)
    noops = []
    for attempt in range(1, noop_runs + 1):
        noop = site(row, logs / f"row-{row}-noop-{attempt}.log")
        print(f"   no-op run {attempt}/{noop_runs} {noop['seconds']:5.1f} s", flush=True)
        if noop["changed"]:
            sys.exit(f"benchmark: no-op run {attempt} on row {row} reported changed={noop['changed']}; it must be 0")
        noops.append(noop)
    noop = sorted(noops, key=lambda run: run["seconds"])[len(noops) // 2]
    return {"row": row, "version": version, "first": first, "noop": noop,
            "noop_runs_seconds": [run["seconds"] for run in noops],
            "noop_over_first": round(noop["seconds"] / first["seconds"], 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", nargs="+", default=["13", "14"], choices=["13", "14"])
    parser.add_argument("--noop-runs", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    require_venv()
    results, total = measure_each(args.rows, lambda row, logs: measure(row, logs, args.noop_runs))
    print(f"\nsite.yml on the lab, by row of the support matrix; {os.cpu_count()} CPUs; whole benchmark {total:.0f} s")
    print(f"{'row':>4} {'first':>9} {'no-op':>9} {'no-op/first':>12}  version; no-op runs")
    for r in results:
        print(f"{r['row']:>4} {r['first']['seconds']:>8.1f}s {r['noop']['seconds']:>8.1f}s {r['noop_over_first']:>12.3f}  "
              f"{r['version']}; " + " / ".join(f"{seconds:.1f}" for seconds in r["noop_runs_seconds"]))
    if len(results) >= 2:
        base, other = results[0], results[-1]
        print(f"row {other['row']} / row {base['row']}: first run {other['first']['seconds'] / base['first']['seconds']:.2f}x, "
              f"no-op {other['noop']['seconds'] / base['noop']['seconds']:.2f}x")
    if args.json:
        args.json.write_text(json.dumps({"cpus": os.cpu_count(), "seconds": round(total), "results": results}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
