#!/usr/bin/python
"""The facts the dgx_node role branches on, gathered in one pass: hardware present, capability detected."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: dgx_host_facts
short_description: Detect what a DGX (or any apt-family host) can do before the compute layer configures it
description:
  - Gathers, in one module run, the facts the C(dgx_node) role branches on, as C(aipod_host).
  - C(network) - whether the host uses netplan (C(netplan) installed and files in C(/etc/netplan)) or
    plain systemd-networkd, whether networkd is enabled and running, and which interfaces are the
    management path (the default route, the interfaces holding O(mgmt_addresses), the route back
    to the SSH client) so that storage configuration can refuse to touch them, and whether the SSH
    client's address falls inside O(storage_networks).
  - C(nics) - for each of O(nics), whether it exists, its driver, whether it is a Mellanox/NVIDIA
    ConnectX NIC with RDMA devices, its MTU and its ring sizes (current and maximum) where the
    driver reports them.
  - C(nfs) - whether this kernel can mount NFS now (C(nfs) in C(/proc/filesystems) or the module
    loadable, and the privilege to mount), with the reason when it cannot, and the NFS mounts that are
    active now (C(mounts), from C(/proc/mounts) - mount point to source, type and options).
  - C(packages_missing) - which of O(packages) are not installed (dpkg).
  - C(tools) - paths of the programs the role may use (mlnx_qos, nvidia-smi, nvidia-container-runtime,
    nvidia-ctk, dockerd, containerd, netplan, ethtool), or null.
  - C(container_runtime) - Docker's C(daemon.json) (C(docker_config), null when it is not valid JSON) and
    the default runtime configured for containerd.
  - C(user_conflicts) - why O(user) could not get its uid/gid here (another account holds them, or
    the account exists with other ids); C(user_state) - the account and group of O(user) as they are.
  - C(os) - C(/etc/os-release) (C(id), C(id_like), C(pretty_name)) and whether it is of the Debian family.
  - C(sysctl) - for each of O(sysctl), its running value (null when this kernel lacks it) and whether it
    can be written; C(units) - for each of O(units), its unit-file state and active state;
    C(fstab) - the C(/etc/fstab) lines (their fields) of each of O(fstab_paths);
    C(network.aipod_files) - the SHA-1 of every storage network file of the role (C(60-aipod-*)) in
    C(/etc/netplan) and C(/etc/systemd/network). The role compares these with the site model to
    decide whether the host needs any change at all (filter C(aipod_compute_pending)).
    C(network.shadowing_files) - on a systemd-networkd host, for each of O(nics), the C(.network) files of
    others that networkd would apply instead of the role's C(60-aipod-<nic>.network) (their [Match] Name=
    fits the NIC, or they match every link, and their names sort first).
  - C(files) - for each of O(files) and each entry of O(file_directories), its type (C(file), C(directory),
    C(other)), mode, owner, group and, for a file, the SHA-1 of its content; null when it is missing, and
    C(nfs mount) for an active NFS mount point, which is not looked into.
  - C(gpus) (with O(gpus)) - the GPUs as C(nvidia-smi -q -x) reports them (count, models, driver, CUDA,
    ECC errors; C(present) false with the reason on a host without them), and C(gpus_summary) in one line.
  - With O(refuse_unsafe), the module fails, before anything is changed, when the plan would harm the
    host or the host is not what the model says (see the option), and says every reason at once.
version_added: "1.0.0"
author: ONTAP AI pod bundle contributors (!UNKNOWN)
options:
  nics:
    description: Network interfaces to describe (the storage NICs of the site model).
    type: list
    elements: str
    default: []
  bonds:
    description:
      - Storage bonds of the site model (the plan's C(bond) entries), each with C(name) and C(members). Each is read
        (does it exist, is it a bond, its members), and refused when it cannot be the model's bond (C(refuse_unsafe)).
    type: list
    elements: dict
    default: []
  mgmt_addresses:
    description: Addresses of the management path (the host's management address, Ansible's target address).
    type: list
    elements: str
    default: []
  storage_networks:
    description:
      - Networks (CIDR) the storage configuration will route to (its subnets and static routes); the
        result says which of them hold the SSH client's address (C(network.ssh_client_in_storage)).
    type: list
    elements: str
    default: []
  packages:
    description: Debian packages to check for.
    type: list
    elements: str
    default: []
  user:
    description: The common account to check (C(name), C(uid), C(group), C(gid)).
    type: dict
  sysctl:
    description: Kernel parameters (dotted names) to read.
    type: list
    elements: str
    default: []
  units:
    description: systemd units whose unit-file state and active state to read.
    type: list
    elements: str
    default: []
  fstab_paths:
    description: Mount points whose C(/etc/fstab) lines to read.
    type: list
    elements: path
    default: []
  files:
    description:
      - Files and directories to describe in C(files) (type, mode, owner, group, and the SHA-1 of a file's content).
    type: list
    elements: path
    default: []
  file_directories:
    description:
      - Directories each of whose entries (hidden ones included) is described in C(files) as well.
      - The temporary files a write of C(config_files) leaves when its run is killed (C(.config_files-*)) are
        described too, in these directories and in the directories of O(files).
    type: list
    elements: path
    default: []
  rollback_state_dir:
    description:
      - State directory of C(aipod-storage-net) (role dgx_node). The result's C(storage_net_rollback) says
        whether a storage-network change awaits confirmation (C(pending), with C(armed_at) and C(due_at) in
        epoch seconds, and C(timer_active)) and when the timer last rolled one back (C(rolled_back_at)).
    type: path
  rollback_timer:
    description: The systemd timer of that rollback, read for C(storage_net_rollback.timer_active).
    type: str
    default: aipod-storage-net-rollback.timer
  gpus:
    description: Also read the GPUs (C(nvidia-smi -q -x)).
    type: bool
    default: false
  expected_gpus:
    description:
      - The model's GPUs of the host (C(count), C(model)). With O(gpus) and O(refuse_unsafe), a host with GPUs
        whose count differs is refused; a different model, or uncorrectable ECC errors, give a warning. A
        host without GPUs is reported as such and not refused.
    type: dict
  refuse_unsafe:
    description:
      - Fail, having changed nothing, when the host is not of the Debian family, a NIC of O(nics) is
        absent or carries the management path, a C(.network) file of others would take precedence over the
        role's for a NIC of O(nics), the SSH client is inside O(storage_networks), O(user)
        cannot have its ids, Docker is installed with a C(daemon.json) that is not a JSON object, or
        (with O(gpus)) its GPU count differs from O(expected_gpus).
    type: bool
    default: false
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.facts
  - ontap_ai.pod.attributes.reads
attributes:
  facts:
    support: full
"""

