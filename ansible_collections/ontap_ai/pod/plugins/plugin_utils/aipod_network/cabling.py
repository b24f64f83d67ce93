"""The cabling plan for people: Markdown, CSV and a Graphviz topology, from aipod_network.model.cabling_plan rows.

Pure formatting: every value comes from the rows (one per cable) and the model's networks; the
output is deterministic, so the files can be committed and compared.
"""
from __future__ import annotations

import csv
import html
import io
import re
from collections.abc import Iterable, Mapping
from typing import Any

CSV_COLUMNS = ("switch", "port", "kind", "channel", "device", "device_kind", "device_port", "bundle",
               "mode", "vlans", "native_vlan", "speed", "mtu", "pfc", "description")
# Edge colours: storage networks in turn, in-band grey, peer link black.
STORAGE_COLOURS = ("#1f77b4", "#2ca02c", "#9467bd", "#17becf", "#bcbd22", "#8c564b")
INBAND_COLOUR = "#7f7f7f"
PEER_COLOUR = "#000000"
KIND_ORDER = {"host": 0, "switch": 1, "ontap": 2}


def _vlan_text(row: Mapping[str, Any]) -> str:
    vlans = ",".join(str(v) for v in row.get("vlans") or [])
    if row.get("mode") == "trunk":
        native = f" native {row['native_vlan']}" if row.get("native_vlan") is not None else ""
        return f"trunk {vlans or 'none'}{native}"
    return vlans


def _far_end(row: Mapping[str, Any]) -> str:
    port = row.get("device_port") or "?"
    bundle = f" ({row['bundle']})" if row.get("bundle") else ""
    return f"{row.get('device')} {port}{bundle}"


def markdown(rows: Iterable[Mapping[str, Any]], title: str, vlan_names: Mapping[int, str] | None = None) -> str:
    """One table per switch: port, link, far end, VLANs, speed, MTU, PFC."""
    rows = list(rows)
    vlan_names = vlan_names or {}
    lines = [f"# Cabling plan: {title}", "",
             "Generated from the site model by `playbooks/cabling.yml`; edit the inventory, not this file.",
             "Every cable is listed once, from its switch end. Port-channel members are cabled in order:",
             "the pair's first switch takes the first member of the bond or interface group.", ""]
    if vlan_names:
        lines.append("VLANs: " + ", ".join(f"{vlan} {name}" for vlan, name in sorted(vlan_names.items())) + ".")
        lines.append("")
    switches: list[str] = []
    for row in rows:
        if row["switch"] not in switches:
            switches.append(row["switch"])
    for switch in switches:
        lines += [f"## {switch}", "",
                  "| Port | Link | Far end | VLANs | Speed | MTU | PFC |",
                  "|---|---|---|---|---|---|---|"]
        for row in rows:
            if row["switch"] != switch:
                continue
            link = {"port": "port", "member": f"member of {row.get('channel')}",
                    "peer-link": f"peer link ({row.get('channel')})"}.get(row["kind"], row["kind"])
            lines.append(f"| {row['port']} | {link} | {_far_end(row)} | {_vlan_text(row)} | {row.get('speed') or '-'} | "
                         f"{row.get('mtu') or '-'} | {'yes' if row.get('pfc') else 'no'} |")
        lines.append("")
    return "\n".join(lines)


