"""Rules of the hosts: DGX and server NICs on their networks, and the compute layer's mounts."""
from __future__ import annotations

import posixpath
import re

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.rule_context import Context, host_path

# Directories of the DGX's own system: an NFS mount on (or inside) one of them would hide what the
# node needs to run.
SYSTEM_DIRECTORIES = ("/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/root", "/run",
                      "/sbin", "/sys", "/tmp", "/usr", "/var")
# DGX OS's local NVMe RAID, the cache of its training data: a mount over it hides the cache (below it is fine).
DGX_LOCAL_RAID = "/raid"


def normalised_path_problem(path: str) -> str | None:
    """Why an absolute path of the model is not written in its one normal form, or None."""
    if path == "/":
        return "is the root directory"
    if "//" in path or posixpath.normpath(path) != path:
        return f"is not written in its normal form ({posixpath.normpath(path).replace('//', '/')}: no '.', '..', '//' or trailing '/')"
    return None


# The compute layer writes each interface into a systemd-networkd file, so a name must be one that
# both Linux (at most 15 bytes: IFNAMSIZ 16 with its NUL) and systemd's ifname_valid() take:
# printable ASCII without '/', ':' (an alias of the old tools) or '%', not a number (systemd reads
# it as an interface index), not '.', '..', 'all' or 'default' (directories of /proc/sys/net), and
# never the loopback's.
LINUX_NAME_MAX = 15
LINUX_NAME_FORBIDDEN = re.compile(r"[^!-~]|[/:%]")
LINUX_RESERVED_NAMES = frozenset({"lo", ".", "..", "all", "default"})


def linux_name_problem(name: str) -> str | None:
    if not name:
        return "is empty"
    if len(name.encode()) > LINUX_NAME_MAX:
        return f"is {len(name.encode())} bytes long; Linux takes at most {LINUX_NAME_MAX}"
    if LINUX_NAME_FORBIDDEN.search(name):
        return "holds white space, a character outside printable ASCII, or '/', ':' or '%', which an interface name cannot"
    if name in LINUX_RESERVED_NAMES:
        return "is the loopback's name" if name == "lo" else "is a name Linux keeps for itself"
    if name.isdigit():
        return "is a number, which systemd reads as an interface index"
    return None


def linux_device_names(ctx: Context) -> None:
    """Every interface the compute layer configures on a host (NICs, bonds, their VLAN devices <parent>.<vlan>)
    has a name Linux takes, and no two of them share one: a NIC named like another's VLAN device would
    have one networkd file written for both."""
    for kind, hosts in (("dgx", ctx.dgx), ("server", ctx.servers)):
        for host in hosts:
            interfaces = m.host_interfaces(ctx.model, host)
            positions = _interface_positions(hosts[host])
            for name in interfaces:
                problem = linux_name_problem(name)
                if problem:
                    ctx.error("linux-name", host_path(host, kind, *positions.get(name, ())), f"interface {name!r} of {host} {problem}",
                              "use the name the OS gives the NIC (ip link), e.g. enp225s0f0, or a bond name such as bond1")
            owner: dict[str, str] = {name: name for name in interfaces}
            for entry in m.host_storage_plan(ctx.model, host):
                device = entry["device"]
                if device == entry["parent"]:
                    continue
                problem = linux_name_problem(device)
                where = host_path(host, kind, *positions.get(entry["parent"], ()))
                if problem:
                    ctx.error("linux-name", where, f"VLAN device {device!r} of {host} {problem}",
                              f"shorten the name of {entry['parent']}, or use a shorter VLAN id")
                elif device in owner:
                    ctx.error("linux-name", where, f"the VLAN device {device} of {entry['parent']} on {host} has the name of "
                              f"its interface {owner[device]}; one networkd file would be written for both",
                              "rename one of them (the NIC's name is the OS's; a bond's is the model's)")
                owner.setdefault(device, entry["parent"])


def _interface_positions(data: dict) -> dict[str, tuple]:
    """Where each NIC, bond or bond member is written in a host's model: name -> (key, index[, 'members', i])."""
    positions: dict[str, tuple] = {}
    for key in ("storage_nics", "storage_bonds"):
        for index, entry in enumerate(m.as_list(data.get(key))):
            entry = m.as_dict(entry)
            name = m.as_str(entry.get("name"))
            if name:
                positions.setdefault(name, (key, index, "name"))
            for member_index, member in enumerate(m.as_list(entry.get("members"))):
                if m.as_str(member):
                    positions.setdefault(member, (key, index, "members", member_index))
    inband = m.as_dict(data.get("inband"))
    for field in ("name", "bond"):
        if m.as_str(inband.get(field)):
            positions.setdefault(inband[field], ("inband", field))
    for member_index, member in enumerate(m.as_list(inband.get("members"))):
        if m.as_str(member):
            positions.setdefault(member, ("inband", "members", member_index))
    return positions


