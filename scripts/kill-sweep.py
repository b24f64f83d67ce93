#!/usr/bin/env python3
"""Release check: kill a first site run at random points, and prove that the next runs converge.

For each kill point (docs/interrupted-runs.md, "Kill sweep"):
1. the lab is brought to nothing (ONTAP at factory state, switches erased, fresh DGX stand-ins, a fresh
   API server), as the benchmarks do;
2. site.yml runs from nothing and its process group is killed with SIGKILL when it starts its k-th task,
   as a cancelled AWX job is killed, or sent SIGINT, as an operator's Ctrl-C is (--signal);
3. the next run must succeed (changed as needed), the run after it must report changed=0;
4. the sweep waits past the longest timer the killed run could have armed (the storage-network rollback
   delay plus a margin) and runs once more: changed=0, verification green, no rollback timer armed;
5. the site must hold no duplicate object on ONTAP or Kubernetes, no volume deleted or shrunk (from the
   state the kill left on), and no temporary file of a write left on a DGX. NX-OS keys every object the
   bundle configures by its number or name, so it cannot hold duplicates; the changed=0 runs and the
   verification prove its configuration.

The kill points are drawn from a seed, printed first, from the tasks of a reference first run. The
storage-network rollback delay is shortened to ROLLBACK seconds (-e) so the waits stay short.
A point takes about four minutes; ten take about 45 minutes, too long for .ci/run.

    .venv/bin/python scripts/kill-sweep.py [--seed N] [--points 10] [--signal KILL|INT|both] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks")]
from bench_support import VENV_BIN, environment, from_nothing, lab, recap, require_venv  # noqa: E402

ROLLBACK = 40
INVENTORY = ROOT / "inventories" / "lab" / "hosts.yml"
SITE = [str(VENV_BIN / "ansible-playbook"), "-i", str(INVENTORY), "playbooks/site.yml",
        "-e", f"dgx_node_network_rollback_seconds={ROLLBACK}"]
TASK_LINE = "TASK ["
# The sweep's run reports stay apart from reports/, which other runs on this machine also update.
REPORTS = ROOT / ".lab" / "kill-sweep" / "reports"


def podman_env() -> dict:
    description = json.loads((ROOT / ".lab" / "hosts" / "lab.json").read_text())
    return dict(os.environ, CONTAINERS_CONF=description["containers_conf"])


def lab_hosts() -> dict[str, str]:
    description = json.loads((ROOT / ".lab" / "hosts" / "lab.json").read_text())
    return {name: host["container"] for name, host in description["hosts"].items()}


def on_host(container: str, *command: str) -> subprocess.CompletedProcess:
    return subprocess.run(["podman", "exec", container, *command], env=podman_env(), capture_output=True, text=True,
                          timeout=120)


def run(log: Path) -> dict:
    started = time.monotonic()
    result = subprocess.run(SITE, cwd=ROOT, env=environment(AIPOD_REPORT_ROOT=str(REPORTS)), capture_output=True, text=True,
                            timeout=3600)
    log.write_text(result.stdout + result.stderr)
    report = json.loads((REPORTS / "latest" / "report.json").read_text())
    return {"rc": result.returncode, "seconds": round(time.monotonic() - started, 1),
            "changed": sum(counts["changed"] for counts in recap(result.stdout).values()),
            "verification": (report.get("verification") or {}).get("exit_code"),
            "verification_failures": ((report.get("verification") or {}).get("counts") or {}).get("fail", 0),
            "resolved": [f"{entry['host']}: {entry.get('item')}: {entry.get('action')}" for entry in report.get("resolved", [])],
            "waited_for_survivors": (report.get("run_lock") or {}).get("waited_for_survivors_seconds", 0)}


def killed_run(task_index: int, log: Path, how: signal.Signals = signal.SIGKILL) -> dict:
    """site.yml's process group sent `how` (SIGKILL or SIGINT) when its task number task_index starts."""
    process = subprocess.Popen(SITE, cwd=ROOT, env=environment(AIPOD_REPORT_ROOT=str(REPORTS)), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT,
                               text=True, start_new_session=True)
    lines, seen, task = [], 0, ""
    for line in process.stdout:
        lines.append(line)
        if line.startswith(TASK_LINE):
            seen += 1
            if seen == task_index:
                task = line.strip().strip("*").strip()
                os.killpg(process.pid, how)
                break
    process.wait(timeout=120)
    if how == signal.SIGINT:
        # What Ansible printed as it ended; a worker that outlives it may hold the pipe open, so do not wait for EOF.
        os.set_blocking(process.stdout.fileno(), False)
        try:
            lines.append(process.stdout.read() or "")
        except (BlockingIOError, TypeError):
            pass
    process.stdout.close()
    log.write_text("".join(lines))
    return {"task_index": task_index, "task": task or "(the run ended first)", "killed_at": time.monotonic(),
            "rc": process.returncode}


