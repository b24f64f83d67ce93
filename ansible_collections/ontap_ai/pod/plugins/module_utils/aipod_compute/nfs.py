"""Whether a host can mount NFS now (and why not), and what NFS it has mounted.

Read by dgx_host_facts (the compute layer branches on it) and by dgx_verify (a mount is checked
where it can exist), so both say the same about a host.
"""
from __future__ import annotations

import re
from typing import Any

CAP_SYS_ADMIN = 21


def nfs_capability(filesystems: str, loadable: bool, cap_eff_hex: str | None) -> dict[str, Any]:
    """Can this host mount NFS now, and if not, why not."""
    kernel = bool(re.search(r"\bnfs4?\s*$", filesystems, re.MULTILINE))
    try:
        privileged = bool(int(cap_eff_hex or "0", 16) >> CAP_SYS_ADMIN & 1)
    except ValueError:
        privileged = False
    reasons = []
    if not (kernel or loadable):
        reasons.append("nfs is not in /proc/filesystems and no nfs module can be loaded")
    if not privileged:
        reasons.append("this root lacks CAP_SYS_ADMIN, which mounting needs")
    return {"kernel": kernel, "loadable": loadable, "privileged": privileged, "can_mount": not reasons,
            "reason": "; ".join(reasons)}


def unescape_mount_point(text: str) -> str:
    """/proc/mounts and /proc/self/mountstats escape space, tab, newline and backslash as octal (\\040 ...)."""
    return re.sub(r"\\([0-7]{3})", lambda match: chr(int(match.group(1), 8)), text)


def active_nfs_mounts(proc_mounts: str) -> dict[str, dict[str, Any]]:
    """Mount point -> {src, fstype, options} of every NFS mount in /proc/mounts (the last one wins)."""
    mounts: dict[str, dict[str, Any]] = {}
    for line in proc_mounts.splitlines():
        fields = line.split()
        if len(fields) < 4 or fields[2] not in ("nfs", "nfs4"):
            continue
        path = unescape_mount_point(fields[1])
        mounts[path] = {"src": fields[0], "fstype": fields[2], "options": fields[3].split(",")}
    return mounts


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def read(module: Any) -> dict[str, Any]:
    """This host's NFS capability and active NFS mounts (module: an AnsibleModule, for its tools)."""
    modprobe = module.get_bin_path("modprobe", opt_dirs=["/usr/sbin", "/sbin"])
    loadable = False
    if modprobe and (_read("/proc/sys/kernel/modules_disabled") or "0").strip() == "0":
        loadable = module.run_command([modprobe, "-n", "-q", "nfs"], environ_update={"LC_ALL": "C"})[0] == 0
    match = re.search(r"^CapEff:\s*([0-9a-fA-F]+)", _read("/proc/self/status"), re.MULTILINE)
    capability = nfs_capability(_read("/proc/filesystems"), loadable, match.group(1) if match else None)
    return {**capability, "mounts": active_nfs_mounts(_read("/proc/mounts"))}
