"""Which VMs the lab boots for a site model, and how they are wired. Pure: no I/O.

* One storage VM stands for ONTAP's data path (datapath.py configures it).
* One client VM per DGX (the first ``dgx_limit`` in natural order) and per server of the model.
  Each client's SSH is forwarded on its model ``mgmt_address``, which must be a loopback
  address, port SSH_PORT. Its NICs get the model's names through systemd .link files (MAC ->
  name), so the compute role finds the NIC the model names; nothing else is configured on a
  DGX VM's storage NIC: that is the compute role's job. A server VM (the stranger) is not under
  test, so the lab configures its storage NICs from the model.
* Storage links: every storage NIC of every client VM is one point-to-point QEMU UDP socket
  link on loopback to a NIC of its own on the storage VM (star topology). Inside the storage VM
  the links are bridged, so the storage VM is also the pod's switch: every client reaches every
  LIF (and every other client) on the VLANs it carries.
"""
from __future__ import annotations

import dataclasses
import hashlib
import ipaddress
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m

SSH_PORT = 2222
STORAGE_VM = "storage"
# The storage VM's loopback address (its SSH and its ends of the links). Lab plumbing: the model
# has no host for ONTAP's data path.
STORAGE_ADDRESS = "127.0.30.1"
LINK_PORT_BASE = 42000
SLIRP_NET = "10.0.2.0/24"
GUEST_MGMT_ADDRESS = "10.0.2.15/24"
MGMT_NIC = "mgmt0"
STORAGE_MEMORY_MB = 1024
CLIENT_MEMORY_MB = 768
LOOPBACK = ipaddress.IPv4Network("127.0.0.0/8")


class PlanError(ValueError):
    """The model cannot be booted as VMs (a reason the user can act on)."""


@dataclasses.dataclass(frozen=True)
class Nic:
    name: str
    mac: str
    link: int | None = None  # index of the storage link, None for the management NIC


@dataclasses.dataclass(frozen=True)
class Vm:
    name: str  # the inventory host name (or STORAGE_VM)
    hostname: str
    kind: str  # storage, dgx or server
    address: str  # loopback address of its SSH forward and link sockets
    memory_mb: int
    nics: tuple[Nic, ...]
    machine_id: str
    configure_storage_nics: bool

    @property
    def ssh(self) -> tuple[str, int]:
        return self.address, SSH_PORT


@dataclasses.dataclass(frozen=True)
class StorageLink:
    index: int
    client: str
    client_nic: str
    storage_nic: str
    port: int


@dataclasses.dataclass(frozen=True)
class Plan:
    storage: Vm
    clients: tuple[Vm, ...]
    links: tuple[StorageLink, ...]

    @property
    def vms(self) -> tuple[Vm, ...]:
        return (self.storage,) + self.clients

    def vm(self, name: str) -> Vm:
        for vm in self.vms:
            if vm.name == name:
                return vm
        raise KeyError(name)


def mac(vm_index: int, nic_index: int) -> str:
    """Locally administered, stable per VM and NIC: 52:54:00:30:<vm>:<nic>."""
    return f"52:54:00:30:{vm_index:02x}:{nic_index:02x}"


def machine_id(name: str) -> str:
    return hashlib.sha256(f"aipod-lab-vm:{name}".encode()).hexdigest()[:32]


def build_plan(model: dict, dgx_limit: int | None = None) -> Plan:
    dgx = list(m.hosts_of_kind(model, "dgx"))
    if dgx_limit is not None:
        dgx = dgx[:max(dgx_limit, 0)]
    servers = list(m.hosts_of_kind(model, "server"))
    cluster = m.as_str(m.as_dict(model.get("ontap")).get("cluster_name")) or "ontap"
    clients: list[Vm] = []
    links: list[StorageLink] = []
    addresses = {STORAGE_ADDRESS: STORAGE_VM}
    for vm_index, (host, kind) in enumerate([(h, "dgx") for h in dgx] + [(h, "server") for h in servers], start=1):
        data = m.hosts_of_kind(model, kind)[host]
        address = m.parse_address(data.get("mgmt_address"))
        if address is None or address not in LOOPBACK:
            raise PlanError(f"{host}: mgmt_address {data.get('mgmt_address')} is not a loopback address; the VM lab "
                            f"forwards each VM's SSH on its loopback mgmt_address (see inventories/lab-vm)")
        if str(address) in addresses:
            raise PlanError(f"{host}: mgmt_address {address} is already used by {addresses[str(address)]}")
        addresses[str(address)] = host
        nics = [Nic(MGMT_NIC, mac(vm_index, 0))]
        for name, nic in m.host_interfaces(model, host).items():
            # A link per physical storage NIC: a plain one, or each member of a storage bond.
            if not (nic["kind"] == "storage-member" or (nic["kind"] == "storage" and not nic.get("members"))):
                continue
            index = len(links)
            links.append(StorageLink(index=index, client=host, client_nic=name, storage_nic=f"link{index + 1}",
                                     port=LINK_PORT_BASE + index + 1))
            nics.append(Nic(name, mac(vm_index, len(nics)), link=index))
        clients.append(Vm(name=host, hostname=host, kind=kind, address=str(address), memory_mb=CLIENT_MEMORY_MB,
                          nics=tuple(nics), machine_id=machine_id(host), configure_storage_nics=kind == "server"))
    storage_nics = [Nic(MGMT_NIC, mac(0, 0))] + [Nic(link.storage_nic, mac(0, link.index + 1), link=link.index)
                                                 for link in links]
    storage = Vm(name=STORAGE_VM, hostname=f"{cluster}-data", kind="storage", address=STORAGE_ADDRESS,
                 memory_mb=STORAGE_MEMORY_MB, nics=tuple(storage_nics), machine_id=machine_id(STORAGE_VM),
                 configure_storage_nics=True)
    return Plan(storage=storage, clients=tuple(clients), links=tuple(links))


def mgmt_netplan() -> dict[str, Any]:
    """Every VM's management NIC: SLIRP's guest address, no gateway (restrict=on: nowhere to go)."""
    return {"addresses": [GUEST_MGMT_ADDRESS]}


def host_storage_netplan(model: dict, host: str) -> dict[str, Any]:
    """netplan for a host's storage NICs from the model: MTU of the network, VLAN device if tagged.

    The lab applies it to server VMs (the stranger). A DGX VM's storage NICs are the compute
    role's job (molecule scenario vm); nothing applies this to them.
    """
    networks = m.networks_by_name(model)
    ethernets: dict[str, Any] = {}
    vlans: dict[str, Any] = {}
    for name, nic in m.host_interfaces(model, host).items():
        if nic["kind"] != "storage":
            continue
        network = networks.get(nic["network"] or "", {})
        subnet = m.parse_subnet(network.get("subnet"))
        mtu = m.as_int(network.get("mtu")) or 1500
        address = f"{nic['address']}/{subnet.prefixlen}" if subnet and nic["address"] else None
        vlan = m.as_int(network.get("vlan"))
        ethernets[name] = {"mtu": mtu}
        if nic["tagged"] and vlan is not None:
            vlans[f"{name}.{vlan}"] = {"id": vlan, "link": name, "mtu": mtu, "addresses": [address] if address else []}
        elif address:
            ethernets[name]["addresses"] = [address]
    plan: dict[str, Any] = {"network": {"version": 2, "renderer": "networkd", "ethernets": ethernets}}
    if vlans:
        plan["network"]["vlans"] = vlans
    return plan
