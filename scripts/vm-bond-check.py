#!/usr/bin/env python3
"""Release check: NVA-1173's storage bond, made by the compute layer on a real kernel, fails over.

On the VM lab (lab/vms, docs/vms.md) booted from inventories/lab-vm-bond, where dgx01 has the bond
bond1 (active-backup, members enp225s0f0 and enp225s0f1, primary enp225s0f1, VLAN device bond1.3111
on storage-a) over two links to the storage VM:
1. compute.yml from the freshly booted VM configures the bond and mounts the FlexGroups over it;
2. compute.yml again reports changed=0;
3. the compute verification (role verify_compute) passes every check, the bond's included;
4. the primary's link is cut (QMP set_link): the backup takes over, the bond's MAC follows it
   (fail_over_mac active), and NFS writes and jumbo pings go on; the link back, the primary is active again;
5. the bond leaves the model (dgx01 as inventories/lab-vm has it, a tagged storage NIC): compute.yml
   deletes the bond (systemd-networkd before v257 would keep it, both NICs enslaved) and the NIC's VLAN
   device carries the address and the mounts; then the bond comes back and the VLAN device goes;
6. a change to a plain storage NIC that is not confirmed is rolled back by the timer's command: the
   bond the change deleted is back and the NIC's VLAN device is gone; made again by the role, the
   change takes the bond away (the script remembers what a rollback brought back).

It starts the lab's Kubernetes API too: a change that interrupts I/O looks the DGX up there first.
Cold boots (a VM with two storage NICs does not fit the default snapshot) and TCG make it take
several minutes: too long for .ci/run. The VM lab is stopped at the end; the next `lab/lab start vms`
restores the default pod's snapshots.

    .venv/bin/python scripts/vm-bond-check.py [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT / "lab" / "vms")]
from bench_support import VENV_BIN, recap, require_venv  # noqa: E402
from bench_support import environment as bench_environment  # noqa: E402
from vmlab.qemu import Qmp  # noqa: E402

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_compute import files  # noqa: E402

INVENTORY = ROOT / "inventories" / "lab-vm-bond"
SSH = ["ssh", "-F", str(ROOT / ".lab" / "vms" / "ssh_config"), "dgx01"]
PRIMARY, BACKUP, PRIMARY_LINK = "enp225s0f1", "enp225s0f0", "link2"


def environment() -> dict[str, str]:
    """The benchmarks' environment, for the VM pod: no fact cache kept between runs (the VMs restart)."""
    return bench_environment(ANSIBLE_CACHE_PLUGIN="memory", AIPOD_VMS_INVENTORY=str(INVENTORY))


def step(name: str, passed: bool, detail: str, results: list[dict], started: float) -> None:
    results.append({"step": name, "passed": passed, "detail": detail, "seconds": round(time.monotonic() - started, 1)})
    print(f"{'PASS' if passed else 'FAIL'} {name} ({results[-1]['seconds']} s): {detail}", flush=True)


def playbook(inventory: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(VENV_BIN / "ansible-playbook"), "-i", str(inventory), *args], cwd=ROOT, env=environment(),
                          capture_output=True, text=True)


def on_dgx(command: str) -> str:
    return subprocess.run([*SSH, command], capture_output=True, text=True, check=True).stdout.strip()


def bonding() -> dict[str, str]:
    """The bond as the kernel reports it."""
    read = on_dgx("cd /sys/class/net/bond1 && echo $(cut -d' ' -f1 bonding/mode) $(cat bonding/miimon) "
                  "$(cut -d' ' -f1 bonding/fail_over_mac) $(cat bonding/primary) $(cat bonding/active_slave) "
                  "$(cat address) $(cat ifindex)").split()
    return dict(zip(["mode", "miimon", "fail_over_mac", "primary", "active", "mac", "ifindex"], read))


