#!/usr/bin/python
"""Verification of a DGX's data path against the site model: NIC MTU, jumbo pings to the LIFs, mounts."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: dgx_verify
short_description: Check a DGX's storage NICs, jumbo path to its data LIFs and NFS mounts against the site model
description:
  - Reads what the kernel reports and compares it with what the site model says the host should have.
    Every comparison becomes one check record with a status; a failed check never fails the task, so the
    verification can report every result of every host at once.
  - C(storage NIC MTU) and address, from C(/sys/class/net) and C(ip -j addr).
  - C(jumbo ping) to every data LIF on the network of each storage NIC, with don't-fragment set and the
    largest payload the NIC's model MTU allows (MTU minus 28 bytes of IP and ICMP headers), out of that NIC.
  - C(mount) options, exactly as the model lists them, in C(/proc/mounts) where the file system is mounted,
    together with the server and export. Where the kernel has no NFS client the mount cannot exist; the
    check then reads the persisted configuration (C(/etc/fstab)) instead and says so.
version_added: "1.0.0"
author: ONTAP AI pod bundle contributors
options:
  nics:
    description: Storage NICs of the host (C(aipod_compute_plans) C(nics)), each with C(device), C(mtu), C(cidr), C(network).
    type: list
    elements: dict
    default: []
  lifs:
    description: Data LIFs to reach, each with C(name), C(address) and C(network) (the storage network it sits on).
    type: list
    elements: dict
    default: []
  mounts:
    description: NFS mounts of the host (C(aipod_compute_plans) C(mounts)), each with C(path), C(src), C(options).
    type: list
    elements: dict
    default: []
  ping_count:
    description: Echo requests per LIF; the check passes when any is answered.
    type: int
    default: 2
  ping_timeout:
    description: Seconds to wait for each answer.
    type: int
    default: 2
notes:
  - Only reads and pings; check mode runs it the same way.
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: Check the data path of this DGX
  dgx_verify:
    nics: "{{ plan.nics }}"
    lifs: "{{ model | aipod_data_lifs_for(inventory_hostname) }}"
    mounts: "{{ plan.mounts }}"
  register: data_path
"""

RETURN = r"""
checks:
  description: One record per comparison.
  returned: always
  type: list
  elements: dict
  contains:
    layer:
      description: Always C(compute).
      type: str
    name:
      description: What was checked, e.g. C(eth1 MTU), C(jumbo ping eth1 -> 172.31.251.101), C(mount /mnt/data).
      type: str
    status:
      description: C(pass), C(fail), C(not_applicable) (nothing to check on this host, and why), C(not_checked).
      type: str
    detail:
      description: What was expected and what was found.
      type: str
failed_checks:
  description: Number of checks with status fail.
  returned: always
  type: int
"""

import json
import os
import subprocess
from typing import Any, Callable

from ansible.module_utils.basic import AnsibleModule

ICMP_AND_IP_HEADERS = 28


def check(name: str, status: str, detail: str) -> dict[str, str]:
    return {"layer": "compute", "name": name, "status": status, "detail": detail}


def jumbo_payload(mtu: int) -> int:
    """The largest ICMP echo payload that fits one IPv4 packet of this MTU."""
    return int(mtu) - ICMP_AND_IP_HEADERS


def parse_mounts(text: str) -> dict[str, dict[str, Any]]:
    """/proc/mounts or /etc/fstab: mount point -> {source, fstype, options (dict)}. Comments skipped."""
    mounts: dict[str, dict[str, Any]] = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 4 or fields[0].startswith("#"):
            continue
        options: dict[str, str | None] = {}
        for option in fields[3].split(","):
            key, _, value = option.partition("=")
            options[key] = value if _ else None
        mounts[fields[1]] = {"source": fields[0], "fstype": fields[2], "options": options}
    return mounts


def option_differences(expected: list[str], actual: dict[str, str | None]) -> list[str]:
    """Each model option the actual options lack or hold with another value, as 'want (found)'."""
    differences = []
    for option in expected:
        key, has_value, value = option.partition("=")
        if key not in actual:
            differences.append(f"{option} (absent)")
        elif has_value and actual[key] != value:
            differences.append(f"{option} (found {key}={actual[key]})")
    return differences


def nic_checks(nics: list[dict], read_mtu: Callable[[str], int | None], addresses: Callable[[str], list[str]]) -> list[dict]:
    results = []
    for nic in nics:
        device, want = nic["device"], int(nic["mtu"])
        mtu = read_mtu(device)
        if mtu is None:
            results.append(check(f"{device} MTU", "fail", f"{device} does not exist (model: {nic.get('network')}, MTU {want})"))
            continue
        results.append(check(f"{device} MTU", "pass" if mtu == want else "fail", f"MTU {mtu}, model {want}"))
        if nic.get("cidr"):
            found = addresses(device)
            results.append(check(f"{device} address", "pass" if nic["cidr"] in found else "fail",
                                 f"model {nic['cidr']}, found {', '.join(found) or 'none'}"))
    return results


