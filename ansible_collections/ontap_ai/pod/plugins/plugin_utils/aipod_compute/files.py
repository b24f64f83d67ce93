"""The configuration files the compute layer keeps on a DGX, as text, from the plan and the host's facts.

Pure functions: each returns the content the dgx_node role writes (config_files) and compares
(aipod_compute_pending, against the SHA-1 dgx_host_facts read). Building the text here instead of in
role templates lets a no-op run tell, from the one reading of the host, that every file already
is what the model says, without rendering and sending a template per file and host.
The first line of every file is ``# <managed> (role dgx_node...)``; ``managed`` is the role's
dgx_node_managed_comment ("Ansible managed", what ansible_managed gives templates by default).
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

NETPLAN_FILE = "60-aipod-storage.yaml"
RENDERERS = ("netplan", "networkd")


def sha1(content: str) -> str:
    return hashlib.sha1(content.encode("utf-8", errors="surrogateescape")).hexdigest()


def _lines(*lines: str) -> str:
    return "".join(f"{line}\n" for line in lines)


def _networkd_routes(routes: Iterable[Mapping]) -> list[str]:
    lines: list[str] = []
    for route in routes or []:
        lines += ["", "[Route]", f"Destination={route['to']}", f"Gateway={route['via']}"]
        if route.get("metric") is not None:
            lines.append(f"Metric={route['metric']}")
    return lines


def _networkd_network(managed: str, about: str, name: str, mtu: int, settings: str | Sequence[str],
                      routes: Iterable[Mapping] = ()) -> str:
    """A .network of the role: the device by name, its MTU, its settings (Address, VLAN, or Bond and PrimarySlave),
    no link-local address or RA."""
    settings = [settings] if isinstance(settings, str) else list(settings)
    return _lines(f"# {managed} (role dgx_node, from the site model)", f"# {about}",
                  "[Match]", f"Name={name}", "",
                  "[Link]", f"MTUBytes={mtu}", "",
                  "[Network]", *settings, "LinkLocalAddressing=no", "IPv6AcceptRA=no", "ConfigureWithoutCarrier=yes",
                  *_networkd_routes(routes))


def _what(nic: Mapping) -> str:
    """How the files name the device that carries the network: a storage NIC or a storage bond."""
    return "Storage bond" if nic.get("bond") else "Storage NIC"


def networkd_bond_member(nic: Mapping, member: str, managed: str) -> str:
    """The .network of one member of a storage bond: enslaved, the primary marked, the network's MTU."""
    bond = nic["bond"]
    primary = member == bond["primary"]
    return _networkd_network(managed, f"Storage NIC {member}: {'primary' if primary else 'backup'} member of bond {nic['parent']} "
                             f"(network {nic['network']}).", member, nic["mtu"],
                             [f"Bond={nic['parent']}"] + (["PrimarySlave=true"] if primary else []))


def networkd_bond_netdev(nic: Mapping, managed: str) -> str:
    """The .netdev of a storage bond: active-backup, MII monitoring, the bond's MAC the active member's (NVA-1173)."""
    bond = nic["bond"]
    return _lines(f"# {managed} (role dgx_node, from the site model)",
                  # The members are named here on purpose, the primary is not: a new member set changes this
                  # file, so the storage network script makes the bond anew; a new primary changes only the
                  # members' files. (netplan's rendering names no members: networkd moves them by their files.)
                  f"# Storage bond of network {nic['network']} over {', '.join(bond['members'])}: active-backup, as NVA-1173 runs RDMA over a bond.",
                  "[NetDev]", f"Name={nic['parent']}", "Kind=bond", "",
                  "[Bond]", f"Mode={bond['mode']}", f"MIIMonitorSec={bond['mii_monitor_ms']}ms",
                  f"FailOverMACPolicy={bond['fail_over_mac']}")


def networkd_address(nic: Mapping, managed: str) -> str:
    """The .network of a device that holds a storage address (an untagged NIC or a VLAN device)."""
    what = _what(nic) if nic.get("vlan") is None else "Storage NIC"
    return _networkd_network(managed, f"{what} {nic['device']} on network {nic['network']}.", nic["device"], nic["mtu"],
                             f"Address={nic['cidr']}", nic.get("routes") or [])


def networkd_vlan_parent(nic: Mapping, managed: str) -> str:
    """The .network of the physical NIC that carries a storage VLAN tagged."""
    return _networkd_network(managed, f"{_what(nic)} {nic['parent']}: carries VLAN {nic['vlan']} of network {nic['network']} tagged.",
                             nic["parent"], nic["mtu"], f"VLAN={nic['device']}")


