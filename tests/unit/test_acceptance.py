"""The acceptance test: fio's command line and output, mountstats, and the verdict against the sizing."""
from __future__ import annotations

import copy
import xml.etree.ElementTree as ET

import pytest
from project_paths import REPO
from switch_test_models import sample_model

from ansible_collections.ontap_ai.pod.plugins.module_utils.aipod_compute import acceptance as probe
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_report import acceptance
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m

FIXTURES = REPO / "tests" / "fixtures" / "acceptance"

# The shape of /proc/self/mountstats (Linux 6.1, fs/nfs/super.c and net/sunrpc/xprtsock.c): one NFSv4.1
# mount with two nconnect transports, a mount point with a space, and a file system that is not NFS.
MOUNTSTATS = """device rootfs mounted on / with fstype rootfs
device 100.127.111.101:/data mounted on /mnt/data with fstype nfs4 statvers=1.1
\topts:\trw,vers=4.1,rsize=262144,wsize=262144,namlen=255,acregmin=3,hard,proto=tcp,nconnect=2,timeo=600,retrans=2,sec=sys,clientaddr=100.127.111.11,local_lock=none
\tage:\t42
\tcaps:\tcaps=0x3ffbffff,wtmult=512,dtsize=32768,bsize=0,namlen=255
\tnfsv4:\tbm0=0xfdffbfff,bm1=0xf9be3e,bm2=0x68800,acl=0x3,sessions,pnfs=not configured,lease_time=90,lease_expired=0
\tsec:\tflavor=1,pseudoflavor=1
\tevents:\t0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
\tbytes:\t0 0 1048576 0 %(read)d %(write)d 0 0
\tRPC iostats version: 1.1  p/v: 100003/4 (nfs)
\txprt:\ttcp 875 1 1 0 0 %(sends_a)d %(sends_a)d 0 %(sends_a)d 0 2 0 0
\txprt:\ttcp 876 1 1 0 0 %(sends_b)d %(sends_b)d 0 %(sends_b)d 0 2 0 0
\tper-op statistics
\t        NULL: 1 1 0 44 24 0 0 0 0
\t        READ: 4 4 0 608 1049088 0 3 3 0
device 100.127.112.102:/home\\040vol mounted on /mnt/home\\040dir with fstype nfs statvers=1.1
\topts:\trw,vers=3,proto=udp
\tbytes:\t0 0 0 0 5 6 0 0
\txprt:\tudp 0 0 %(sends_a)d %(sends_a)d 0 0 0 0 0 0
"""


def stats(read=0, write=0, sends_a=0, sends_b=0):
    return MOUNTSTATS % {"read": read, "write": write, "sends_a": sends_a, "sends_b": sends_b}


def test_fio_runs_relative_files_in_its_working_directory():
    argv = probe.fio_argv("/usr/bin/fio", "seqread", 30, 1024, 4, 8, 1024)
    assert argv[0] == "/usr/bin/fio" and "--rw=read" in argv and "--bs=1024k" in argv and "--direct=1" in argv
    assert "--filename_format=data.$jobnum" in argv and "--numjobs=4" in argv and "--runtime=30" in argv
    assert not any("/mnt" in arg or "directory" in arg for arg in argv)      # no model path reaches fio's parser
    assert "--thread" in argv        # one process: killed whole, and ended with the module by Ansible's async timeout
    layout = probe.layout_argv("fio", 1024, 4, 1024)
    assert "--create_only=1" in layout and "--filename_format=data.$jobnum" in layout and "--numjobs=4" in layout
    assert "--filename_format=data.$jobnum" in probe.fio_argv("fio", "randread", 1, 1, 1, 1, 1)
    assert "--filename_format=write.$jobnum" in probe.fio_argv("fio", "write", 1, 1, 1, 1, 1)


def test_fio_json_gives_mb_s_iops_and_latency():
    read = probe.parse_fio((FIXTURES / "fio-3.33-seqread.json").read_text(), "seqread")
    assert read["mb_s"] == pytest.approx(1848.0, abs=0.1) and read["iops"] == pytest.approx(1762.4, abs=0.1)
    assert read["lat_mean_ms"] == pytest.approx(4.525, abs=0.001) and read["lat_p99_ms"] > read["lat_mean_ms"]
    assert read["error"] == 0
    write = probe.parse_fio("fio: notice before the JSON\n" + (FIXTURES / "fio-3.33-write.json").read_text(), "write")
    assert write["mb_s"] > 0 and write["error"] == 0
    with pytest.raises(ValueError, match="no JSON"):
        probe.parse_fio("fio: engine libaio not loadable", "seqread")


