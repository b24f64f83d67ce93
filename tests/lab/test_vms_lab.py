"""The VM lab's derivations (lab/vms/vmlab): which VMs, how they are wired, what the storage VM serves."""
from __future__ import annotations

import copy
import ipaddress
import sys

import pytest
import yaml
from project_paths import REPO

sys.path.insert(0, str(REPO / "lab" / "vms"))

from vmlab import datapath, qemu, seed  # noqa: E402
from vmlab import plan as vmplan

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site  # noqa: E402

VM_INVENTORY = REPO / "inventories" / "lab-vm"


@pytest.fixture(scope="module")
def model() -> dict:
    return load_site(str(VM_INVENTORY)).model


@pytest.fixture(scope="module")
def lab_plan(model) -> vmplan.Plan:
    return vmplan.build_plan(model)


# ---------------------------------------------------------------------------- the storage VM
def test_exports_admit_exactly_the_policy_clients(model):
    state = datapath.storage_state(model)
    assert datapath.exports(state) == [
        "/data 172.31.241.0/24(rw,sync,no_subtree_check,sec=sys,no_root_squash)",
        "/home_vol 172.31.241.0/24(rw,sync,no_subtree_check,sec=sys,no_root_squash)",
    ]
    admitted = [ipaddress.IPv4Network(line.split()[1].split("(")[0]) for line in datapath.exports(state)]
    dgx = ipaddress.IPv4Address(model["hosts"]["dgx01"]["dgx"]["storage_nics"][0]["address"])
    stranger = ipaddress.IPv4Address(model["hosts"]["stranger01"]["server"]["storage_nics"][0]["address"])
    assert all(dgx in network for network in admitted)
    assert not any(stranger in network for network in admitted)


def test_lifs_come_from_the_model_derivation(model):
    state = datapath.storage_state(model)
    assert [(lif.address, lif.network, lif.vlan, lif.mtu) for lif in state.lifs] == [
        ("172.31.241.101", "storage-a", 3111, 9000),
        ("172.31.241.102", "storage-a", 3111, 9000),
        ("172.31.249.101", "storage-guest", 3119, 9000),
        ("172.31.249.102", "storage-guest", 3119, 9000),
    ]
    assert state.nfs == datapath.NfsService(v3=True, v41=True, max_transfer_size=262144)


def test_realisation_puts_lifs_on_vlans_over_the_bridge(model, lab_plan):
    links = [datapath.Link(name=link.storage_nic, mac="52:54:00:00:00:01", peer=link.client) for link in lab_plan.links]
    realisation = datapath.realise(datapath.storage_state(model), links)
    netplan = yaml.safe_load(realisation.files["/etc/netplan/10-lab-storage.yaml"][0])["network"]
    assert netplan["bridges"]["br-storage"]["interfaces"] == ["link1", "link2"]
    assert netplan["bridges"]["br-storage"]["mtu"] == 9000
    assert netplan["vlans"]["storage-a"] == {"id": 3111, "link": "br-storage", "mtu": 9000,
                                             "addresses": ["172.31.241.101/24", "172.31.241.102/24"]}
    assert netplan["vlans"]["storage-guest"]["id"] == 3119
    assert realisation.files["/etc/netplan/10-lab-storage.yaml"][1] == 0o600
    conf = realisation.files["/etc/nfs.conf"][0]
    for line in ("vers3=y", "vers4.1=y", "vers4.0=n", "vers4.2=n", "udp=n", "threads=32"):
        assert line in conf.splitlines()
    dropin = realisation.files["/etc/systemd/system/nfs-server.service.d/10-lab-block-size.conf"][0]
    assert "echo 262144 > /proc/fs/nfsd/max_block_size" in dropin
    assert realisation.directories == {"/data": 0o755, "/home_vol": 0o755}


