"""The text of the files the compute layer keeps on a DGX (plugin_utils/aipod_compute/files.py).

Each expected text below is what the role's former Jinja templates rendered through Ansible for the
same input, byte for byte: a host converged by an earlier release must read as "no difference",
and a change to a file's text must be deliberate.
"""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.ontap_ai.pod.plugins.filter.aipod_compute import FilterModule
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_compute import files

FILTERS = FilterModule().filters()
MANAGED = "Ansible managed"
ROUTED = {'device': 'enp1', 'parent': 'enp1', 'vlan': None, 'network': 's-a', 'cidr': '10.0.1.5/24', 'mtu': 9000, 'routes': [{'to': '10.9.0.0/16', 'via': '10.0.1.1', 'metric': 100}, {'to': '10.8.0.0/16', 'via': '10.0.1.1', 'metric': None}]}
TAGGED = {'device': 'enp2.3112', 'parent': 'enp2', 'vlan': 3112, 'network': 's-b', 'cidr': '10.0.2.5/24', 'mtu': 9000, 'routes': [{'to': '10.7.0.0/16', 'via': '10.0.2.1', 'metric': None}]}
TAGGED_NO_ROUTES = {'device': 'enp3.3113', 'parent': 'enp3', 'vlan': 3113, 'network': 's-c', 'cidr': '10.0.3.5/24', 'mtu': 8000, 'routes': []}
SYSCTL = {"net.core.rmem_max": 268435456, "sunrpc.tcp_slot_table_entries": 128, "net.ipv4.tcp_rmem": "4096 87380 268435456",
          "sunrpc.tcp_max_slot_table_entries": 128}
RINGS = [{"name": "enp1", "rx": 8192, "tx": 8192}, {"name": "enp2", "rx": 4096, "tx": 8192}]
PATHS = {"sysctl": "/etc/sysctl.d/90-aipod-nfs.conf", "modprobe": "/etc/modprobe.d/aipod-sunrpc.conf",
         "rings_unit": "/etc/systemd/system/aipod-nic-rings.service"}


def test_networkd_address_with_routes_and_metrics():
    assert files.networkd_address(ROUTED, MANAGED) == '# Ansible managed (role dgx_node, from the site model)\n# Storage NIC enp1 on network s-a.\n[Match]\nName=enp1\n\n[Link]\nMTUBytes=9000\n\n[Network]\nAddress=10.0.1.5/24\nLinkLocalAddressing=no\nIPv6AcceptRA=no\nConfigureWithoutCarrier=yes\n\n[Route]\nDestination=10.9.0.0/16\nGateway=10.0.1.1\nMetric=100\n\n[Route]\nDestination=10.8.0.0/16\nGateway=10.0.1.1\n'


def test_networkd_vlan_device_and_its_parent():
    assert files.networkd_address(TAGGED, MANAGED) == '# Ansible managed (role dgx_node, from the site model)\n# Storage NIC enp2.3112 on network s-b.\n[Match]\nName=enp2.3112\n\n[Link]\nMTUBytes=9000\n\n[Network]\nAddress=10.0.2.5/24\nLinkLocalAddressing=no\nIPv6AcceptRA=no\nConfigureWithoutCarrier=yes\n\n[Route]\nDestination=10.7.0.0/16\nGateway=10.0.2.1\n'
    assert files.networkd_vlan_parent(TAGGED, MANAGED) == '# Ansible managed (role dgx_node, from the site model)\n# Storage NIC enp2: carries VLAN 3112 of network s-b tagged.\n[Match]\nName=enp2\n\n[Link]\nMTUBytes=9000\n\n[Network]\nVLAN=enp2.3112\nLinkLocalAddressing=no\nIPv6AcceptRA=no\nConfigureWithoutCarrier=yes\n'
    assert files.networkd_vlan_netdev(TAGGED, MANAGED) == '# Ansible managed (role dgx_node, from the site model)\n# VLAN device of network s-b on enp2.\n[NetDev]\nName=enp2.3112\nKind=vlan\nMTUBytes=9000\n\n[VLAN]\nId=3112\n'


