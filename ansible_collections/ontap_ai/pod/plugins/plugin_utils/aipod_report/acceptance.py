"""The acceptance test's verdict: what fio measured on every DGX, per mount, LIF and ONTAP node,
against the sizing (demand = GPUs x gpu_ingest_mb_s, supply = the model's storage figure).

Pure functions over the mount plans (aipod_compute_plans), the verification's checks
(dgx_verify) and what dgx_acceptance returned per host.
"""
from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m

# The phase judged against the demand: sequential large reads are what training does.
JUDGED_PHASE = "seqread"
# A LIF or node carrying more than this many times its fair share gets a warning (with two nodes,
# 1.5 times is three quarters of the reads on one).
IMBALANCE_FACTOR = 1.5
# What the report keeps of each phase dgx_acceptance measured.
FIGURES = ("mb_s", "iops", "lat_mean_ms", "lat_p99_ms", "read_bytes", "write_bytes", "transports_used", "transports_total")


def targets(mounts: list[Mapping[str, Any]], checks: list[Mapping[str, Any]] | None) -> list[dict]:
    """The host's planned mounts, each with whether verification found it healthy: its mount check
    passed and a jumbo ping to its LIF was answered. Without checks (the host was not verified)
    nothing is healthy."""
    by_name = {str(c.get("name")): c.get("status") for c in checks or [] if isinstance(c, Mapping)}
    result = []
    for mount in mounts:
        server = mount.get("server")
        mount_status = by_name.get(f"mount {mount.get('path')}")
        mount_ok = mount_status == "pass"
        pings = [status for name, status in by_name.items() if name.startswith("jumbo ping ") and name.endswith(f" -> {server}")]
        ping_ok = "pass" in pings
        reason = None
        # The host cannot mount NFS at all (no kernel client): nothing to measure, not a broken path.
        judged = checks is not None and mount_status != "not_applicable"
        if checks is None:
            reason = "the host was not verified"
        elif not judged:
            reason = "the host cannot mount NFS (verification: not applicable)"
        elif not mount_ok:
            reason = f"verification did not find {mount.get('path')} mounted as the model says"
        elif not ping_ok:
            reason = f"LIF {mount.get('lif')} ({server}) did not answer the jumbo ping"
        result.append({"path": mount.get("path"), "lif": server, "lif_name": mount.get("lif"), "node": mount.get("lif_node"),
                       "network": mount.get("network"), "healthy": reason is None, "verified": judged,
                       "reason": reason})
    return result


def _share_warnings(kind: str, carried: dict[str, float], planned: dict[str, int]) -> list[str]:
    """carried: name -> bytes read; planned: name -> measured mounts the plan gave it (its fair share's weight)."""
    active = {name: value for name, value in carried.items() if value > 0 and planned.get(name)}
    total, weights = sum(active.values()), sum(planned[name] for name in active)
    if len(active) < 2 or total <= 0:
        return []
    warnings = []
    for name, value in sorted(active.items()):
        share = planned[name] / weights
        if value / total > IMBALANCE_FACTOR * share:
            warnings.append(f"{kind} {name} carried {value / total:.0%} of the reads, {value / total / share:.1f} times "
                            f"its share ({share:.0%}, {planned[name]} of {weights} mounts)")
    return warnings


