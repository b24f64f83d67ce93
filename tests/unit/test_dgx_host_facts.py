"""dgx_host_facts: the readings the dgx_node role branches on (pure parts)."""
from __future__ import annotations

import grp
import hashlib
import json
import os
import pwd

import pytest
from ansible.module_utils.testing import patch_module_args
from project_paths import COLLECTION

from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending
from ansible_collections.ontap_ai.pod.plugins.modules import dgx_host_facts as facts
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_compute import files, pending

MLX_RINGS = """Ring parameters for enp225s0f0:
Pre-set maximums:
RX:\t\t8192
RX Mini:\tn/a
RX Jumbo:\tn/a
TX:\t\t8192
Current hardware settings:
RX:\t\t1024
RX Mini:\tn/a
RX Jumbo:\tn/a
TX:\t\t1024
RX Buf Len:\tn/a
"""


def test_ring_sizes_of_a_connectx_nic():
    assert facts.parse_ethtool_rings(MLX_RINGS) == {"rx_max": 8192, "tx_max": 8192, "rx": 1024, "tx": 1024}


@pytest.mark.parametrize("text", ["", "netlink error: Operation not supported", "Pre-set maximums:\nRX: 4096\n"])
def test_no_ring_sizes_when_the_driver_reports_none(text):
    assert facts.parse_ethtool_rings(text) is None


def test_driver_from_ethtool_i():
    assert facts.parse_ethtool_driver("driver: mlx5_core\nversion: 24.01\nbus-info: 0000:e1:00.0\n") == "mlx5_core"
    assert facts.parse_ethtool_driver("") is None


def test_nfs_capability_needs_the_filesystem_and_the_privilege():
    with_nfs = "nodev\tsysfs\nnodev\tnfs\nnodev\tnfs4\n"
    sys_admin = format(1 << 21, "x")
    assert facts.nfs_capability(with_nfs, False, sys_admin) == {
        "kernel": True, "loadable": False, "privileged": True, "can_mount": True, "reason": ""}
    assert facts.nfs_capability("nodev\tsysfs\n", True, sys_admin)["can_mount"] is True
    container = facts.nfs_capability("nodev\tsysfs\n\text4\n", False, "a80425fb")
    assert container["can_mount"] is False
    assert container["reason"] == ("nfs is not in /proc/filesystems and no nfs module can be loaded; "
                                   "this root lacks CAP_SYS_ADMIN, which mounting needs")
    assert facts.nfs_capability("nodev\tnfsd\n", False, sys_admin)["kernel"] is False


def test_docker_and_containerd_runtime_readings():
    assert facts.docker_daemon_config(None) == {}
    assert facts.docker_daemon_config('{"default-runtime": "nvidia"}') == {"default-runtime": "nvidia"}
    assert facts.docker_daemon_config("{broken") is None
    assert facts.docker_daemon_config("[1]") is None
    toml = '[plugins."io.containerd.grpc.v1.cri".containerd]\n  default_runtime_name = "nvidia"\n'
    assert facts.default_runtime_of_containerd(toml) == "nvidia"
    assert facts.default_runtime_of_containerd("") is None


def test_networks_holding_the_ssh_client():
    assert facts.networks_holding("100.127.5.9", ["100.127.0.0/17", "100.127.128.0/17", "bad"]) == ["100.127.0.0/17"]
    assert facts.networks_holding(None, ["10.0.0.0/8"]) == []
    assert facts.networks_holding("not-an-ip", ["10.0.0.0/8"]) == []


def lookups(users: dict, groups: dict):
    by_name = {name: pwd.struct_passwd((name, "x", uid, 0, "", "/", "/bin/sh")) for name, uid in users.items()}
    by_uid = {entry.pw_uid: entry for entry in by_name.values()}
    groups_by_name = {name: grp.struct_group((name, "x", gid, [])) for name, gid in groups.items()}
    groups_by_gid = {entry.gr_gid: entry for entry in groups_by_name.values()}
    return by_name.get, by_uid.get, groups_by_name.get, groups_by_gid.get


def test_common_user_conflicts():
    user = {"name": "aipod", "uid": 2000, "group": "aipod", "gid": 2000}
    assert facts.user_conflicts(user, *lookups({"aipod": 2000}, {"aipod": 2000})) == []
    assert facts.user_conflicts(user, *lookups({}, {})) == []
    assert facts.user_conflicts(user, *lookups({"bob": 2000, "aipod": 2001}, {"staff": 2000})) == [
        "uid 2000 belongs to user 'bob'", "user 'aipod' exists with uid 2001, not 2000",
        "gid 2000 belongs to group 'staff'"]
    assert facts.user_conflicts(None, *lookups({}, {})) == []