def networkd_vlan_netdev(nic: Mapping, managed: str) -> str:
    """The .netdev of a storage VLAN device."""
    return _lines(f"# {managed} (role dgx_node, from the site model)",
                  f"# VLAN device of network {nic['network']} on {nic['parent']}.",
                  "[NetDev]", f"Name={nic['device']}", "Kind=vlan", f"MTUBytes={nic['mtu']}", "",
                  "[VLAN]", f"Id={nic['vlan']}")


def _netplan_device(nic: Mapping, indent: str = "      ") -> list[str]:
    """What every storage device of the netplan file has: its MTU, and no DHCP, RA or link-local address."""
    return [f"{indent}mtu: {nic['mtu']}", f"{indent}dhcp4: false", f"{indent}dhcp6: false", f"{indent}accept-ra: false",
            f"{indent}link-local: []"]


def _netplan_address(nic: Mapping, indent: str = "      ") -> list[str]:
    lines = [f"{indent}addresses: [{nic['cidr']}]"]
    if nic.get("routes"):
        lines.append(f"{indent}routes:")
        for route in nic["routes"]:
            lines += [f"{indent}  - to: {route['to']}", f"{indent}    via: {route['via']}"]
            if route.get("metric") is not None:
                lines.append(f"{indent}    metric: {route['metric']}")
    return lines


def netplan(nics: list[Mapping], hostname: str, managed: str) -> str:
    """One netplan YAML for every storage NIC of the host (the management path is not in it)."""
    lines = [f"# {managed} (role dgx_node, from the site model)",
             f"# The storage NICs of {hostname}; the management path is not in this file.",
             "network:", "  version: 2", "  ethernets:"]
    for nic in nics:
        for link in nic.get("links") or [nic["parent"]]:
            lines += [f"    {link}:", *_netplan_device(nic)]
        if nic.get("vlan") is None and not nic.get("bond"):
            lines += _netplan_address(nic)
    bonded = [nic for nic in nics if nic.get("bond")]
    if bonded:
        lines.append("  bonds:")
        for nic in bonded:
            bond = nic["bond"]
            lines += [f"    {nic['parent']}:", f"      interfaces: [{', '.join(bond['members'])}]", *_netplan_device(nic)]
            if nic.get("vlan") is None:
                lines += _netplan_address(nic)
            lines += ["      parameters:", f"        mode: {bond['mode']}", f"        primary: {bond['primary']}",
                      f"        mii-monitor-interval: {bond['mii_monitor_ms']}ms",
                      f"        fail-over-mac-policy: {bond['fail_over_mac']}"]
    tagged = [nic for nic in nics if nic.get("vlan")]
    if tagged:
        lines.append("  vlans:")
        for nic in tagged:
            lines += [f"    {nic['device']}:", f"      id: {nic['vlan']}", f"      link: {nic['parent']}",
                      *_netplan_device(nic), *_netplan_address(nic)]
    return _lines(*lines)


def storage_network_files(nics: list[Mapping], renderer: str, directory: str, hostname: str, managed: str) -> list[dict[str, Any]]:
    """The files that configure the storage NICs with this renderer: config_files entries {dest, content, mode}.

    netplan: one YAML for all NICs (mode 0600, as netplan wants). systemd-networkd: per untagged NIC
    one .network; per tagged NIC a .network for the physical NIC (MTU, VLAN), a .netdev for the VLAN
    device and a .network for the VLAN device (address, routes); a storage bond adds a .network per
    member (Bond=, PrimarySlave= on the primary) and the bond's .netdev, then its address or VLAN
    files as a NIC's. Names start with 60-aipod- so the
    bundle's files are told apart from the OS installer's.
    """
    if renderer not in RENDERERS:
        raise ValueError(f"renderer must be netplan or networkd, got {renderer!r}")
    base = directory.rstrip("/")

    def entry(name: str, content: str, mode: str = "0644") -> dict[str, Any]:
        return {"dest": f"{base}/{name}", "content": content, "mode": mode}

    if renderer == "netplan":
        return [entry(NETPLAN_FILE, netplan(nics, hostname, managed), "0600")]
    files = []
    for nic in nics:
        if nic.get("bond"):
            files += [entry(f"60-aipod-{member}.network", networkd_bond_member(nic, member, managed))
                      for member in nic["bond"]["members"]]
            files.append(entry(f"60-aipod-{nic['parent']}.netdev", networkd_bond_netdev(nic, managed)))
        if nic.get("vlan") is None:
            files.append(entry(f"60-aipod-{nic['device']}.network", networkd_address(nic, managed)))
        else:
            files += [entry(f"60-aipod-{nic['parent']}.network", networkd_vlan_parent(nic, managed)),
                      entry(f"60-aipod-{nic['device']}.netdev", networkd_vlan_netdev(nic, managed)),
                      entry(f"60-aipod-{nic['device']}.network", networkd_address(nic, managed))]
    return files