def verdict(model: Mapping[str, Any], hosts: Mapping[str, Mapping[str, Any]]) -> dict:
    """hosts: DGX -> {targets (from targets()), result (dgx_acceptance's return, or None when it did not run)}.

    exit_code 0 when the measured total meets the demand of the measured DGX, every DGX meets its own
    demand and every planned LIF carried reads; 1 when one of those falls short (shortfalls names the
    host or LIF); 2 when nothing failed but something could not be measured.
    """
    model = dict(model)
    sizing = m.sizing(model)
    per_gpu = sizing["gpu_ingest_mb_s"]
    dgx = m.hosts_of_kind(model, "dgx")
    lifs = {lif["address"]: lif for lif in m.data_lifs(model) if lif["address"]}
    rows, per_dgx, not_measured, shortfalls, warnings = [], {}, [], [], []
    lif_read: dict[str, float] = {}
    lif_planned: dict[str, list[str]] = {}
    lif_measured: dict[str, int] = {}
    for host in sorted(hosts, key=m.natural_key):
        entry = hosts[host] or {}
        result = entry.get("result") if isinstance(entry.get("result"), Mapping) else None
        gpus = m.dgx_gpu_count(dgx.get(host) or {})
        demand = gpus * per_gpu
        measured_mounts = (result or {}).get("mounts") or {}
        total = 0.0
        latencies = []
        host_measured = False
        if result and result.get("late_start_seconds"):
            warnings.append(f"{host} started its timed reads {result['late_start_seconds']} s late (laying out its files took "
                            "longer): its reads overlapped the others' less, so the total may overstate what the pod reads at once")
        warnings += [f"{host}: scratch directory left: {left}" for left in (result or {}).get("scratch_left") or []]
        if result and result.get("clock_skew_seconds"):
            warnings.append(f"{host}: its clock is {result['clock_skew_seconds']} s behind the control node's; it started its "
                            "timed reads at once (set up time synchronisation)")
        for target in entry.get("targets") or []:
            lif_planned.setdefault(target["lif"], []).append(f"{host}:{target['path']}")
            mount = measured_mounts.get(target["path"]) or {}
            phases = mount.get("phases") or {}
            judged = phases.get(JUDGED_PHASE) or {}
            figures = {name: {k: phase.get(k) for k in FIGURES} for name, phase in phases.items()}
            missing = result.get("reason") if result else (entry.get("error") or "the test did not run on this host")
            row = {"host": host, "path": target["path"], "lif": target["lif"], "lif_name": target["lif_name"],
                   "node": target["node"], "measured": bool(mount.get("measured")), "phases": figures,
                   "reason": target["reason"] or mount.get("reason") or missing}
            rows.append(row)
            if not target["healthy"] and target.get("verified", True):
                shortfalls.append(f"{host} {target['path']}: {target['reason']}; not measured")
                continue
            if not row["measured"]:
                # The test ran on the host and this mount failed it (an I/O error, not mounted, too full):
                # the data path falls short. Without a reason of its own (fio missing, check mode), it was not measured.
                if result is not None and mount.get("reason"):
                    shortfalls.append(f"{host} {target['path']}: {mount['reason']}")
                else:
                    not_measured.append(f"{host} {target['path']}: {row['reason'] or 'not measured'}")
                continue
            host_measured = True
            total += float(judged.get("mb_s") or 0)
            if judged.get("lat_mean_ms") is not None:
                latencies.append(float(judged["lat_mean_ms"]))
            # Bytes go to the server the kernel really reads from (the mount's device), planned or not.
            server = judged.get("addr") or target["lif"]
            lif_read[server] = lif_read.get(server, 0.0) + float(judged.get("read_bytes") or 0)
            lif_measured[target["lif"]] = lif_measured.get(target["lif"], 0) + 1
            if server != target["lif"]:
                lif_planned.setdefault(server, [])
                warnings.append(f"{host} {target['path']}: the kernel reads from {server}, the model says {target['lif']}")
            used, available = judged.get("transports_used"), judged.get("transports_total")
            if isinstance(used, int) and isinstance(available, int) and used < available:
                warnings.append(f"{host} {target['path']}: {used} of {available} connections carried traffic")
        if not entry.get("targets"):
            not_measured.append(f"{host}: the model gives it no mount")
        status = "not measured" if not host_measured else ("pass" if total >= demand else "short")
        if host_measured and demand <= 0:
            status = "not measured"
            not_measured.append(f"{host}: the model gives it no GPUs, so there is no demand to judge its reads against")
        per_dgx[host] = {"gpus": gpus, "demand_mb_s": demand, "mb_s": round(total, 1), "status": status,
                         "lat_mean_ms": round(sum(latencies) / len(latencies), 3) if latencies else None}
        if status == "short":
            shortfalls.append(f"{host} read {total:.1f} MB/s, its {gpus} GPUs need {demand} MB/s")
    per_lif = {}
    for address, planned in sorted(lif_planned.items(), key=lambda item: m.natural_key(item[0])):
        lif = lifs.get(address) or {}
        carried = int(lif_read.get(address, 0.0))
        measured = any(row["lif"] == address and row["measured"] for row in rows)
        per_lif[address] = {"name": lif.get("name"), "node": lif.get("node"), "network": lif.get("network"),
                            "mounts": planned, "read_bytes": carried,
                            "status": "pass" if carried > 0 else ("no reads" if measured else "not measured")}
        # A LIF whose mounts were measured but whose counters never moved does not carry the path.
        if measured and carried <= 0:
            shortfalls.append(f"LIF {lif.get('name') or address} ({address}) carried no reads")
    per_node: dict[str, float] = {}
    node_mounts: dict[str, int] = {}
    for address, lif in per_lif.items():
        if lif["node"]:
            per_node[lif["node"]] = per_node.get(lif["node"], 0) + lif["read_bytes"]
            node_mounts[lif["node"]] = node_mounts.get(lif["node"], 0) + lif_measured.get(address, 0)
    warnings += _share_warnings("LIF", {lif["name"] or address: float(lif["read_bytes"]) for address, lif in per_lif.items()},
                                {lif["name"] or address: lif_measured.get(address, 0) for address, lif in per_lif.items()})
    warnings += _share_warnings("node", {node: float(value) for node, value in per_node.items()}, node_mounts)
    measured_hosts = [h for h, d in per_dgx.items() if d["status"] != "not measured"]
    total = round(sum(per_dgx[h]["mb_s"] for h in measured_hosts), 1)
    demand = sum(per_dgx[h]["demand_mb_s"] for h in measured_hosts)
    if measured_hosts and total < demand:
        shortfalls.insert(0, f"the pod read {total} MB/s in total, its measured DGX need {demand} MB/s")
    exit_code = 1 if shortfalls else (2 if not_measured or not measured_hosts else 0)
    return {"exit_code": exit_code, "phase": JUDGED_PHASE, "total_mb_s": total, "demand_mb_s": demand,
            "gpu_ingest_mb_s": per_gpu, "supply_mb_s": sizing["supply_mb_s"],
            "supply_reached": round(total / sizing["supply_mb_s"], 3) if sizing["supply_mb_s"] else None,
            "dgx": per_dgx, "mounts": rows, "lifs": per_lif,
            "nodes": {node: {"read_bytes": int(value)} for node, value in sorted(per_node.items())},
            "shortfalls": shortfalls, "not_measured": not_measured, "warnings": warnings}


