"""The storage VM's data path: ONTAP's LIFs, export policies and FlexGroups as Linux kernel config.

Two steps, kept apart so that the second can later be fed from another source:

1. ``storage_state(model)`` reads what ONTAP would hold (data LIFs with their network's VLAN
   and MTU, export policies with their rules resolved to client CIDRs, FlexGroups with their
   junction paths, the SVM's NFS settings) out of the site model, through the same derivations
   the roles use (``aipod_site.model.data_lifs``). A later ``storage_state`` built from the lab
   ONTAP endpoint's REST state would produce the same ``StorageState``.
2. ``realise(state, links)`` turns a ``StorageState`` into the files a Linux NFS server needs:
   a netplan file that puts every LIF address on a VLAN device (MTU of its network) over a
   bridge of the storage VM's links, ``/etc/exports`` with exactly the admitted clients,
   ``/etc/nfs.conf`` (versions, threads, grace) and an nfs-server drop-in that raises nfsd's
   ``max_block_size`` to the SVM's transfer size before nfsd starts.

Both are pure: no I/O, the same input gives the same bytes.
"""
from __future__ import annotations

import dataclasses
import ipaddress
import re
from collections.abc import Iterable
from typing import Any

import yaml

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m

BRIDGE = "br-storage"
# Linux nfsd threads: ONTAP has no such knob; 32 serve 16 nconnect connections per client well.
NFSD_THREADS = 32
# NFSv4 lease and grace period (seconds). Short, so that a freshly started server (and every VM
# restored from a snapshot taken after boot) leaves its grace period quickly; ONTAP's defaults
# are 30 s and 45 s.
NFSD_LEASE_SECONDS = 15
NFSD_GRACE_SECONDS = 15
ALLOWED_FLAVOURS = {"sys", "any"}
INTERFACE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$")


class DataPathError(ValueError):
    """The model asks for something the storage VM cannot realise faithfully."""


@dataclasses.dataclass(frozen=True)
class Lif:
    name: str
    svm: str
    address: str
    prefix_len: int
    network: str
    vlan: int | None
    mtu: int


@dataclasses.dataclass(frozen=True)
class ExportRule:
    clients: tuple[str, ...]  # CIDRs
    read_write: bool
    superuser: bool


@dataclasses.dataclass(frozen=True)
class ExportPolicy:
    svm: str
    name: str
    rules: tuple[ExportRule, ...]


@dataclasses.dataclass(frozen=True)
class FlexGroup:
    svm: str
    name: str
    junction_path: str
    export_policy: str
    unix_permissions: str


@dataclasses.dataclass(frozen=True)
class NfsService:
    v3: bool
    v41: bool
    max_transfer_size: int


@dataclasses.dataclass(frozen=True)
class StorageState:
    """What ONTAP holds that the data path depends on, in a source-neutral form."""

    lifs: tuple[Lif, ...]
    export_policies: tuple[ExportPolicy, ...]
    flexgroups: tuple[FlexGroup, ...]
    nfs: NfsService


@dataclasses.dataclass(frozen=True)
class Link:
    """One of the storage VM's NICs on the lab's storage links (to one client NIC)."""

    name: str
    mac: str
    peer: str


# ---------------------------------------------------------------------------- from the model
def _flavours_allow(value: Any) -> bool:
    return any(flavour in ALLOWED_FLAVOURS for flavour in m.as_list(value))


def client_cidrs(model: dict, clients: Iterable[Any]) -> tuple[str, ...]:
    """An export rule's clients (network names or CIDRs, as the validator accepts them) as CIDRs."""
    networks = m.networks_by_name(model)
    result: list[str] = []
    for client in clients:
        if not isinstance(client, str):
            continue
        if client in networks:
            subnet = m.parse_subnet(networks[client].get("subnet"))
            cidr = str(subnet) if subnet else None
        else:
            try:
                cidr = str(ipaddress.IPv4Network(client, strict=False))
            except ValueError:
                cidr = None
        if cidr is None:
            raise DataPathError(f"export client {client!r} is neither a declared network nor a CIDR")
        if cidr not in result:
            result.append(cidr)
    return tuple(result)


