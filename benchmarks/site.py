#!/usr/bin/env python3
"""Benchmark: the whole site (playbooks/site.yml) on the lab with 4 and with 16 DGX hosts (64 with --sizes 4 16 64).

For each size, in one run of this script:
1. the lab is brought to "nothing": the ONTAP endpoint at factory state, the NX-OS switches
   erased, fresh DGX stand-ins, a fresh Kubernetes API server;
2. first run: site.yml from nothing to a verified pod (timed);
3. no-op runs: site.yml again, three times by default (timed); each must report changed=0 on every
   host. The median is the no-op figure (all are printed: on a shared machine one run can be slowed
   by a neighbour). The ONTAP endpoint's call log gives the REST calls of that run, divided by the
   objects the storage roles manage.

Targets (issue 7): no-op <= 25% of the first run; 16 hosts <= 2x the time of 4 hosts; ONTAP calls
per managed object in the no-op run <= 1.5; issue 20: 64 hosts' no-op <= 1.5x the 4 hosts' no-op.
Every run also reports the peak resident set of the control node (ansible-playbook and its largest
worker) and where the CPU time went: the control node, the DGX stand-ins (which share the machine's
cores here; on a pod each DGX reads itself on its own CPUs) and the rest of the machine.
The 16- and 64-host pods come from scripts/scale_site.py with one HA pair (the lab's ONTAP endpoint)
and as many NX-OS switch pairs as the DGX need ports (64: three leaf pairs on a spine). Times depend
on the machine (2 shared cores here):
compare the ratios, which are measured in the same run. The lab is left running the default
inventory (inventories/lab) with its switches at factory state (a larger pod's port-channels gone).

    .venv/bin/python benchmarks/site.py [--sizes 4 16] [--noop-runs 3] [--strategy linear|ontap_ai.pod.aipod_mitogen_linear] [--json FILE]
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

from bench_support import ROOT, VENV_BIN, environment, from_nothing, measure_each, recap, require_venv, scaled_inventory

LAYER = re.compile(r"^    (?P<layer>\w+)\s+(?P<changed>\d+) changed\s+(?P<ok>\d+) ok\s+(?P<failed>\d+) failed\s+"
                   r"(?P<unreachable>\d+) unreachable\s+(?P<seconds>[\d.]+) s$", re.MULTILINE)
MANAGED = re.compile(r"ONTAP \S+: (?P<objects>\d+) objects managed")
TARGETS = {"noop_over_first": 0.25, "large_over_small": 2.0, "calls_per_object": 1.5, "scale_noop": 1.5}


def ontap_ctl(*args: str) -> dict:
    result = subprocess.run([str(ROOT / "lab" / "ontap" / "ctl"), *args], cwd=ROOT, capture_output=True, text=True,
                            env=environment(), check=True)
    return json.loads(result.stdout)


# ansible-playbook arguments that pick the plays' strategy (--strategy); none for Ansible's linear, the default.
STRATEGY_ARGUMENTS: list[str] = []


CPUACCT = Path("/sys/fs/cgroup/cpuacct")


def cpu_seconds(cgroup: Path) -> float:
    """CPU time a cgroup (v1 cpuacct) has used, in seconds; 0 where it cannot be read."""
    try:
        return int((cgroup / "cpuacct.usage").read_text()) / 1e9
    except (OSError, ValueError):
        return 0.0


def dgx_cgroups() -> list[Path]:
    """The cpuacct cgroups of the lab's DGX stand-ins (podman's cgroupfs layout)."""
    listing = subprocess.run(["podman", "ps", "--no-trunc", "--format", "{{.ID}} {{.Names}}"], capture_output=True, text=True,
                             env=environment()).stdout.split("\n")
    ids = [line.split()[0] for line in listing if " aipod-lab-dgx" in line]
    return [CPUACCT / "libpod_parent" / f"libpod-{container}" for container in ids]


def site(inventory: Path, log: Path) -> dict:
    # Where the CPU goes: the control node (ansible-playbook and its workers, from wait4), the DGX
    # stand-ins (their cgroups), and the rest of the machine (switch and ONTAP endpoints, API server, SSH masters).
    stand_ins = dgx_cgroups()
    machine_before, dgx_before = cpu_seconds(CPUACCT), sum(map(cpu_seconds, stand_ins))
    started = time.monotonic()
    with open(log, "w", encoding="utf-8") as output:
        process = subprocess.Popen([str(VENV_BIN / "ansible-playbook"), "-i", str(inventory), "playbooks/site.yml", *STRATEGY_ARGUMENTS],
                                   cwd=ROOT, env=environment(), stdout=output, stderr=subprocess.STDOUT, text=True)
        # wait4, not wait: its rusage holds the peak resident set of ansible-playbook and of the
        # largest of its workers (Linux takes the maximum over the waited-for descendants).
        _pid, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.monotonic() - started
    machine, dgx = cpu_seconds(CPUACCT) - machine_before, sum(map(cpu_seconds, stand_ins)) - dgx_before
    controller = usage.ru_utime + usage.ru_stime
    stdout = log.read_text()
    if process.returncode != 0:
        sys.exit(f"benchmark: site.yml failed (rc {process.returncode}); see {log}")
    hosts = recap(stdout)
    layers = {m["layer"]: {"changed": int(m["changed"]), "seconds": float(m["seconds"])} for m in LAYER.finditer(stdout)}
    managed = MANAGED.search(stdout)
    return {"seconds": round(elapsed, 1), "changed": sum(c["changed"] for c in hosts.values()), "hosts": len(hosts),
            "layers": layers, "ontap_objects": int(managed["objects"]) if managed else None,
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
            "cpu_seconds": {"controller": round(controller, 1), "dgx_stand_ins": round(dgx, 1),
                            "rest_of_machine": round(max(machine - controller - dgx, 0.0), 1)}}


def measure(size: int, logs: Path, noop_runs: int) -> dict:
    inventory = ROOT / "inventories" / "lab" if size == 4 else scaled_inventory(size)
    print(f"== {size} DGX hosts: the lab from nothing", flush=True)
    from_nothing(inventory)
    first = site(inventory, logs / f"site-{size}-first.log")
    print(f"   first run  {first['seconds']:7.1f} s  ({first['changed']} changes, peak RSS {first['peak_rss_mb']} MB)", flush=True)
    noops = []
    for attempt in range(1, noop_runs + 1):
        mark = ontap_ctl("mark")["last"]
        noop = site(inventory, logs / f"site-{size}-noop-{attempt}.log")
        noop["ontap_calls"] = ontap_ctl("counters", "--since", str(mark))
        cpu = noop["cpu_seconds"]
        print(f"   no-op run {attempt}/{noop_runs} {noop['seconds']:5.1f} s  ({noop['changed']} changes, "
              f"{noop['ontap_calls']['total']} ONTAP calls; CPU s: control node {cpu['controller']}, "
              f"DGX stand-ins {cpu['dgx_stand_ins']}, rest of the machine {cpu['rest_of_machine']})", flush=True)
        if noop["changed"]:
            sys.exit(f"benchmark: no-op run {attempt} on {size} hosts reported changed={noop['changed']}; it must be 0")
        noops.append(noop)
    # The median no-op: on a shared machine one run can be slowed by a neighbour; every run is kept.
    noop = sorted(noops, key=lambda run: run["seconds"])[len(noops) // 2]
    calls = noop["ontap_calls"]
    objects = noop["ontap_objects"] or first["ontap_objects"]
    return {"size": size, "first": first, "noop": noop, "noop_runs_seconds": [run["seconds"] for run in noops],
            "ontap_calls_noop": calls["total"],
            "ontap_writes_noop": calls["writes"], "ontap_objects": objects,
            "calls_per_object": round(calls["total"] / objects, 2) if objects else None,
            "noop_over_first": round(noop["seconds"] / first["seconds"], 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[4, 16])
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--noop-runs", type=int, default=3, help="no-op re-runs per size; the median is reported (default 3)")
    parser.add_argument("--strategy", default="linear",
                        help="strategy of the DGX and control-node plays (default linear, the plays' own; "
                             "ontap_ai.pod.aipod_mitogen_linear for the Mitogen opt-in)")
    args = parser.parse_args()
    if args.strategy != "linear":
        STRATEGY_ARGUMENTS.extend(["-e", f"compute_strategy={args.strategy}", "-e", f"control_node_strategy={args.strategy}"])
    require_venv()
    results, total = measure_each(args.sizes, lambda size, logs: measure(size, logs, args.noop_runs))
    print_summary(results, total, args.strategy)
    if args.json:
        args.json.write_text(json.dumps({"cpus": os.cpu_count(), "strategy": args.strategy, "seconds": round(total), "results": results},
                                        indent=2) + "\n")
    return 0


def print_summary(results: list[dict], total: float, strategy: str = "linear") -> None:
    print(f"\nsite.yml on the lab ({strategy}); {os.cpu_count()} CPUs; whole benchmark {total:.0f} s")
    print(f"{'DGX':>4} {'first':>9} {'no-op':>9} {'no-op/first':>12} {'ONTAP calls':>12} {'objects':>8} {'calls/object':>13}"
          f" {'peak RSS':>9}  no-op runs")
    for r in results:
        print(f"{r['size']:>4} {r['first']['seconds']:>8.1f}s {r['noop']['seconds']:>8.1f}s {r['noop_over_first']:>12.3f} "
              f"{r['ontap_calls_noop']:>12} {r['ontap_objects'] or '?':>8} {r['calls_per_object'] or '?':>13} "
              f"{max(r['first']['peak_rss_mb'], r['noop']['peak_rss_mb']):>7.0f}MB  "
              + " / ".join(f"{seconds:.1f}" for seconds in r["noop_runs_seconds"]))
    for r in results:
        # Judged on the seconds themselves, not on the rounded ratio.
        verdict = "meets" if r["noop"]["seconds"] <= TARGETS["noop_over_first"] * r["first"]["seconds"] else "misses"
        print(f"no-op/first with {r['size']} hosts: {r['noop_over_first']:.3f} ({verdict} <= {TARGETS['noop_over_first']})")
        if r["calls_per_object"] is not None:
            verdict = "meets" if r["calls_per_object"] <= TARGETS["calls_per_object"] else "misses"
            print(f"ONTAP calls per object, no-op with {r['size']} hosts: {r['calls_per_object']:.2f} "
                  f"({verdict} <= {TARGETS['calls_per_object']})")
    if len(results) >= 2:
        small, large = results[0], results[-1]
        for kind in ("first", "noop"):
            ratio = large[kind]["seconds"] / small[kind]["seconds"]
            verdict = "meets" if ratio <= TARGETS["large_over_small"] else "misses"
            print(f"{kind} run, {large['size']} / {small['size']} hosts: {ratio:.2f} ({verdict} <= {TARGETS['large_over_small']:g})")
        if large["size"] >= 64:
            ratio = large["noop"]["seconds"] / small["noop"]["seconds"]
            verdict = "meets" if ratio <= TARGETS["scale_noop"] else "misses"
            print(f"no-op run, {large['size']} / {small['size']} hosts: {ratio:.2f} ({verdict} <= {TARGETS['scale_noop']:g}, issue 20)")
        for r in results:
            cpu = r["noop"]["cpu_seconds"]
            print(f"CPU s of the median no-op with {r['size']} hosts: control node {cpu['controller']}, "
                  f"DGX stand-ins {cpu['dgx_stand_ins']}, rest of the machine {cpu['rest_of_machine']}")
        print("per layer (s):     " + "  ".join(f"{layer:>10}" for layer in small["first"]["layers"]))
        for r in results:
            for kind in ("first", "noop"):
                print(f"  {r['size']:>3} {kind:<6}       " + "  ".join(f"{r[kind]['layers'].get(layer, {}).get('seconds', 0):>10.1f}"
                                                                   for layer in small["first"]["layers"]))


if __name__ == "__main__":
    sys.exit(main())