def test_netplan_holds_every_nic_and_vlan_in_one_file():
    assert files.netplan([ROUTED, TAGGED, TAGGED_NO_ROUTES], "localhost", MANAGED) == '# Ansible managed (role dgx_node, from the site model)\n# The storage NICs of localhost; the management path is not in this file.\nnetwork:\n  version: 2\n  ethernets:\n    enp1:\n      mtu: 9000\n      dhcp4: false\n      dhcp6: false\n      accept-ra: false\n      link-local: []\n      addresses: [10.0.1.5/24]\n      routes:\n        - to: 10.9.0.0/16\n          via: 10.0.1.1\n          metric: 100\n        - to: 10.8.0.0/16\n          via: 10.0.1.1\n    enp2:\n      mtu: 9000\n      dhcp4: false\n      dhcp6: false\n      accept-ra: false\n      link-local: []\n    enp3:\n      mtu: 8000\n      dhcp4: false\n      dhcp6: false\n      accept-ra: false\n      link-local: []\n  vlans:\n    enp2.3112:\n      id: 3112\n      link: enp2\n      mtu: 9000\n      dhcp4: false\n      dhcp6: false\n      accept-ra: false\n      link-local: []\n      addresses: [10.0.2.5/24]\n      routes:\n        - to: 10.7.0.0/16\n          via: 10.0.2.1\n    enp3.3113:\n      id: 3113\n      link: enp3\n      mtu: 8000\n      dhcp4: false\n      dhcp6: false\n      accept-ra: false\n      link-local: []\n      addresses: [10.0.3.5/24]\n'


def test_tuning_files():
    assert files.sysctl_conf(SYSCTL, MANAGED) == '# Ansible managed (role dgx_node)\n# NFS over 100/200 GbE: large socket buffers and RPC slot tables. A leading "-" lets a parameter\n# that this kernel does not have yet (sunrpc before the NFS client loads) be skipped at boot.\nnet.core.rmem_max = 268435456\nnet.ipv4.tcp_rmem = 4096 87380 268435456\n-sunrpc.tcp_max_slot_table_entries = 128\n-sunrpc.tcp_slot_table_entries = 128\n'
    assert files.modprobe_nfs_conf(SYSCTL, {}, MANAGED) == '# Ansible managed (role dgx_node)\n# RPC slot tables of the NFS client, set when sunrpc loads (it loads after sysctl.d is applied).\noptions sunrpc tcp_slot_table_entries=128 tcp_max_slot_table_entries=128\n\n'
    assert files.rings_unit(RINGS, MANAGED) == '# Ansible managed (role dgx_node)\n[Unit]\nDescription=Ring sizes of the storage NICs (role dgx_node)\nAfter=network-pre.target\nBefore=network.target\n\n[Service]\nType=oneshot\nRemainAfterExit=yes\nExecStart=-/usr/sbin/ethtool -G enp1 rx 8192 tx 8192\nExecStart=-/usr/sbin/ethtool -G enp2 rx 4096 tx 8192\n\n[Install]\nWantedBy=multi-user.target\n'


def test_nfs_module_parameters_join_the_modprobe_file_and_alone_make_one():
    paths = {"sysctl": "/etc/sysctl.d/90-aipod-nfs.conf", "modprobe": "/etc/modprobe.d/aipod-sunrpc.conf",
             "rings_unit": "/etc/systemd/system/aipod-nic-rings.service"}
    both = files.modprobe_nfs_conf(SYSCTL, {"max_session_slots": 1024}, MANAGED)
    assert both.splitlines()[-3:-1] == ["# The NFS client's parameters (compute.nfs_client), set when nfs loads: at boot, before the mounts.",
                                      "options nfs max_session_slots=1024"]
    assert "options sunrpc tcp_slot_table_entries=128" in both
    only_nfs = FILTERS["aipod_tuning_files"]({"net.core.rmem_max": 1}, [], paths, "Ansible managed", {"max_session_slots": 180})
    assert [entry["dest"] for entry in only_nfs] == [paths["sysctl"], paths["modprobe"]]
    assert "sunrpc" not in only_nfs[1]["content"].split("\n", 2)[2]
    assert only_nfs[1]["content"].endswith("options nfs max_session_slots=180\n\n")
    assert [entry["dest"] for entry in FILTERS["aipod_tuning_files"]({"net.core.rmem_max": 1}, [], paths)] == [paths["sysctl"]]


