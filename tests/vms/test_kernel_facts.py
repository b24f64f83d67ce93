"""What only a real kernel can prove: NFS mounts and their options, 802.1Q VLANs, jumbo frames, exports.

The VMs run Debian's kernel under QEMU (lab/vms). The storage VM carries the data path of
inventories/lab-vm (LIFs, exports, nfsd settings, all derived from the model). Until the compute
role runs in the VM scenario, these tests configure the DGX VM's storage NIC (netplan, from the
model) and mount the model's mount plan themselves; the molecule scenario replaces that part
with the role and keeps the assertions.
"""
from __future__ import annotations

import re
import subprocess
import time
import uuid

import pytest
import yaml

from aipod_site import model as site_model
from lab_vms import vm_lab  # noqa: F401  (fixture)
from vmlab import datapath, plan as vmplan

pytestmark = [pytest.mark.lab, pytest.mark.slow]

DGX = "dgx01"
STRANGER = "stranger01"
STORAGE = "storage"
NETPLAN_FILE = "/etc/netplan/60-phase1-storage-nics.yaml"


@pytest.fixture(scope="module")
def storage_network(vm_lab):
    """The DGX VM's storage NIC as the model says (the compute role's job in the scenario)."""
    netplan = vmplan.host_storage_netplan(vm_lab.model, DGX)
    vm_lab.put(DGX, NETPLAN_FILE, yaml.safe_dump(netplan, sort_keys=False))
    vm_lab.check(DGX, "netplan apply")
    # netplan apply returns before networkd has configured the devices.
    for name, vlan in netplan["network"].get("vlans", {}).items():
        address = vlan["addresses"][0]
        vm_lab.wait_for(DGX, f"ip -o -4 addr show dev {name} 2>/dev/null || true", lambda out: address in out, timeout=90)
    yield netplan["network"]
    vm_lab.run(DGX, f"umount -a -t nfs,nfs4; rm -f {NETPLAN_FILE}; "
                    + "; ".join(f"ip link delete {name}" for name in netplan["network"].get("vlans", {}))
                    + "; " + "; ".join(f"ip link set {name} mtu 1500" for name in netplan["network"]["ethernets"]))


@pytest.fixture(scope="module")
def mounts(vm_lab, storage_network):
    """The model's mount plan for the DGX, mounted with the plan's options."""
    plan = site_model.mount_plan(vm_lab.model, DGX)
    assert plan, "the VM inventory gives the DGX no mounts"
    for mount in plan:
        vm_lab.check(DGX, f"mkdir -p {mount['path']} && mount -t nfs -o {mount['options_text']} {mount['src']} {mount['path']}",
                     timeout=180)
    return plan


def lifs_of(vm_lab, network: str) -> list[str]:
    return [lif.address for lif in datapath.storage_state(vm_lab.model).lifs if lif.network == network]


# ---------------------------------------------------------------------------- the storage VM
def test_storage_vm_carries_the_model_data_path(vm_lab):
    state = datapath.storage_state(vm_lab.model)
    addresses = vm_lab.check(STORAGE, "ip -o -4 addr show")
    for lif in state.lifs:
        device = datapath.vlan_device(lif.network, lif.vlan)
        assert re.search(rf"\d+: {re.escape(device)}\s+inet {re.escape(lif.address)}/{lif.prefix_len}", addresses), addresses
        assert vm_lab.check(STORAGE, f"cat /sys/class/net/{device}/mtu").strip() == str(lif.mtu)
        assert f"vlan protocol 802.1Q id {lif.vlan} " in vm_lab.check(STORAGE, f"ip -d link show {device}")
    nfsd = vm_lab.check(STORAGE, "cat /proc/fs/nfsd/max_block_size /proc/fs/nfsd/versions /proc/fs/nfsd/threads").split("\n")
    assert nfsd[0] == "262144"
    assert nfsd[1].split() == ["+3", "+4", "-4.0", "+4.1", "-4.2"]
    assert int(nfsd[2]) >= 16
    served = {}
    for line in vm_lab.check(STORAGE, "exportfs -s").splitlines():
        path, *clients = line.split()
        served[path] = sorted(client.split("(")[0] for client in clients)
    expected = {line.split()[0]: sorted(c.split("(")[0] for c in line.split()[1:]) for line in datapath.exports(state)}
    assert served == expected == {"/data": ["172.31.241.0/24"], "/home_vol": ["172.31.241.0/24"]}


# ---------------------------------------------------------------------------- the storage network
def test_vlan_device_and_mtus_are_what_the_model_says(vm_lab, storage_network):
    for name, vlan in storage_network["vlans"].items():
        details = vm_lab.check(DGX, f"ip -d -o link show {name}")
        assert f"vlan protocol 802.1Q id {vlan['id']} " in details
        assert f"@{vlan['link']}:" in details
        assert vm_lab.check(DGX, f"cat /sys/class/net/{name}/mtu").strip() == "9000"
        assert vm_lab.check(DGX, f"cat /sys/class/net/{vlan['link']}/mtu").strip() == "9000"
        assert vlan["addresses"][0] in vm_lab.check(DGX, f"ip -o -4 addr show dev {name}")
    # netplan rendered it for networkd, which manages the VLAN device.
    assert "configured" in vm_lab.check(DGX, f"networkctl status {next(iter(storage_network['vlans']))} | grep -i state")


