"""Whole-pod verification: the DGX data-path checks (dgx_verify) and how all checks are judged together."""
from __future__ import annotations

import time

import pytest

from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending
from ansible_collections.ontap_ai.pod.plugins.module_utils.aipod_compute import gpus
from ansible_collections.ontap_ai.pod.plugins.modules import dgx_host_facts, dgx_verify
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_report import verification

MODEL_OPTIONS = ["vers=4.1", "proto=tcp", "nconnect=16", "rsize=262144", "wsize=262144", "hard"]
PROC_MOUNTS = (
    "sysfs /sys sysfs rw,nosuid 0 0\n"
    "172.31.251.101:/data /mnt/data nfs4 rw,relatime,vers=4.1,rsize=262144,wsize=262144,namlen=255,hard,proto=tcp,"
    "nconnect=16,timeo=600,retrans=2,sec=sys,clientaddr=172.31.251.11,local_lock=none,addr=172.31.251.101 0 0\n"
)


def active(text: str) -> dict:
    """Active mounts as dgx_verify receives them: dgx_host_facts' own reading of /proc/mounts."""
    return dgx_host_facts.active_nfs_mounts(text)
MOUNT = {"path": "/mnt/data", "src": "172.31.251.101:/data", "options": MODEL_OPTIONS}
NIC = {"device": "eth1", "mtu": 9000, "cidr": "172.31.251.11/24", "network": "storage-a"}


def test_the_jumbo_payload_fills_the_mtu_exactly():
    assert dgx_verify.jumbo_payload(9000) == 8972
    assert dgx_verify.jumbo_payload(1500) == 1472


def test_a_mount_with_the_model_options_passes():
    checks = dgx_verify.mount_checks([MOUNT], active(PROC_MOUNTS), {}, True, "")
    assert [c["status"] for c in checks] == ["pass"]


@pytest.mark.parametrize("replace, expected", [
    ("rsize=262144", "rsize=262144 (found rsize=65536)"),
    ("nconnect=16,", "nconnect=16 (absent)"),
    ("vers=4.1", "vers=4.1 (found vers=3)"),
])
def test_a_mount_with_another_option_fails_and_names_it(replace, expected):
    changed = PROC_MOUNTS.replace(replace, {"rsize=262144": "rsize=65536", "nconnect=16,": "", "vers=4.1": "vers=3"}[replace], 1)
    checks = dgx_verify.mount_checks([MOUNT], active(changed), {}, True, "")
    assert checks[0]["status"] == "fail" and expected in checks[0]["detail"]


def test_a_mount_on_another_lif_fails():
    other = PROC_MOUNTS.replace("172.31.251.101:/data", "172.31.251.103:/data")
    checks = dgx_verify.mount_checks([MOUNT], active(other), {}, True, "")
    assert checks[0]["status"] == "fail" and "server 172.31.251.103:/data" in checks[0]["detail"]


def test_without_an_nfs_client_the_persisted_entry_is_checked_and_the_mount_does_not_apply():
    fstab = "# static\n172.31.251.101:/data /mnt/data nfs " + ",".join(MODEL_OPTIONS) + " 0 0\n"
    checks = dgx_verify.mount_checks([MOUNT], {}, dgx_verify.parse_fstab(fstab), False, "this kernel has no NFS client")
    assert [(c["name"], c["status"]) for c in checks] == [("mount /mnt/data (persisted)", "pass"),
                                                          ("mount /mnt/data", "not_applicable")]
    missing = dgx_verify.mount_checks([MOUNT], {}, {}, False, "this kernel has no NFS client")
    assert missing[0]["status"] == "fail"


def test_a_kernel_that_can_mount_but_did_not_fails():
    checks = dgx_verify.mount_checks([MOUNT], {}, {}, True, "")
    assert checks[0]["status"] == "fail" and "not mounted" in checks[0]["detail"]


def test_nic_mtu_and_address():
    ok = dgx_verify.nic_checks([NIC], lambda d: 9000, lambda d: ["172.31.251.11/24"])
    assert [c["status"] for c in ok] == ["pass", "pass"]
    small = dgx_verify.nic_checks([NIC], lambda d: 1500, lambda d: [])
    assert [c["status"] for c in small] == ["fail", "fail"] and "MTU 1500, model 9000" in small[0]["detail"]
    absent = dgx_verify.nic_checks([NIC], lambda d: None, lambda d: [])
    assert absent[0]["status"] == "fail" and "does not exist" in absent[0]["detail"]