def _with_rules(model: dict, rules: list[dict]) -> dict:
    changed = copy.deepcopy(model)
    changed["ontap"]["svms"][0]["export_policies"][0]["rules"] = rules
    return changed


def test_rule_flavours_map_to_linux_export_options(model):
    changed = _with_rules(model, [
        {"clients": ["172.31.241.0/28"], "ro": ["sys"], "rw": ["never"], "superuser": ["none"]},
        {"clients": ["storage-a", "172.31.241.0/28"], "ro": ["any"], "rw": ["sys"], "superuser": ["sys"]},
        {"clients": ["storage-guest"], "ro": ["krb5"], "rw": ["krb5"]},
    ])
    line = datapath.exports(datapath.storage_state(changed))[0]
    # rule order kept (ONTAP applies the first match), a client listed twice only once,
    # a Kerberos-only rule admits nobody (the lab has no KDC).
    assert line == ("/data 172.31.241.0/28(ro,sync,no_subtree_check,sec=sys,root_squash) "
                    "172.31.241.0/24(rw,sync,no_subtree_check,sec=sys,no_root_squash)")


def test_a_junction_path_served_twice_is_refused(model):
    changed = copy.deepcopy(model)
    changed["ontap"]["svms"][0]["flexgroups"][1]["junction_path"] = "/data"
    with pytest.raises(datapath.DataPathError, match="junction path /data"):
        datapath.exports(datapath.storage_state(changed))


# ---------------------------------------------------------------------------- the VMs
def test_plan_has_one_storage_vm_and_a_vm_per_client(lab_plan):
    assert [(vm.name, vm.kind, vm.address) for vm in lab_plan.vms] == [
        ("storage", "storage", "127.0.30.1"), ("dgx01", "dgx", "127.0.30.11"), ("stranger01", "server", "127.0.30.21")]
    assert [(link.client, link.client_nic, link.storage_nic, link.port) for link in lab_plan.links] == [
        ("dgx01", "enp225s0f0", "link1", 42001), ("stranger01", "enp225s0f0", "link2", 42002)]
    macs = [nic.mac for vm in lab_plan.vms for nic in vm.nics]
    assert len(macs) == len(set(macs))
    dgx = lab_plan.vm("dgx01")
    # The lab names the DGX's NICs as the model does but leaves their configuration to the role.
    assert [nic.name for nic in dgx.nics] == ["mgmt0", "enp225s0f0"]
    assert not dgx.configure_storage_nics
    assert lab_plan.vm("stranger01").configure_storage_nics


def test_a_storage_bond_gets_a_link_per_member_and_the_storage_vm_bridges_them():
    bonded = vmplan.build_plan(load_site(str(REPO / "inventories" / "lab-vm-bond")).model)
    assert [(link.client, link.client_nic, link.storage_nic) for link in bonded.links] == [
        ("dgx01", "enp225s0f0", "link1"), ("dgx01", "enp225s0f1", "link2"), ("stranger01", "enp225s0f0", "link3")]
    assert [nic.name for nic in bonded.vm("dgx01").nics] == ["mgmt0", "enp225s0f0", "enp225s0f1"]


def test_dgx_limit_and_non_loopback_addresses(model):
    assert [vm.name for vm in vmplan.build_plan(model, dgx_limit=0).clients] == ["stranger01"]
    container_lab = load_site(str(REPO / "inventories" / "lab")).model
    with pytest.raises(vmplan.PlanError, match="dgx01: mgmt_address 172.31.250.101 is not a loopback address"):
        vmplan.build_plan(container_lab)


