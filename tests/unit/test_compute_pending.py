"""aipod_compute_pending: a DGX that is what its plan says has no difference; each way it can differ is named.

The in-place host below is what the dgx_node role leaves behind on a lab host (networkd, NFS not
mountable, read-only /proc/sys). Each test changes one reading and expects the difference named:
a difference the filter missed would leave a drifted host unconverged.
"""
from __future__ import annotations

import copy
import os

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.ontap_ai.pod.plugins.filter.aipod_compute import FilterModule
from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending
from ansible_collections.ontap_ai.pod.plugins.module_utils.aipod_compute import fstab
from ansible_collections.ontap_ai.pod.plugins.modules import dgx_host_facts
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_compute.files import sha1

FILTERS = FilterModule().filters()
PENDING = FILTERS["aipod_compute_pending"]
MOUNT = {"path": "/mnt/data", "src": "172.31.251.201:/data", "fstype": "nfs4", "options": ["rw", "vers=4.1", "hard"]}
PLAN = {"nics": [], "mounts": [MOUNT], "roce": True, "common_user": {"name": "aipod", "uid": 2000, "group": "aipod", "gid": 2000}}
STAGED = "/etc/aipod/storage-net/60-aipod-eth1.network"
SETTINGS = {"network_files": [STAGED], "sysctl": {"net.core.rmem_max": 268435456}, "mount_extra_options": [],
            "rings": [], "rings_unit": "aipod-nic-rings.service", "roce_unit": "aipod-roce-qos.service",
            "roce_ready": False, "nvidia_runtime_default": True, "shell": "/bin/bash"}
SYSCTL_CONF = "/etc/sysctl.d/90-aipod-nfs.conf"
NETWORK_TEXT = "[Match]\nName=eth1\n"
# The arguments of the role's config_files task.
WRITTEN = {"files": [{"dest": STAGED, "content": NETWORK_TEXT, "mode": "0644"},
                     {"dest": SYSCTL_CONF, "content": "net.core.rmem_max = 268435456\n", "mode": "0644"}],
           "directories": [{"path": "/mnt/data"}], "owner": "root", "group": "root"}
HOST = {
    "network": {"renderer": "networkd", "networkd_enabled": True, "networkd_active": True,
                "aipod_files": {"/etc/systemd/network/60-aipod-eth1.network": sha1(NETWORK_TEXT)}},
    "files": {STAGED: {"type": "file", "mode": "0644", "owner": "root", "group": "root", "sha1": sha1(NETWORK_TEXT)},
              SYSCTL_CONF: {"type": "file", "mode": "0644", "owner": "root", "group": "root",
                            "sha1": sha1("net.core.rmem_max = 268435456\n")},
              "/mnt/data": {"type": "directory", "mode": "0755", "owner": "root", "group": "root"}},
    "nfs": {"can_mount": False, "mounts": {}},
    "packages_missing": [],
    "fstab": {"/mnt/data": [["172.31.251.201:/data", "/mnt/data", "nfs4", "rw,vers=4.1,hard", "0", "0"]]},
    "sysctl": {"net.core.rmem_max": {"value": "212992\n", "writable": False}},
    "units": {"aipod-roce-qos.service": {"enabled": "enabled", "active": "inactive"},
              "aipod-nic-rings.service": {"enabled": "", "active": "inactive"}},
    "tools": {"nvidia-container-runtime": None, "dockerd": None, "nvidia-ctk": None, "containerd": None},
    "container_runtime": {"docker_config": {}, "containerd_default": None},
    "user_state": {"user": {"uid": 2000, "gid": 2000, "shell": "/bin/bash"}, "group_gid": 2000},
}


def pending_with(change, host=None, written=None, settings=None, plan=None):
    """What is pending after change(host reading, config_files arguments, settings, plan)."""
    host = copy.deepcopy(host or HOST)
    written = copy.deepcopy(written or WRITTEN)
    settings = copy.deepcopy(settings or SETTINGS)
    plan = copy.deepcopy(plan or PLAN)
    change(host, written, settings, plan)
    return sentences(PENDING(plan, host, written, settings))


def sentences(items):
    """The items as a person reads them, once they are known to be of the pending shape."""
    assert aipod_pending.problems(items) == [], items
    return aipod_pending.lines(items)