def task_lines(log: Path) -> list[str]:
    return [line.strip().strip("*").strip() for line in log.read_text().splitlines() if line.startswith(TASK_LINE)]


def ontap_objects() -> dict:
    exported = subprocess.run([str(ROOT / "lab" / "ontap" / "ctl"), "export"], cwd=ROOT, capture_output=True, text=True,
                              check=True, timeout=60)
    return json.loads(exported.stdout)["objects"]


def ontap_problems(objects: dict, sizes_seen: dict[str, int]) -> list[str]:
    """Duplicates (two objects of a kind with one name in one scope, two LIFs with one address, two equal
    export rules) and volumes deleted or shrunk since an earlier look (sizes_seen is updated)."""
    problems = []
    for kind, records in objects.items():
        names = Counter()
        for record in (records or {}).values():
            if isinstance(record, dict) and isinstance(record.get("name"), str):
                scope = next((record[key]["name"] for key in ("svm", "node", "ipspace", "owner")
                              if isinstance(record.get(key), dict) and "name" in record[key]), "")
                names[(scope, record["name"])] += 1
        problems += [f"ONTAP {kind}: {scope}/{name} {count} times" for (scope, name), count in names.items() if count > 1]
    addresses = Counter(record.get("ip", {}).get("address") for record in (objects.get("ip_interfaces") or {}).values()
                        if isinstance(record, dict))
    problems += [f"ONTAP LIF address {address} {count} times" for address, count in addresses.items() if address and count > 1]
    for policy in (objects.get("export_policies") or {}).values():
        rules = Counter(json.dumps({key: value for key, value in rule.items() if key != "index"}, sort_keys=True)
                        for rule in policy.get("rules") or [] if isinstance(rule, dict))
        problems += [f"ONTAP export policy {policy.get('name')}: a rule {count} times" for count in rules.values() if count > 1]
    volumes = {record.get("name"): int(record.get("size") or 0) for record in (objects.get("volumes") or {}).values()
               if isinstance(record, dict)}
    for name, size in sizes_seen.items():
        if name not in volumes:
            problems.append(f"ONTAP volume {name} deleted")
        elif volumes[name] < size:
            problems.append(f"ONTAP volume {name} shrunk from {size} to {volumes[name]}")
    sizes_seen.update(volumes)
    return problems


def kubernetes_problems() -> list[str]:
    kubectl = [str(ROOT / ".lab" / "kubernetes" / "bin" / "kubectl"), "--kubeconfig", str(ROOT / ".lab" / "kubernetes" / "kubeconfig")]
    problems = []
    for kind, key in (("tridentbackendconfigs.trident.netapp.io", lambda spec: json.dumps(spec, sort_keys=True)),
                      ("storageclasses", lambda item: json.dumps(item.get("parameters"), sort_keys=True))):
        listing = subprocess.run([*kubectl, "get", kind, "-A", "-o", "json"], capture_output=True, text=True, timeout=60)
        if listing.returncode != 0:
            problems.append(f"Kubernetes {kind}: could not list ({listing.stderr.strip()[:200]})")
            continue
        items = json.loads(listing.stdout).get("items", [])
        seen = Counter(key(item.get("spec", {})) if kind.startswith("trident") else key(item) for item in items)
        problems += [f"Kubernetes {kind}: {count} with one specification" for count in seen.values() if count > 1]
    return problems


def host_problems() -> list[str]:
    problems = []
    for name, container in lab_hosts().items():
        leftovers = on_host(container, "sh", "-c", "find /etc /usr/local/sbin /var/lib/aipod -name '.config_files-*' -o -name '.ansible_tmp*'"
                                                  " 2>/dev/null").stdout.split()
        problems += [f"{name}: temporary file {path} left" for path in leftovers]
        timer = on_host(container, "systemctl", "is-active", "aipod-storage-net-rollback.timer").stdout.strip()
        if timer == "active":
            problems.append(f"{name}: storage-network rollback timer still armed")
    return problems