def test_mountstats_gives_bytes_and_each_transport():
    mounts = probe.parse_mountstats(stats(read=7, write=8, sends_a=10, sends_b=20))
    assert set(mounts) == {"/mnt/data", "/mnt/home dir"}
    data = mounts["/mnt/data"]
    assert data["fstype"] == "nfs4" and data["addr"] == "100.127.111.101" and data["device"] == "100.127.111.101:/data"
    assert (data["read_bytes"], data["write_bytes"]) == (7, 8)
    assert data["transports"] == [{"protocol": "tcp", "sends": 10, "recvs": 10}, {"protocol": "tcp", "sends": 20, "recvs": 20}]
    home = mounts["/mnt/home dir"]
    assert home["addr"] == "100.127.112.102" and home["transports"] == [{"protocol": "udp", "sends": 10, "recvs": 10}]


def test_the_delta_counts_only_transports_that_moved():
    before = probe.parse_mountstats(stats(read=100, sends_a=10, sends_b=20))["/mnt/data"]
    after = probe.parse_mountstats(stats(read=5000, write=0, sends_a=50, sends_b=20))["/mnt/data"]
    delta = probe.mountstats_delta(before, after)
    assert delta["read_bytes"] == 4900 and delta["write_bytes"] == 0
    assert (delta["transports_used"], delta["transports_total"]) == (1, 2)
    assert probe.mountstats_delta(None, after)["read_bytes"] == 5000


# ------------------------------------------------------------------ the verdict
@pytest.fixture(scope="module")
def model():
    return sample_model()


def plans(model):
    return {host: m.mount_plan(model, host) for host in m.hosts_of_kind(model, "dgx")}


def healthy_checks(mounts, unreachable=()):
    checks = []
    for mount in mounts:
        checks.append({"name": f"mount {mount['path']}", "status": "pass"})
        checks.append({"name": f"jumbo ping x -> {mount['server']}", "status": "fail" if mount["server"] in unreachable else "pass"})
    return checks


def measured(mounts, mb_s, read_bytes=10**9, used=16, skip=()):
    return {"measured": True, "mounts": {
        mount["path"]: {"lif": mount["server"], "measured": True, "phases": {
            phase: {"mb_s": mb_s, "iops": mb_s, "lat_mean_ms": 1.0, "lat_p99_ms": 2.0, "read_bytes": read_bytes,
                    "write_bytes": 0, "transports_used": used, "transports_total": 16, "addr": mount["server"]}
            for phase in ("seqread", "randread", "write")}}
        for mount in mounts if mount["path"] not in skip}}


def run(model, mb_s=500.0, unreachable=(), read_bytes=10**9, used=16, missing=()):
    hosts = {}
    for host, mounts in plans(model).items():
        checks = None if host in missing else healthy_checks(mounts, unreachable)
        targets = acceptance.targets(mounts, checks)
        healthy = [mount for mount, target in zip(mounts, targets, strict=True) if target["healthy"]]
        hosts[host] = {"targets": targets, "result": None if host in missing else measured(healthy, mb_s, read_bytes, used)}
    return acceptance.verdict(model, hosts)


def test_reads_that_meet_the_demand_pass(model):
    result = run(model)                                   # 2 mounts x 500 MB/s per DGX, 8 GPUs x 82 MB/s each
    assert result["exit_code"] == 0, result["shortfalls"]
    assert result["total_mb_s"] == 4000.0 and result["demand_mb_s"] == 4 * 8 * 82
    assert result["dgx"]["dgx01"] == {"gpus": 8, "demand_mb_s": 656, "mb_s": 1000.0, "status": "pass", "lat_mean_ms": 1.0}
    assert result["supply_mb_s"] == m.sizing(model)["supply_mb_s"] and 0 < result["supply_reached"] < 1
    assert all(lif["status"] == "pass" for lif in result["lifs"].values())
    # every DGX is spread over LIFs on both nodes
    assert {lif["node"] for lif in result["lifs"].values()} == {"aipod-a800-01", "aipod-a800-02"}
    assert set(result["nodes"]) == {"aipod-a800-01", "aipod-a800-02"}
    assert result["warnings"] == []


