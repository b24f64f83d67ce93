"""The pod's own Grafana dashboard, derived from the model, as a ConfigMap that kube-prometheus-stack's
Grafana sidecar loads (label grafana_dashboard: "1").

One page for the data path a training run depends on: its data sets' fullness and the SVMs' NFS
latency (Harvest), the data LIFs, the DGX storage links (node_exporter), and the GPUs' temperature
and use (DCGM exporter). The selectors are the alert rules' own (alerts.py), so a panel shows what
an alert watches.

Harvest's and DCGM's own dashboards are theirs to ship: a site copies them beside its inventory
(monitoring.dashboards) and they are loaded the same way, each as a ConfigMap, with the datasource
inputs of a dashboard exported for import (`${DS_PROMETHEUS}`) pointed at the stack's Prometheus.
"""
from __future__ import annotations

import json
import re
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_monitoring import alerts
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m

UID = "aipod-overview"
# kube-prometheus-stack's Grafana provisions its Prometheus datasource with this uid.
STACK_DATASOURCE_UID = "prometheus"
# A ConfigMap holds at most 1 MiB; leave room for its metadata.
MAX_DASHBOARD_BYTES = 900 * 1024
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


def dashboard_slug(file_name: str) -> str:
    """A dashboard file's name as a DNS-1123 label: harvest/cmode/volume.json -> volume."""
    stem = re.sub(r"\.json$", "", file_name.rsplit("/", 1)[-1], flags=re.IGNORECASE)
    return re.sub(r"-+", "-", re.sub(r"[^a-z0-9-]+", "-", stem.lower())).strip("-")[:40].rstrip("-") or "dashboard"


def dashboard_problem(text: str) -> str | None:
    """What keeps a file from being loaded as a Grafana dashboard, in words (never its content), or None."""
    if len(text.encode("utf-8")) > MAX_DASHBOARD_BYTES:
        return f"is larger than {MAX_DASHBOARD_BYTES // 1024} KiB, more than a ConfigMap holds"
    try:
        dashboard = json.loads(text)
    except ValueError as error:
        return f"is not JSON ({error.__class__.__name__} at line {getattr(error, 'lineno', '?')})"
    if not isinstance(dashboard, dict) or not isinstance(dashboard.get("panels", dashboard.get("rows")), list):
        return "is no Grafana dashboard (a JSON object with panels)"
    return None


def provisioned(dashboard: dict[str, Any]) -> dict[str, Any]:
    """A dashboard exported for import, made ready to provision: each Prometheus datasource input
    (`${DS_PROMETHEUS}`, which only Grafana's import dialog fills) names the stack's Prometheus."""
    inputs = {f"${{{i.get('name')}}}" for i in m.as_list(dashboard.get("__inputs"))
              if isinstance(i, dict) and i.get("type") == "datasource" and i.get("pluginId") == "prometheus"}

    def fill(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: fill(item) for key, item in value.items() if key != "__inputs"}
        if isinstance(value, list):
            return [fill(item) for item in value]
        return STACK_DATASOURCE_UID if isinstance(value, str) and value in inputs else value

    return fill(dashboard)


def file_config_maps(files: dict[str, str], namespace: str, label: str, managed_by: dict[str, str]) -> list[dict[str, Any]]:
    """The site's dashboard files ({file name: its text}) as ConfigMaps the Grafana sidecar loads,
    aipod-dashboard-<slug>. A file that is no dashboard, or two files with one slug, is refused
    (ValueError): the validator refuses them first, at their key."""
    maps: dict[str, dict[str, Any]] = {}
    for name, text in sorted(files.items()):
        slug = dashboard_slug(name)
        problem = dashboard_problem(text)
        if problem:
            raise ValueError(f"dashboard {name} {problem}")
        if slug in maps:
            raise ValueError(f"two dashboard files are both named {slug}")
        maps[slug] = {"apiVersion": "v1", "kind": "ConfigMap",
                      "metadata": {"name": f"aipod-dashboard-{slug}", "namespace": namespace, "labels": {**managed_by, label: "1"}},
                      "data": {f"{slug}.json": json.dumps(provisioned(json.loads(text)), indent=1, sort_keys=True)}}
    return list(maps.values())
