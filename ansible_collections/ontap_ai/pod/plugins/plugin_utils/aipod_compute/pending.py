"""Whether a DGX already is what the site model wants, from one reading of it.

The compute layer reads a host once (dgx_host_facts, which also reads the SHA-1, mode and owner of
every file the role keeps) and builds the text of the files it wants (files.py). ``differences``
compares the reading with the plan and those files and lists every way the host differs, as the
layers' pending items (module_utils/aipod_pending.py); the layer writes files and runs its
configuring tasks only on a host with a difference. Each
comparison mirrors the task it stands for (the same module's rules, not a looser test), so that an
empty list means every one of those tasks would report ok. Where a reading is missing, the host
counts as different: a needless converge is slower, a missed one is wrong.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ansible.utils.vars import merge_hash

from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending
from ansible_collections.ontap_ai.pod.plugins.module_utils.aipod_compute import fstab, sysctl
from ansible_collections.ontap_ai.pod.plugins.module_utils.aipod_compute.leftovers import is_temporary, leftovers
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_compute import files as kept_files

LIVE_NETWORK_DIR = {"netplan": "/etc/netplan", "networkd": "/etc/systemd/network"}
NOT_READ = "dgx_host_facts did not read it"
Item = dict[str, Any]
item = aipod_pending.item


def _mode(mode: Any) -> int | None:
    """A mode as config_files takes it ("0644" or an int) as a number; None when not given."""
    if mode is None:
        return None
    return int(mode, 8) if isinstance(mode, str) else int(mode)


def _attributes(path: str, state: Mapping, mode: Any, owner: str | None, group: str | None) -> list[Item]:
    found = []
    if _mode(mode) is not None and int(state["mode"], 8) != _mode(mode):
        found.append(item(f"file {path}", "mode", state["mode"], f"{_mode(mode):04o}"))
    for field, wanted in (("owner", owner), ("group", group)):
        if wanted is not None and state.get(field) != wanted:
            found.append(item(f"file {path}", field, state.get(field), wanted))
    return found


def _files(kept: Mapping, readings: Mapping) -> list[Item]:
    """config_files' rules: each file with its content, mode, owner and group; each directory present with its attributes."""
    owner, group = kept.get("owner"), kept.get("group")
    wanted = [("directory", entry["path"], entry, ("directory", "nfs mount")) for entry in kept.get("directories") or []]
    wanted += [("file", entry["dest"], entry, ("file",)) for entry in kept.get("files") or []]
    found = []
    for kind, path, entry, types in wanted:
        if path not in readings:
            found.append(item(f"{kind} {path}", action="unread", reason=NOT_READ))
            continue
        state = readings[path]
        if state is None or state.get("type") not in types:
            found.append(item(f"{kind} {path}", action="create"))
            continue
        wanted_sha1 = kept_files.sha1(entry["content"]) if kind == "file" else None
        if kind == "file" and state.get("sha1") != wanted_sha1:
            found.append(item(f"file {path}", "sha1", state.get("sha1"), wanted_sha1, reason="content differs from the model"))
        if state["type"] != "nfs mount":
            found += _attributes(path, state, entry.get("mode"), owner, group)
    return found + _leftovers(kept, readings)


def _leftovers(kept: Mapping, readings: Mapping) -> list[Item]:
    """What config_files removes: files of its exclusive directories it does not keep, and interrupted writes."""
    wanted = {os.path.normpath(entry["dest"]) for entry in kept.get("files") or []}
    exclusive = {os.path.normpath(path) for path in kept.get("exclusive_directories") or []}
    scanned = exclusive | {os.path.dirname(path) for path in wanted}  # the directories config_files looks into
    listing: dict[str, list[str]] = {}
    for path, state in readings.items():
        if state and state.get("type") in ("file", "other") and os.path.dirname(path) in scanned:
            listing.setdefault(os.path.dirname(path), []).append(os.path.basename(path))
    return [item(f"file {path}", action="delete",
                 reason="left by an interrupted write" if is_temporary(os.path.basename(path)) else "staged, no longer in the model")
            for path in leftovers(listing, wanted, exclusive)]