def markdown(result: Mapping[str, Any]) -> str:
    """The acceptance section of the run report."""
    verdicts = {0: "pass: the measured reads meet the demand", 1: "FAIL: the data path falls short",
                2: "incomplete: something could not be measured"}
    supply = f"; the model's storage figure is {result['supply_mb_s']} MB/s" if result.get("supply_mb_s") else ""
    out = [f"Result: **{verdicts[result['exit_code']]}** (exit code {result['exit_code']}). Sequential 1 MiB reads from every "
           f"DGX over every mount at once: **{result['total_mb_s']} MB/s** against a demand of {result['demand_mb_s']} MB/s "
           f"({result['gpu_ingest_mb_s']} MB/s per GPU){supply}.", ""]
    if result["shortfalls"]:
        out += ["Falls short:", ""] + [f"- {s}" for s in result["shortfalls"]] + [""]
    if result["not_measured"]:
        out += ["Not measured:", ""] + [f"- {s}" for s in result["not_measured"]] + [""]
    if result["warnings"]:
        out += ["Warnings:", ""] + [f"- {s}" for s in result["warnings"]] + [""]
    out += ["| DGX | GPUs | demand MB/s | read MB/s | mean latency ms | result |", "|---|---:|---:|---:|---:|---|"]
    out += [f"| {host} | {d['gpus']} | {d['demand_mb_s']} | {d['mb_s']} | {d['lat_mean_ms'] if d['lat_mean_ms'] is not None else '-'} | "
            f"{d['status']} |" for host, d in result["dgx"].items()]
    out += ["", "| DGX | mount | LIF | phase | MB/s | IOPS | mean latency ms | p99 latency ms | connections used |",
            "|---|---|---|---|---:|---:|---:|---:|---|"]
    for row in result["mounts"]:
        if not row["phases"]:
            out.append(f"| {row['host']} | {row['path']} | {row['lif_name']} | - | - | - | - | - | "
                       f"{str(row['reason'] or 'not measured').replace('|', '/')} |")
        for phase, figures in row["phases"].items():
            out.append(f"| {row['host']} | {row['path']} | {row['lif_name']} | {phase} | {figures.get('mb_s')} | "
                       f"{figures.get('iops')} | {figures.get('lat_mean_ms')} | {figures.get('lat_p99_ms')} | "
                       f"{figures.get('transports_used')} of {figures.get('transports_total')} |")
    out += ["", "| LIF | address | ONTAP node | mounts | MiB read (mountstats) | result |", "|---|---|---|---|---:|---|"]
    out += [f"| {lif['name']} | {address} | {lif['node']} | {len(lif['mounts'])} | {lif['read_bytes'] / 2**20:.1f} | {lif['status']} |"
            for address, lif in result["lifs"].items()]
    if result["nodes"]:
        out += ["", "| ONTAP node | MiB read |", "|---|---:|"]
        out += [f"| {node} | {n['read_bytes'] / 2**20:.1f} |" for node, n in result["nodes"].items()]
    return "\n".join(out)


