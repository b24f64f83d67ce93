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
  - For a storage bond (NVA-1173's active-backup RDMA bond), its mode, MII interval, C(fail_over_mac), members and
    primary from the bonding driver, each member's link, and the primary as the active member.
  - C(jumbo ping) to every data LIF on the network of each storage NIC, with don't-fragment set and the
    largest payload the NIC's model MTU allows (MTU minus 28 bytes of IP and ICMP headers), out of that NIC.
  - C(mount) options, exactly as the model lists them, on the mounts active now (as C(dgx_host_facts) reads
    them), together with the server and export. Where the host cannot mount NFS (C(dgx_host_facts)' C(nfs)
    capability) the mount cannot exist; the check then reads the persisted configuration (C(/etc/fstab))
    instead and says so.
version_added: "1.0.0"
author: ONTAP AI pod bundle contributors (!UNKNOWN)
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
  nfs:
    description:
      - The host's NFS state, the C(nfs) of C(dgx_host_facts)' C(aipod_host) fact (C(can_mount), C(reason) and the
        active C(mounts), mount point -> C(src), C(options)).
      - When omitted, the module reads it from the host the way C(dgx_host_facts) does.
    type: dict
  gpus:
    description:
      - Also read the GPUs (C(nvidia-smi), as C(gpu_facts) does) and add the C(GPU count) check against O(expected_gpus).
      - A host without GPUs gets a C(not_applicable) check; an C(nvidia-smi) that fails fails the task (the host is then
        not checked).
    type: bool
    default: false
  expected_gpus:
    description: The model's GPUs of the host (C(count), C(model)); none when the model names no GPUs.
    type: dict
  rollback_state_dir:
    description:
      - State directory of C(aipod-storage-net) (role C(dgx_node)). When given, the C(storage-network rollback)
        check fails while a change is not confirmed and its rollback timer is armed, which would restore the previous
        storage network after this check passed.
    type: path
  rollback_timer:
    description: The systemd timer of that rollback.
    type: str
    default: aipod-storage-net-rollback.timer
  ping_count:
    description: Echo requests per LIF; the check passes when any is answered.
    type: int
    default: 2
  ping_timeout:
    description: Seconds to wait for each answer.
    type: int
    default: 2
  ping_interval:
    description: Seconds between echo requests (0.2 is the least ping allows without root).
    type: float
    default: 0.2
notes:
  - Only reads and pings; check mode runs it the same way.
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ontap_ai.pod.attributes.reads
"""

EXAMPLES = r"""
- name: Check the data path of this DGX
  ontap_ai.pod.dgx_verify:
    nics: "{{ plan.nics }}"
    lifs: "{{ model | aipod_data_lifs_for(inventory_hostname) }}"
    mounts: "{{ plan.mounts }}"
    gpus: true
    expected_gpus: "{{ plan.gpus | default(omit) }}"
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
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ontap_ai.pod.plugins.module_utils.aipod_compute import gpus, nfs

ICMP_AND_IP_HEADERS = 28


def check(name: str, status: str, detail: str) -> dict[str, str]:
    return {"layer": "compute", "name": name, "status": status, "detail": detail}


def jumbo_payload(mtu: int) -> int:
    """The largest ICMP echo payload that fits one IPv4 packet of this MTU."""
    return int(mtu) - ICMP_AND_IP_HEADERS


def parse_fstab(text: str) -> dict[str, dict[str, Any]]:
    """/etc/fstab: mount point -> {src, options (list)}, like dgx_host_facts' active mounts. Comments skipped."""
    entries: dict[str, dict[str, Any]] = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 4 or fields[0].startswith("#"):
            continue
        entries[fields[1]] = {"src": fields[0], "fstype": fields[2], "options": fields[3].split(",")}
    return entries


def option_differences(expected: list[str], options: list[str]) -> list[str]:
    """Each model option the actual options lack or hold with another value, as 'want (found)'."""
    actual: dict[str, str | None] = {}
    for option in options:
        key, has_value, value = option.partition("=")
        actual[key] = value if has_value else None
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


def bond_checks(nics: list[dict], read: Callable[[str], str | None]) -> list[dict]:
    """Per storage bond of the plan: its settings and members as the kernel's bonding driver reports them
    (/sys/class/net/<bond>/bonding), each member's link, and the primary carrying the traffic.

    read(path) gives a sysfs file's text, None when it does not exist. The backup member carries no
    traffic in active-backup, so it cannot be pinged: its link state is what shows the path is redundant.
    """
    results = []
    for nic in nics:
        bond = nic.get("bond")
        if not bond:
            continue
        name, base = nic["parent"], f"/sys/class/net/{nic['parent']}/bonding"
        mode = read(f"{base}/mode")
        if mode is None:
            results.append(check(f"{name} bond", "fail", f"{name} is not a bond on this host (model: active-backup over "
                                                         f"{', '.join(bond['members'])})"))
            continue
        found = {"mode": mode.split()[0] if mode.split() else "", "miimon": (read(f"{base}/miimon") or "").strip(),
                 "fail_over_mac": ((read(f"{base}/fail_over_mac") or "").split() or [""])[0],
                 "slaves": sorted((read(f"{base}/slaves") or "").split()), "primary": (read(f"{base}/primary") or "").strip()}
        want = {"mode": bond["mode"], "miimon": str(bond["mii_monitor_ms"]), "fail_over_mac": bond["fail_over_mac"],
                "slaves": sorted(bond["members"]), "primary": bond["primary"]}
        differences = [f"{key} {' '.join(found[key]) if key == 'slaves' else found[key] or 'none'} (model "
                       f"{' '.join(want[key]) if key == 'slaves' else want[key]})" for key in want if found[key] != want[key]]
        healthy = (f"active-backup over {', '.join(bond['members'])}, MII {want['miimon']} ms, fail_over_mac active, "
                   f"primary {bond['primary']}")
        results.append(check(f"{name} bond", "fail" if differences else "pass", "; ".join(differences) or healthy))
        for member in bond["members"]:
            state = (read(f"/sys/class/net/{member}/bonding_slave/mii_status") or "").strip()
            results.append(check(f"{name} member {member} link", "pass" if state == "up" else "fail",
                                 f"link {state or 'unknown'}" + ("" if state == "up" else ": the bond has no second path")))
        active = (read(f"{base}/active_slave") or "").strip()
        results.append(check(f"{name} active member", "pass" if active == bond["primary"] else "fail",
                             f"{active or 'none'} carries the traffic (primary {bond['primary']})"))
    return results


def ping_checks(nics: list[dict], lifs: list[dict], ping: Callable[[str, int, str], tuple[bool, str]]) -> list[dict]:
    """One check per (NIC, LIF on its network), in that order.

    The pings run at the same time: each waits about a second for its answers, and a DGX has a
    LIF per node and network to reach, so one after the other they would add up.
    """
    pairs = [(nic, lif, jumbo_payload(nic["mtu"])) for nic in nics
             for lif in lifs if lif.get("network") == nic.get("network")]
    with ThreadPoolExecutor(max_workers=max(1, min(len(pairs), 16))) as pool:
        answers = list(pool.map(lambda pair: ping(pair[0]["device"], pair[2], pair[1]["address"]), pairs))
    return [check(f"jumbo ping {nic['device']} -> {lif['address']}", "pass" if answered else "fail",
                  f"{payload}-byte payload, don't fragment, to LIF {lif.get('name', '?')}: {detail}")
            for (nic, lif, payload), (answered, detail) in zip(pairs, answers)]


def mount_checks(mounts: list[dict], active: dict, fstab: dict, can_mount: bool, why_not: str) -> list[dict]:
    """active and fstab: mount point -> {src, options (list)}."""
    results = []
    for mount in mounts:
        path, src, options = mount["path"], mount["src"], list(mount.get("options", []))
        name = f"mount {path}"
        mounted = path in active
        # A host that cannot mount NFS has only the persisted entry to show.
        found = active[path] if mounted else None if can_mount else fstab.get(path)
        if found is None:
            if can_mount:
                detail = f"{src} is not mounted on {path}" + ("" if path in fstab else " and is not in /etc/fstab")
            else:
                detail = f"not in /etc/fstab, and not mounted ({why_not})"
            results.append(check(name, "fail", detail))
            continue
        problems = option_differences(options, found["options"])
        if found["src"] != src:
            problems.insert(0, f"server {found['src']} (model {src})")
        where = "mounted" if mounted else "/etc/fstab:"
        results.append(check(name if mounted else f"{name} (persisted)", "fail" if problems else "pass",
                             "; ".join(problems) if problems else f"{where} {src} with {','.join(options)}"))
        if not mounted:
            results.append(check(name, "not_applicable", f"not mounted: {why_not}"))
    return results


# ------------------------------------------------------------------------------ host glue
def rollback_check(pending: str | None, timer_active: bool) -> dict[str, str]:
    """The storage-network rollback check: pass when nothing is armed; pending is the state file's
    "<armed-at> <due-at>" (epoch seconds), None when there is none."""
    if pending is None and not timer_active:
        return check("storage-network rollback", "pass", "no unconfirmed storage-network change; no rollback armed")
    due = [word for word in (pending or "").split() if word.isdigit()][1:2]
    when = (" at " + time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(int(due[0])))) if due else ""
    return check("storage-network rollback", "fail",
                 f"a storage-network change is not confirmed and its rollback is armed{when}: it will restore the previous "
                 "storage network. Run compute.yml (or site.yml), which keeps the change when the management path answers")


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
    rc, out, _err = module.run_command(["ip", "-j", "-4", "addr", "show", "dev", device])
    if rc != 0 or not out.strip():
        return []
    return [f"{info['local']}/{info['prefixlen']}" for entry in json.loads(out) for info in entry.get("addr_info", [])]