def test_active_nfs_mounts_from_proc_mounts():
    proc_mounts = (
        "/dev/vda / ext4 rw,relatime 0 0\n"
        "172.31.241.101:/data /mnt/data nfs4 rw,relatime,vers=4.1,rsize=262144,wsize=262144,hard,proto=tcp,nconnect=16 0 0\n"
        "172.31.241.102:/home_vol /mnt/my\\040home nfs rw,vers=3,hard,proto=tcp 0 0\n"
        "nfsd /proc/fs/nfsd nfsd rw,relatime 0 0\n"
    )
    mounts = facts.active_nfs_mounts(proc_mounts)
    assert sorted(mounts) == ["/mnt/data", "/mnt/my home"]
    assert mounts["/mnt/data"] == {"src": "172.31.241.101:/data", "fstype": "nfs4",
                                   "options": ["rw", "relatime", "vers=4.1", "rsize=262144", "wsize=262144", "hard",
                                               "proto=tcp", "nconnect=16"]}
    assert mounts["/mnt/my home"]["fstype"] == "nfs"
    assert facts.active_nfs_mounts("") == {}


# ----------------------------------------------------------------------------- the module's main()
A100_XML = COLLECTION / "tests/unit/plugins/module_utils/aipod_compute/fixtures/dgx-a100.xml"