def _network(host: Mapping, kept: Mapping, network_files: list[str]) -> list[Item]:
    """The checks of aipod-storage-net apply: live files equal the staged ones, no stale 60-aipod-*, networkd on."""
    network = host["network"]
    live_dir = LIVE_NETWORK_DIR.get(network["renderer"])
    if live_dir is None or "aipod_files" not in network:
        return [item("storage network", action="unread", reason=NOT_READ)]
    checksums = {entry["dest"]: kept_files.sha1(entry["content"]) for entry in kept.get("files") or []}
    live = network["aipod_files"]
    found = []
    wanted = {}
    for staged in network_files:
        path = os.path.join(live_dir, os.path.basename(staged))
        wanted[path] = checksums.get(staged)
        if path not in live:
            found.append(item(f"storage network {path}", action="create"))
        elif wanted[path] is None or live[path] != wanted[path]:
            found.append(item(f"storage network {path}", "sha1", live[path], wanted[path], reason="differs from the model"))
    found += [item(f"storage network {path}", action="delete") for path in sorted(set(live) - set(wanted))]
    if not (network.get("networkd_enabled") and network.get("networkd_active")):
        found.append(item("systemd-networkd.service", "state",
                          f"{'enabled' if network.get('networkd_enabled') else 'not enabled'}, "
                          f"{'active' if network.get('networkd_active') else 'not active'}", "enabled, active"))
    return found


def _mounts(plan: Mapping, host: Mapping, extra_options: list[str]) -> list[Item]:
    found = []
    table = host.get("fstab") or {}
    for mount in plan.get("mounts") or []:
        opts = ",".join(list(mount["options"]) + list(extra_options))
        if mount["path"] not in table:
            found.append(item(f"mount {mount['path']}", action="unread", reason="/etc/fstab not read"))
            continue
        why = fstab.line_differs(table[mount["path"]], mount["src"], mount["path"], mount["fstype"], opts)
        if why:
            found.append(item(f"mount {mount['path']}", "fstab", action="create" if not table[mount["path"]] else "modify", reason=why))
        active = (host["nfs"].get("mounts") or {}).get(mount["path"])
        if host["nfs"]["can_mount"] and (active or {}).get("src") != mount["src"]:
            found.append(item(f"mount {mount['path']}", "source", (active or {}).get("src") or "not mounted", mount["src"]))
    return found


def sysctl_plan(settings: Mapping[str, Any], readings: Mapping[str, Mapping]) -> tuple[dict, dict]:
    """sysctl_runtime's plan, from dgx_host_facts' readings instead of /proc/sys."""
    return sysctl.plan(dict(settings), lambda name: (readings.get(name) or {}).get("value"),
                       lambda name: bool((readings.get(name) or {}).get("writable")))


def _sysctl(host: Mapping, settings: Mapping[str, Any]) -> list[Item]:
    readings = host.get("sysctl") or {}
    unread = sorted(set(settings) - set(readings))
    if unread:
        return [item(f"kernel parameter {name}", action="unread", reason=NOT_READ) for name in unread]
    changes, _unavailable = sysctl_plan(settings, readings)
    return [item(f"kernel parameter {name}", "value", change["before"], change["after"]) for name, change in changes.items()]


def _unit(host: Mapping, unit: str, active: bool) -> list[Item]:
    state = (host.get("units") or {}).get(unit)
    if state is None:
        return [item(unit, action="unread", reason=NOT_READ)]
    found = [] if state["enabled"] == "enabled" else [item(unit, "enabled", state["enabled"] or "not installed", "enabled")]
    if active and state["active"] != "active":
        found.append(item(unit, "active", state["active"], "active"))
    return found


def _container_runtime(plan: Mapping, host: Mapping) -> list[Item]:
    tools = host["tools"]
    runtime = tools.get("nvidia-container-runtime")
    if not runtime:
        return []
    found = []
    docker = host["container_runtime"]["docker_config"]
    wanted = {"default-runtime": "nvidia", "runtimes": {"nvidia": {"path": runtime, "runtimeArgs": []}}}
    # merge_hash is what the task's combine(recursive=true) calls.
    if tools.get("dockerd") and (docker is None or merge_hash(docker, wanted, recursive=True) != docker):
        found.append(item("docker", "default runtime", (docker or {}).get("default-runtime"), "nvidia",
                          reason="its default runtime is not the NVIDIA runtime"))
    # Where Kubespray's variables declare containerd's runtimes, each Kubespray run writes them: not this role's.
    if (tools.get("nvidia-ctk") and tools.get("containerd") and not plan.get("containerd_by_kubespray")
            and host["container_runtime"]["containerd_default"] != "nvidia"):
        found.append(item("containerd", "default runtime", host["container_runtime"]["containerd_default"], "nvidia"))
    return found


