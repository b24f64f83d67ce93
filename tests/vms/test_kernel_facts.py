"""What only a real kernel can prove about the VM lab itself: the storage VM carries the model's data path.

The VMs run Debian's kernel under QEMU (lab/vms). The storage VM carries the data path of
inventories/lab-vm (LIFs, exports, nfsd settings, all derived from the model). What the compute
role does in the DGX VM (netplan storage NIC with VLAN and MTU 9000, the NFS mounts and their
negotiated options, jumbo frames, files read back on the storage side, a reboot, and a refusal by
the export policy) is proved by the molecule scenario `vm` (molecule/vm/tests/test_vm.py)
against the role's own work; phase 1 checked the same by configuring the DGX VM by hand here.
"""
from __future__ import annotations

import re

import pytest
from vmlab import datapath

pytestmark = [pytest.mark.lab, pytest.mark.slow, pytest.mark.release_check]

STORAGE = "storage"


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