EXAMPLES = r"""
- name: Detect what this host can do
  ontap_ai.pod.dgx_host_facts:
    nics: [enp225s0f0, enp225s0f1]
    mgmt_addresses: ["{{ ansible_host }}"]
    packages: [nfs-common, ethtool]
    user: {name: aipod, uid: 2000, group: aipod, gid: 2000}
"""

RETURN = r"""
ansible_facts:
  description: Facts set by the module.
  returned: always
  type: dict
  contains:
    aipod_host:
      description: What the host has and can do (see the description for each key).
      type: dict
      returned: always
      sample:
        network: {renderer: networkd, netplan_files: [], networkd_enabled: false, networkd_active: false,
                  mgmt_interfaces: [eth0, lo], default_route_interfaces: [eth0], ssh_client: 172.31.250.1,
                  ssh_client_in_storage: [], shadowing_files: {}}
        nics: {eth1: {present: true, driver: veth, mellanox: false, rdma_devices: [], mtu: 9000, rings: null,
                      ring_error: "netlink error: Operation not supported"}}
        nfs: {kernel: false, loadable: false, privileged: false, can_mount: false,
              reason: "nfs is not in /proc/filesystems and no nfs module can be loaded",
              mounts: {/mnt/data: {src: "172.31.251.101:/data", fstype: nfs4,
                                   options: [rw, vers=4.1, rsize=262144, wsize=262144, hard, proto=tcp, nconnect=16]}}}
        packages_missing: []
        tools: {ethtool: /usr/sbin/ethtool, mlnx_qos: null}
        container_runtime: {docker_config: {}, containerd_default: null}
        user_conflicts: []
        user_state: {user: {uid: 2000, gid: 2000, shell: /bin/bash}, group_gid: 2000}
        os: {id: debian, id_like: "", pretty_name: "Debian GNU/Linux 12 (bookworm)", debian_family: true}
        sysctl: {net.core.rmem_max: {value: "268435456", writable: false}}
        units: {aipod-roce-qos.service: {enabled: enabled, active: inactive}}
        fstab: {/mnt/data: [["172.31.251.101:/data", /mnt/data, nfs4, "rw,vers=4.1,hard", "0", "0"]]}
        files: {/etc/sysctl.d/90-aipod-nfs.conf: {type: file, mode: "0644", owner: root, group: root,
                                                  sha1: 0beec7b5ea3f0fdbc95d0dd47f3c5bc275da8a33},
                /etc/modprobe.d/aipod-sunrpc.conf: null}
        storage_net_rollback: {pending: true, timer_active: true, armed_at: 1764031200, due_at: 1764031320,
                               rolled_back_at: null}
        gpus: {present: false, reason: "nvidia-smi not found (no NVIDIA driver installed)", count: 0}
        gpus_summary: "no GPUs: nvidia-smi not found (no NVIDIA driver installed); GPU checks skipped"
"""

