"""What role dgx_node leaves on the DGX stand-ins: read from the hosts themselves (podman exec).

Expected values are written out, not recomputed: the mount targets below are what the lab pod's
model gives two DGX hosts (positions 0 and 1) with aipod_mount_plan - data LIFs of storage-a and
storage-b, .101/.103 on lab-ontap-01/-02, alternating nodes first, then networks.
"""
from __future__ import annotations

import json
import socket
import time

import pytest
import testinfra
import yaml

HOSTS = {
    "mol-dgx01": {
        "renderer": "networkd", "mgmt": "172.31.250.201", "storage_a": "172.31.251.201", "storage_b": "172.31.252.201",
        "fstab": ["172.31.251.101:/data /mnt/data nfs vers=4.1,proto=tcp,nconnect=16,rsize=262144,wsize=262144,hard 0 0",
                  "172.31.251.103:/home_vol /mnt/home nfs vers=3,proto=tcp,nconnect=16,rsize=262144,wsize=262144,hard 0 0"],
    },
    "mol-dgx02": {
        "renderer": "netplan", "mgmt": "172.31.250.202", "storage_a": "172.31.251.202", "storage_b": "172.31.252.202",
        "fstab": ["172.31.251.103:/data /mnt/data nfs vers=4.1,proto=tcp,nconnect=16,rsize=262144,wsize=262144,hard 0 0",
                  "172.31.252.101:/home_vol /mnt/home nfs vers=3,proto=tcp,nconnect=16,rsize=262144,wsize=262144,hard 0 0"],
    },
}
SYSCTL = """net.core.netdev_max_backlog = 250000
net.core.rmem_default = 16777216
net.core.rmem_max = 268435456
net.core.wmem_default = 16777216
net.core.wmem_max = 268435456
net.ipv4.tcp_mtu_probing = 1
net.ipv4.tcp_rmem = 4096 87380 268435456
net.ipv4.tcp_wmem = 4096 65536 268435456
-sunrpc.tcp_max_slot_table_entries = 128
-sunrpc.tcp_slot_table_entries = 128
"""


@pytest.fixture(scope="module", params=sorted(HOSTS))
def node(request):
    return request.param, testinfra.get_host(f"podman://{request.param}"), HOSTS[request.param]


def config_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


def addresses(host, device: str) -> tuple[int, list[str]]:
    link = json.loads(host.check_output(f"ip -j addr show dev {device}"))[0]
    return link["mtu"], [f"{a['local']}/{a['prefixlen']}" for a in link["addr_info"] if a["family"] == "inet"]


def test_storage_nics_have_their_address_and_mtu_9000(node):
    _name, host, want = node
    assert addresses(host, "eth1") == (9000, [f"{want['storage_a']}/24"])
    assert addresses(host, "eth2") == (9000, [f"{want['storage_b']}/24"])


def test_storage_network_files_of_the_hosts_renderer(node):
    name, host, want = node
    if want["renderer"] == "networkd":
        assert config_lines(host.file("/etc/systemd/network/60-aipod-eth1.network").content_string) == [
            "[Match]", "Name=eth1", "[Link]", "MTUBytes=9000", "[Network]", f"Address={want['storage_a']}/24",
            "LinkLocalAddressing=no", "IPv6AcceptRA=no", "ConfigureWithoutCarrier=yes"]
        assert f"Address={want['storage_b']}/24" in host.file("/etc/systemd/network/60-aipod-eth2.network").content_string
        assert not host.file("/etc/netplan/60-aipod-storage.yaml").exists
        assert host.service("systemd-networkd").is_enabled
    else:
        netplan = host.file("/etc/netplan/60-aipod-storage.yaml")
        assert netplan.mode == 0o600
        assert yaml.safe_load(netplan.content_string) == {"network": {"version": 2, "ethernets": {
            "eth1": {"mtu": 9000, "dhcp4": False, "dhcp6": False, "accept-ra": False, "link-local": [],
                     "addresses": [f"{want['storage_a']}/24"]},
            "eth2": {"mtu": 9000, "dhcp4": False, "dhcp6": False, "accept-ra": False, "link-local": [],
                     "addresses": [f"{want['storage_b']}/24"]}}}}
        # netplan rendered it for systemd-networkd, which runs the NICs from it.
        assert f"Address={want['storage_a']}/24" in host.file("/run/systemd/network/10-netplan-eth1.network").content_string
        assert not host.file("/etc/systemd/network/60-aipod-eth1.network").exists
    status = host.check_output("networkctl list --no-legend --no-pager")
    assert {line.split()[1]: line.split()[-1] for line in status.splitlines()}["eth1"] == "configured", name


def test_management_path_is_not_ours(node):
    _name, host, want = node
    ours = host.check_output("cat /etc/systemd/network/60-aipod-* /etc/netplan/60-aipod-* 2>/dev/null || true")
    assert "eth0" not in ours
    status = {line.split()[1]: line.split()[-1] for line in host.check_output("networkctl list --no-legend --no-pager").splitlines()}
    # Plain Debian: networkd leaves eth0 alone; DGX OS-like: eth0 stays on the installer's netplan file.
    assert status["eth0"] == ("unmanaged" if want["renderer"] == "networkd" else "configured")
    assert host.file("/etc/netplan/01-netcfg.yaml").exists == (want["renderer"] == "netplan")
    # The safety net was disarmed after Ansible reconnected.
    assert "aipod-storage-net-rollback" not in host.check_output("systemctl list-timers --all --no-pager")
    assert not host.file("/var/lib/aipod/storage-net/pending").exists