BOND_PLAN = {"device": "bond1", "parent": "bond1", "mtu": 9000, "cidr": "10.0.1.6/24", "network": "s-a",
             "bond": {"mode": "active-backup", "mii_monitor_ms": 100, "fail_over_mac": "active",
                      "members": ["enp41s0f0", "enp170s0f0"], "primary": "enp170s0f0"}}
# What the bonding driver shows under /sys/class/net for that bond, healthy.
BOND_SYSFS = {"/sys/class/net/bond1/bonding/mode": "active-backup 1\n", "/sys/class/net/bond1/bonding/miimon": "100\n",
              "/sys/class/net/bond1/bonding/fail_over_mac": "active 1\n", "/sys/class/net/bond1/bonding/slaves": "enp41s0f0 enp170s0f0\n",
              "/sys/class/net/bond1/bonding/primary": "enp170s0f0\n", "/sys/class/net/bond1/bonding/active_slave": "enp170s0f0\n",
              "/sys/class/net/enp41s0f0/bonding_slave/mii_status": "up\n", "/sys/class/net/enp170s0f0/bonding_slave/mii_status": "up\n"}


def test_a_healthy_storage_bond_passes_its_three_kinds_of_check():
    checks = dgx_verify.bond_checks([BOND_PLAN, {"device": "enp1", "parent": "enp1", "bond": None}], BOND_SYSFS.get)
    assert [(c["name"], c["status"]) for c in checks] == [
        ("bond1 bond", "pass"), ("bond1 member enp41s0f0 link", "pass"), ("bond1 member enp170s0f0 link", "pass"),
        ("bond1 active member", "pass")]


def test_a_storage_bond_that_differs_lost_a_link_or_runs_on_its_backup_fails_each_check():
    sysfs = dict(BOND_SYSFS)
    sysfs.update({"/sys/class/net/bond1/bonding/fail_over_mac": "none 0\n", "/sys/class/net/bond1/bonding/active_slave": "enp41s0f0\n",
                  "/sys/class/net/enp170s0f0/bonding_slave/mii_status": "down\n"})
    checks = {c["name"]: c for c in dgx_verify.bond_checks([BOND_PLAN], sysfs.get)}
    assert checks["bond1 bond"]["status"] == "fail" and checks["bond1 bond"]["detail"] == "fail_over_mac none (model active)"
    assert checks["bond1 member enp170s0f0 link"]["detail"] == "link down: the bond has no second path"
    assert (checks["bond1 active member"]["status"], checks["bond1 active member"]["detail"]) == (
        "fail", "enp41s0f0 carries the traffic (primary enp170s0f0)")
    [missing] = dgx_verify.bond_checks([BOND_PLAN], {}.get)
    assert missing["status"] == "fail" and missing["detail"].startswith("bond1 is not a bond on this host")


def test_pings_go_to_the_lifs_of_the_nics_network_with_the_full_payload():
    lifs = [{"name": "a1", "address": "172.31.251.101", "network": "storage-a"},
            {"name": "b1", "address": "172.31.252.101", "network": "storage-b"}]
    sent = []

    def ping(device, payload, address):
        sent.append((device, payload, address))
        return address.endswith(".101") and device == "eth1", "ping: local error: message too long, mtu=1500"

    checks = dgx_verify.ping_checks([NIC], lifs, ping)
    assert sent == [("eth1", 8972, "172.31.251.101")]
    assert checks[0]["status"] == "pass"
    refused = dgx_verify.ping_checks([NIC], lifs, lambda *a: (False, "message too long"))
    assert refused[0]["status"] == "fail" and "message too long" in refused[0]["detail"]


def test_jumbo_pings_run_together_and_report_in_order():
    nics = [NIC, {**NIC, "device": "eth2", "network": "storage-b", "cidr": "172.31.252.11/24"}]
    lifs = [{"name": f"{net[-1]}{n}", "address": f"172.31.25{1 if net == 'storage-a' else 2}.{100 + n}", "network": net}
            for net in ("storage-a", "storage-b") for n in range(1, 5)]

    def slow_ping(device, payload, address):
        time.sleep(0.5)
        return not address.endswith(".103"), f"{device} {address}"

    started = time.monotonic()
    checks = dgx_verify.ping_checks(nics, lifs, slow_ping)
    assert time.monotonic() - started < 2.0          # 8 pings of 0.5 s each, at the same time
    assert [c["name"] for c in checks] == [f"jumbo ping {nic['device']} -> {lif['address']}"
                                           for nic in nics for lif in lifs if lif["network"] == nic["network"]]
    assert [c["status"] for c in checks] == ["pass", "pass", "fail", "pass"] * 2


