"""What role dgx_node did on the DGX VM, as the kernels report it (lab/vms: Debian's kernel under QEMU).

The hosts are reached over SSH with the lab's ssh_config (testinfra's ssh backend; the host keys
the lab generated are checked). Expected LIFs come from the model through the same derivation
the role uses (aipod_site.model.mount_plan) and are also written out, so that a change of the
derivation shows here. Every kernel check runs twice: after converge and after a reboot of the
DGX VM (the `phase` fixture; pytest runs all tests of one phase before the next).
"""
from __future__ import annotations

import json
import pathlib
import shlex
import subprocess
import sys
import time
import uuid

import pytest
import testinfra
import yaml
from project_paths import COLLECTION, REPO

sys.path.insert(0, str(REPO / "lab" / "vms"))

from vm_support import DGX, SCENARIO, SSH_CONFIG, playbook, ssh  # noqa: E402
from vmlab import datapath  # noqa: E402

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as site_model  # noqa: E402
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site  # noqa: E402

REFUSED, STORAGE = "stranger01", "storage"
# What aipod_mount_plan gives dgx01 (position 0 of the DGX hosts): the storage-a LIF of each node.
EXPECTED_MOUNTS = {"/mnt/data": ("172.31.241.101:/data", "4.1"), "/mnt/home": ("172.31.241.102:/home_vol", "3")}
ROLE_DEFAULTS = yaml.safe_load((COLLECTION / "roles" / "dgx_node" / "defaults" / "main.yml").read_text())
REBOOT_TIMEOUT = 900  # seconds; a reboot under TCG on a busy 2-core machine takes minutes


@pytest.fixture(scope="session")
def model() -> dict:
    return load_site(str(SCENARIO / "inventory")).model


@pytest.fixture(scope="session")
def plan(model) -> list[dict]:
    return site_model.mount_plan(model, DGX)


@pytest.fixture(scope="session")
def nic(model) -> dict:
    [storage_nic] = site_model.host_storage_plan(model, DGX)
    return storage_nic


@pytest.fixture(scope="session")
def dgx():
    return testinfra.get_host(f"ssh://{DGX}", ssh_config=SSH_CONFIG)


@pytest.fixture(scope="session")
def storage():
    return testinfra.get_host(f"ssh://{STORAGE}", ssh_config=SSH_CONFIG)


def boot_id(vm: str) -> str | None:
    result = ssh(vm, "cat /proc/sys/kernel/random/boot_id", timeout=30)
    return result.stdout.strip() if result.returncode == 0 else None


def reboot(vm: str) -> float:
    """Reboot a VM and wait until it is back (a new boot id over SSH with its known host key)."""
    before = boot_id(vm)
    assert before, f"{vm} does not answer before its reboot"
    started = time.monotonic()
    ssh(vm, "systemctl reboot", timeout=60)
    # The lab's ssh_config multiplexes: drop the master connection of the old boot.
    subprocess.run(["ssh", "-F", SSH_CONFIG, "-O", "exit", vm], capture_output=True)
    while time.monotonic() - started < REBOOT_TIMEOUT:
        time.sleep(5)
        current = boot_id(vm)
        if current and current != before:
            # systemd brings up the network and the fstab mounts after sshd may answer.
            ssh(vm, "systemctl is-system-running --wait", timeout=REBOOT_TIMEOUT)
            return time.monotonic() - started
    pytest.fail(f"{vm} did not come back within {REBOOT_TIMEOUT} s of its reboot")


@pytest.fixture(scope="module", params=["converged", "rebooted"])
def phase(request) -> str:
    """Kernel checks run after converge, then again after a reboot of the DGX VM."""
    if request.param == "rebooted":
        seconds = reboot(DGX)
        print(f"{DGX} rebooted in {seconds:.0f} s")
    return request.param