def test_jumbo_frames_pass_and_one_byte_more_is_refused(vm_lab, storage_network):
    for lif in lifs_of(vm_lab, "storage-a"):
        ping = vm_lab.run(DGX, f"ping -M do -s 8972 -c 2 -W 3 {lif}")
        assert ping.returncode == 0 and " 0% packet loss" in ping.stdout, ping.stdout + ping.stderr
        too_big = vm_lab.run(DGX, f"ping -M do -s 8973 -c 1 -W 3 {lif}")
        assert too_big.returncode != 0
        assert "message too long" in (too_big.stdout + too_big.stderr).lower(), too_big.stdout + too_big.stderr


# ---------------------------------------------------------------------------- NFS
def test_mounts_negotiate_the_model_options(vm_lab, mounts):
    proc_mounts = vm_lab.check(DGX, "cat /proc/mounts")
    for mount in mounts:
        line = next((l for l in proc_mounts.splitlines() if l.split()[1] == mount["path"]), None)
        assert line, f"{mount['path']} is not mounted:\n{proc_mounts}"
        device, _path, fstype, options = line.split()[:4]
        options = options.split(",")
        assert device == mount["src"]
        version = mount["options_text"].split(",")[0].split("=")[1]
        assert fstype == ("nfs4" if version.startswith("4") else "nfs")
        for option in (f"vers={version}", "rsize=262144", "wsize=262144", "hard", "proto=tcp", "nconnect=16",
                       f"addr={mount['server']}"):
            assert option in options, f"{option} missing from {line}"


def test_sixteen_tcp_connections_per_lif(vm_lab, mounts):
    for mount in mounts:
        # The client connects each of its nconnect transports when it first sends an RPC on it
        # (round robin): 64 WRITEs of 256 KiB use all of them.
        probe = f"{mount['path']}/.nconnect-{uuid.uuid4().hex}"
        vm_lab.check(DGX, f"dd if=/dev/zero of={probe} bs=256k count=64 conv=fsync status=none; rm -f {probe}")
        command = f"ss -Htn state established dst {mount['server']} dport = :2049 | wc -l"
        count = vm_lab.wait_for(DGX, command, lambda out: out.strip() == "16", timeout=60).strip()
        assert count == "16", f"{count} connections to {mount['server']}:2049 for {mount['path']}"


def test_a_file_written_through_the_mount_is_on_the_storage_side(vm_lab, mounts):
    for mount in mounts:
        name = f"phase1-{uuid.uuid4().hex}"
        vm_lab.check(DGX, f"dd if=/dev/urandom of={mount['path']}/{name} bs=256k count=8 conv=fsync status=none")
        written = vm_lab.check(DGX, f"sha256sum < {mount['path']}/{name}").split()[0]
        stored = vm_lab.check(STORAGE, f"sha256sum < {mount['junction_path']}/{name}").split()[0]
        assert stored == written
        vm_lab.check(DGX, f"rm {mount['path']}/{name}")


# ---------------------------------------------------------------------------- the stranger
@pytest.mark.parametrize("version", ["4.1", "3"])
def test_a_client_outside_the_export_policy_is_refused_at_mount_time(vm_lab, version):
    lif = lifs_of(vm_lab, "storage-guest")[0]
    # The stranger reaches the LIF (jumbo frames and all): a refusal is the export policy's.
    reach = vm_lab.run(STRANGER, f"ping -M do -s 8972 -c 1 -W 3 {lif}")
    assert reach.returncode == 0, reach.stdout + reach.stderr
    # A probe, not a production mount: soft, no retry, bounded by timeout(1), so it cannot hang.
    started = time.monotonic()
    probe = vm_lab.run(STRANGER, f"mkdir -p /mnt/probe && timeout 60 mount -t nfs -o vers={version},proto=tcp,soft,"
                                 f"retry=0,timeo=50,retrans=1 {lif}:/data /mnt/probe", timeout=90)
    elapsed = time.monotonic() - started
    assert probe.returncode not in (0, 124), f"mount was not refused (rc {probe.returncode})"
    assert "access denied by server" in probe.stderr, probe.stderr
    assert elapsed < 30, f"the refusal took {elapsed:.0f} s"
    assert "/mnt/probe" not in vm_lab.check(STRANGER, "cat /proc/mounts")


# ---------------------------------------------------------------------------- last: a reboot
def test_the_dgx_vm_reboots_with_its_identity(vm_lab, storage_network):
    """The scenario reboots the DGX VM: it must come back with its host key, name and NIC names."""
    before = vm_lab.check(DGX, "cat /proc/sys/kernel/random/boot_id").strip()
    vm_lab.run(DGX, "systemctl reboot", timeout=60)
    subprocess.run(["ssh", "-F", vm_lab.ssh_config, "-O", "exit", DGX], capture_output=True)
    deadline = time.monotonic() + 600
    after = before
    while after == before and time.monotonic() < deadline:
        time.sleep(5)
        result = vm_lab.run(DGX, "cat /proc/sys/kernel/random/boot_id", timeout=30)
        after = result.stdout.strip() if result.returncode == 0 else before
    assert after != before, "the DGX VM did not come back from its reboot"
    assert vm_lab.check(DGX, "hostname").strip() == DGX
    # Known host key (StrictHostKeyChecking is on), NIC named as the model says, its netplan applied again.
    nic = next(iter(storage_network["ethernets"]))
    assert vm_lab.wait_for(DGX, f"cat /sys/class/net/{nic}/mtu", lambda out: out.strip() == "9000", timeout=120).strip() == "9000"