def storage_state(model: dict) -> StorageState:
    """The data path of every SVM of the site model."""
    networks = m.networks_by_name(model)
    lifs = []
    for lif in m.data_lifs(model):
        network = networks.get(lif["network"] or "", {})
        if not lif["address"] or lif["prefix_len"] is None:
            continue
        lifs.append(Lif(name=lif["name"], svm=lif["svm"], address=lif["address"], prefix_len=lif["prefix_len"],
                        network=lif["network"], vlan=m.as_int(network.get("vlan")),
                        mtu=m.as_int(network.get("mtu")) or 1500))
    policies = []
    flexgroups = []
    v3 = v41 = False
    transfer_sizes = []
    for svm in m.svms(model):
        for policy in m.as_list(svm.get("export_policies")):
            policy = m.as_dict(policy)
            rules = []
            for rule in m.as_list(policy.get("rules")):
                rule = m.as_dict(rule)
                if not _flavours_allow(rule.get("ro")):
                    continue  # ONTAP grants no access (not even rw) unless ro matches; krb5 has no KDC here
                rules.append(ExportRule(clients=client_cidrs(model, m.as_list(rule.get("clients"))),
                                        read_write=_flavours_allow(rule.get("rw")),
                                        superuser=_flavours_allow(rule.get("superuser"))))
            policies.append(ExportPolicy(svm=svm["name"], name=str(policy.get("name")), rules=tuple(rules)))
        for flexgroup in m.as_list(svm.get("flexgroups")):
            flexgroup = m.as_dict(flexgroup)
            flexgroups.append(FlexGroup(svm=svm["name"], name=str(flexgroup.get("name")),
                                        junction_path=str(flexgroup.get("junction_path")),
                                        export_policy=str(flexgroup.get("export_policy")),
                                        unix_permissions=str(flexgroup.get("unix_permissions", "0755")).rjust(4, "0")))
        nfs = m.as_dict(svm.get("nfs"))
        v3 = v3 or nfs.get("v3") is True
        v41 = v41 or nfs.get("v41") is True
        size = m.as_int(nfs.get("tcp_max_transfer_size"))
        if size:
            transfer_sizes.append(size)
    return StorageState(lifs=tuple(lifs), export_policies=tuple(policies), flexgroups=tuple(flexgroups),
                        nfs=NfsService(v3=v3, v41=v41, max_transfer_size=max(transfer_sizes, default=65536)))


# ---------------------------------------------------------------------------- to the kernel
def vlan_device(network: str, vlan: int) -> str:
    """The storage VM's VLAN device for a network: its name when that is a valid interface name."""
    return network if INTERFACE_NAME.match(network) else f"vlan{vlan}"


def exports(state: StorageState) -> list[str]:
    """/etc/exports lines: each junction path for exactly the clients of its FlexGroup's policy."""
    policies = {(p.svm, p.name): p for p in state.export_policies}
    lines = []
    seen: dict[str, str] = {}
    for flexgroup in sorted(state.flexgroups, key=lambda f: f.junction_path):
        if flexgroup.junction_path in seen:
            raise DataPathError(f"junction path {flexgroup.junction_path} is used by FlexGroups {seen[flexgroup.junction_path]} "
                                f"and {flexgroup.svm}/{flexgroup.name}; one storage VM serves one namespace")
        seen[flexgroup.junction_path] = f"{flexgroup.svm}/{flexgroup.name}"
        policy = policies.get((flexgroup.svm, flexgroup.export_policy))
        if policy is None:
            raise DataPathError(f"FlexGroup {flexgroup.name} names export policy {flexgroup.export_policy}, which SVM {flexgroup.svm} lacks")
        entries = []
        admitted: set[str] = set()
        for rule in policy.rules:  # ONTAP applies the first matching rule: keep rule order
            options = ["rw" if rule.read_write else "ro", "sync", "no_subtree_check", "sec=sys",
                       "no_root_squash" if rule.superuser else "root_squash"]
            for cidr in rule.clients:
                if cidr in admitted:
                    continue
                admitted.add(cidr)
                entries.append(f"{cidr}({','.join(options)})")
        if entries:
            lines.append(f"{flexgroup.junction_path} {' '.join(entries)}")
    return lines