def test_a_host_as_the_model_says_has_no_difference():
    # A read-only /proc/sys makes rmem_max unavailable, not a difference (sysctl_runtime would not change it).
    assert PENDING(PLAN, HOST, WRITTEN, SETTINGS) == []


@pytest.mark.parametrize(("change", "expected"), [
    (lambda h, w, s, p: h.update(packages_missing=["ethtool"]), "package ethtool: missing"),
    (lambda h, w, s, p: w["files"][1].update(content="net.core.rmem_max = 1\n"), f"file {SYSCTL_CONF}: content differs from the model"),
    (lambda h, w, s, p: h["files"].update({SYSCTL_CONF: None}), f"file {SYSCTL_CONF}: missing"),
    (lambda h, w, s, p: h["files"].pop(SYSCTL_CONF), f"file {SYSCTL_CONF}: not read (dgx_host_facts did not read it)"),
    (lambda h, w, s, p: h["files"][SYSCTL_CONF].update(type="directory"), f"file {SYSCTL_CONF}: missing"),
    (lambda h, w, s, p: h["files"][SYSCTL_CONF].update(mode="0600"), f"file {SYSCTL_CONF}: mode is 0600, the model says 0644"),
    (lambda h, w, s, p: w["files"][1].update(mode=0o600), f"file {SYSCTL_CONF}: mode is 0644, the model says 0600"),
    (lambda h, w, s, p: h["files"][SYSCTL_CONF].update(owner="aipod"), f"file {SYSCTL_CONF}: owner is aipod, the model says root"),
    (lambda h, w, s, p: h["files"]["/mnt/data"].update(group="1000"), "file /mnt/data: group is 1000, the model says root"),
    (lambda h, w, s, p: h["files"].update({"/mnt/data": None}), "directory /mnt/data: missing"),
    (lambda h, w, s, p: h["files"].pop("/mnt/data"), "directory /mnt/data: not read (dgx_host_facts did not read it)"),
    (lambda h, w, s, p: w["files"][0].update(content="[Match]\nName=eth9\n"),
     "storage network /etc/systemd/network/60-aipod-eth1.network: differs from the model"),
    (lambda h, w, s, p: h["network"]["aipod_files"].update({"/etc/systemd/network/60-aipod-eth1.network": "edited"}),
     "storage network /etc/systemd/network/60-aipod-eth1.network: differs from the model"),
    (lambda h, w, s, p: h["network"].update(aipod_files={}),
     "storage network /etc/systemd/network/60-aipod-eth1.network: missing"),
    (lambda h, w, s, p: h["network"]["aipod_files"].update({"/etc/netplan/60-aipod-storage.yaml": "x"}),
     "storage network /etc/netplan/60-aipod-storage.yaml: present, the model no longer has it"),
    (lambda h, w, s, p: h["network"].update(networkd_active=False),
     'systemd-networkd.service: state is "enabled, not active", the model says "enabled, active"'),
    (lambda h, w, s, p: h["fstab"].update({"/mnt/data": []}), "mount /mnt/data: not in /etc/fstab"),
    (lambda h, w, s, p: h["fstab"]["/mnt/data"][0].__setitem__(3, "rw,vers=3"),
     "mount /mnt/data: /etc/fstab has '172.31.251.201:/data /mnt/data nfs4 rw,vers=3 0 0', "
     "the model wants '172.31.251.201:/data /mnt/data nfs4 rw,vers=4.1,hard 0 0'"),
    (lambda h, w, s, p: s.update(mount_extra_options=["noatime"]), "the model wants '172.31.251.201:/data /mnt/data nfs4 rw,vers=4.1,hard,noatime 0 0'"),
    (lambda h, w, s, p: h["fstab"]["/mnt/data"][0].__delitem__(slice(4, 6)), "mount /mnt/data: its /etc/fstab line lacks dump and passno"),
    (lambda h, w, s, p: h["nfs"].update(can_mount=True), 'mount /mnt/data: source is "not mounted", the model says 172.31.251.201:/data'),
    (lambda h, w, s, p: h["sysctl"]["net.core.rmem_max"].update(writable=True),
     "kernel parameter net.core.rmem_max: value is 212992, the model says 268435456"),
    (lambda h, w, s, p: h.update(sysctl={}), "kernel parameter net.core.rmem_max: not read"),
    (lambda h, w, s, p: h["units"]["aipod-roce-qos.service"].update(enabled="disabled"),
     "aipod-roce-qos.service: enabled is disabled, the model says enabled"),
    (lambda h, w, s, p: s.update(roce_ready=True), "aipod-roce-qos.service: active is inactive, the model says active"),
    (lambda h, w, s, p: s.update(rings=[{"name": "eth1", "differs": False}]), 'aipod-nic-rings.service: enabled is "not installed", the model says enabled'),
    (lambda h, w, s, p: s.update(rings=[{"name": "eth1", "differs": True}]), "NIC eth1: ring sizes differ from the model"),
    (lambda h, w, s, p: h["tools"].update({"nvidia-container-runtime": "/usr/bin/nvidia-container-runtime", "dockerd": "/usr/bin/dockerd"}),
     "docker: its default runtime is not the NVIDIA runtime"),
    (lambda h, w, s, p: h["tools"].update({"nvidia-container-runtime": "/usr/bin/ncr", "nvidia-ctk": "/usr/bin/nvidia-ctk",
                                           "containerd": "/usr/bin/containerd"}),
     "containerd: default runtime is none, the model says nvidia"),
    (lambda h, w, s, p: h["user_state"].update(user=None), "user aipod: missing"),
    (lambda h, w, s, p: h["user_state"]["user"].update(shell="/bin/sh"),
     "user aipod: shell is /bin/sh, the model says /bin/bash"),
    (lambda h, w, s, p: h["user_state"].update(group_gid=None), "group aipod: missing, the model sets gid 2000"),
])
def test_each_way_a_host_differs_is_named(change, expected):
    differences = pending_with(change)
    assert any(expected in line for line in differences), differences