def _bars(title: str, bars: list[tuple[str, float, float | None]], top: int, width: int) -> tuple[list[str], int]:
    """One bar chart: (label, value, its own demand or None). Returns its SVG elements and height."""
    row, label_width, chart = 22, 170, width - 190
    scale_max = max([v for _l, v, _d in bars] + [d for _l, _v, d in bars if d] + [1.0])
    elements = [f'<text x="10" y="{top + 16}" font-size="14" font-weight="bold">{html.escape(title)}</text>']
    y = top + 28
    for label, value, demand in bars:
        length = chart * value / scale_max
        short = demand is not None and value < demand
        elements.append(f'<text x="{label_width - 6}" y="{y + 14}" font-size="11" text-anchor="end">{html.escape(label)}</text>')
        elements.append(f'<rect x="{label_width}" y="{y + 3}" width="{length:.1f}" height="{row - 6}" '
                        f'fill="{"#d62728" if short else "#1f77b4"}"><title>{html.escape(f"{label}: {value:.1f} MB/s")}</title></rect>')
        elements.append(f'<text x="{label_width + length + 4:.1f}" y="{y + 14}" font-size="10">{value:.1f}</text>')
        if demand:
            x = label_width + chart * demand / scale_max
            elements.append(f'<line x1="{x:.1f}" y1="{y}" x2="{x:.1f}" y2="{y + row}" stroke="#000" stroke-width="2" '
                            f'stroke-dasharray="4,2"><title>{html.escape(f"demand {demand:.1f} MB/s")}</title></line>')
        y += row
    return elements, y - top + 10


def svg(result: Mapping[str, Any]) -> str:
    """Per-DGX and per-LIF read MB/s as bars against the demand (dashed line); short bars are red."""
    width = 760
    dgx = [(host, float(d["mb_s"]), float(d["demand_mb_s"])) for host, d in result["dgx"].items()]
    lif_mb_s: dict[str, float] = {}
    for row in result["mounts"]:
        figures = row["phases"].get(result["phase"]) or {}
        lif_mb_s[row["lif"]] = lif_mb_s.get(row["lif"], 0.0) + float(figures.get("mb_s") or 0)
    lifs_in_use = max(1, len(result["lifs"]))
    share = result["demand_mb_s"] / lifs_in_use if result["demand_mb_s"] else None
    lif_bars = [(f"{lif['name'] or address}", lif_mb_s.get(address, 0.0), share) for address, lif in result["lifs"].items()]
    first, height_one = _bars("Read MB/s per DGX (dashed: its GPUs' demand)", dgx, 40, width)
    second, height_two = _bars("Read MB/s per LIF (dashed: an equal share of the demand)", lif_bars, 40 + height_one, width)
    height = 40 + height_one + height_two + 10
    verdict = {0: "pass", 1: "FAIL", 2: "incomplete"}[result["exit_code"]]
    head = (f'<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif">')
    title = html.escape(f"Acceptance ({verdict}): {result['total_mb_s']} MB/s read against {result['demand_mb_s']} MB/s demand")
    return "\n".join([head, '<rect width="100%" height="100%" fill="#fff"/>',
                      f'<text x="10" y="22" font-size="16" font-weight="bold">{title}</text>', *first, *second, "</svg>"]) + "\n"