def run_main_with_gpus(monkeypatch, capsys, tmp_path, xml: str, args: dict) -> tuple[int, dict]:
    """dgx_host_facts on this machine, with an nvidia-smi on PATH that prints xml."""
    answer = tmp_path / "answer.xml"
    answer.write_text(xml)
    fake = tmp_path / "nvidia-smi"
    fake.write_text(f"#!/bin/sh\ncat {answer}\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    monkeypatch.delenv("SSH_CONNECTION", raising=False)
    with patch_module_args(args), pytest.raises(SystemExit) as exit_info:
        facts.main()
    return exit_info.value.code, json.loads(capsys.readouterr().out)


def test_a_host_with_the_models_gpus_is_read_and_summarised(monkeypatch, capsys, tmp_path):
    code, result = run_main_with_gpus(monkeypatch, capsys, tmp_path, A100_XML.read_text(),
                                      {"gpus": True, "expected_gpus": {"count": 8}, "refuse_unsafe": True})
    assert code == 0, result
    host = result["ansible_facts"]["aipod_host"]
    assert host["gpus"]["count"] == 8
    assert host["gpus_summary"].startswith("8 GPU(s) NVIDIA A100-SXM4-40GB")


def test_a_host_missing_a_gpu_is_refused_before_anything_changes(monkeypatch, capsys, tmp_path):
    seven = A100_XML.read_text().replace("<attached_gpus>8</attached_gpus>", "<attached_gpus>7</attached_gpus>")
    seven = seven[:seven.rindex('\t<gpu id=')] + "</nvidia_smi_log>\n"
    code, result = run_main_with_gpus(monkeypatch, capsys, tmp_path, seven,
                                      {"gpus": True, "expected_gpus": {"count": 8}, "refuse_unsafe": True})
    assert code == 1
    assert result["msg"].startswith("nothing was changed. 7 GPU(s) found but the site model expects 8")
    assert result["reasons"][-1].startswith("7 GPU(s) found")


# ----------------------------------------------------------------------------- the files the role keeps
def test_files_state_reads_content_mode_and_owner_and_skips_active_nfs_mounts(tmp_path):
    kept = tmp_path / "90-aipod-nfs.conf"
    kept.write_text("net.core.rmem_max = 268435456\n")
    kept.chmod(0o640)
    staged = tmp_path / "storage-net"
    staged.mkdir()
    (staged / "60-aipod-eth1.network").write_text("[Match]\n")
    found = facts.files_state([str(kept), str(tmp_path / "absent"), "/mnt/data"], [str(staged)],
                              {"/mnt/data": {"src": "lif:/data"}})
    me, my_group = pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(os.getgid()).gr_name
    assert found[str(kept)] == {"type": "file", "mode": "0640", "owner": me, "group": my_group,
                                "sha1": hashlib.sha1(b"net.core.rmem_max = 268435456\n").hexdigest()}
    assert found[str(tmp_path / "absent")] is None
    assert found["/mnt/data"] == {"type": "nfs mount"}
    assert found[str(staged / "60-aipod-eth1.network")]["type"] == "file"
    assert facts.file_state(str(staged), {})["type"] == "directory"


def test_files_as_config_files_leaves_them_read_as_no_difference(tmp_path):
    """The reading and the rules of aipod_compute_pending agree with what the role writes: same text, mode, owner and group."""
    dest = tmp_path / "aipod-roce-qos.service"
    text = files.roce_unit(["eth1"], {"pfc_priorities": [3], "trust": "dscp", "tos": 106, "cable_length": 3}, "Ansible managed")
    dest.write_text(text)
    dest.chmod(0o644)
    owner, group = pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(os.getgid()).gr_name
    kept = {"files": [{"dest": str(dest), "content": text, "mode": "0644"}], "directories": [{"path": str(tmp_path)}],
            "owner": owner, "group": group}
    assert pending._files(kept, facts.files_state([str(dest), str(tmp_path)], [], {})) == []
    dest.write_text(text.replace("dscp", "pcp"))
    assert aipod_pending.lines(pending._files(kept, facts.files_state([str(dest), str(tmp_path)], [], {}))) == [
        f"file {dest}: content differs from the model"]


def test_stale_staging_and_interrupted_writes_are_read_as_differences_where_config_files_removes_them(tmp_path):
    """Hidden entries of a read directory and `.config_files-*` beside kept files are read; only those
    config_files would remove count as a difference, so a host never differs for ever."""
    staged = tmp_path / "storage-net"
    staged.mkdir()
    (staged / "60-aipod-eth1.network").write_text("[Match]\n")
    (staged / "60-aipod-old.network").write_text("[Match]\n")
    (staged / ".config_files-x1").write_text("")
    etc = tmp_path / "etc"
    etc.mkdir()
    dest = etc / "90-aipod-nfs.conf"
    dest.write_text("a\n")
    (etc / ".config_files-y2").write_text("")
    mnt = tmp_path / "mnt"
    (mnt / "data").mkdir(parents=True)
    (mnt / ".config_files-z3").write_text("")  # beside a mount point: no file of config_files lives there
    owner, group = pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(os.getgid()).gr_name
    kept = {"files": [{"dest": str(dest), "content": "a\n"}, {"dest": str(staged / "60-aipod-eth1.network"), "content": "[Match]\n"}],
            "exclusive_directories": [str(staged)], "owner": owner, "group": group}
    readings = facts.files_state([str(dest), str(mnt / "data")], [str(staged)], {})
    assert str(staged / ".config_files-x1") in readings and str(mnt / ".config_files-z3") in readings
    assert aipod_pending.lines(pending._files(kept, readings)) == [
        f"file {etc / '.config_files-y2'}: left by an interrupted write",
        f"file {staged / '.config_files-x1'}: left by an interrupted write",
        f"file {staged / '60-aipod-old.network'}: staged, no longer in the model"]
    for leftover in (staged / ".config_files-x1", staged / "60-aipod-old.network", etc / ".config_files-y2"):
        leftover.unlink()
    assert pending._files(kept, facts.files_state([str(dest), str(mnt / "data")], [str(staged)], {})) == []


def test_a_pending_storage_network_change_is_read_with_its_times():
    state = facts.rollback_state("1764031200 1764031320\n", None, timer_active=True)
    assert state == {"pending": True, "timer_active": True, "armed_at": 1764031200, "due_at": 1764031320,
                     "rolled_back_at": None}


def test_an_armed_timer_without_its_file_is_still_pending():
    # A run stopped between arming the timer and writing the file, or a file removed by hand.
    assert facts.rollback_state(None, None, timer_active=True)["pending"] is True


def test_a_timer_that_fired_is_read_as_a_rollback_and_nothing_pending():
    state = facts.rollback_state(None, "1764031321\n", timer_active=False)
    assert state["pending"] is False and state["rolled_back_at"] == 1764031321


def test_a_host_never_changed_has_nothing_armed():
    assert facts.rollback_state(None, None, timer_active=False) == {
        "pending": False, "timer_active": False, "armed_at": None, "due_at": None, "rolled_back_at": None}