def _user(plan: Mapping, host: Mapping, shell: str) -> list[Item]:
    user = plan.get("common_user")
    if not user:
        return []
    state = host.get("user_state") or {}
    group = user.get("group") or user["name"]
    found = [] if state.get("group_gid") == user["gid"] else [
        item(f"group {group}", "gid", state.get("group_gid"), user["gid"], action="create" if state.get("group_gid") is None else "modify")]
    account = state.get("user")
    if account is None:
        found.append(item(f"user {user['name']}", action="create"))
    else:
        found += [item(f"user {user['name']}", field, account[field], wanted)
                  for field, wanted in (("uid", user["uid"]), ("gid", user["gid"]), ("shell", shell)) if account[field] != wanted]
    return found


def differences(plan: Mapping, host: Mapping, kept: Mapping, settings: Mapping) -> list[Item]:
    """Every way the host differs from its plan, as pending items; [] when the compute layer has nothing to change.

    plan: the host's compute plan (aipod_compute_plans); host: dgx_host_facts' aipod_host; kept: the
    arguments of the role's config_files task (files with their content, directories, owner, group);
    settings: network_files (staged paths), sysctl, mount_extra_options, rings (aipod_ring_settings),
    rings_unit, roce_unit, roce_ready, nvidia_runtime_default, shell.
    """
    found = [item(f"package {name}", action="create") for name in host.get("packages_missing") or []]
    found += _files(kept, host.get("files") or {})
    found += _network(host, kept, list(settings.get("network_files") or []))
    found += _mounts(plan, host, list(settings.get("mount_extra_options") or []))
    found += _sysctl(host, settings.get("sysctl") or {})
    rings = list(settings.get("rings") or [])
    found += [item(f"NIC {ring['name']}", "ring sizes", reason="ring sizes differ from the model") for ring in rings if ring.get("differs")]
    if rings:
        found += _unit(host, settings["rings_unit"], active=False)
    if plan.get("roce"):
        found += _unit(host, settings["roce_unit"], active=bool(settings.get("roce_ready")))
    if settings.get("nvidia_runtime_default"):
        found += _container_runtime(plan, host)
    found += _user(plan, host, settings.get("shell", "/bin/bash"))
    return found


def _in_service(host: Mapping) -> bool:
    """Whether the host's storage path already carries traffic: live storage network files or active NFS mounts."""
    return bool(host["network"].get("aipod_files") or host["nfs"].get("mounts"))


def _because(found: list[Item], why: str) -> list[Item]:
    """The items, each with why its change interrupts I/O or pods added to its words."""
    return [{**entry, "reason": f"{aipod_pending.difference(entry)} ({why})"} for entry in found]


def disruptive(plan: Mapping, host: Mapping, kept: Mapping, settings: Mapping) -> list[Item]:
    """The pending items whose change interrupts I/O or pods on a host in service, each saying why.

    These are what the role does by restarting or re-applying something in use: a storage network
    that already exists is re-applied (its NICs are reconfigured under the NFS traffic); a mount that
    already exists gets other options or another source (ansible.posix.mount remounts it where it is
    mounted, and it takes effect at the next mount where it is not); ring sizes change on NICs already
    in service (the driver resets the link); a container engine gets another default runtime (its
    restart stops or disturbs the pods). A first configuration - no storage network or mount yet -
    interrupts nothing, and neither do packages, kernel parameters, units or users.
    """
    found: list[Item] = []
    if host["network"].get("aipod_files"):
        found += _because(_network(host, kept, list(settings.get("network_files") or [])), "re-applies the storage network in use")
    table = host.get("fstab") or {}
    extra = list(settings.get("mount_extra_options") or [])
    for mount in plan.get("mounts") or []:
        line = table.get(mount["path"])
        active = (host["nfs"].get("mounts") or {}).get(mount["path"])
        if not line and not active:
            continue  # a new mount
        opts = ",".join(list(mount["options"]) + extra)
        why = fstab.line_differs(line, mount["src"], mount["path"], mount["fstype"], opts) if line else "not in /etc/fstab"
        if why or (active and active.get("src") != mount["src"]):
            change = item(f"mount {mount['path']}", "fstab", reason=why) if why else \
                item(f"mount {mount['path']}", "source", active.get("src"), mount["src"])
            found += _because([change], "remounts it under running I/O" if active else "changes an existing mount")
    if _in_service(host):
        found += _because([item(f"NIC {ring['name']}", "ring sizes", reason="ring sizes differ from the model")
                           for ring in settings.get("rings") or [] if ring.get("differs")], "resets the link of a NIC in service")
    if settings.get("nvidia_runtime_default"):
        found += _because(_container_runtime(plan, host), "restarts the engine under its containers")
    return found