def sysctl_conf(settings: Mapping[str, Any], managed: str) -> str:
    """/etc/sysctl.d: every parameter; a leading '-' lets boot skip a sunrpc one the kernel lacks yet."""
    return _lines(f"# {managed} (role dgx_node)",
                  "# NFS over 100/200 GbE: large socket buffers and RPC slot tables. A leading \"-\" lets a parameter",
                  "# that this kernel does not have yet (sunrpc before the NFS client loads) be skipped at boot.",
                  *[f"{'-' if name.startswith('sunrpc.') else ''}{name} = {value}" for name, value in sorted(settings.items())])


def sunrpc_options(settings: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The sunrpc.* parameters, in the order given, as module options (name without the prefix)."""
    return [(name[len("sunrpc."):], value) for name, value in settings.items() if name.startswith("sunrpc.")]


def modprobe_nfs_conf(settings: Mapping[str, Any], nfs_module: Mapping[str, Any], managed: str) -> str:
    """/etc/modprobe.d: the sunrpc slot tables (for when sunrpc loads after sysctl.d) and the nfs module's parameters."""
    lines = [f"# {managed} (role dgx_node)"]
    sunrpc = " ".join(f"{name}={value}" for name, value in sunrpc_options(settings))
    if sunrpc:
        lines += ["# RPC slot tables of the NFS client, set when sunrpc loads (it loads after sysctl.d is applied).",
                  f"options sunrpc {sunrpc}"]
    if nfs_module:
        lines += ["# The NFS client's parameters (compute.nfs_client), set when nfs loads: at boot, before the mounts.",
                  "options nfs " + " ".join(f"{name}={value}" for name, value in sorted(nfs_module.items()))]
    return _lines(*lines, "")


def rings_unit(rings: list[Mapping], managed: str) -> str:
    """A oneshot unit that sets the storage NICs' ring sizes at boot."""
    return _lines(f"# {managed} (role dgx_node)",
                  "[Unit]", "Description=Ring sizes of the storage NICs (role dgx_node)", "After=network-pre.target",
                  "Before=network.target", "",
                  "[Service]", "Type=oneshot", "RemainAfterExit=yes",
                  *[f"ExecStart=-/usr/sbin/ethtool -G {ring['name']} rx {ring['rx']} tx {ring['tx']}" for ring in rings],
                  "",
                  "[Install]", "WantedBy=multi-user.target")


def roce_unit(parents: list[str], qos: Mapping[str, Any], managed: str) -> str:
    """A oneshot unit that applies the RoCE QoS (mlnx_qos) to the storage NICs at every boot.

    qos: pfc_priorities (list of 0-7), trust, tos, cable_length.
    """
    priorities = list(qos["pfc_priorities"])
    pfc = ",".join("1" if priority in priorities else "0" for priority in range(8))
    return _lines(f"# {managed} (role dgx_node)",
                  "# mlnx_qos settings last only until the NIC resets: this unit applies them at every boot.",
                  "[Unit]",
                  f"Description=RoCE QoS of the storage NICs: PFC priority {','.join(str(p) for p in priorities)}, "
                  f"trust {qos['trust']}, ToS {qos['tos']} (role dgx_node)",
                  "ConditionPathIsDirectory=/sys/class/infiniband", "After=network-pre.target", "Before=network.target", "",
                  "[Service]", "Type=oneshot", "RemainAfterExit=yes",
                  f"ExecStart=/usr/local/sbin/aipod-roce-qos {pfc} {qos['trust']} {qos['tos']} {qos['cable_length']} {' '.join(parents)}",
                  "",
                  "[Install]", "WantedBy=multi-user.target")


def tuning_files(settings: Mapping[str, Any], rings: list[Mapping], paths: Mapping[str, str], managed: str,
                 nfs_module: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """The NFS tuning files: sysctl.d always, modprobe.d with sunrpc or nfs parameters, the ring unit with rings to set.

    paths: sysctl, modprobe, rings_unit.
    """
    files = [{"dest": paths["sysctl"], "content": sysctl_conf(settings, managed), "mode": "0644"}]
    if sunrpc_options(settings) or nfs_module:
        files.append({"dest": paths["modprobe"], "content": modprobe_nfs_conf(settings, nfs_module or {}, managed), "mode": "0644"})
    if rings:
        files.append({"dest": paths["rings_unit"], "content": rings_unit(rings, managed), "mode": "0644"})
    return files