def host_nics(ctx: Context) -> None:
    """Host NICs sit on declared networks; DGX storage NICs and bonds on storage networks with data LIFs (a
    warning for two on one network: mounts use the first); a bond's primary is one of its members; MTUs follow the network."""
    lif_networks = {lif["network"] for lif in ctx.lifs if lif["network"]}
    for kind, hosts in (("dgx", ctx.dgx), ("server", ctx.servers)):
        for host, data in hosts.items():
            names: set[str] = set()
            inband = m.as_dict(data.get("inband"))
            if inband:
                network = ctx.network_of(inband.get("network"))
                if network is None and isinstance(inband.get("network"), str):
                    ctx.error("dangling-reference", host_path(host, kind, "inband", "network"),
                              f"network '{inband.get('network')}' is not declared", f"use one of {', '.join(ctx.networks)}")
                names.add(m.as_str(inband.get("name")) or "")
                names.update(member for member in m.as_list(inband.get("members")) if isinstance(member, str))
            interfaces = [("storage_nics", index, m.as_dict(nic)) for index, nic in enumerate(m.as_list(data.get("storage_nics")))]
            interfaces += [("storage_bonds", index, m.as_dict(bond)) for index, bond in enumerate(m.as_list(data.get("storage_bonds")))]
            if kind == "dgx" and not interfaces:
                ctx.error("host-nic", host_path(host, kind), f"{host} has no storage interface",
                          "give it storage_nics (an address per NIC) or storage_bonds (NVA-1173's RDMA bond)")
            on_network: dict[str, str] = {}
            for key, index, nic in interfaces:
                path = host_path(host, kind, key, index)
                name = m.as_str(nic.get("name"))
                what = "bond" if key == "storage_bonds" else "NIC"
                if name in names:
                    ctx.error("host-nic", path + ("name",), f"{what} {name} of {host} is declared twice")
                names.add(name or "")
                if key == "storage_bonds":
                    members = [member for member in m.as_list(nic.get("members")) if isinstance(member, str)]
                    for position, member in enumerate(members):
                        if member in names:
                            ctx.error("host-nic", path + ("members", position),
                                      f"member {member} of bond {name} is also declared as another interface of {host}",
                                      "a NIC belongs to one bond and carries no address of its own")
                        names.add(member)
                    primary = nic.get("primary")
                    if isinstance(primary, str) and members and primary not in members:
                        ctx.error("host-nic", path + ("primary",), f"primary {primary} is not a member of bond {name} of {host}",
                                  f"name one of {', '.join(members)}")
                if isinstance(nic.get("network"), str):
                    if nic["network"] in on_network:
                        ctx.warning("host-nic", path + ("network",),
                                    f"network '{nic['network']}' is on both {on_network[nic['network']]} and {name} of {host}",
                                    "mounts use only the first; give each storage network one interface per host (a bond for two links)")
                    on_network.setdefault(nic["network"], name or "")
                network_name = nic.get("network")
                network = ctx.network_of(network_name)
                if network is None:
                    if isinstance(network_name, str):
                        ctx.error("dangling-reference", path + ("network",), f"network '{network_name}' is not declared",
                                  f"use one of {', '.join(n for n, v in ctx.networks.items() if v.get('purpose') in ('storage', 'roce'))}")
                    continue
                purpose = network.get("purpose")
                if purpose not in ("storage", "roce"):
                    ctx.error("host-nic", path + ("network",), f"storage {what} {name} is on network '{network_name}' whose purpose is {purpose}",
                              "put storage NICs on storage (or roce) networks")
                elif kind == "dgx" and purpose == "storage" and network_name not in lif_networks:
                    ctx.error("host-nic", path + ("network",), f"storage {what} {name} of {host} is on network '{network_name}', where no SVM has a data LIF",
                              "add data LIFs on that network or move the NIC")
                if m.as_int(nic.get("mtu")) is not None and nic.get("mtu") != network.get("mtu"):
                    ctx.error("mtu", path + ("mtu",), f"{what} MTU {nic.get('mtu')} differs from network '{network_name}' MTU {network.get('mtu')}",
                              "drop the mtu here (it follows the network) or make them equal")
                if nic.get("tagged") is True and m.as_int(network.get("vlan")) is None:
                    ctx.error("vlan", path + ("tagged",), f"{what} {name} is tagged but network '{network_name}' has no VLAN",
                              "give the network a vlan or untag the NIC")