def ping_checks(nics: list[dict], lifs: list[dict], ping: Callable[[str, int, str], tuple[bool, str]]) -> list[dict]:
    results = []
    for nic in nics:
        targets = [lif for lif in lifs if lif.get("network") == nic.get("network")]
        payload = jumbo_payload(nic["mtu"])
        for lif in targets:
            answered, detail = ping(nic["device"], payload, lif["address"])
            results.append(check(f"jumbo ping {nic['device']} -> {lif['address']}", "pass" if answered else "fail",
                                 f"{payload}-byte payload, don't fragment, to LIF {lif.get('name', '?')}: {detail}"))
    return results


def mount_checks(mounts: list[dict], proc_mounts: dict, fstab: dict, kernel_mounts_nfs: bool, why_not: str) -> list[dict]:
    results = []
    for mount in mounts:
        path, src, options = mount["path"], mount["src"], list(mount.get("options", []))
        name = f"mount {path}"
        mounted = proc_mounts.get(path)
        if mounted is not None:
            problems = option_differences(options, mounted["options"])
            if mounted["source"] != src:
                problems.insert(0, f"server {mounted['source']} (model {src})")
            results.append(check(name, "fail" if problems else "pass",
                                 "; ".join(problems) if problems else f"{src} mounted with {','.join(options)}"))
            continue
        configured = fstab.get(path)
        if kernel_mounts_nfs:
            results.append(check(name, "fail", f"{src} is not mounted on {path}"
                                 + ("" if configured else " and is not in /etc/fstab")))
            continue
        if configured is None:
            results.append(check(name, "fail", f"not in /etc/fstab, and not mounted ({why_not})"))
            continue
        problems = option_differences(options, configured["options"])
        if configured["source"] != src:
            problems.insert(0, f"server {configured['source']} (model {src})")
        results.append(check(f"{name} (persisted)", "fail" if problems else "pass",
                             "; ".join(problems) if problems else f"/etc/fstab: {src} with {','.join(options)}"))
        results.append(check(name, "not_applicable", f"not mounted: {why_not}"))
    return results


# ------------------------------------------------------------------------------ host glue
def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return ""


def _read_mtu(device: str) -> int | None:
    text = _read(f"/sys/class/net/{device}/mtu").strip()
    return int(text) if text.isdigit() else None


def _addresses(module: AnsibleModule, device: str) -> list[str]:
    rc, out, _ = module.run_command(["ip", "-j", "-4", "addr", "show", "dev", device])
    if rc != 0 or not out.strip():
        return []
    return [f"{info['local']}/{info['prefixlen']}" for entry in json.loads(out) for info in entry.get("addr_info", [])]


def _ping(module: AnsibleModule, count: int, timeout: int) -> Callable[[str, int, str], tuple[bool, str]]:
    binary = module.get_bin_path("ping", required=True)

    def ping(device: str, payload: int, address: str) -> tuple[bool, str]:
        rc, out, err = module.run_command([binary, "-M", "do", "-s", str(payload), "-c", str(count), "-W", str(timeout),
                                           "-I", device, address])
        if rc == 0:
            summary = next((line for line in out.splitlines() if "packets transmitted" in line), "answered")
            return True, summary.strip()
        lines = [line.strip() for line in (err + out).splitlines()
                 if line.strip() and not line.startswith(("PING", "---"))]
        errors = [line for line in lines if "error" in line.lower() or "too long" in line.lower()]
        statistics = [line for line in lines if "packets transmitted" in line]
        return False, (errors or statistics or lines or [f"no answer (ping exit {rc})"])[0]

    return ping


def _kernel_mounts_nfs() -> tuple[bool, str]:
    filesystems = _read("/proc/filesystems").split()
    if "nfs" in filesystems or "nfs4" in filesystems:
        return True, ""
    modules = f"/lib/modules/{os.uname().release}"
    if any(os.path.exists(f"{modules}/kernel/fs/nfs/{name}") for name in ("nfs.ko", "nfs.ko.xz", "nfs.ko.zst")):
        return True, ""
    return False, "this kernel has no NFS client"


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "nics": {"type": "list", "elements": "dict", "default": []},
            "lifs": {"type": "list", "elements": "dict", "default": []},
            "mounts": {"type": "list", "elements": "dict", "default": []},
            "ping_count": {"type": "int", "default": 2},
            "ping_timeout": {"type": "int", "default": 2},
        },
        supports_check_mode=True,
    )
    params = module.params
    can_mount, why_not = _kernel_mounts_nfs()
    checks = nic_checks(params["nics"], _read_mtu, lambda device: _addresses(module, device))
    checks += ping_checks(params["nics"], params["lifs"], _ping(module, params["ping_count"], params["ping_timeout"]))
    checks += mount_checks(params["mounts"], parse_mounts(_read("/proc/mounts")), parse_mounts(_read("/etc/fstab")),
                           can_mount, why_not)
    module.exit_json(changed=False, checks=checks, failed_checks=sum(1 for c in checks if c["status"] == "fail"))


if __name__ == "__main__":
    main()