def test_an_active_nfs_mount_point_counts_as_present_and_is_not_looked_into():
    assert pending_with(lambda h, w, s, p: h["files"].update({"/mnt/data": {"type": "nfs mount"}})) == []


def test_docker_already_defaulting_to_the_nvidia_runtime_is_in_place():
    def nvidia_docker(host, _written, _settings, _plan):
        host["tools"].update({"nvidia-container-runtime": "/usr/bin/ncr", "dockerd": "/usr/bin/dockerd"})
        host["container_runtime"]["docker_config"] = {"data-root": "/raid/docker", "default-runtime": "nvidia",
                                                      "runtimes": {"nvidia": {"path": "/usr/bin/ncr", "runtimeArgs": []}}}
    assert pending_with(nvidia_docker) == []


def test_containerd_that_kubespray_configures_is_left_to_it():
    def kubespray_node(host, _written, _settings, plan):
        host["tools"].update({"nvidia-container-runtime": "/usr/bin/ncr", "nvidia-ctk": "/usr/bin/nvidia-ctk",
                              "containerd": "/usr/bin/containerd"})
        plan["containerd_by_kubespray"] = True
    assert pending_with(kubespray_node) == []


def test_nothing_to_compare_for_a_host_without_mounts_roce_or_common_user():
    plan = {"nics": [], "mounts": [], "roce": False, "common_user": {}}
    assert PENDING(plan, {**HOST, "units": {}, "fstab": {}}, WRITTEN, SETTINGS) == []


def test_facts_without_the_readings_fail_clearly():
    with pytest.raises(AnsibleFilterError, match="lack"):
        PENDING(PLAN, {"nfs": {}}, WRITTEN, SETTINGS)


def test_sysctl_unavailable_is_what_sysctl_runtime_reports():
    readings = {"net.core.rmem_max": {"value": "212992", "writable": False}, "sunrpc.tcp_slot_table_entries": {"value": None,
                                                                                                         "writable": False}}
    assert FILTERS["aipod_sysctl_unavailable"]({"net.core.rmem_max": 268435456, "sunrpc.tcp_slot_table_entries": 128}, readings) == {
        "net.core.rmem_max": "/proc/sys is read-only here",
        "sunrpc.tcp_slot_table_entries": "not in this kernel (or not in this network namespace)"}


FSTAB = """# /etc/fstab
UUID=1234 / ext4 errors=remount-ro 0 1
172.31.251.201:/data /mnt/data nfs4 rw,vers=4.1,hard 0 0
172.31.251.201:/my\\040data /mnt/my\\040data nfs4 rw 0 0
# 172.31.251.201:/old /mnt/data nfs4 rw 0 0
"""