import fnmatch
import glob
import grp
import hashlib
import ipaddress
import json
import os
import pwd
import re
import stat
from collections.abc import Callable
from typing import Any

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ontap_ai.pod.plugins.module_utils.aipod_compute import fstab, gpus, nfs
from ansible_collections.ontap_ai.pod.plugins.module_utils.aipod_compute.leftovers import is_temporary
from ansible_collections.ontap_ai.pod.plugins.module_utils.aipod_compute.nfs import active_nfs_mounts, nfs_capability
from ansible_collections.ontap_ai.pod.plugins.module_utils.aipod_compute.sysctl import name_problem, proc_path

__all__ = ["active_nfs_mounts", "nfs_capability"]  # the tests read them here, where the facts come from

MELLANOX_DRIVERS = ("mlx5_core", "mlx4_en", "mlx4_core")
TOOLS = ("mlnx_qos", "nvidia-smi", "nvidia-container-runtime", "nvidia-ctk", "dockerd", "containerd", "netplan", "ethtool")
NETWORK_DIRS = ("/etc/netplan", "/etc/systemd/network")
# Where systemd-networkd reads .network files, in the order a same-named file overrides (systemd.network(5)).
NETWORKD_DIRS = ("/etc/systemd/network", "/run/systemd/network", "/usr/local/lib/systemd/network",
                 "/usr/lib/systemd/network", "/lib/systemd/network")
OS_RELEASE = "/etc/os-release"
NETWORKD_UNIT = "systemd-networkd.service"


# ----------------------------------------------------------------------------- pure functions
def parse_ethtool_rings(text: str) -> dict[str, int] | None:
    """Current and maximum RX/TX ring sizes from `ethtool -g` (None when the driver reports none)."""
    section = None
    values: dict[str, int] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.lower().startswith("pre-set maximums"):
            section = "max"
        elif stripped.lower().startswith("current hardware settings"):
            section = "current"
        match = re.match(r"^(RX|TX):\s+(\d+)", stripped)
        if match and section:
            key = match.group(1).lower() + ("_max" if section == "max" else "")
            values[key] = int(match.group(2))
    if not {"rx", "tx", "rx_max", "tx_max"} <= set(values):
        return None
    return values


def parse_ethtool_driver(text: str) -> str | None:
    match = re.search(r"^driver:\s*(\S+)", text, re.MULTILINE)
    return match.group(1) if match else None


def docker_daemon_config(daemon_json: str | None) -> dict | None:
    """Docker's daemon.json as a dict ({} when absent or empty; None when it is not a JSON object)."""
    if not (daemon_json or "").strip():
        return {}
    try:
        data = json.loads(daemon_json or "")
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def default_runtime_of_containerd(config_toml: str | None) -> str | None:
    match = re.search(r'^\s*default_runtime_name\s*=\s*"([^"]+)"', config_toml or "", re.MULTILINE)
    return match.group(1) if match else None