def test_roce_unit_masks_the_pfc_priorities():
    qos = {"pfc_priorities": [3, 5], "trust": "dscp", "tos": 106, "cable_length": 3}
    assert FILTERS["aipod_roce_unit"](["enp1", "enp2"], qos) == '# Ansible managed (role dgx_node)\n# mlnx_qos settings last only until the NIC resets: this unit applies them at every boot.\n[Unit]\nDescription=RoCE QoS of the storage NICs: PFC priority 3,5, trust dscp, ToS 106 (role dgx_node)\nConditionPathIsDirectory=/sys/class/infiniband\nAfter=network-pre.target\nBefore=network.target\n\n[Service]\nType=oneshot\nRemainAfterExit=yes\nExecStart=/usr/local/sbin/aipod-roce-qos 0,0,0,1,0,1,0,0 dscp 106 3 enp1 enp2\n\n[Install]\nWantedBy=multi-user.target\n'


def test_networkd_files_per_nic_and_vlan():
    entries = FILTERS["aipod_storage_network_files"]([ROUTED, TAGGED], "networkd", "/etc/aipod/storage-net/", "dgx01")
    assert [(entry["dest"], entry["mode"]) for entry in entries] == [
        ("/etc/aipod/storage-net/60-aipod-enp1.network", "0644"),
        ("/etc/aipod/storage-net/60-aipod-enp2.network", "0644"),
        ("/etc/aipod/storage-net/60-aipod-enp2.3112.netdev", "0644"),
        ("/etc/aipod/storage-net/60-aipod-enp2.3112.network", "0644"),
    ]
    assert entries[1]["content"] == files.networkd_vlan_parent(TAGGED, MANAGED)


def test_netplan_is_one_file_that_only_root_reads():
    entries = FILTERS["aipod_storage_network_files"]([ROUTED, TAGGED], "netplan", "/etc/aipod/storage-net", "dgx01", "Site file")
    assert [(entry["dest"], entry["mode"]) for entry in entries] == [("/etc/aipod/storage-net/60-aipod-storage.yaml", "0600")]
    assert entries[0]["content"].startswith("# Site file (role dgx_node, from the site model)\n# The storage NICs of dgx01;")


def test_unknown_renderer_is_an_error():
    with pytest.raises(AnsibleFilterError, match="renderer must be netplan or networkd"):
        FILTERS["aipod_storage_network_files"]([ROUTED], "ifupdown", "/tmp", "dgx01")


def test_tuning_files_leave_out_modprobe_without_sunrpc_and_the_unit_without_rings():
    only_net = {"net.core.rmem_max": 268435456}
    assert [entry["dest"] for entry in FILTERS["aipod_tuning_files"](only_net, [], PATHS)] == [PATHS["sysctl"]]
    assert [entry["dest"] for entry in FILTERS["aipod_tuning_files"](SYSCTL, RINGS, PATHS)] == list(PATHS.values())
    with pytest.raises(AnsibleFilterError, match="paths lacks rings_unit"):
        FILTERS["aipod_tuning_files"](SYSCTL, RINGS, {"sysctl": "a", "modprobe": "b"})


def test_roce_unit_needs_every_qos_setting():
    with pytest.raises(AnsibleFilterError, match="qos lacks tos"):
        FILTERS["aipod_roce_unit"](["enp1"], {"pfc_priorities": [3], "trust": "dscp", "cable_length": 3})


BOND = {'device': 'bond1', 'parent': 'bond1', 'links': ['enp41s0f0', 'enp170s0f0'], 'devices': ['enp41s0f0', 'enp170s0f0', 'bond1'], 'bond': {'mode': 'active-backup', 'mii_monitor_ms': 100, 'fail_over_mac': 'active', 'members': ['enp41s0f0', 'enp170s0f0'], 'primary': 'enp170s0f0'}, 'vlan': None, 'network': 's-a', 'address': '10.0.1.6', 'prefix_len': 24, 'cidr': '10.0.1.6/24', 'mtu': 9000, 'routes': [{'to': '10.9.0.0/16', 'via': '10.0.1.1', 'metric': 100}]}
TAGGED_BOND = dict(BOND, device="bond1.3111", vlan=3111, devices=["enp41s0f0", "enp170s0f0", "bond1", "bond1.3111"], routes=[])