def dgx_gpus(ctx: Context) -> None:
    """A DGX has GPUs: gpus.count is a positive integer (the schema), the count its model has where the
    model is known (dgx.model, e.g. DGX A100: 8), and a warning where the model is not known."""
    known = ", ".join(f"{name}: {count}" for name, (count, _generations) in m.DGX_SYSTEMS.items())
    for host, data in ctx.dgx.items():
        path = host_path(host, "dgx")
        system = m.dgx_system(data.get("model"))
        gpus = m.as_dict(data.get("gpus"))
        if not gpus:
            counted = f"sizing counts the {system[1]} GPUs of a {system[0]}" if system else "sizing counts none for it"
            ctx.warning("gpu", path, f"{host} declares no expected GPU count; the GPU check cannot compare and {counted}",
                        f"add gpus: {{count: {system[1] if system else 8}}}")
            continue
        count = m.as_int(gpus.get("count"))
        if count is None or count < 1:
            continue  # the schema refuses a count that is not a positive integer
        if system is None:
            model = data.get("model")
            ctx.warning("gpu", path + (("model",) if isinstance(model, str) else ()),
                        f"{host}: " + (f"DGX model {model!r} is not one the validator knows" if isinstance(model, str) else "no dgx.model")
                        + f", so gpus.count {count} is not checked against it",
                        f"name the system as NVIDIA does ({known})")
        elif count != system[1]:
            ctx.error("gpu", path + ("gpus", "count"), f"a {system[0]} has {system[1]} GPUs, gpus.count says {count}",
                      f"set gpus.count: {system[1]} (a node with a GPU missing then fails verification, as it should), "
                      "or correct dgx.model")
        generation = m.gpu_generation(gpus.get("model"))
        if system is not None and generation is not None and generation not in system[2]:
            ctx.warning("gpu", path + ("gpus", "model"),
                        f"GPU model {gpus.get('model')!r} names {generation} GPUs; a {system[0]} has {' or '.join(system[2])} GPUs",
                        "correct gpus.model or dgx.model")