def user_conflicts(user: dict | None, by_name: Callable, by_uid: Callable, group_by_name: Callable,
                   group_by_gid: Callable) -> list[str]:
    """Why the common account cannot have its ids here (each lookup returns None when absent)."""
    if not user:
        return []
    problems = []
    name, uid = user.get("name"), user.get("uid")
    group, gid = user.get("group") or name, user.get("gid")
    holder = by_uid(uid) if uid is not None else None
    if holder is not None and holder.pw_name != name:
        problems.append(f"uid {uid} belongs to user '{holder.pw_name}'")
    existing = by_name(name) if name else None
    if existing is not None and uid is not None and existing.pw_uid != uid:
        problems.append(f"user '{name}' exists with uid {existing.pw_uid}, not {uid}")
    group_holder = group_by_gid(gid) if gid is not None else None
    if group_holder is not None and group_holder.gr_name != group:
        problems.append(f"gid {gid} belongs to group '{group_holder.gr_name}'")
    existing_group = group_by_name(group) if group else None
    if existing_group is not None and gid is not None and existing_group.gr_gid != gid:
        problems.append(f"group '{group}' exists with gid {existing_group.gr_gid}, not {gid}")
    return problems


def networks_holding(address: str | None, networks: list[str]) -> list[str]:
    """The networks (CIDR) that contain address; unparsable entries hold nothing."""
    if not address:
        return []
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return []
    holding = []
    for network in networks:
        try:
            if ip in ipaddress.ip_network(network, strict=False):
                holding.append(network)
        except ValueError:
            continue
    return holding


def rollback_state(pending: str | None, rolled_back: str | None, timer_active: bool) -> dict[str, Any]:
    """The storage-network rollback's state from its files: "<armed-at> <due-at>" and "<rolled-back-at>"."""
    def epochs(text: str | None) -> list[int]:
        return [int(word) for word in (text or "").split() if word.isdigit()]

    armed = epochs(pending)
    rolled = epochs(rolled_back)
    return {"pending": pending is not None or timer_active, "timer_active": timer_active,
            "armed_at": armed[0] if armed else None, "due_at": armed[1] if len(armed) > 1 else None,
            "rolled_back_at": rolled[0] if rolled else (0 if rolled_back is not None else None)}


def parse_os_release(text: str | None) -> dict[str, Any]:
    """id, id_like, pretty_name of /etc/os-release, and whether the OS is of the Debian family."""
    values = {}
    for line in (text or "").splitlines():
        key, sep, value = line.partition("=")
        if sep:
            values[key.strip()] = value.strip().strip('"').strip("'")
    family = {values.get("ID", "")} | set(values.get("ID_LIKE", "").split())
    return {"id": values.get("ID", ""), "id_like": values.get("ID_LIKE", ""),
            "pretty_name": values.get("PRETTY_NAME", values.get("ID", "an unknown OS")), "debian_family": "debian" in family}


def systemctl_show(text: str, units: list[str]) -> dict[str, dict[str, str]]:
    """{unit: {enabled, active}} from `systemctl show -p Id -p UnitFileState -p ActiveState UNIT...`."""
    states: dict[str, dict[str, str]] = {unit: {"enabled": "", "active": ""} for unit in units}
    for block, unit in zip(text.strip().split("\n\n"), units):
        values = dict(line.split("=", 1) for line in block.splitlines() if "=" in line)
        states[unit] = {"enabled": values.get("UnitFileState", ""), "active": values.get("ActiveState", "")}
    return states


def bonds_of_bundle(files: dict[str, str]) -> list[str]:
    """The bonds the bundle's live network files define: a 60-aipod-<bond>.netdev of systemd-networkd, or an
    entry under `bonds:` of its netplan file (files: path -> text)."""
    names = set()
    for path, text in files.items():
        base = os.path.basename(path)
        if base.endswith(".netdev") and "Kind=bond" in text.splitlines():
            names.add(base[len("60-aipod-"):-len(".netdev")])
        elif base.endswith(".yaml"):
            section = False
            for line in text.splitlines():
                if line.startswith("  ") and not line.startswith("   "):
                    section = line.strip() == "bonds:"
                elif section and line.startswith("    ") and not line.startswith("     ") and line.rstrip().endswith(":"):
                    names.add(line.strip()[:-1])
    return sorted(names)