def _ping(module: AnsibleModule, count: int, timeout: int, interval: float) -> Callable[[str, int, str], tuple[bool, str]]:
    binary = module.get_bin_path("ping", required=True)

    def ping(device: str, payload: int, address: str) -> tuple[bool, str]:
        rc, out, err = module.run_command([binary, "-M", "do", "-s", str(payload), "-c", str(count), "-i", str(interval),
                                           "-W", str(timeout),
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


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "nics": {"type": "list", "elements": "dict", "default": []},
            "lifs": {"type": "list", "elements": "dict", "default": []},
            "mounts": {"type": "list", "elements": "dict", "default": []},
            "ping_count": {"type": "int", "default": 2},
            "ping_timeout": {"type": "int", "default": 2},
            "ping_interval": {"type": "float", "default": 0.2},
            "nfs": {"type": "dict"},
            "gpus": {"type": "bool", "default": False},
            "expected_gpus": {"type": "dict"},
            "rollback_state_dir": {"type": "path"},
            "rollback_timer": {"type": "str", "default": "aipod-storage-net-rollback.timer"},
        },
        supports_check_mode=True,
    )
    params = module.params
    host_nfs = params["nfs"] if params["nfs"] is not None else nfs.read(module)
    checks = nic_checks(params["nics"], _read_mtu, lambda device: _addresses(module, device))
    checks += bond_checks(params["nics"], lambda path: _read(path) if os.path.exists(path) else None)
    checks += ping_checks(params["nics"], params["lifs"], _ping(module, params["ping_count"], params["ping_timeout"], params["ping_interval"]))
    checks += mount_checks(params["mounts"], host_nfs.get("mounts") or {}, parse_fstab(_read("/etc/fstab")),
                           bool(host_nfs.get("can_mount")), host_nfs.get("reason") or "")
    if params["gpus"]:
        checks.append(gpus.gpu_check(gpus.gather(module), params["expected_gpus"]))
    if params["rollback_state_dir"]:
        pending_path = os.path.join(params["rollback_state_dir"], "pending")
        pending = _read(pending_path) if os.path.exists(pending_path) else None
        systemctl = module.get_bin_path("systemctl")
        active = bool(systemctl) and module.run_command([systemctl, "is-active", "--quiet", params["rollback_timer"]])[0] == 0
        checks.append(rollback_check(pending, active))
    module.exit_json(changed=False, checks=checks, failed_checks=sum(1 for c in checks if c["status"] == "fail"))


if __name__ == "__main__":
    main()