def compute_mounts(ctx: Context) -> None:
    """Each mount names a FlexGroup of an SVM, or a data set, with the NFS features it asks for,
    reachable from every DGX."""
    seen_paths: dict[str, int] = {}
    dataset_volumes = m.dataset_volumes(ctx.model)
    for index, mount in enumerate(m.as_list(m.as_dict(ctx.model.get("compute")).get("mounts"))):
        mount = m.as_dict(mount)
        path = ("compute", "mounts", index)
        mount_point = m.as_str(mount.get("path"))
        if mount_point and mount_point.startswith("/"):
            problem = normalised_path_problem(mount_point)
            system = next((d for d in SYSTEM_DIRECTORIES if mount_point == d or mount_point.startswith(d + "/")), None)
            if problem:
                ctx.error("mount", path + ("path",), f"mount point {mount_point} {problem}", "write the directory as /mnt/<name>")
            elif system:
                ctx.error("mount", path + ("path",), f"mount point {mount_point} is (inside) {system}, a system directory of the DGX",
                          "mount the FlexGroup under /mnt, /raid or another data directory")
            elif mount_point.rstrip("/") == DGX_LOCAL_RAID:
                ctx.error("mount", path + ("path",), f"mount point {DGX_LOCAL_RAID} is DGX OS's local NVMe RAID; the mount would hide "
                          "its cache of training data", f"mount the FlexGroup under /mnt, or in a directory below {DGX_LOCAL_RAID}")
        if mount.get("path") in seen_paths:
            ctx.error("mount", path + ("path",), f"mount point {mount.get('path')} is used twice")
        seen_paths.setdefault(m.as_str(mount.get("path")) or "", index)
        dataset = m.as_str(mount.get("dataset"))
        named = [key for key in ("svm", "flexgroup") if key in mount]
        if dataset and named:
            ctx.error("mount", path + (named[0],), f"mount {mount_point} names data set {dataset} and a FlexGroup's {' and '.join(named)}",
                      "keep dataset (its SVM and volume come from the data set), or svm and flexgroup")
            continue
        if not dataset and len(named) < 2:
            ctx.error("mount", path, f"mount {mount_point} names no volume: it needs svm and flexgroup, or dataset",
                      "add dataset: <a data set's name>, or svm and flexgroup")
            continue
        if dataset:
            if dataset not in dataset_volumes:
                ctx.error("dangling-reference", path + ("dataset",), f"data set {dataset} is not declared",
                          f"use one of {', '.join(sorted(dataset_volumes)) or '(none: declare it under datasets)'}")
                continue
            svm = next((s for s in ctx.svms if s["name"] == dataset_volumes[dataset]["svm"]), None)
            if svm is None:
                continue  # the data set's own rule reports its SVM
        else:
            svm = next((s for s in ctx.svms if s["name"] == mount.get("svm")), None)
        if svm is None:
            if isinstance(mount.get("svm"), str):
                ctx.error("dangling-reference", path + ("svm",), f"SVM {mount.get('svm')} is not declared",
                          f"use one of {', '.join(s['name'] for s in ctx.svms)}")
            continue
        flexgroup_names = [m.as_dict(f).get("name") for f in m.as_list(svm.get("flexgroups"))]
        if not dataset and mount.get("flexgroup") not in flexgroup_names:
            ctx.error("dangling-reference", path + ("flexgroup",), f"FlexGroup {mount.get('flexgroup')} is not declared in SVM {svm['name']}",
                      f"use one of {', '.join(str(n) for n in flexgroup_names) or '(none)'}")
            continue
        nfs = m.as_dict(svm.get("nfs"))
        version = str(mount.get("nfs_version", "4.1"))
        if version == "4.1" and nfs.get("v41") is not True:
            ctx.error("mount", path + ("nfs_version",), f"mount asks for NFSv4.1 but SVM {svm['name']} has v41 off", "enable nfs.v41 or mount with 3")
        if version == "3" and nfs.get("v3") is not True:
            ctx.error("mount", path + ("nfs_version",), f"mount asks for NFSv3 but SVM {svm['name']} has v3 off", "enable nfs.v3 or mount with 4.1")
        if mount.get("transport") == "rdma":
            if nfs.get("rdma") is not True:
                ctx.error("mount", path + ("transport",), f"RDMA mount but SVM {svm['name']} has rdma off", "set nfs.rdma: true")
            for host, data in ctx.dgx.items():
                if data.get("roce") is not True:
                    ctx.error("mount", path + ("transport",), f"RDMA mount but {host} has roce off", "set roce: true on the DGX or mount over tcp")
            # NFS over RDMA needs RDMA on the LIF too (net int modify -rdma-protocols roce): a LIF
            # without it answers only TCP, and the mount fails on the DGX that the plan sends there.
            rdma_of = {lif["name"]: lif["rdma"] for lif in ctx.lifs}
            without = sorted({entry["lif"] for host in ctx.dgx for entry in ctx.mount_plan(host)
                              if entry["path"] == mount.get("path") and rdma_of.get(entry["lif"]) is False}, key=m.natural_key)
            if without:
                ctx.error("mount", path + ("transport",),
                          f"RDMA mount, but the mount plan sends DGX to LIF(s) without RDMA: {', '.join(without)}",
                          "set rdma: true on the SVM's data_lifs (or on those explicit LIFs), or mount over tcp")
        limit = m.as_int(nfs.get("tcp_max_transfer_size"))
        for size_key in ("rsize", "wsize"):
            size = m.as_int(mount.get(size_key))
            if limit and size and size > limit:
                ctx.error("mount", path + (size_key,), f"{size_key} {size} exceeds the SVM's tcp_max_transfer_size {limit}",
                          f"use at most {limit}")
        lif_networks = {lif["network"] for lif in ctx.lifs if lif["svm"] == svm["name"]}
        for host in ctx.dgx:
            host_networks = {nic["network"] for nic in m.host_interfaces(ctx.model, host).values()
                             if nic["kind"] in ("storage", "inband") and nic["address"]}
            if host_networks and not host_networks & lif_networks:
                ctx.error("mount", path, f"{host} has no storage or in-band network on which SVM {svm['name']} has a data LIF; "
                          f"it cannot mount {mount.get('path')}", "add a LIF on the host's storage (or in-band) network")