def test_networkd_storage_bond_members_netdev_and_address():
    entries = files.storage_network_files([BOND], "networkd", "/etc/aipod/storage-net", "dgx01", MANAGED)
    assert [(entry["dest"].rsplit("/", 1)[1], entry["content"]) for entry in entries] == [('60-aipod-enp41s0f0.network', '# Ansible managed (role dgx_node, from the site model)\n# Storage NIC enp41s0f0: backup member of bond bond1 (network s-a).\n[Match]\nName=enp41s0f0\n\n[Link]\nMTUBytes=9000\n\n[Network]\nBond=bond1\nLinkLocalAddressing=no\nIPv6AcceptRA=no\nConfigureWithoutCarrier=yes\n'), ('60-aipod-enp170s0f0.network', '# Ansible managed (role dgx_node, from the site model)\n# Storage NIC enp170s0f0: primary member of bond bond1 (network s-a).\n[Match]\nName=enp170s0f0\n\n[Link]\nMTUBytes=9000\n\n[Network]\nBond=bond1\nPrimarySlave=true\nLinkLocalAddressing=no\nIPv6AcceptRA=no\nConfigureWithoutCarrier=yes\n'), ('60-aipod-bond1.netdev', '# Ansible managed (role dgx_node, from the site model)\n# Storage bond of network s-a over enp41s0f0, enp170s0f0: active-backup, as NVA-1173 runs RDMA over a bond.\n[NetDev]\nName=bond1\nKind=bond\n\n[Bond]\nMode=active-backup\nMIIMonitorSec=100ms\nFailOverMACPolicy=active\n'), ('60-aipod-bond1.network', '# Ansible managed (role dgx_node, from the site model)\n# Storage bond bond1 on network s-a.\n[Match]\nName=bond1\n\n[Link]\nMTUBytes=9000\n\n[Network]\nAddress=10.0.1.6/24\nLinkLocalAddressing=no\nIPv6AcceptRA=no\nConfigureWithoutCarrier=yes\n\n[Route]\nDestination=10.9.0.0/16\nGateway=10.0.1.1\nMetric=100\n')]


def test_networkd_tagged_storage_bond_carries_the_vlan_device():
    entries = files.storage_network_files([TAGGED_BOND], "networkd", "/etc/aipod/storage-net", "dgx01", MANAGED)
    assert [entry["dest"].rsplit("/", 1)[1] for entry in entries] == ['60-aipod-enp41s0f0.network', '60-aipod-enp170s0f0.network', '60-aipod-bond1.netdev', '60-aipod-bond1.network', '60-aipod-bond1.3111.netdev', '60-aipod-bond1.3111.network']
    assert entries[3]["content"] == '# Ansible managed (role dgx_node, from the site model)\n# Storage bond bond1: carries VLAN 3111 of network s-a tagged.\n[Match]\nName=bond1\n\n[Link]\nMTUBytes=9000\n\n[Network]\nVLAN=bond1.3111\nLinkLocalAddressing=no\nIPv6AcceptRA=no\nConfigureWithoutCarrier=yes\n'


def test_netplan_storage_bond_with_its_members_and_nva1173_parameters():
    assert files.netplan([BOND], "dgx01", MANAGED) == '# Ansible managed (role dgx_node, from the site model)\n# The storage NICs of dgx01; the management path is not in this file.\nnetwork:\n  version: 2\n  ethernets:\n    enp41s0f0:\n      mtu: 9000\n      dhcp4: false\n      dhcp6: false\n      accept-ra: false\n      link-local: []\n    enp170s0f0:\n      mtu: 9000\n      dhcp4: false\n      dhcp6: false\n      accept-ra: false\n      link-local: []\n  bonds:\n    bond1:\n      interfaces: [enp41s0f0, enp170s0f0]\n      mtu: 9000\n      dhcp4: false\n      dhcp6: false\n      accept-ra: false\n      link-local: []\n      addresses: [10.0.1.6/24]\n      routes:\n        - to: 10.9.0.0/16\n          via: 10.0.1.1\n          metric: 100\n      parameters:\n        mode: active-backup\n        primary: enp170s0f0\n        mii-monitor-interval: 100ms\n        fail-over-mac-policy: active\n'