# ---------------------------------------------------------------------------- the model's plan
def test_the_model_picks_a_storage_a_lif_of_each_node(plan):
    assert {mount["path"]: mount["src"] for mount in plan} == {p: src for p, (src, _v) in EXPECTED_MOUNTS.items()}
    assert {mount["lif"] for mount in plan} == {"lab-vm-ontap-01_e1a-3111_1", "lab-vm-ontap-02_e1a-3111_1"}


# ---------------------------------------------------------------------------- storage network
def test_netplan_renders_the_storage_nic(dgx, nic):
    netplan = dgx.file("/etc/netplan/60-aipod-storage.yaml")
    assert netplan.exists and netplan.mode == 0o600
    rendered = yaml.safe_load(netplan.content_string)["network"]
    assert rendered["ethernets"][nic["parent"]]["mtu"] == 9000
    assert rendered["vlans"][nic["device"]] == {
        "id": nic["vlan"], "link": nic["parent"], "mtu": 9000, "dhcp4": False, "dhcp6": False, "accept-ra": False,
        "link-local": [], "addresses": [nic["cidr"]]}
    # netplan (not a networkd file of the role) is what networkd runs.
    assert dgx.file(f"/run/systemd/network/10-netplan-{nic['device']}.network").exists
    assert not dgx.run("ls /etc/systemd/network/60-aipod-* 2>/dev/null").stdout.strip()


def test_vlan_device_and_mtus(dgx, nic, phase):
    [vlan] = json.loads(dgx.check_output(f"ip -d -j addr show dev {nic['device']}"))
    assert vlan["linkinfo"]["info_kind"] == "vlan"
    assert vlan["linkinfo"]["info_data"]["protocol"] == "802.1Q" and vlan["linkinfo"]["info_data"]["id"] == nic["vlan"]
    assert vlan["link"] == nic["parent"]
    assert vlan["mtu"] == 9000
    assert [f"{a['local']}/{a['prefixlen']}" for a in vlan["addr_info"] if a["family"] == "inet"] == [nic["cidr"]]
    assert dgx.file(f"/sys/class/net/{nic['parent']}/mtu").content_string.strip() == "9000"
    assert "configured" in dgx.check_output(f"networkctl status {nic['device']}")


def test_jumbo_frames_reach_each_lif_and_one_byte_more_is_refused(dgx, plan, phase):
    for mount in plan:
        ping = dgx.run(f"ping -M do -s 8972 -c 2 -W 3 {mount['server']}")
        assert ping.rc == 0 and " 0% packet loss" in ping.stdout, ping.stdout + ping.stderr
        too_big = dgx.run(f"ping -M do -s 8973 -c 1 -W 3 {mount['server']}")
        assert too_big.rc != 0 and "message too long" in (too_big.stdout + too_big.stderr).lower(), too_big.stderr


# ---------------------------------------------------------------------------- NFS mounts
def proc_mounts(host) -> dict[str, tuple[str, str, list[str]]]:
    mounts = {}
    for line in host.file("/proc/mounts").content_string.splitlines():
        device, path, fstype, options = line.split()[:4]
        mounts[path] = (device, fstype, options.split(","))
    return mounts


def test_fstab_has_the_model_mounts(dgx, plan):
    fstab = [line.split() for line in dgx.file("/etc/fstab").content_string.splitlines()
             if line.strip() and not line.startswith("#")]
    for mount in plan:
        assert [mount["src"], mount["path"], "nfs", mount["options_text"], "0", "0"] in fstab


def test_proc_mounts_shows_the_negotiated_options_and_the_planned_lif(dgx, plan, nic, phase):
    mounted = proc_mounts(dgx)
    for mount in plan:
        assert mount["path"] in mounted, f"{mount['path']} is not mounted ({phase})"
        device, fstype, options = mounted[mount["path"]]
        want_src, version = EXPECTED_MOUNTS[mount["path"]]
        assert device == mount["src"] == want_src
        assert fstype == ("nfs4" if version.startswith("4") else "nfs")
        for option in (f"vers={version}", "rsize=262144", "wsize=262144", "hard", "proto=tcp", "nconnect=16",
                       f"addr={mount['server']}"):
            assert option in options, f"{option} not in {options}"