def refusals(host: dict[str, Any], nics: list[str], user: dict | None, bonds: list[dict] | None = None) -> list[str]:
    """Why the compute layer must not touch this host (each reason says what to fix); [] when it may.

    bonds: the model's storage bonds ({name, members}), read into host["bonds"] and the NICs' masters.
    A bond the bundle's own files made (host["network"]["aipod_bonds"]) is the bundle's to change:
    its members and its name may differ from the model's, the storage network script makes it anew.
    """
    reasons = []
    own = set(host["network"].get("aipod_bonds") or [])
    for bond in bonds or []:
        name, members = bond["name"], list(bond.get("members") or [])
        found = (host.get("bonds") or {}).get(name) or {}
        if name in host["network"]["mgmt_interfaces"]:
            reasons.append(f"Storage bond {name} carries the management path; name another bond in storage_bonds.")
        elif found.get("present") and not found.get("is_bond"):
            reasons.append(f"{name} exists on this host and is not a bond; the model's storage bond needs another name.")
        elif found.get("present") and name not in own and set(found.get("slaves") or []) - set(members):
            reasons.append(f"Bond {name} exists here with members {', '.join(found['slaves'])}, not only the model's "
                           f"{', '.join(members)}; take the others out of it by hand, then run again.")
        for member in members:
            master = host["nics"].get(member, {}).get("master")
            if master and master != name and master not in own:
                reasons.append(f"Storage NIC {member} belongs to {master}, not to the model's bond {name}: "
                               f"release it from {master} (docs/brownfield.md), then run again.")
    if not host["os"]["debian_family"]:
        reasons.append(f"It runs {host['os']['pretty_name']}; the dgx_node role supports DGX OS, Ubuntu and Debian.")
    clash = [nic for nic in nics if nic in host["network"]["mgmt_interfaces"]]
    if clash:
        reasons.append(f"Storage NIC(s) {', '.join(clash)} carry the management path (default route or the management "
                       "address); fix storage_nics in host_vars.")
    absent = [nic for nic in nics if not host["nics"].get(nic, {}).get("present")]
    if absent:
        reasons.append(f"NIC(s) {', '.join(absent)} of the site model do not exist on this host; fix their names in "
                       "host_vars (ip link lists the NICs).")
    for nic, paths in sorted((host["network"].get("shadowing_files") or {}).items()):
        reasons.append(f"Storage NIC {nic} is also configured by {', '.join(paths)}, which systemd-networkd applies "
                       f"instead of the bundle's 60-aipod-{nic}.network (the first matching file by name wins): "
                       "remove or rename it (docs/brownfield.md), then run again.")
    inside = host["network"]["ssh_client_in_storage"]
    if inside:
        reasons.append(f"Ansible connects from {host['network']['ssh_client']}, inside the storage network(s)/route(s) "
                       f"{', '.join(inside)}: applying them would move the management path.")
    if host["user_conflicts"]:
        reasons.append(f"kubernetes.common_user {(user or {}).get('name', '')} cannot have its ids here: "
                       f"{'; '.join(host['user_conflicts'])}; free them or choose others in group_vars/all/kubernetes.yml.")
    if host["container_runtime"]["docker_config"] is None and host["tools"].get("dockerd"):
        reasons.append("/etc/docker/daemon.json is not a JSON object; fix it by hand, then re-run.")
    return reasons


def networkd_match_names(text: str) -> list[str] | None:
    """The Name= patterns of a .network file's [Match] section: [] when it has no match setting at all
    (networkd then applies it to every link), None when it matches by other settings only."""
    section, names, others = "", [], False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            continue
        if section == "Match" and "=" in line:
            key, value = (part.strip() for part in line.split("=", 1))
            if key == "Name":
                names += value.split()
            else:
                others = True
    return None if others and not names else names


def _name_matches(name: str, patterns: list[str]) -> bool:
    if not patterns:
        return True
    if patterns[0].startswith("!"):  # networkd: a leading "!" inverts the whole list
        return not any(fnmatch.fnmatchcase(name, pattern.lstrip("!")) for pattern in patterns)
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


def networkd_shadowing(files: dict[str, str], nics: list[str]) -> dict[str, list[str]]:
    """For each NIC, the .network files of others that systemd-networkd applies instead of the role's
    60-aipod-<nic>.network: networkd takes the first file, in name order, whose [Match] fits.
    files: the effective .network files (path -> text), one per name."""
    found: dict[str, list[str]] = {}
    for nic in nics:
        ours = f"60-aipod-{nic}.network"
        for path in sorted(files, key=os.path.basename):
            name = os.path.basename(path)
            if name >= ours or name.startswith("60-aipod-"):
                continue
            patterns = networkd_match_names(files[path])
            if patterns is not None and _name_matches(nic, patterns):
                found.setdefault(nic, []).append(path)
    return found


