#!/usr/bin/env python3
"""Benchmark: the VM lab under emulation. Boot-to-SSH cold and from snapshot, the molecule
scenario `vm` (converge and idempotent re-run of role dgx_node), and NFS writes in the DGX VM.

In one run:
1. cold: the VMs' snapshots are dropped and `lab/lab start vms` boots every VM from scratch
   (in parallel) and saves a fresh snapshot; boot-to-SSH per VM and the whole start are timed;
2. snapshot: `lab/lab stop vms; lab/lab start vms` restores every VM from its snapshot;
3. scenario: `molecule converge -s vm` (the role configures the DGX VM: netplan VLAN + MTU 9000,
   the model's NFS mounts, sysctl) and `molecule idempotence -s vm` (the no-op re-run), each timed
   as a whole command and as the playbook alone (the time the bundle's callback reports), with the
   compute play's strategy (Mitogen), then from the snapshots again with Ansible's linear one;
4. NFS write throughput inside the DGX VM on the mount the role made (/mnt/data: NFSv4.1,
   nconnect=16, 256 KiB), `dd bs=1M conv=fsync`, median of --repeat runs, next to the same dd to
   the VM's own disk;
5. optionally (--full-scenario) the wall time of `molecule test -s vm` as CI runs it (destroy,
   syntax, create, converge, idempotence, verify with a reboot and the refused host, destroy).

Figures are under TCG emulation (or KVM where the lab found it working: see the accelerator
line) and reported as ratios within the run. The image is built first if its recipe changed
(not timed here; `lab/lab start vms` prints its build time). The run ends with the VMs stopped.

    .venv/bin/python benchmarks/vms.py [--skip-cold] [--full-scenario] [--repeat 3] [--megabytes 256]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "lab", "vms")]

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as site_model  # noqa: E402
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site  # noqa: E402

INVENTORY = os.path.join(ROOT, "inventories", "lab-vm")
SCENARIO_INVENTORY = os.path.join(ROOT, "molecule", "vm", "inventory")
STATE = os.path.join(os.environ.get("AIPOD_LAB_DIR", os.path.join(ROOT, ".lab")), "vms")
DGX = "dgx01"


def lab(verb: str) -> float:
    env = dict(os.environ, AIPOD_VMS_INVENTORY=INVENTORY)
    started = time.monotonic()
    result = subprocess.run([os.path.join(ROOT, "lab", "lab"), verb, "vms"], env=env, capture_output=True, text=True)
    if result.returncode not in (0, 1, 3) or (verb == "start" and result.returncode != 0):
        sys.exit(f"lab/lab {verb} vms failed:\n{result.stdout}{result.stderr}")
    return time.monotonic() - started


def lab_state() -> dict:
    with open(os.path.join(STATE, "lab.json"), encoding="utf-8") as handle:
        return json.load(handle)


def ssh(vm: str, command: str, timeout: float = 600) -> str:
    result = subprocess.run(["ssh", "-F", os.path.join(STATE, "ssh_config"), vm, command], capture_output=True,
                            text=True, timeout=timeout)
    if result.returncode != 0:
        sys.exit(f"{vm}: {command} failed:\n{result.stdout}{result.stderr}")
    return result.stdout + result.stderr


def drop_snapshots() -> None:
    for entry in os.listdir(STATE):
        state = os.path.join(STATE, entry, "state.json")
        if os.path.exists(state):
            os.remove(state)


def boot_times() -> dict[str, float]:
    return {name: timing["ssh_seconds"] for name, timing in lab_state()["timings"].items() if "ssh_seconds" in timing}


def boot_cpu() -> dict[str, float]:
    """CPU seconds each QEMU used until SSH answered: the cost of a boot, whatever shares the machine."""
    return {name: timing["cpu_seconds"] for name, timing in lab_state()["timings"].items() if timing.get("cpu_seconds")}


def dd_megabytes_per_second(vm: str, path: str, megabytes: int) -> float:
    output = ssh(vm, f"dd if=/dev/zero of={shlex.quote(path)} bs=1M count={megabytes} conv=fsync 2>&1; rm -f {shlex.quote(path)}")
    match = re.search(r"copied, ([0-9.]+) s, ", output)
    if not match:
        sys.exit(f"cannot read dd's output: {output}")
    return megabytes * 1048576 / float(match.group(1)) / 1e6


def molecule(*args: str, ansible_args: tuple[str, ...] = ()) -> dict:
    """Run molecule on the vm scenario; wall time of the command and the playbook's own time."""
    env = dict(os.environ, PATH=os.path.join(ROOT, ".venv", "bin") + os.pathsep + os.environ.get("PATH", ""),
               ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"))
    started = time.monotonic()
    command = ["molecule", *args, "-s", "vm"] + (["--", *ansible_args] if ansible_args else [])
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.monotonic() - started
    output = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout + result.stderr)
    if result.returncode != 0:
        sys.exit(f"molecule {' '.join(args)} -s vm failed:\n{output[-4000:]}")
    playbook = re.findall(r"==> converge\.yml: SUCCESS in ([0-9.]+) s", output)
    recap = re.findall(r"dgx01\s+: ok=(\d+)\s+changed=(\d+)", output)
    return {"wall_s": round(wall, 1), "playbook_s": float(playbook[-1]) if playbook else None,
            "ok": int(recap[-1][0]) if recap else None, "changed": int(recap[-1][1]) if recap else None}