def test_sixteen_tcp_connections_to_each_lif_from_the_storage_vlan(dgx, plan, nic, phase):
    for mount in plan:
        # The client opens its nconnect transports as RPCs are sent (round robin): 64 WRITEs of
        # 256 KiB use all of them.
        probe = shlex.quote(f"{mount['path']}/.nconnect-{uuid.uuid4().hex}")
        dgx.check_output(f"dd if=/dev/zero of={probe} bs=256k count=64 conv=fsync status=none; rm -f {probe}")
        command = f"ss -Htn state established dst {mount['server']} dport = :2049 | wc -l"
        deadline = time.monotonic() + 60
        count = dgx.check_output(command).strip()
        while count != "16" and time.monotonic() < deadline:
            time.sleep(2)
            count = dgx.check_output(command).strip()
        assert count == "16", f"{count} TCP connections to {mount['server']}:2049 ({mount['path']}, {phase})"
        # Each from the host's address on the storage VLAN (the mount went through the role's NIC).
        local = {line.split()[2].rsplit(":", 1)[0] for line in dgx.check_output(
            f"ss -Htn state established dst {mount['server']} dport = :2049").splitlines()}
        assert local == {nic["address"]}


def test_a_file_written_through_each_mount_is_read_back_on_the_storage_vm(dgx, storage, plan, phase):
    for mount in plan:
        name = f"molecule-{phase}-{uuid.uuid4().hex}"
        dgx.check_output(f"dd if=/dev/urandom of={mount['path']}/{name} bs=256k count=8 conv=fsync status=none")
        written = dgx.check_output(f"sha256sum < {mount['path']}/{name}").split()[0]
        stored = storage.check_output(f"sha256sum < {mount['junction_path']}/{name}").split()[0]
        assert stored == written
        owner = storage.check_output(f"stat -c %u {mount['junction_path']}/{name}").strip()
        assert owner == "0"  # no_root_squash: superuser [sys] in the export policy
        dgx.check_output(f"rm {mount['path']}/{name}")


# ---------------------------------------------------------------------------- tuning
def test_sysctl_tuning_is_in_the_running_kernel(dgx, phase):
    for name, value in ROLE_DEFAULTS["dgx_node_sysctl"].items():
        current = dgx.file("/proc/sys/" + name.replace(".", "/")).content_string.split()
        assert current == str(value).split(), f"{name} = {current}, not {value} ({phase})"
    assert "sunrpc.tcp_max_slot_table_entries = 128" in dgx.file("/etc/sysctl.d/90-aipod-nfs.conf").content_string


# ---------------------------------------------------------------------------- the verification's jumbo check
def verify_compute(tmp_path: pathlib.Path) -> dict[str, dict]:
    """The checks role verify_compute records for dgx01, by name."""
    result_file = tmp_path / f"checks-{uuid.uuid4().hex}.json"
    run, _elapsed = playbook("verify_compute.yml", "-e", f"vm_verify_checks_file={result_file}")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr
    return {check["name"]: check for check in json.loads(result_file.read_text())[DGX]}