def test_a_dgx_below_its_gpus_demand_is_named(model):
    result = run(model, mb_s=300.0)
    assert result["exit_code"] == 1
    assert "dgx01 read 600.0 MB/s, its 8 GPUs need 656 MB/s" in result["shortfalls"]
    assert result["shortfalls"][0] == "the pod read 2400.0 MB/s in total, its measured DGX need 2624 MB/s"


def test_an_unreachable_lif_is_named_and_its_mounts_are_not_measured(model):
    lif = plans(model)["dgx02"][0]
    result = run(model, mb_s=2000.0, unreachable=(lif["server"],))
    assert result["exit_code"] == 1
    assert any(f"LIF {lif['lif']} ({lif['server']}) did not answer the jumbo ping" in s for s in result["shortfalls"])
    assert result["lifs"][lif["server"]]["status"] == "not measured"
    row = next(r for r in result["mounts"] if r["host"] == "dgx02" and r["path"] == lif["path"])
    assert row["measured"] is False and row["phases"] == {}


def test_a_lif_whose_counters_never_moved_falls_short(model):
    result = run(model, read_bytes=0)
    assert result["exit_code"] == 1
    assert any(s.startswith("LIF ") and s.endswith("carried no reads") for s in result["shortfalls"])


def test_a_host_that_could_not_be_measured_makes_the_result_incomplete(model):
    result = run(model, mb_s=2000.0, missing=("dgx04",))
    assert result["exit_code"] == 2 and result["shortfalls"] == []
    assert any(s.startswith("dgx04 ") for s in result["not_measured"])
    assert result["dgx"]["dgx04"]["status"] == "not measured" and result["demand_mb_s"] == 3 * 656


def test_nothing_measured_is_incomplete_not_a_pass(model):
    hosts = {host: {"targets": [], "result": None} for host in plans(model)}
    assert acceptance.verdict(model, hosts)["exit_code"] == 2


def test_idle_connections_and_a_lif_carrying_far_more_than_its_share_warn(model):
    result = run(model, used=3)
    assert any("3 of 16 connections carried traffic" in w for w in result["warnings"])
    hosts = {}
    for host, mounts in plans(model).items():
        targets = acceptance.targets(mounts, healthy_checks(mounts))
        result_of_host = measured(mounts, 500.0)
        for mount in mounts:
            phase = result_of_host["mounts"][mount["path"]]["phases"]["seqread"]
            phase["read_bytes"] = 10**11 if mount["server"] == plans(model)["dgx01"][0]["server"] else 10**9
        hosts[host] = {"targets": targets, "result": result_of_host}
    warnings = acceptance.verdict(model, hosts)["warnings"]
    assert any(w.startswith("LIF ") and "times its share" in w for w in warnings)
    assert any(w.startswith("node ") and "times its share" in w for w in warnings)


def test_the_report_section_and_picture(model):
    result = run(model, mb_s=300.0)
    text = acceptance.markdown(result)
    assert text.startswith("Result: **FAIL: the data path falls short** (exit code 1)")
    assert "| dgx01 | 8 | 656 | 600.0 | 1.0 | short |" in text and "| ONTAP node | MiB read |" in text
    picture = acceptance.svg(result)
    root = ET.fromstring(picture.split("\n", 1)[1])
    rects = [e for e in root.iter("{http://www.w3.org/2000/svg}rect")]
    assert len(rects) == 1 + 4 + len(result["lifs"])           # background, one bar per DGX and per LIF
    share = result["demand_mb_s"] / len(result["lifs"])
    lif_mb_s = {address: sum(r["phases"]["seqread"]["mb_s"] for r in result["mounts"] if r["lif"] == address)
                for address in result["lifs"]}
    short_lifs = sum(1 for value in lif_mb_s.values() if value < share)
    assert sum(1 for e in rects if e.get("fill") == "#d62728") == 4 + short_lifs  # every DGX is short
    lines = [e for e in root.iter("{http://www.w3.org/2000/svg}line")]
    assert len(lines) == 4 + len(result["lifs"])                # a demand mark per bar


def test_targets_without_verification_are_not_healthy(model):
    mounts = plans(model)["dgx01"]
    assert all(not t["healthy"] and t["reason"] == "the host was not verified" for t in acceptance.targets(mounts, None))
    checks = healthy_checks(mounts)
    checks[0]["status"] = "fail"
    targets = acceptance.targets(mounts, checks)
    assert targets[0]["reason"].startswith("verification did not find") and targets[1]["healthy"]
    assert copy.deepcopy(targets) == targets