def nfs_throughput(model: dict, repeat: int, megabytes: int) -> dict:
    """dd through the mount the role made (the scenario has converged), and to the VM's own disk."""
    mount = next(m for m in site_model.mount_plan(model, DGX) if m["options_text"].startswith("vers=4.1"))
    options = next((line for line in ssh(DGX, "cat /proc/mounts").splitlines() if line.split()[1] == mount["path"]), None)
    if options is None:
        sys.exit(f"{mount['path']} is not mounted in {DGX}: the scenario's converge did not mount it")
    nfs = [dd_megabytes_per_second(DGX, f"{mount['path']}/benchmark.bin", megabytes) for _ in range(repeat)]
    local = [dd_megabytes_per_second(DGX, "/root/benchmark.bin", megabytes) for _ in range(repeat)]
    return {"mount": options.split()[3], "nfs_mb_s": statistics.median(nfs), "local_mb_s": statistics.median(local),
            "nfs_runs_mb_s": [round(v, 1) for v in nfs], "runs": repeat, "megabytes": megabytes}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-cold", action="store_true", help="keep the snapshots (no cold boot)")
    parser.add_argument("--full-scenario", action="store_true", help="also time `molecule test -s vm` as CI runs it")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--megabytes", type=int, default=256)
    args = parser.parse_args()
    model = load_site(SCENARIO_INVENTORY).model
    results: dict = {"load_average_before": os.getloadavg()[0]}

    lab("stop")
    if not args.skip_cold:
        lab("start")  # builds the image if its recipe changed, so that the cold start below times boots only
        lab("stop")
        drop_snapshots()
        results["cold_start_s"] = lab("start")
        results["cold_ssh_s"] = boot_times()
        results["cold_cpu_s"] = boot_cpu()
        lab("stop")
    results["snapshot_start_s"] = lab("start")
    results["snapshot_ssh_s"] = boot_times()
    results["snapshot_cpu_s"] = boot_cpu()
    results["accelerator"] = lab_state()["accelerator"]
    # The scenario on the VMs just restored (its create step finds them running), with the compute
    # play's strategy (Mitogen), then again from the snapshots with Ansible's linear strategy.
    for strategy in ("ontap_ai.pod.aipod_mitogen_linear", "linear"):
        extra = ("-e", f"compute_strategy={strategy}")
        if strategy != "ontap_ai.pod.aipod_mitogen_linear":
            molecule("destroy")
        results[f"converge_{strategy}"] = molecule("converge", ansible_args=extra)
        results[f"idempotence_{strategy}"] = molecule("idempotence", ansible_args=extra)
        if strategy == "ontap_ai.pod.aipod_mitogen_linear":
            results["nfs"] = nfs_throughput(model, args.repeat, args.megabytes)
    molecule("destroy")  # lab/lab stop vms: the next start restores the snapshot
    if args.full_scenario:
        results["scenario_test"] = molecule("test")
    results["load_average_after"] = os.getloadavg()[0]

    emulation = "TCG software emulation" if results["accelerator"] == "tcg" else results["accelerator"].upper()
    print(f"VM lab under {emulation}, {len(results['snapshot_ssh_s'])} VMs started in parallel; host load average "
          f"{results['load_average_before']:.1f} before, {results['load_average_after']:.1f} after (2 cores)")
    print(f"{'VM':<12} {'cold SSH s':>11} {'(CPU s)':>8} {'snapshot SSH s':>15} {'(CPU s)':>8} {'ratio':>7}")
    for name, warm in results["snapshot_ssh_s"].items():
        cold = results.get("cold_ssh_s", {}).get(name)
        ratio = f"{cold / warm:.0f}x" if cold else "-"
        cold_cpu = results.get("cold_cpu_s", {}).get(name, "-")
        print(f"{name:<12} {cold if cold else '-':>11} {cold_cpu:>8} {warm:>15} "
              f"{results['snapshot_cpu_s'].get(name, '-'):>8} {ratio:>7}")
    if "cold_start_s" in results:
        print(f"lab/lab start vms: cold {results['cold_start_s']:.1f} s (boots + snapshots), "
              f"from snapshots {results['snapshot_start_s']:.1f} s "
              f"({results['cold_start_s'] / results['snapshot_start_s']:.0f}x)")
    else:
        print(f"lab/lab start vms from snapshots: {results['snapshot_start_s']:.1f} s")
    for strategy in ("ontap_ai.pod.aipod_mitogen_linear", "linear"):
        for step in ("converge", "idempotence"):
            run = results[f"{step}_{strategy}"]
            print(f"molecule {step} -s vm, strategy {strategy}: {run['wall_s']:.1f} s (playbook {run['playbook_s']} s; "
                  f"ok={run['ok']} changed={run['changed']})")
    if "scenario_test" in results:
        print(f"molecule test -s vm (what CI runs): {results['scenario_test']['wall_s']:.1f} s")
    nfs = results["nfs"]
    print(f"NFS write in {DGX} to the role's mount ({nfs['megabytes']} MiB, dd conv=fsync, median of {nfs['runs']}): "
          f"{nfs['nfs_mb_s']:.1f} MB/s over NFS vs {nfs['local_mb_s']:.1f} MB/s to the VM's own disk "
          f"({nfs['nfs_mb_s'] / nfs['local_mb_s']:.2f}x)")
    print(f"mount options: {nfs['mount']}")
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