def test_gpu_check():
    present = {"present": True, "count": 8, "models": ["NVIDIA A100-SXM4-40GB"]}
    assert gpus.gpu_check(present, {"count": 8})["status"] == "pass"
    assert gpus.gpu_check({**present, "count": 7}, {"count": 8})["status"] == "fail"
    absent = gpus.gpu_check({"present": False, "reason": "nvidia-smi not found"}, {"count": 8})
    assert absent["status"] == "not_applicable" and "nvidia-smi not found" in absent["detail"]


def test_pending_checks_fail_per_area_with_something_pending():
    pending = {"lifs": [aipod_pending.item("lifs svm:lif1", action="create")],
               "svms": [],
               "flexgroups": [aipod_pending.item("flexgroups", action="refuse", reason="volume data is a FlexVol")]}
    checks = {c["name"]: c for c in verification.pending_checks(pending)}
    assert checks["ONTAP lifs"]["status"] == "fail" and "lifs svm:lif1: missing" in checks["ONTAP lifs"]["detail"]
    assert checks["ONTAP svms"] == {"layer": "storage", "name": "ONTAP svms", "status": "pass", "detail": "as the model says"}
    refused = checks["ONTAP flexgroups (left to an operator)"]
    assert refused["status"] == "fail" and refused["detail"] == "flexgroups: left to an operator: volume data is a FlexVol"
    assert checks["ONTAP flexgroups"]["status"] == "pass"


def test_pending_checks_say_where_the_items_were_read_and_refuse_other_shapes():
    details = [c["detail"] for c in verification.pending_checks({"svms": [], "lifs": []}, "read by this run's storage layer")]
    assert details == ["as the model says (read by this run's storage layer)"] * 2
    assert all(not c["detail"].endswith(")") for c in verification.pending_checks({"svms": []}))
    with pytest.raises(ValueError, match="svms: item 0"):
        verification.pending_checks({"svms": [{"key": "svm1", "action": "create"}]})


def test_the_pod_result_exit_codes():
    passing = {"compute": {"dgx01": [{"name": "x", "status": "pass"}, {"name": "g", "status": "not_applicable"}]}}
    assert verification.pod_result(passing)["exit_code"] == 0
    silent = {"compute": {"dgx01": [{"name": "x", "status": "pass"}], "dgx02": None}}
    result = verification.pod_result(silent)
    assert result["exit_code"] == 2 and result["not_checked"][0]["host"] == "dgx02"
    failing = {**silent, "switches": {"sw-a": [{"name": "y", "status": "fail", "detail": "VLAN 3111 missing"}]}}
    result = verification.pod_result(failing)
    assert result["exit_code"] == 1 and not result["ok"]
    assert result["failures"] == [{"name": "y", "status": "fail", "detail": "VLAN 3111 missing", "layer": "switches", "host": "sw-a"}]
    lines = verification.summary_lines(result)
    assert lines[0].startswith("verification: FAIL") and any("VLAN 3111 missing" in line for line in lines)


def test_an_unknown_status_can_never_pass():
    result = verification.pod_result({"storage": {"c": [{"name": "z", "status": "ok"}]}})
    assert result["exit_code"] == 2


def test_a_registered_result_carries_its_checks_unless_its_task_did_not_run_cleanly():
    record = {"layer": "compute", "name": "eth1 MTU", "status": "pass", "detail": "MTU 9000, model 9000"}
    assert verification.checks_of([record]) == [record]
    assert verification.checks_of({"changed": False, "checks": [record], "failed_checks": 0}) == [record]
    for result in ({"failed": True, "msg": "nvidia-smi -q -x failed", "checks": [record]}, {"unreachable": True},
                   {"skipped": True}, None, "text"):
        assert verification.checks_of(result) is None


def test_an_armed_storage_network_rollback_fails_verification_naming_when_it_fires():
    # Issue 23: a rollback a stopped run left armed fires after a green run; verification says so first.
    assert dgx_verify.rollback_check(None, False)["status"] == "pass"
    armed = dgx_verify.rollback_check("1764031200 1764031320\n", True)
    assert armed["status"] == "fail" and "2025-11-25 00:42:00 UTC" in armed["detail"] and "compute.yml" in armed["detail"]
    # the timer without its state file (or the reverse) is armed all the same
    assert dgx_verify.rollback_check(None, True)["status"] == "fail"
    assert dgx_verify.rollback_check("1764031200 1764031320", False)["status"] == "fail"