def test_jumbo_frames_cross_both_storage_networks():
    """8972 bytes of ICMP with don't-fragment: a real MTU 9000 path between the two stand-ins."""
    host = testinfra.get_host("podman://mol-dgx01")
    for peer in (HOSTS["mol-dgx02"]["storage_a"], HOSTS["mol-dgx02"]["storage_b"]):
        assert host.run(f"ping -c 1 -W 2 -M do -s 8972 {peer}").rc == 0, peer


def test_fstab_has_each_flexgroup_on_the_lif_chosen_for_the_host(node):
    _name, host, want = node
    lines = [line for line in host.file("/etc/fstab").content_string.splitlines() if " nfs " in line]
    assert lines == want["fstab"]
    # systemd turned them into mount units (what boots mount); the kernel here has no NFS client,
    # so nothing is mounted now.
    data = host.check_output("systemctl show -p What -p Options mnt-data.mount")
    assert data.splitlines() == [f"What={want['fstab'][0].split()[0]}", "Options=" + want["fstab"][0].split()[3]]
    assert host.file("/mnt/data").is_directory and host.file("/mnt/home").is_directory
    assert " nfs" not in host.check_output("cat /proc/mounts")


def test_nfs_kernel_parameters_are_persisted(node):
    _name, host, _want = node
    assert "\n".join(config_lines(host.file("/etc/sysctl.d/90-aipod-nfs.conf").content_string)) + "\n" == SYSCTL
    assert config_lines(host.file("/etc/modprobe.d/aipod-sunrpc.conf").content_string) == [
        "options sunrpc tcp_slot_table_entries=128 tcp_max_slot_table_entries=128", "options nfs max_session_slots=1024"]


def test_roce_qos_unit_is_installed_and_enabled(node):
    _name, host, _want = node
    unit = host.file("/etc/systemd/system/aipod-roce-qos.service").content_string
    assert "ExecStart=/usr/local/sbin/aipod-roce-qos 0,0,0,1,0,0,0,0 dscp 106 3 eth1 eth2" in unit.splitlines()
    assert "ConditionPathIsDirectory=/sys/class/infiniband" in unit.splitlines()
    assert host.service("aipod-roce-qos").is_enabled
    script = host.file("/usr/local/sbin/aipod-roce-qos")
    assert script.mode == 0o755 and "mlnx_qos" in script.content_string
    # No Mellanox NIC here: the unit is for boot on real hardware and is not running now.
    assert not host.service("aipod-roce-qos").is_running


def test_common_user_has_the_same_ids_everywhere(node):
    _name, host, _want = node
    user = host.user("aipod")
    assert (user.uid, user.gid, user.group, user.shell) == (2000, 2000, "aipod", "/bin/bash")
    assert host.group("aipod").gid == 2000
    assert host.file("/home/aipod").is_directory


def test_nvidia_runtime_became_dockers_default_where_installed(node):
    name, host, _want = node
    if name == "mol-dgx01":
        assert not host.file("/etc/docker/daemon.json").exists
        return
    config = json.loads(host.file("/etc/docker/daemon.json").content_string)
    assert config == {"log-driver": "json-file", "log-opts": {"max-size": "10m"}, "default-runtime": "nvidia",
                      "runtimes": {"nvidia": {"path": "/usr/bin/nvidia-container-runtime", "runtimeArgs": []}}}
    # The handler restarted Docker after the change: the running daemon printed the new configuration.
    assert '"default-runtime": "nvidia"' in host.check_output("journalctl -u docker.service --no-pager -o cat")


def ssh_answers(address: str) -> bool:
    try:
        socket.create_connection((address, 22), timeout=2).close()
        return True
    except OSError:
        return False


def test_zz_a_configuration_that_cuts_the_management_path_is_rolled_back():
    """On purpose, the last test: a staged file that takes over eth0 goes live through the role's
    helper (the role itself refuses such a plan). The management address stops answering; the
    armed timer puts the previous files and eth0's running state back without any help."""
    host = testinfra.get_host("podman://mol-dgx01")
    address = HOSTS["mol-dgx01"]["mgmt"]
    staged = "/etc/aipod/storage-net/60-aipod-eth0.network"
    host.check_output(f"printf '[Match]\\nName=eth0\\n[Network]\\nAddress=172.31.250.199/24\\n' > {staged}")
    try:
        applied = host.check_output("/usr/local/sbin/aipod-storage-net apply networkd 8 'eth0 eth1 eth2' "
                                    "60-aipod-eth0.network 60-aipod-eth1.network 60-aipod-eth2.network")
        assert applied == "changed"
        cut_until = time.monotonic() + 5
        while ssh_answers(address) and time.monotonic() < cut_until:
            time.sleep(0.5)
        assert not ssh_answers(address), "the management path should be cut by the bad configuration"
        deadline = time.monotonic() + 60
        while not ssh_answers(address) and time.monotonic() < deadline:
            time.sleep(1)
        assert ssh_answers(address), "the rollback did not bring the management path back"
        assert addresses(host, "eth0")[1] == [f"{address}/24"]
        assert not host.file("/etc/systemd/network/60-aipod-eth0.network").exists
        assert f"Address={HOSTS['mol-dgx01']['storage_a']}/24" in host.file("/etc/systemd/network/60-aipod-eth1.network").content_string
        assert "rolled back" in host.check_output("journalctl -t aipod-storage-net --no-pager -o cat")
    finally:
        host.run(f"rm -f {staged}")