def test_fstab_lines_are_matched_by_escaped_mount_point():
    found = fstab.lines(FSTAB, ["/mnt/data", "/mnt/my data", "/mnt/absent"])
    assert found["/mnt/data"] == [["172.31.251.201:/data", "/mnt/data", "nfs4", "rw,vers=4.1,hard", "0", "0"]]
    assert found["/mnt/my data"][0][0] == "172.31.251.201:/my\\040data"
    assert found["/mnt/absent"] == []
    assert fstab.line_differs(found["/mnt/my data"], "172.31.251.201:/my data", "/mnt/my data", "nfs4", "rw") is None
    assert fstab.escape("a&b\\c d") == "a\\046b\\134c\\040d"


def test_the_mount_module_agrees_line_for_line(tmp_path):
    """What the pending check calls equal, ansible.posix.mount leaves as it is (its own set_mount, check mode)."""
    from unittest import mock

    from ansible_collections.ansible.posix.plugins.modules import mount as posix_mount

    table = tmp_path / "fstab"
    table.write_text(FSTAB)
    module = mock.Mock(check_mode=True)
    args = {"name": "/mnt/my data", "src": "172.31.251.201:/my data", "fstype": "nfs4", "opts": "rw", "dump": "0",
            "passno": "0", "fstab": str(table)}
    _name, changed = posix_mount.set_mount(module, dict(args))
    assert changed is False
    assert fstab.line_differs(fstab.lines(FSTAB, ["/mnt/my data"])["/mnt/my data"], args["src"], args["name"], "nfs4", "rw") is None
    _name, changed = posix_mount.set_mount(module, {**args, "opts": "rw,hard"})
    assert changed is True
    assert fstab.line_differs(fstab.lines(FSTAB, ["/mnt/my data"])["/mnt/my data"], args["src"], args["name"], "nfs4", "rw,hard")


HOST_FOR_REFUSAL = {"os": {"debian_family": True, "pretty_name": "Debian"}, "network": {"mgmt_interfaces": ["eth0", "lo"],
                    "ssh_client": "172.31.250.1", "ssh_client_in_storage": []}, "nics": {"eth1": {"present": True}},
                    "user_conflicts": [], "container_runtime": {"docker_config": {}}, "tools": {"dockerd": None}}


def test_a_safe_host_is_not_refused():
    assert dgx_host_facts.refusals(HOST_FOR_REFUSAL, ["eth1"], None) == []


def test_every_reason_to_refuse_is_given_at_once():
    host = copy.deepcopy(HOST_FOR_REFUSAL)
    host["os"] = {"debian_family": False, "pretty_name": "Rocky Linux 9"}
    host["network"]["ssh_client_in_storage"] = ["172.31.250.0/24"]
    host["user_conflicts"] = ["uid 2000 belongs to user 'bob'"]
    host["container_runtime"]["docker_config"] = None
    host["tools"]["dockerd"] = "/usr/bin/dockerd"
    host["network"]["shadowing_files"] = {"eth1": ["/etc/systemd/network/10-storage.network"]}
    reasons = dgx_host_facts.refusals(host, ["eth0", "eth9"], {"name": "aipod"})
    assert [reason.split()[0] for reason in reasons] == ["It", "Storage", "NIC(s)", "Storage", "Ansible", "kubernetes.common_user",
                                                        "/etc/docker/daemon.json"]
    assert "Rocky Linux 9" in reasons[0] and "eth0" in reasons[1] and "eth9" in reasons[2]
    assert reasons[3].startswith("Storage NIC eth1 is also configured by /etc/systemd/network/10-storage.network, which")


def test_a_storage_bond_the_host_cannot_take_as_the_model_says_is_refused():
    bond = {"name": "bond1", "members": ["eth1", "eth2"]}
    host = copy.deepcopy(HOST_FOR_REFUSAL)
    host["nics"] = {"eth1": {"present": True, "master": None}, "eth2": {"present": True, "master": "bond1"}}
    host["bonds"] = {"bond1": {"present": True, "is_bond": True, "slaves": ["eth2"]}}
    assert dgx_host_facts.refusals(host, ["eth1", "eth2"], None, [bond]) == []
    host["bonds"]["bond1"]["slaves"] = ["eth2", "eth7"]
    host["nics"]["eth1"]["master"] = "br0"
    assert dgx_host_facts.refusals(host, ["eth1", "eth2"], None, [bond]) == [
        "Bond bond1 exists here with members eth2, eth7, not only the model's eth1, eth2; take the others out of it by hand, then run again.",
        "Storage NIC eth1 belongs to br0, not to the model's bond bond1: release it from br0 (docs/brownfield.md), then run again."]
    host["bonds"]["bond1"] = {"present": True, "is_bond": False, "slaves": []}
    host["nics"]["eth1"]["master"] = None
    assert dgx_host_facts.refusals(host, ["eth2"], None, [bond]) == [
        "bond1 exists on this host and is not a bond; the model's storage bond needs another name."]
    host["network"]["mgmt_interfaces"].append("bond1")
    assert dgx_host_facts.refusals(host, ["eth2"], None, [bond])[0].startswith("Storage bond bond1 carries the management path")