def sweep_point(task_index: int, logs: Path, how: signal.Signals = signal.SIGKILL) -> dict:
    from_nothing(ROOT / "inventories" / "lab")
    sizes_seen: dict[str, int] = {}
    kill = killed_run(task_index, logs / f"kill-{task_index}-0-killed.log", how)
    point = {"task_index": task_index, "task": kill["task"], "signal": how.name, "problems": []}
    if how == signal.SIGINT and kill["rc"] == 0 and kill["task"] != "(the run ended first)":
        point["problems"].append("the interrupted run reported success")
    # What the kill left is the baseline: a volume the next runs delete or shrink is a problem.
    point["problems"] += ontap_problems(ontap_objects(), sizes_seen)
    point["next"] = run(logs / f"kill-{task_index}-1-next.log")
    point["problems"] += ontap_problems(ontap_objects(), sizes_seen)
    point["after"] = run(logs / f"kill-{task_index}-2-after.log")
    remaining = kill["killed_at"] + ROLLBACK + 15 - time.monotonic()
    if remaining > 0:
        time.sleep(remaining)
    point["last"] = run(logs / f"kill-{task_index}-3-last.log")
    point["problems"] += ontap_problems(ontap_objects(), sizes_seen) + kubernetes_problems() + host_problems()
    if point["next"]["rc"] != 0:
        point["problems"].append("the next run failed")
    if point["after"]["changed"] or point["after"]["rc"]:
        point["problems"].append(f"the run after it: rc {point['after']['rc']}, changed={point['after']['changed']}")
    # The lab runs no Trident controller: those checks are "not checked" (exit 2); none may fail.
    verified = point["last"]["verification"] in (0, 2) and not point["last"]["verification_failures"]
    if point["last"]["changed"] or point["last"]["rc"] or not verified:
        point["problems"].append(f"after the wait: rc {point['last']['rc']}, changed={point['last']['changed']}, "
                                 f"verification {point['last']['verification']}")
    point["converged"] = not point["problems"]
    return point


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=None, help="seed of the kill points (printed; default: random)")
    parser.add_argument("--points", type=int, default=10)
    parser.add_argument("--signal", choices=("KILL", "INT", "both"), default="KILL",
                        help="SIGKILL (a cancelled job), SIGINT (Ctrl-C) or both in turn (default KILL)")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    args = parser.parse_args()
    require_venv()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 1_000_000)
    print(f"kill sweep: seed {seed} (scripts/kill-sweep.py --seed {seed} draws the same points)", flush=True)
    logs = ROOT / ".lab" / "kill-sweep"
    logs.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    results = []
    try:
        from_nothing(ROOT / "inventories" / "lab")
        reference = run(logs / "reference.log")
        if reference["rc"] != 0:
            sys.exit(f"kill sweep: the reference first run failed; see {logs / 'reference.log'}")
        tasks = task_lines(logs / "reference.log")
        points = sorted(random.Random(seed).sample(range(2, len(tasks) + 1), min(args.points, len(tasks) - 1)))
        print(f"reference first run: {len(tasks)} tasks, {reference['seconds']} s; kill points: {points}", flush=True)
        for number, index in enumerate(points):
            how = signal.SIGINT if args.signal == "INT" or (args.signal == "both" and number % 2) else signal.SIGKILL
            point = sweep_point(index, logs, how)
            results.append(point)
            print(f"  {how.name} at task {index:>4} ({point['task'][:70]}): next changed={point['next']['changed']} "
                  f"({point['next']['seconds']} s), after changed={point['after']['changed']}, last changed="
                  f"{point['last']['changed']} verification={point['last']['verification']}: "
                  f"{'converged' if point['converged'] else 'PROBLEMS: ' + '; '.join(point['problems'])}", flush=True)
    finally:
        print("== restoring the lab to inventories/lab", flush=True)
        lab("stop", "hosts")
        lab("start")
    failed = [point for point in results if not point["converged"]]
    print(f"\nkill sweep (seed {seed}): {len(results) - len(failed)} of {len(results)} points converged in "
          f"{time.monotonic() - started:.0f} s")
    if args.json:
        args.json.write_text(json.dumps({"seed": seed, "signal": args.signal, "points": results}, indent=2) + "\n")
    return 1 if failed or not results else 0


if __name__ == "__main__":
    sys.exit(main())
