"""The pod's own Grafana dashboard, derived from the model, as a ConfigMap that kube-prometheus-stack's
Grafana sidecar loads (label grafana_dashboard: "1").

One page for the data path a training run depends on: its data sets' fullness and the SVMs' NFS
latency (Harvest), the data LIFs, the DGX storage links (node_exporter), and the GPUs' temperature
and use (DCGM exporter). The selectors are the alert rules' own (alerts.py), so a panel shows what
an alert watches. Harvest's and DCGM's own dashboards are theirs to ship.
"""
from __future__ import annotations

import json
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_monitoring import alerts
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m

UID = "aipod-overview"
SCHEMA_VERSION = 39
DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}


def _panel(index: int, title: str, expr: str, legend: str, unit: str, kind: str = "timeseries") -> dict[str, Any]:
    return {"id": index + 1, "type": kind, "title": title, "datasource": DATASOURCE,
            "gridPos": {"h": 8, "w": 12, "x": 12 * (index % 2), "y": 8 * (index // 2)},
            "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
            "targets": [{"refId": "A", "datasource": DATASOURCE, "expr": expr, "legendFormat": legend}]}


def overview(model: dict) -> dict[str, Any]:
    """The overview dashboard (Grafana's JSON model)."""
    svms = [m.as_str(svm.get("name")) or "" for svm in m.svms(model) if m.as_str(svm.get("name"))]
    volumes = sorted({fg["name"] for fg in m.flexgroups(model) if fg.get("name")} | set(m.dataset_volumes(model)))
    lifs = [lif["name"] for lif in m.data_lifs(model) if lif.get("name")]
    devices = sorted({nic["device"] for host in m.hosts_of_kind(model, "dgx") for nic in m.host_storage_plan(model, host)})
    svm, volume = alerts.match_any(svms), alerts.match_any(volumes)
    queries = [
        ("Data sets and FlexGroups, % used", f"volume_size_used_percent{alerts.selector(svm=svm, volume=volume)}",
         "{{svm}}:{{volume}}", "percent"),
        ("NFS latency per SVM", f"svm_nfs_latency{alerts.selector(svm=svm)}", "{{svm}}", "µs"),
        ("Data LIFs not up (none is good)",
         f"lif_labels{alerts.selector((alerts.LIF_DOWN,), svm=svm, lif=alerts.match_any(lifs))}", "{{svm}}:{{lif}} {{status}}", "none"),
        ("DGX storage links up (1)", f"node_network_up{alerts.selector(device=alerts.match_any(devices))}",
         "{{instance}} {{device}}", "none"),
        ("GPU temperature", "DCGM_FI_DEV_GPU_TEMP", "{{Hostname}} GPU {{gpu}}", "celsius"),
        ("GPU use", "DCGM_FI_DEV_GPU_UTIL", "{{Hostname}} GPU {{gpu}}", "percent"),
    ]
    pod = m.as_str(m.as_dict(model.get("pod")).get("name")) or "ONTAP AI pod"
    return {"uid": UID, "title": f"{pod}: data path and GPUs", "schemaVersion": SCHEMA_VERSION, "editable": False,
            "tags": ["aipod"], "time": {"from": "now-6h", "to": "now"}, "refresh": "1m",
            "templating": {"list": [{"name": "datasource", "type": "datasource", "query": "prometheus", "label": "Prometheus"}]},
            "panels": [_panel(index, *query) for index, query in enumerate(queries)]}


def config_maps(model: dict, namespace: str, label: str, managed_by: dict[str, str]) -> list[dict[str, Any]]:
    """The dashboards as ConfigMaps the Grafana sidecar loads."""
    return [{"apiVersion": "v1", "kind": "ConfigMap",
             "metadata": {"name": f"{UID}-dashboard", "namespace": namespace, "labels": {**managed_by, label: "1"}},
             "data": {f"{UID}.json": json.dumps(overview(model), indent=1, sort_keys=True)}}]