def set_primary_link(up: bool) -> None:
    qmp = Qmp(str(ROOT / ".lab" / "vms" / "dgx01" / "qmp.sock"))
    try:
        qmp.execute("set_link", name=PRIMARY_LINK, up=up)
    finally:
        qmp.close()


def converge(results: list[dict], name: str, inventory: Path = INVENTORY) -> dict:
    started = time.monotonic()
    # The VM pod has no Kubernetes cluster: a change that interrupts I/O rolls without a drain.
    run = playbook(inventory, "playbooks/compute.yml", "-e", "dgx_rolling_no_cluster=true")
    counts = recap(run.stdout).get("dgx01", {})
    step(name, run.returncode == 0, f"rc {run.returncode}, dgx01 {counts}", results, started)
    if run.returncode != 0:
        print(run.stdout[-3000:])
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, help="also write the steps to this file")
    args = parser.parse_args()
    require_venv()
    results: list[dict] = []
    began = time.monotonic()
    subprocess.run([str(ROOT / "lab" / "lab"), "stop", "vms"], cwd=ROOT, env=environment(), capture_output=True)
    # The VM pod's kube_node hosts are looked up in the lab's Kubernetes API before a change that
    # interrupts I/O rolls (dgx01 is no Node there, so it rolls without a drain): the API must answer.
    subprocess.run([str(ROOT / "lab" / "lab"), "start", "kubernetes"], cwd=ROOT, env=environment(), capture_output=True, check=True)
    started = time.monotonic()
    boot = subprocess.run([str(ROOT / "lab" / "lab"), "start", "vms"], cwd=ROOT, env=environment(), capture_output=True, text=True)
    step("boot the bond pod's VMs", boot.returncode == 0, boot.stdout.strip().splitlines()[-1] if boot.stdout.strip() else boot.stderr,
         results, started)
    try:
        if boot.returncode != 0:
            return 1
        converge(results, "first compute run")
        state = bonding()
        want = {"mode": "active-backup", "miimon": "100", "fail_over_mac": "active", "primary": PRIMARY, "active": PRIMARY}
        started = time.monotonic()
        step("the kernel's bond is NVA-1173's", all(state.get(k) == v for k, v in want.items()), json.dumps(state), results, started)
        counts = converge(results, "second compute run")
        results[-1]["passed"] &= counts.get("changed") == 0
        started = time.monotonic()
        checks_file = ROOT / ".lab" / "vms" / "bond-checks.json"
        verify = playbook(INVENTORY, "molecule/vm/verify_compute.yml", "-e", f"vm_verify_checks_file={checks_file}")
        checks = json.loads(checks_file.read_text())["dgx01"] if verify.returncode == 0 else []
        failed = [c["name"] for c in checks if c["status"] == "fail"]
        bond_checks = [c["name"] for c in checks if c["name"].startswith("bond1 ")]
        step("verification", verify.returncode == 0 and not failed and len(bond_checks) == 4,
             f"{len(checks)} checks, failed: {failed or 'none'}; bond checks: {bond_checks}", results, started)

        started = time.monotonic()
        before = bonding()
        set_primary_link(False)
        time.sleep(1.5)
        during = bonding()
        io = on_dgx("dd if=/dev/urandom of=/mnt/data/bond-check.bin bs=1M count=16 conv=fsync 2>/dev/null && "
                    "md5sum /mnt/data/bond-check.bin >/dev/null && rm /mnt/data/bond-check.bin && echo written; "
                    "ping -c 1 -M do -s 8972 -W 2 172.31.241.102 >/dev/null && echo jumbo")
        set_primary_link(True)
        time.sleep(1.5)
        after = bonding()
        step("failover and back", during["active"] == BACKUP and during["mac"] != before["mac"] and io.split() == ["written", "jumbo"]
             and after["active"] == PRIMARY and after["mac"] == before["mac"],
             f"active {before['active']} -> {during['active']} -> {after['active']}, MAC {before['mac']} -> {during['mac']} -> "
             f"{after['mac']}, NFS and jumbo ping on the backup: {io.split()}", results, started)

        # The bond leaves the model: dgx01 as the default VM pod has it, a tagged storage NIC. The
        # bond's definition is gone, so it must go (systemd-networkd would keep it, enslaving both NICs).
        converge(results, "bond to a storage NIC: compute run", ROOT / "inventories" / "lab-vm")
        started = time.monotonic()
        state = on_dgx("test -e /sys/class/net/bond1 && echo bond-left || echo bond-gone; "
                       f"test -e /sys/class/net/{BACKUP}/master && echo enslaved || echo free; "
                       f"ip -br -4 addr show {BACKUP}.3111 | awk '{{print $3}}'; grep -c ' /mnt/data nfs' /proc/mounts || true")
        step("the bond is gone, the NIC carries the network", state.split() == ["bond-gone", "free", "172.31.241.11/24", "1"],
             f"{state.split()}", results, started)
        converge(results, "storage NIC to the bond again: compute run")
        started = time.monotonic()
        state = bonding()
        step("the bond is back", state["active"] == PRIMARY and on_dgx(f"test -e /sys/class/net/{BACKUP}.3111 && echo left || echo gone") == "gone",
             json.dumps(state), results, started)

        # A change to a plain NIC (the default VM pod's dgx01) applied and not confirmed: the timer's
        # command puts the bond back, and the NIC's VLAN device goes.
        started = time.monotonic()
        nic = {"device": f"{BACKUP}.3111", "parent": BACKUP, "links": [BACKUP], "devices": [BACKUP, f"{BACKUP}.3111"], "bond": None,
               "vlan": 3111, "network": "storage-a", "cidr": "172.31.241.11/24", "mtu": 9000, "routes": []}
        subprocess.run([*SSH, "cat > /etc/aipod/storage-net/60-aipod-storage.yaml"], input=files.netplan([nic], "dgx01", "Ansible managed"),
                       text=True, check=True)
        applied = on_dgx(f"/usr/local/sbin/aipod-storage-net apply netplan 600 '{BACKUP} {BACKUP}.3111' 60-aipod-storage.yaml 2>/dev/null; "
                         "test -e /sys/class/net/bond1 && echo bond || echo no-bond")
        on_dgx("/usr/local/sbin/aipod-storage-net rollback 2>/dev/null")
        time.sleep(2)
        back = bonding()
        gone = on_dgx(f"test -e /sys/class/net/{BACKUP}.3111 && echo vlan-left || echo vlan-gone")
        step("an unconfirmed change rolled back", applied.split()[-2:] == ["changed", "no-bond"] and back["active"] == PRIMARY
             and gone == "vlan-gone", f"apply: {applied.split()[-2:]}; after the rollback: bond active {back['active']}, {gone}",
             results, started)
        # The rolled-back change made again, now by the role: the bond the rollback brought back must
        # go, although the last applied change (the NIC's) did not have it.
        converge(results, "the storage NIC again after the rollback: compute run", ROOT / "inventories" / "lab-vm")
        started = time.monotonic()
        state = on_dgx("test -e /sys/class/net/bond1 && echo bond-left || echo bond-gone; "
                       f"test -e /sys/class/net/{BACKUP}/master && echo enslaved || echo free")
        step("the bond the rollback brought back is gone", state.split() == ["bond-gone", "free"], f"{state.split()}", results, started)
        converge(results, "the bond again: compute run")
    finally:
        subprocess.run([str(ROOT / "lab" / "lab"), "stop", "vms"], cwd=ROOT, env=environment(), capture_output=True)
    total = round(time.monotonic() - began)
    print(f"\nvm-bond-check: {sum(r['passed'] for r in results)}/{len(results)} steps passed in {total} s")
    if args.json:
        args.json.write_text(json.dumps({"seconds": total, "steps": results}, indent=2) + "\n")
    return 0 if all(r["passed"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