def test_host_storage_netplan_follows_the_model(model):
    netplan = vmplan.host_storage_netplan(model, "dgx01")["network"]
    assert netplan["ethernets"] == {"enp225s0f0": {"mtu": 9000}}
    assert netplan["vlans"] == {"enp225s0f0.3111": {"id": 3111, "link": "enp225s0f0", "mtu": 9000,
                                                    "addresses": ["172.31.241.11/24"]}}
    untagged = copy.deepcopy(model)
    untagged["hosts"]["dgx01"]["dgx"]["storage_nics"][0]["tagged"] = False
    netplan = vmplan.host_storage_netplan(untagged, "dgx01")["network"]
    assert netplan["ethernets"] == {"enp225s0f0": {"mtu": 9000, "addresses": ["172.31.241.11/24"]}}
    assert "vlans" not in netplan


def test_seed_carries_keys_names_and_only_what_the_vm_is_for(model, lab_plan):
    files, directories = seed.seed_files(lab_plan.vm("dgx01"), lab_plan, model, b"KEY", b"PUB", b"AUTH")
    assert files["/etc/ssh/ssh_host_ed25519_key"] == (b"KEY", 0o600)
    assert files["/root/.ssh/authorized_keys"] == (b"AUTH", 0o600)
    link = files["/etc/systemd/network/10-lab-enp225s0f0.link"][0].decode()
    assert "PermanentMACAddress=52:54:00:30:01:01" in link and "Name=enp225s0f0" in link
    assert not any(path.startswith("/etc/netplan/20-") for path in files)  # the compute role's job
    assert directories == {}
    stranger, _ = seed.seed_files(lab_plan.vm("stranger01"), lab_plan, model, b"K", b"P", b"A")
    assert "enp225s0f0.3119" in stranger["/etc/netplan/20-lab-storage-nics.yaml"][0].decode()
    storage, storage_dirs = seed.seed_files(lab_plan.storage, lab_plan, model, b"K", b"P", b"A")
    assert "/etc/exports" in storage and storage_dirs == {"/data": 0o755, "/home_vol": 0o755}


def test_seed_fingerprint_follows_the_model(model, lab_plan):
    def fingerprint(site: dict) -> str:
        return seed.fingerprint(*seed.seed_files(lab_plan.storage, lab_plan, site, b"K", b"P", b"A"))

    changed = _with_rules(model, [{"clients": ["172.31.241.0/28"], "ro": ["sys"], "rw": ["sys"]}])
    assert fingerprint(model) == fingerprint(copy.deepcopy(model))
    assert fingerprint(model) != fingerprint(changed)


def test_qemu_opens_only_loopback_on_the_host(lab_plan, tmp_path):
    for vm in lab_plan.vms:
        command = qemu.command(vm, lab_plan, "/img", str(tmp_path), "tcg")
        text = " ".join(command)
        assert "restrict=on" in text and f"hostfwd=tcp:{vm.address}:2222-" in text
        assert "tcg,tb-size=128" in text
        assert "-no-reboot" not in command  # the scenario reboots the DGX VM
        for argument in command:
            for host in [part.split("=", 1)[1].rsplit(":", 1)[0] for part in argument.split(",")
                         if part.startswith(("udp=", "localaddr="))]:
                assert ipaddress.IPv4Address(host).is_loopback
        assert ("systemd.wants=nfs-server.service" in text) == (vm.kind == "storage")
        link_nics = [argument for argument in command if argument.startswith("virtio-net-pci,netdev=link")]
        assert len(link_nics) == len([nic for nic in vm.nics if nic.link is not None])
        assert all(argument.endswith(",ctrl_vlan=off") for argument in link_nics)  # VLANs survive a restore
    restored = qemu.command(lab_plan.storage, lab_plan, "/img", str(tmp_path), "tcg", loadvm=qemu.SNAPSHOT)
    assert restored[-2:] == ["-loadvm", "lab-ready"]


def test_inventory_connects_on_the_lab_ssh_port():
    for group in ("dgx", "servers"):
        settings = yaml.safe_load((VM_INVENTORY / "group_vars" / f"{group}.yml").read_text())
        assert settings["ansible_port"] == vmplan.SSH_PORT
        assert "StrictHostKeyChecking=yes" in settings["ansible_ssh_common_args"]