def test_a_mount_that_fails_the_test_falls_short_and_fio_missing_is_incomplete(model):
    mounts = plans(model)["dgx01"]
    targets = acceptance.targets(mounts, healthy_checks(mounts))
    failed = measured(mounts, 2000.0)
    failed["mounts"][mounts[1]["path"]] = {"lif": mounts[1]["server"], "measured": False, "phases": {},
                                           "reason": f"{mounts[1]['path']}: Input/output error"}
    result = acceptance.verdict(model, {"dgx01": {"targets": targets, "result": failed}})
    assert result["exit_code"] == 1 and f"dgx01 {mounts[1]['path']}: {mounts[1]['path']}: Input/output error" in result["shortfalls"]
    no_fio = {"measured": False, "reason": "fio is not installed on this host (install the fio package)",
              "mounts": {m["path"]: {"lif": m["server"], "measured": False, "phases": {}} for m in mounts}}
    result = acceptance.verdict(model, {"dgx01": {"targets": targets, "result": no_fio}})
    assert result["exit_code"] == 2 and result["shortfalls"] == [] and len(result["not_measured"]) == 2
    assert all("fio is not installed" in line for line in result["not_measured"])


def test_a_host_that_cannot_mount_nfs_is_not_measured_rather_than_short(model):
    mounts = plans(model)["dgx01"]
    checks = [{"name": f"mount {mount['path']}", "status": "not_applicable"} for mount in mounts]
    checks += [{"name": f"jumbo ping x -> {mount['server']}", "status": "pass"} for mount in mounts]
    targets = acceptance.targets(mounts, checks)
    assert [t["healthy"] for t in targets] == [False, False] and "cannot mount NFS" in targets[0]["reason"]
    result = acceptance.verdict(model, {"dgx01": {"targets": targets, "result": None}})
    assert result["exit_code"] == 2 and result["shortfalls"] == []


def test_no_gpus_means_no_demand_to_judge(model):
    model = copy.deepcopy(model)
    model["hosts"]["dgx01"]["dgx"]["gpus"]["count"] = 0
    model["hosts"]["dgx01"]["dgx"]["model"] = "a server the sizing does not know"
    mounts = plans(model)["dgx01"]
    result = acceptance.verdict(model, {"dgx01": {"targets": acceptance.targets(mounts, healthy_checks(mounts)),
                                                   "result": measured(mounts, 10.0)}})
    assert result["exit_code"] == 2 and any("no demand" in line for line in result["not_measured"])


def test_shares_follow_the_mounts_the_plan_gives_each_lif(model):
    """Two mounts on one LIF and one on another: two thirds of the reads on the first is its share."""
    mounts = plans(model)["dgx01"] + [dict(plans(model)["dgx01"][0], path="/mnt/extra")]
    targets = acceptance.targets(mounts, healthy_checks(mounts))
    result = acceptance.verdict(model, {"dgx01": {"targets": targets, "result": measured(mounts, 500.0)}})
    assert not any("times its share" in w for w in result["warnings"]), result["warnings"]


def test_reads_are_credited_to_the_server_the_kernel_uses_and_a_late_start_warns(model):
    mounts = plans(model)["dgx01"]
    result_of_host = measured(mounts, 500.0)
    result_of_host["late_start_seconds"] = 12.5
    result_of_host["clock_skew_seconds"] = 3600.0
    result_of_host["scratch_left"] = ["/mnt/data/.aipod-acceptance/dgx01: Device or resource busy"]
    result_of_host["mounts"][mounts[0]["path"]]["phases"]["seqread"]["addr"] = "100.127.111.199"
    result = acceptance.verdict(model, {"dgx01": {"targets": acceptance.targets(mounts, healthy_checks(mounts)),
                                                   "result": result_of_host}})
    assert result["lifs"]["100.127.111.199"]["read_bytes"] == 10**9
    assert result["lifs"][mounts[0]["server"]]["status"] == "no reads" and result["exit_code"] == 1
    assert any("the kernel reads from 100.127.111.199" in w for w in result["warnings"])
    assert any("12.5 s late" in w for w in result["warnings"]) and any("scratch directory left" in w for w in result["warnings"])
    assert any("3600.0 s behind the control node" in w for w in result["warnings"])