def test_the_verification_catches_a_storage_nic_at_mtu_1500(dgx, nic, plan, tmp_path):
    """verify_compute passes on the converged VM, and fails MTU and jumbo checks once the NIC is at 1500."""
    jumbo = [f"jumbo ping {nic['device']} -> {mount['server']}" for mount in plan]
    mtu = f"{nic['device']} MTU"
    checks = verify_compute(tmp_path)
    for name in [mtu, *jumbo] + [f"mount {mount['path']}" for mount in plan]:
        assert checks[name]["status"] == "pass", checks[name]
    assert dgx.run(f"ip link set dev {nic['device']} mtu 1500").rc == 0
    try:
        checks = verify_compute(tmp_path)
        assert checks[mtu]["status"] == "fail" and checks[mtu]["detail"] == "MTU 1500, model 9000", checks[mtu]
        for name in jumbo:
            assert checks[name]["status"] == "fail", checks[name]
            assert "8972-byte payload" in checks[name]["detail"] and "too long" in checks[name]["detail"].lower()
        # The mounts themselves are still there: only the jumbo path is broken.
        assert all(checks[f"mount {mount['path']}"]["status"] == "pass" for mount in plan)
    finally:
        dgx.run(f"ip link set dev {nic['device']} mtu 9000")
    assert dgx.file(f"/sys/class/net/{nic['device']}/mtu").content_string.strip() == "9000"


# ---------------------------------------------------------------------------- refused by the export policy
def test_the_role_reports_a_refusal_by_the_export_policy_clearly(model):
    """The role on a host the export policy does not admit: it stops at the mount, quickly, and says why."""
    [nic] = site_model.host_storage_plan(model, REFUSED)
    refused_plan = site_model.mount_plan(model, REFUSED)
    lifs = {lif.address for lif in datapath.storage_state(model).lifs if lif.network == nic["network"]}
    assert refused_plan and {mount["server"] for mount in refused_plan} <= lifs
    # The policy really leaves the stranger's network out: the refusal is the server's.
    assert all(nic["network"] not in policy_clients for policy_clients in exported_networks(model))
    run, elapsed = playbook("refused.yml")
    assert run.returncode == 2, f"the role did not fail on {REFUSED} (rc {run.returncode}):\n{run.stdout[-3000:]}{run.stderr}"
    failures, task = [], None
    for line in run.stdout.splitlines():
        if line.startswith("TASK ["):
            task = line[len("TASK ["):line.rindex("]")]
        elif line.startswith(f"fatal: [{REFUSED}]: FAILED! => "):
            failures.append((task, json.loads(line.split(" => ", 1)[1])))
    assert len(failures) == 1, run.stdout[-3000:]
    task_name, result = failures[0]
    assert task_name.startswith("ontap_ai.pod.dgx_node : Check that the NFS server admits this host"), task_name
    message = result["msg"]
    for mount in refused_plan:
        assert f"{mount['path']} <- {mount['src']} (LIF {mount['lif']}, export policy dgx-nodes of SVM lab-data)" in message
    assert f"REFUSED by the NFS server for client {nic['address']} ({nic['device']} on {nic['network']})" in message
    assert "access denied by server" in message
    assert "/etc/fstab was not changed" in message
    # Each refusal came back within seconds (no retries of mount.nfs, no hard-mount hang).
    assert [r["status"] for r in result["results"]] == ["refused"] * len(refused_plan)
    assert max(r["seconds"] for r in result["results"]) < 30, result["results"]
    print(f"role on {REFUSED}: failed after {elapsed:.0f} s; probe took {[r['seconds'] for r in result['results']]} s")
    stranger = testinfra.get_host(f"ssh://{REFUSED}", ssh_config=SSH_CONFIG)
    assert not [path for path, (_d, fstype, _o) in proc_mounts(stranger).items() if fstype.startswith("nfs")]
    assert not [line for line in stranger.file("/etc/fstab").content_string.splitlines() if " nfs " in line]
    # The storage network itself was fine: the stranger reaches the LIFs with jumbo frames.
    for mount in refused_plan:
        assert stranger.run(f"ping -M do -s 8972 -c 1 -W 3 {mount['server']}").rc == 0


def exported_networks(model: dict) -> list[set[str]]:
    """The networks each export policy rule admits, by name (the model's own terms)."""
    networks = []
    for svm in site_model.svms(model):
        for policy in svm.get("export_policies") or []:
            for rule in policy.get("rules") or []:
                networks.append(set(rule.get("clients") or []))
    return networks
