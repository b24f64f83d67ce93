"""The acceptance test on the VM pod: fio through the mounts role dgx_node made, against the storage
VM's real NFS server, judged against the sizing of inventories/lab-vm (8 GPUs x 2 MB/s).

The figures are small under software emulation, but real: the reads cross the role's mounts, and the
per-transport counters of /proc/self/mountstats move on every LIF the model gave the DGX.
"""
from __future__ import annotations

import json
import time
import xml.etree.ElementTree as ET

import pytest
from vm_support import DGX, SCENARIO, playbook, ssh

STORAGE = "storage"

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as site_model
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site

# Short phases and small files: under TCG a phase of a few seconds already moves every counter.
SETTINGS = ["-e", "acceptance_duration_seconds=4", "-e", "acceptance_size_mb=32", "-e", "acceptance_jobs_per_mount=2",
            "-e", "acceptance_iodepth=4", "-e", "acceptance_layout_seconds=20"]


@pytest.fixture(scope="module")
def plan() -> list[dict]:
    return site_model.mount_plan(load_site(str(SCENARIO / "inventory")).model, DGX)


def acceptance(tmp_path, *extra: str):
    reports = tmp_path / "reports"
    run, seconds = playbook("acceptance.yml", *SETTINGS, *extra, env={"AIPOD_REPORT_ROOT": str(reports)})
    report_file = reports / "latest" / "report.json"
    assert report_file.exists(), run.stdout[-3000:] + run.stderr[-2000:]
    print(f"acceptance.yml: {seconds:.0f} s")
    return run, json.loads(report_file.read_text()), reports / "latest"


def test_every_mount_is_read_through_its_lif_and_the_verdict_follows_the_sizing(tmp_path, plan):
    run, report, run_dir = acceptance(tmp_path)
    result = report["acceptance"]
    assert run.returncode == 0 and result["exit_code"] == 0, (result["shortfalls"], result["not_measured"], run.stdout[-3000:])
    assert result["demand_mb_s"] == 16 and result["dgx"][DGX]["mb_s"] >= 16
    # Every LIF the model gave the DGX (one per ONTAP node) carried reads, counted by the kernel.
    assert set(result["lifs"]) == {mount["server"] for mount in plan}
    assert {lif["node"] for lif in result["lifs"].values()} == {mount["lif_node"] for mount in plan}
    for address, lif in result["lifs"].items():
        assert lif["status"] == "pass" and lif["read_bytes"] > 2**20, (address, lif)
    for row in result["mounts"]:
        assert row["measured"] and set(row["phases"]) == {"seqread", "randread", "write"}, row
        for phase, figures in row["phases"].items():
            assert figures["mb_s"] > 0 and figures["lat_mean_ms"] > 0, (row["path"], phase, figures)
        read = row["phases"]["seqread"]
        # nconnect=16: every connection carried requests.
        assert read["transports_total"] == 16 and read["transports_used"] == 16, (row["path"], read)
        assert row["phases"]["write"]["write_bytes"] > 0
    # Nothing is left on the file systems; the report has the section and its picture.
    listing = ssh(DGX, "ls -A /mnt/data /mnt/home")
    assert listing.returncode == 0 and ".aipod-acceptance" not in listing.stdout, listing
    assert result["dgx"][DGX]["lat_mean_ms"] > 0 and not any("late" in w for w in result["warnings"]), result["warnings"]
    assert "![Acceptance: reads from every DGX against the sizing](acceptance.svg)" in (run_dir / "report.md").read_text()
    picture = ET.fromstring((run_dir / "acceptance.svg").read_text().split("\n", 1)[1])
    assert picture.tag == "{http://www.w3.org/2000/svg}svg"


def test_an_unreachable_lif_is_named_by_the_verdict(tmp_path, plan):
    """The LIF of /mnt/home stops answering (its address leaves the storage VM): verification sees its
    jumbo ping fail, the mount is not measured (a hard NFS mount to a silent server would block fio),
    and the verdict names the LIF."""
    cut = next(mount for mount in plan if mount["path"] == "/mnt/home")
    shown = ssh(STORAGE, f"ip -o -4 addr show to {cut['server']}")
    device, cidr = shown.stdout.split()[1], shown.stdout.split()[3]
    # Deleting a device's first address would take its secondaries (the other LIF) with it.
    first = ssh(STORAGE, f"ip -o -4 addr show dev {device}").stdout.split()[3]
    assert cidr != first, f"{cidr} is the first address of {device}; the test cuts a secondary one"
    assert ssh(STORAGE, f"ip addr del {cidr} dev {device}").returncode == 0
    try:
        run, report, _run_dir = acceptance(tmp_path, "-e", '{"acceptance_phases": ["seqread"]}')
        result = report["acceptance"]
        assert run.returncode != 0 and result["exit_code"] == 1, result
        assert any(f"LIF {cut['lif']} ({cut['server']}) did not answer the jumbo ping" in s for s in result["shortfalls"]), result
        assert "The data path falls short" in run.stdout
        rows = {row["path"]: row for row in result["mounts"]}
        assert rows["/mnt/home"]["measured"] is False and rows["/mnt/data"]["measured"] is True
        assert result["lifs"][cut["server"]]["status"] == "not measured"
    finally:
        ssh(STORAGE, f"ip addr add {cidr} dev {device}")
    # The mount recovers once the LIF is back (later tests and runs use it).
    deadline = time.monotonic() + 180
    while ssh(DGX, "timeout 20 stat -f /mnt/home", timeout=60).returncode != 0:
        assert time.monotonic() < deadline, "/mnt/home did not recover after the LIF came back"
        time.sleep(5)