def test_a_bond_the_bundle_made_may_change_its_members_and_its_name():
    files = {"/etc/systemd/network/60-aipod-bond0.netdev": "# Ansible managed\n[NetDev]\nName=bond0\nKind=bond\n",
             "/etc/systemd/network/60-aipod-eth1.network": "[Match]\nName=eth1\n[Network]\nBond=bond0\n",
             "/etc/netplan/60-aipod-storage.yaml": "network:\n  version: 2\n  ethernets:\n    eth1:\n      mtu: 9000\n"
                                                   "  bonds:\n    bond7:\n      interfaces: [eth1, eth2]\n  vlans:\n    bond7.3111:\n"}
    assert dgx_host_facts.bonds_of_bundle(files) == ["bond0", "bond7"]
    host = copy.deepcopy(HOST_FOR_REFUSAL)
    host["network"]["aipod_bonds"] = ["bond0", "bond1"]
    host["nics"] = {"eth1": {"present": True, "master": "bond0"}, "eth2": {"present": True, "master": "bond1"}}
    host["bonds"] = {"bond1": {"present": True, "is_bond": True, "slaves": ["eth2", "eth7"]}}
    # bond1 (the model's name) gains eth1 from the bundle's bond0 and loses eth7: the script makes both anew.
    assert dgx_host_facts.refusals(host, ["eth1", "eth2"], None, [{"name": "bond1", "members": ["eth1", "eth2"]}]) == []
    host["network"]["aipod_bonds"] = []
    assert len(dgx_host_facts.refusals(host, ["eth1", "eth2"], None, [{"name": "bond1", "members": ["eth1", "eth2"]}])) == 2


def test_network_files_that_networkd_applies_before_the_bundle_s_are_found(tmp_path):
    """networkd applies the first .network file, by name across its directories, whose [Match] fits a link."""
    etc, lib = tmp_path / "etc", tmp_path / "lib"
    etc.mkdir()
    lib.mkdir()
    (etc / "10-storage.network").write_text("[Match]\nName=eth1 eth3\n[Network]\nAddress=10.9.9.21/24\n")
    (etc / "10-lab-mgmt.network").write_text("[Match]\nName=eth0\n")
    (etc / "20-by-mac.network").write_text("[Match]\nMACAddress=00:11:22:33:44:55\n")
    (etc / "30-not-storage.network").write_text("# everything but the storage NICs\n[Match]\nName=!eth1 !eth2\n")
    (etc / "40-glob.network").write_text("[Match]\nName=eth*\n")
    (etc / "60-aipod-eth1.network").write_text("[Match]\nName=eth1\n")
    (etc / "70-after.network").write_text("[Match]\nName=eth2\n")
    (lib / "05-every-link.network").write_text("[Network]\nDHCP=yes\n")
    (etc / "05-every-link.network").symlink_to(os.devnull)  # masked by the operator
    (lib / "15-shipped.network").write_text("[Match]\nName=eth2\n")
    files = dgx_host_facts.networkd_files((str(etc), str(lib)))
    assert str(lib / "05-every-link.network") not in files
    assert dgx_host_facts.networkd_shadowing(files, ["eth1", "eth2"]) == {
        "eth1": [str(etc / "10-storage.network"), str(etc / "40-glob.network")],
        "eth2": [str(lib / "15-shipped.network"), str(etc / "40-glob.network")]}
    assert dgx_host_facts.networkd_match_names("[Network]\nDHCP=yes\n") == []
    assert dgx_host_facts.networkd_match_names("[Match]\nDriver=mlx5_core\n") is None