def networkd_files(directories: tuple[str, ...] = NETWORKD_DIRS) -> dict[str, str]:
    """The .network files networkd reads (path -> text): for each name, the one of the first directory
    (a name masked with a link to /dev/null hides the others and is left out)."""
    seen: set[str] = set()
    chosen: dict[str, str] = {}
    for directory in directories:
        for name in sorted(_entries(directory)):
            if not name.endswith(".network") or name in seen:
                continue
            seen.add(name)
            path = os.path.join(directory, name)
            if os.path.realpath(path) == os.devnull:
                continue
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    chosen[path] = handle.read()
            except OSError:
                continue
    return chosen


def netplan_files(root: str = "/") -> list[str]:
    found = []
    for directory in ("etc/netplan", "run/netplan", "lib/netplan"):
        found += glob.glob(os.path.join(root, directory, "*.yaml")) + glob.glob(os.path.join(root, directory, "*.yml"))
    return sorted(found)


# ----------------------------------------------------------------------------- reading the host
def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def _sha1(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return hashlib.sha1(handle.read()).hexdigest()
    except OSError:
        return None


def file_state(path: str, active_mounts: dict) -> dict[str, Any] | None:
    """Type, mode, owner and group of a path, and the SHA-1 of a regular file; None when it is missing.

    An active NFS mount point is named as such and not looked into: a stat of it would hang while
    its server does not answer.
    """
    if path in active_mounts:
        return {"type": "nfs mount"}
    try:
        status = os.stat(path)
    except OSError:
        return None
    owner = _lookup(pwd.getpwuid, status.st_uid)
    group = _lookup(grp.getgrgid, status.st_gid)
    kind = "directory" if stat.S_ISDIR(status.st_mode) else "file" if stat.S_ISREG(status.st_mode) else "other"
    state = {"type": kind, "mode": f"{stat.S_IMODE(status.st_mode):04o}",
             "owner": owner.pw_name if owner else str(status.st_uid), "group": group.gr_name if group else str(status.st_gid)}
    if kind == "file":
        state["sha1"] = _sha1(path)
    return state


def files_state(paths: list[str], directories: list[str], active_mounts: dict) -> dict[str, dict[str, Any] | None]:
    """file_state of each path, of every entry in each of directories (the files whose names the facts
    decide, hidden ones included), and of the temporary files an interrupted write left beside them."""
    listed = list(paths)
    for directory in directories:
        listed += sorted(os.path.join(directory, name) for name in _entries(directory))
    parents = sorted({os.path.dirname(path) for path in paths if path not in active_mounts} | set(directories))
    for parent in parents:
        listed += sorted(os.path.join(parent, name) for name in _entries(parent) if is_temporary(name))
    return {path: file_state(path, active_mounts) for path in dict.fromkeys(listed)}


def _entries(directory: str) -> list[str]:
    try:
        return os.listdir(directory)
    except OSError:
        return []


def user_state(user: dict | None) -> dict[str, Any]:
    """The common account and its group as they are here (None where absent)."""
    if not user:
        return {"user": None, "group_gid": None}
    account = _lookup(pwd.getpwnam, user.get("name"))
    group = _lookup(grp.getgrnam, user.get("group") or user.get("name"))
    return {"user": {"uid": account.pw_uid, "gid": account.pw_gid, "shell": account.pw_shell} if account else None,
            "group_gid": group.gr_gid if group else None}


def _lookup(function: Callable, key: Any) -> Any:
    try:
        return function(key)
    except (KeyError, TypeError, OverflowError):
        return None


class HostReader:
    """Everything the module asks the host, through run_command and the file system."""

    def __init__(self, module: AnsibleModule) -> None:
        self.module = module
        self.tools = {tool: module.get_bin_path(tool, opt_dirs=["/usr/sbin", "/sbin", "/usr/local/sbin"]) for tool in TOOLS}
        self.ip = module.get_bin_path("ip", opt_dirs=["/usr/sbin", "/sbin"])

    def run(self, *argv: str) -> tuple[int, str, str]:
        return self.module.run_command(list(argv), environ_update={"LC_ALL": "C"})

    def ip_json(self, *argv: str) -> list:
        if not self.ip:
            return []
        rc, out, _err = self.run(self.ip, "-j", *argv)
        try:
            return json.loads(out) if rc == 0 and out.strip() else []
        except ValueError:
            return []

    def network(self, mgmt_addresses: list[str], storage_networks: list[str], nics: list[str],
                networkd: dict[str, str]) -> dict[str, Any]:
        defaults = sorted({route.get("dev") for route in self.ip_json("-4", "route", "show", "default") if route.get("dev")})
        holders = set()
        for link in self.ip_json("-4", "addr", "show"):
            for info in link.get("addr_info", []):
                if info.get("local") in mgmt_addresses:
                    holders.add(link.get("ifname"))
        client = (os.environ.get("SSH_CONNECTION") or "").split()
        back = set()
        if client:
            back = {route.get("dev") for route in self.ip_json("-4", "route", "get", client[0]) if route.get("dev")}
        files = netplan_files()
        aipod_files, texts = {}, {}
        for directory in NETWORK_DIRS:
            for path in sorted(glob.glob(os.path.join(directory, "60-aipod-*"))):
                aipod_files[path] = _sha1(path)
                texts[path] = _read(path) or ""
        networkd_enabled = networkd.get("enabled") == "enabled"
        networkd_active = networkd.get("active") == "active"
        renderer = "netplan" if files and self.tools["netplan"] else "networkd"
        return {
            "renderer": renderer,
            # netplan writes networkd's files itself, merging every YAML; the check is networkd's own order.
            "shadowing_files": networkd_shadowing(networkd_files(), nics) if renderer == "networkd" else {},
            "netplan_files": files,
            "networkd_enabled": networkd_enabled,
            "networkd_active": networkd_active,
            "default_route_interfaces": defaults,
            "mgmt_interfaces": sorted((set(defaults) | holders | back | {"lo"}) - {None}),
            "ssh_client": client[0] if client else None,
            "ssh_client_in_storage": networks_holding(client[0] if client else None, storage_networks),
            "aipod_files": aipod_files,
            "aipod_bonds": bonds_of_bundle(texts),
        }

    def nic(self, name: str) -> dict[str, Any]:
        base = f"/sys/class/net/{name}"
        if not os.path.exists(base):
            return {"present": False}
        driver_link = os.path.join(base, "device", "driver")
        driver = os.path.basename(os.readlink(driver_link)) if os.path.islink(driver_link) else None
        ethtool = self.tools["ethtool"]
        rings, ring_error = None, "ethtool is not installed"
        if ethtool:
            if driver is None:
                driver = parse_ethtool_driver(self.run(ethtool, "-i", name)[1])
            rc, out, err = self.run(ethtool, "-g", name)
            rings = parse_ethtool_rings(out) if rc == 0 else None
            ring_error = None if rings else ((err or out).strip() or "the driver reports no ring sizes")
        rdma = sorted(os.listdir(os.path.join(base, "device", "infiniband"))) \
            if os.path.isdir(os.path.join(base, "device", "infiniband")) else []
        mtu = (_read(os.path.join(base, "mtu")) or "").strip()
        master = os.path.join(base, "master")
        return {"present": True, "driver": driver, "mellanox": driver in MELLANOX_DRIVERS, "rdma_devices": rdma,
                "mtu": int(mtu) if mtu.isdigit() else None, "rings": rings, "ring_error": ring_error,
                "master": os.path.basename(os.readlink(master)) if os.path.islink(master) else None}

    def bond(self, name: str) -> dict[str, Any]:
        """Whether a device of this name exists, whether it is a bond, and its members."""
        base = f"/sys/class/net/{name}"
        if not os.path.exists(base):
            return {"present": False, "is_bond": False, "slaves": []}
        slaves = _read(os.path.join(base, "bonding", "slaves"))
        return {"present": True, "is_bond": os.path.isdir(os.path.join(base, "bonding")), "slaves": (slaves or "").split()}

    def nfs(self) -> dict[str, Any]:
        return nfs.read(self.module)

    def units(self, units: list[str]) -> dict[str, dict[str, str]]:
        if not units:
            return {}
        argv = ["systemctl", "show", "-p", "Id", "-p", "UnitFileState", "-p", "ActiveState", *units]
        rc, out, _err = self.run(*argv)
        return systemctl_show(out if rc == 0 else "", units)

    def packages_missing(self, packages: list[str]) -> list[str]:
        if not packages:
            return []
        rc, out, _err = self.run("dpkg-query", "-W", "-f", "${Package} ${Status}\\n", *packages)
        installed = {line.split()[0] for line in out.splitlines() if line.endswith("install ok installed")}
        return [package for package in packages if package not in installed]


def gather(module: AnsibleModule) -> dict[str, Any]:
    params = module.params
    reader = HostReader(module)
    # Every unit the reading needs, in one systemctl run: a process less per unit on every DGX.
    timer = params["rollback_timer"] if params["rollback_state_dir"] else None
    units = reader.units(list(dict.fromkeys([NETWORKD_UNIT, *params["units"], *([timer] if timer else [])])))
    host = {
        # A bond's own .network (60-aipod-<bond>.network) may be shadowed like a NIC's.
        "network": reader.network(params["mgmt_addresses"], params["storage_networks"],
                                  params["nics"] + [bond["name"] for bond in params["bonds"] if bond.get("name")], units[NETWORKD_UNIT]),
        "nics": {name: reader.nic(name) for name in params["nics"]},
        "nfs": reader.nfs(),
        "packages_missing": reader.packages_missing(params["packages"]),
        "tools": reader.tools,
        "container_runtime": {
            "docker_config": docker_daemon_config(_read("/etc/docker/daemon.json")),
            "containerd_default": default_runtime_of_containerd(_read("/etc/containerd/config.toml")),
        },
        "user_conflicts": user_conflicts(params["user"], lambda n: _lookup(pwd.getpwnam, n), lambda u: _lookup(pwd.getpwuid, u),
                                         lambda n: _lookup(grp.getgrnam, n), lambda g: _lookup(grp.getgrgid, g)),
        "user_state": user_state(params["user"]),
        "os": parse_os_release(_read(OS_RELEASE)),
        "sysctl": {name: {"value": _read(proc_path(name)), "writable": os.access(proc_path(name), os.W_OK)}
                   for name in params["sysctl"]},
        "units": {unit: units[unit] for unit in params["units"]},
        "fstab": fstab.lines(_read("/etc/fstab"), params["fstab_paths"]),
        "bonds": {bond["name"]: reader.bond(bond["name"]) for bond in params["bonds"] if bond.get("name")},
    }
    host["files"] = files_state(params["files"], params["file_directories"], host["nfs"].get("mounts") or {})
    if timer:
        host["storage_net_rollback"] = rollback_state(_read(os.path.join(params["rollback_state_dir"], "pending")),
                                                      _read(os.path.join(params["rollback_state_dir"], "rolled-back")),
                                                      units[timer].get("active") == "active")
    return host


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "nics": {"type": "list", "elements": "str", "default": []},
            "bonds": {"type": "list", "elements": "dict", "default": []},
            "mgmt_addresses": {"type": "list", "elements": "str", "default": []},
            "storage_networks": {"type": "list", "elements": "str", "default": []},
            "packages": {"type": "list", "elements": "str", "default": []},
            "user": {"type": "dict"},
            "sysctl": {"type": "list", "elements": "str", "default": []},
            "units": {"type": "list", "elements": "str", "default": []},
            "fstab_paths": {"type": "list", "elements": "path", "default": []},
            "files": {"type": "list", "elements": "path", "default": []},
            "file_directories": {"type": "list", "elements": "path", "default": []},
            "rollback_state_dir": {"type": "path"},
            "rollback_timer": {"type": "str", "default": "aipod-storage-net-rollback.timer"},
            "gpus": {"type": "bool", "default": False},
            "expected_gpus": {"type": "dict"},
            "refuse_unsafe": {"type": "bool", "default": False},
        },
        supports_check_mode=True,
    )
    refused = [f"{name!r}: {problem}" for name in module.params["sysctl"] if (problem := name_problem(name))]
    if refused:  # before any file under /proc/sys is opened
        module.fail_json(msg="not kernel parameter names: " + "; ".join(sorted(refused)))
    host = gather(module)
    gpu_errors: list[str] = []
    if module.params["gpus"]:
        expected = module.params["expected_gpus"] or {}
        host["gpus"] = gpus.gather(module)
        host["gpus_summary"] = gpus.summary(host["gpus"])
        gpu_errors, warnings = gpus.compare(host["gpus"], expected.get("count"), expected.get("model"))
        for warning in warnings:
            module.warn(warning)
    reasons = (refusals(host, module.params["nics"], module.params["user"], module.params["bonds"]) + gpu_errors) \
        if module.params["refuse_unsafe"] else []
    if reasons:
        module.fail_json(msg="nothing was changed. " + " ".join(reasons), reasons=reasons, ansible_facts={"aipod_host": host})
    module.exit_json(changed=False, ansible_facts={"aipod_host": host})


if __name__ == "__main__":
    main()