def nfs_conf(state: StorageState) -> str:
    yes_no = {True: "y", False: "n"}
    return "\n".join([
        "# Written by lab/vms from the site model (SVM NFS settings). Server-wide: Linux cannot",
        "# limit NFS versions per export the way an ONTAP export rule's protocols do.",
        "[nfsd]",
        f"threads={NFSD_THREADS}",
        "tcp=y",
        "udp=n",
        f"vers3={yes_no[state.nfs.v3]}",
        f"vers4={yes_no[state.nfs.v41]}",
        "vers4.0=n",
        f"vers4.1={yes_no[state.nfs.v41]}",
        "vers4.2=n",
        f"lease-time={NFSD_LEASE_SECONDS}",
        f"grace-time={NFSD_GRACE_SECONDS}",
        "",
    ])


def block_size_dropin(state: StorageState) -> str:
    """nfsd sizes max_block_size from RAM (128 KiB with 1 GiB); raise it before nfsd starts."""
    size = state.nfs.max_transfer_size
    return "\n".join([
        "# Written by lab/vms: the SVM's tcp_max_transfer_size. nfsd derives its maximum block size",
        "# from RAM (128 KiB with 1 GiB) and accepts a new value only while it is stopped.",
        "[Service]",
        f"ExecStartPre=/bin/sh -c 'echo {size} > /proc/fs/nfsd/max_block_size'",
        "",
    ])


def storage_netplan(state: StorageState, links: list[Link]) -> dict:
    """netplan of the storage VM: links bridged (the storage VM is the pod's switch), LIFs on VLANs."""
    if not links:
        raise DataPathError("the storage VM has no links: the model has no client VM with a storage NIC")
    by_network: dict[str, list[Lif]] = {}
    for lif in state.lifs:
        by_network.setdefault(lif.network, []).append(lif)
    bridge_mtu = max([lif.mtu for lif in state.lifs] or [1500])
    ethernets: dict[str, Any] = {}
    for link in links:
        ethernets[link.name] = {"mtu": bridge_mtu}
    bridge: dict[str, Any] = {"interfaces": [link.name for link in links], "mtu": bridge_mtu,
                              "parameters": {"stp": False, "forward-delay": 0}}
    vlans: dict[str, Any] = {}
    untagged: list[str] = []
    for network, lifs in by_network.items():
        addresses = [f"{lif.address}/{lif.prefix_len}" for lif in lifs]
        vlan = lifs[0].vlan
        if vlan is None:
            untagged += addresses
            continue
        vlans[vlan_device(network, vlan)] = {"id": vlan, "link": BRIDGE, "mtu": lifs[0].mtu, "addresses": addresses}
    if untagged:
        bridge["addresses"] = untagged
    plan: dict[str, Any] = {"network": {"version": 2, "renderer": "networkd", "ethernets": ethernets,
                                        "bridges": {BRIDGE: bridge}}}
    if vlans:
        plan["network"]["vlans"] = vlans
    return plan


@dataclasses.dataclass(frozen=True)
class Realisation:
    """Kernel-facing configuration of the storage VM."""

    files: dict[str, tuple[str, int]]  # path -> (text, mode)
    directories: dict[str, int]  # junction path -> mode


def realise(state: StorageState, links: list[Link]) -> Realisation:
    """The storage VM's files (netplan, exports, nfs.conf, nfsd drop-in) and junction directories."""
    netplan = yaml.safe_dump(storage_netplan(state, links), sort_keys=False, default_flow_style=False)
    files = {
        "/etc/netplan/10-lab-storage.yaml": ("# Written by lab/vms: the SVM's LIFs on the lab's storage links.\n" + netplan, 0o600),
        "/etc/exports": ("# Written by lab/vms from the site model's export policies and FlexGroups.\n"
                         + "\n".join(exports(state)) + "\n", 0o644),
        "/etc/nfs.conf": (nfs_conf(state), 0o644),
        "/etc/systemd/system/nfs-server.service.d/10-lab-block-size.conf": (block_size_dropin(state), 0o644),
    }
    directories = {f.junction_path: int(f.unix_permissions, 8) for f in sorted(state.flexgroups, key=lambda f: f.junction_path)}
    return Realisation(files=files, directories=directories)