def csv_text(rows: Iterable[Mapping[str, Any]]) -> str:
    """One line per cable; VLAN lists separated by spaces."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        values = []
        for column in CSV_COLUMNS:
            value = row.get(column)
            if column == "vlans":
                value = " ".join(str(v) for v in value or [])
            elif column == "pfc":
                value = "yes" if value else "no"
            values.append("" if value is None else value)
        writer.writerow(values)
    return buffer.getvalue()


def _id(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", str(text))


def _colour(row: Mapping[str, Any], networks: Mapping[int, Mapping[str, Any]]) -> str:
    if row["kind"] == "peer-link":
        return PEER_COLOUR
    vlans = row.get("vlans") or []
    network = networks.get(vlans[0]) if vlans else None
    if not network or network.get("purpose") not in ("storage", "roce"):
        return INBAND_COLOUR
    storage = [vlan for vlan, n in sorted(networks.items()) if n.get("purpose") in ("storage", "roce")]
    return STORAGE_COLOURS[storage.index(vlans[0]) % len(STORAGE_COLOURS)]


def _table(name: str, subtitle: str, ports: list[tuple[str, str]], split: list[tuple[str, str]] | None = None) -> str:
    """An HTML-like Graphviz label: a title row and one or two rows of port cells."""
    def row(cells: list[tuple[str, str]]) -> str:
        return "<TR>" + "".join(f'<TD PORT="{_id(port)}">{html.escape(text)}</TD>' for port, text in cells) + "</TR>"

    width = max(len(ports), len(split or []), 1)
    body = [f'<TR><TD COLSPAN="{width}" BGCOLOR="#eeeeee"><B>{html.escape(name)}</B><BR/>'
            f'<FONT POINT-SIZE="8">{html.escape(subtitle)}</FONT></TD></TR>']
    if ports:
        body.append(row(ports))
    if split:
        body.append(row(split))
    return '<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="3">' + "".join(body) + "</TABLE>>"


def dot(rows: Iterable[Mapping[str, Any]], title: str, networks: Iterable[Mapping[str, Any]],
        models: Mapping[str, str] | None = None) -> str:
    """The pod's switch layer as a Graphviz graph: hosts on top, the switches in a row (peer links and uplinks
    between them), storage below."""
    rows = list(rows)
    models = models or {}
    by_vlan = {n["vlan"]: n for n in networks if isinstance(n.get("vlan"), int)}
    switches: dict[str, dict[str, list]] = {}
    devices: dict[str, dict[str, Any]] = {}
    for row in rows:
        entry = switches.setdefault(row["switch"], {"up": [], "down": []})
        text = row["port"].replace("Ethernet", "Eth")
        (entry["up"] if row.get("device_kind") == "host" else entry["down"]).append((row["port"], text))
        if row["kind"] == "peer-link" or row.get("device_kind") == "switch":
            peer = switches.setdefault(row["device"], {"up": [], "down": []})
            if row.get("device_port"):
                peer["down"].append((row["device_port"], row["device_port"].replace("Ethernet", "Eth")))
            continue
        device = devices.setdefault(row["device"], {"kind": row.get("device_kind"), "ports": []})
        port = row.get("device_port") or row.get("bundle") or "?"
        label = port if not row.get("bundle") or not row.get("device_port") else f"{port} ({row['bundle']})"
        detail = f"{label} · {_vlan_text(row)}" + (f" · {row['speed']}" if row.get("speed") else "")
        if (port, detail) not in device["ports"]:
            device["ports"].append((port, detail))
    lines = [f"graph {_id(title)} {{",
             f'  graph [rankdir=TB, fontname="Helvetica", fontsize=14, labelloc=t, nodesep=0.25, ranksep=1.4, '
             f'label="{title}: switch layer cabling (generated from the site model)"];',
             '  node [shape=plaintext, fontname="Helvetica", fontsize=9];',
             '  edge [penwidth=1.6];']
    for kind, rank in (("host", "hosts"), ("ontap", "storage")):
        names = sorted((d for d, data in devices.items() if data["kind"] == kind), key=_natural)
        if not names:
            continue
        lines.append(f"  subgraph {rank} {{ rank=same;")
        for name in names:
            subtitle = models.get(name) or ("ONTAP node" if kind == "ontap" else "host")
            lines.append(f'    "{name}" [label={_table(name, subtitle, devices[name]["ports"])}];')
        lines.append("  }")
    lines.append('  subgraph switches { rank=same;')
    for name in sorted(switches, key=_natural):
        lines.append(f'    "{name}" [label={_table(name, models.get(name) or "switch", switches[name]["up"], switches[name]["down"])}];')
    lines.append("  }")
    for row in rows:
        colour = _colour(row, by_vlan)
        tooltip = html.escape(f"{row['switch']} {row['port']} <-> {_far_end(row)}: {_vlan_text(row)}", quote=True)
        if row["kind"] == "peer-link" or row.get("device_kind") == "switch":
            lines.append(f'  "{row["switch"]}":"{_id(row["port"])}":s -- "{row["device"]}":"{_id(row["device_port"] or "?")}":s '
                         f'[color="{colour}", penwidth=2.4, tooltip="{tooltip}"];')
            continue
        port = row.get("device_port") or row.get("bundle") or "?"
        if row.get("device_kind") == "host":
            lines.append(f'  "{row["device"]}":"{_id(port)}":s -- "{row["switch"]}":"{_id(row["port"])}":n '
                         f'[color="{colour}", tooltip="{tooltip}"];')
        else:
            lines.append(f'  "{row["switch"]}":"{_id(row["port"])}":s -- "{row["device"]}":"{_id(port)}":n '
                         f'[color="{colour}", tooltip="{tooltip}"];')
    legend = [(INBAND_COLOUR if n.get("purpose") not in ("storage", "roce") else _colour({"kind": "port", "vlans": [n["vlan"]]}, by_vlan),
               f"{n['name']} (VLAN {n['vlan']})") for n in sorted(by_vlan.values(), key=lambda n: n["vlan"])]
    legend.append((PEER_COLOUR, "peer link"))
    cells = "".join(f'<TR><TD><FONT COLOR="{c}">&#9473;&#9473;&#9473;</FONT></TD><TD ALIGN="LEFT">{html.escape(t)}</TD></TR>'
                    for c, t in legend)
    lines.append(f'  legend [label=<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0">{cells}</TABLE>>];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _natural(text: str) -> list:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", str(text))]


def document(model: Mapping[str, Any], kind: str, rows: list[Mapping[str, Any]]) -> str:
    """The cabling plan of a site model as markdown, csv or dot (rows: aipod_network.model.cabling_plan)."""
    pod = model.get("pod") if isinstance(model.get("pod"), Mapping) else {}
    title = str(pod.get("name") or "pod")
    networks = [n for n in model.get("networks") or [] if isinstance(n, Mapping)]
    if kind == "markdown":
        names = {n["vlan"]: n["name"] for n in networks if isinstance(n.get("vlan"), int)}
        return markdown(rows, title, names)
    if kind == "csv":
        return csv_text(rows)
    if kind == "dot":
        models = {}
        for host, body in (model.get("hosts") or {}).items():
            for key in ("switch", "dgx", "server"):
                data = body.get(key) if isinstance(body, Mapping) else None
                if isinstance(data, Mapping):
                    models[host] = str(data.get("model") or key)
        ontap = model.get("ontap") if isinstance(model.get("ontap"), Mapping) else {}
        for node in ontap.get("nodes") or []:
            if isinstance(node, Mapping) and node.get("name"):
                models[node["name"]] = f"{ontap.get('platform') or 'ONTAP'} node"
        return dot(rows, title, networks, models)
    raise ValueError(f"unknown cabling document kind {kind!r} (markdown, csv, dot)")