def test_os_release_family():
    ubuntu = dgx_host_facts.parse_os_release('NAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\nPRETTY_NAME="Ubuntu 22.04.4 LTS"\n')
    assert ubuntu["debian_family"] and ubuntu["pretty_name"] == "Ubuntu 22.04.4 LTS"
    assert not dgx_host_facts.parse_os_release('ID="rocky"\nID_LIKE="rhel centos fedora"\n')["debian_family"]
    assert not dgx_host_facts.parse_os_release(None)["debian_family"]


def test_systemctl_show_blocks_in_order():
    text = "Id=a.service\nUnitFileState=enabled\nActiveState=active\n\nId=b.service\nUnitFileState=\nActiveState=inactive\n"
    assert dgx_host_facts.systemctl_show(text, ["a.service", "b.service"]) == {
        "a.service": {"enabled": "enabled", "active": "active"}, "b.service": {"enabled": "", "active": "inactive"}}


DISRUPTIVE = FILTERS["aipod_compute_disruptive"]


def disruptive_with(change, host=None):
    host = copy.deepcopy(host or HOST)
    written, settings, plan = copy.deepcopy(WRITTEN), copy.deepcopy(SETTINGS), copy.deepcopy(PLAN)
    change(host, written, settings, plan)
    return sentences(DISRUPTIVE(plan, host, written, settings))


FIRST_BUILD = copy.deepcopy(HOST)
FIRST_BUILD["network"]["aipod_files"] = {}
FIRST_BUILD["fstab"] = {"/mnt/data": []}


@pytest.mark.parametrize(("change", "expected"), [
    (lambda h, w, s, p: w["files"][0].update(content="[Match]\nName=eth9\n"),
     "storage network /etc/systemd/network/60-aipod-eth1.network: differs from the model (re-applies the storage network in use)"),
    (lambda h, w, s, p: h["fstab"]["/mnt/data"][0].__setitem__(3, "rw,vers=3"), "(changes an existing mount)"),
    (lambda h, w, s, p: (h["nfs"].update(can_mount=True, mounts={"/mnt/data": {"src": "172.31.251.202:/data"}})),
     "mount /mnt/data: source is 172.31.251.202:/data, the model says 172.31.251.201:/data (remounts it under running I/O)"),
    (lambda h, w, s, p: (h["nfs"].update(can_mount=True, mounts={"/mnt/data": {"src": "172.31.251.201:/data"}}),
                         s.update(mount_extra_options=["noatime"])), "(remounts it under running I/O)"),
    (lambda h, w, s, p: s.update(rings=[{"name": "eth1", "differs": True}]),
     "NIC eth1: ring sizes differ from the model (resets the link of a NIC in service)"),
    (lambda h, w, s, p: h["tools"].update({"nvidia-container-runtime": "/usr/bin/ncr", "nvidia-ctk": "/usr/bin/nvidia-ctk",
                                           "containerd": "/usr/bin/containerd"}),
     "containerd: default runtime is none, the model says nvidia (restarts the engine under its containers)"),
])
def test_a_change_that_interrupts_io_or_pods_is_disruptive(change, expected):
    found = disruptive_with(change)
    assert any(expected in line for line in found), found
    assert all(any(line.startswith(p) for p in pending_with(change)) for line in found if "(" not in line)


@pytest.mark.parametrize("change", [
    lambda h, w, s, p: h.update(packages_missing=["ethtool"]),
    lambda h, w, s, p: h["sysctl"]["net.core.rmem_max"].update(writable=True),
    lambda h, w, s, p: h["units"]["aipod-roce-qos.service"].update(enabled="disabled"),
    lambda h, w, s, p: h["user_state"]["user"].update(shell="/bin/sh"),
    lambda h, w, s, p: w["files"][1].update(content="net.core.rmem_max = 1\n"),
])
def test_a_change_under_load_is_not_disruptive(change):
    assert pending_with(change)  # it is a difference the role converges...
    assert disruptive_with(change) == []  # ...without rolling


def test_a_first_build_interrupts_nothing():
    """No storage network and no mount yet: the first configuration converges every DGX at once."""
    def change(h, w, s, p):
        s.update(rings=[{"name": "eth1", "differs": True}])
    assert len(pending_with(change, host=FIRST_BUILD)) >= 3
    assert disruptive_with(change, host=FIRST_BUILD) == []


def test_a_host_as_the_model_says_has_nothing_disruptive():
    assert DISRUPTIVE(PLAN, HOST, WRITTEN, SETTINGS) == []
