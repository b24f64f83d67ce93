"""The acceptance test's pure parts on a DGX: fio command lines, fio's JSON, and /proc/self/mountstats.

fio runs with its working directory in the mount's scratch directory and relative file names, so no
path of the model is ever parsed by fio (fio reads ':' in paths as a list separator).
"""
from __future__ import annotations

import json
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.module_utils.aipod_compute.nfs import unescape_mount_point

# Each DGX works in <mount>/.aipod-acceptance/<inventory host name>: the mounts are the pod's, shared.
SCRATCH = ".aipod-acceptance"

# phase -> fio rw mode, the direction it measures, and the files it uses (both reads share one set,
# laid out by the first read phase).
PHASES: dict[str, dict[str, str]] = {
    "seqread": {"rw": "read", "direction": "read", "files": "data"},
    "randread": {"rw": "randread", "direction": "read", "files": "data"},
    "write": {"rw": "write", "direction": "write", "files": "write"},
}


def fio_argv(fio: str, phase: str, duration: int, size_mb: int, jobs: int, iodepth: int, block_kb: int) -> list[str]:
    """One fio run of `phase` on the mount that is the working directory: `jobs` processes, each on
    its own file of `size_mb`, direct I/O (the page cache would measure memory, not the storage)."""
    spec = PHASES[phase]
    return [fio, "--output-format=json", f"--name={phase}", f"--rw={spec['rw']}", f"--bs={block_kb}k",
            f"--size={size_mb}m", f"--numjobs={jobs}", "--group_reporting", f"--filename_format={spec['files']}.$jobnum",
            "--ioengine=libaio", f"--iodepth={iodepth}", "--direct=1", "--time_based", f"--runtime={duration}",
            "--fallocate=none", "--thread"]


def layout_argv(fio: str, size_mb: int, jobs: int, block_kb: int) -> list[str]:
    """fio laying out the read phases' files and nothing else, so that the timed phases start together."""
    return [fio, "--output-format=json", "--name=layout", "--rw=read", f"--bs={block_kb}k", f"--size={size_mb}m",
            f"--numjobs={jobs}", "--filename_format=data.$jobnum", "--create_only=1", "--fallocate=none", "--thread"]


def parse_fio(text: str, phase: str) -> dict[str, Any]:
    """fio's JSON output (one group-reported job) -> {mb_s, iops, lat_mean_ms, lat_p99_ms, error}.

    MB/s are 10^6 bytes per second, as the sizing's figures are. fio may print notices before the JSON.
    """
    start = text.find("{")
    if start < 0:
        raise ValueError("fio printed no JSON")
    data = json.loads(text[start:])
    jobs = data.get("jobs") or []
    if not jobs:
        raise ValueError("fio's JSON has no job")
    job = jobs[0]
    side = job.get(PHASES[phase]["direction"]) or {}
    latency = side.get("clat_ns") or {}
    percentiles = latency.get("percentile") or {}
    p99 = next((value for key, value in percentiles.items() if key.startswith("99.0")), None)
    return {"mb_s": round(float(side.get("bw_bytes") or 0) / 1e6, 1), "iops": round(float(side.get("iops") or 0), 1),
            "lat_mean_ms": round(float((side.get("lat_ns") or {}).get("mean") or 0) / 1e6, 3),
            "lat_p99_ms": round(float(p99) / 1e6, 3) if p99 is not None else None,
            "error": int(job.get("error") or 0)}


def parse_mountstats(text: str) -> dict[str, dict[str, Any]]:
    """NFS mounts of /proc/self/mountstats: mount point -> {device, fstype, addr (the server of the
    device), read_bytes, write_bytes, transports: [{protocol, sends, recvs}]}.

    read_bytes and write_bytes are the `bytes:` line's server read and write bytes (what went over
    the wire). Each `xprt:` line is one transport: nconnect opens several, and session trunking
    adds more. Its sends and receives are the 6th and 7th numbers for tcp and rdma alike (3rd and 4th for udp).
    """
    mounts: dict[str, dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    for line in text.splitlines():
        if line.startswith("device "):
            current = None
            head, _sep, rest = line[len("device "):].partition(" mounted on ")
            point, _sep, tail = rest.rpartition(" with fstype ")
            fstype = tail.split()[0] if tail.split() else ""
            if fstype.startswith("nfs"):
                # The server the kernel talks to is the device's host part (mountstats' opts carry no addr=).
                server = head.split(":/", 1)[0] if ":/" in head else None
                current = {"device": head, "fstype": fstype, "addr": server.strip("[]") if server else None,
                           "read_bytes": 0, "write_bytes": 0, "transports": []}
                mounts[unescape_mount_point(point)] = current
            continue
        if current is None:
            continue
        fields = line.split()
        if not fields:
            continue
        if fields[0] == "bytes:" and len(fields) >= 7:
            current["read_bytes"], current["write_bytes"] = int(fields[5]), int(fields[6])
        elif fields[0] == "xprt:" and len(fields) >= 9:
            values = fields[2:]
            sends = 2 if fields[1] == "udp" else 5     # udp has no connect fields
            current["transports"].append({"protocol": fields[1], "sends": int(values[sends]), "recvs": int(values[sends + 1])})
    return mounts


def mountstats_delta(before: dict[str, Any] | None, after: dict[str, Any] | None) -> dict[str, Any]:
    """What one mount's counters moved between two readings: bytes, and per transport its sends."""
    before = before or {"read_bytes": 0, "write_bytes": 0, "transports": []}
    after = after or {"read_bytes": 0, "write_bytes": 0, "transports": [], "addr": None}
    transports = []
    for index, transport in enumerate(after.get("transports") or []):
        earlier = (before.get("transports") or [])[index] if index < len(before.get("transports") or []) else {}
        transports.append({"protocol": transport["protocol"],
                           "sends": max(0, transport["sends"] - int(earlier.get("sends") or 0)),
                           "recvs": max(0, transport["recvs"] - int(earlier.get("recvs") or 0))})
    return {"addr": after.get("addr"), "read_bytes": max(0, after["read_bytes"] - before["read_bytes"]),
            "write_bytes": max(0, after["write_bytes"] - before["write_bytes"]), "transports": transports,
            "transports_used": sum(1 for t in transports if t["sends"] > 0), "transports_total": len(transports)}
