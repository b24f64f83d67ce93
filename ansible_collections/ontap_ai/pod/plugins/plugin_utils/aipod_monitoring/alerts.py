"""The pod's alert rules, derived from the site model's `monitoring` section and the pod it describes.

Each rule pages before a training run stalls, on the metrics of the collectors the pod runs:
NetApp Harvest for ONTAP (REST and RestPerf: volume_size_used_percent, lif_labels, svm_nfs_latency,
snapmirror_lag_time), the DCGM exporter for the GPUs, node_exporter for the DGX storage NICs
(node_network_up, node_network_mtu_bytes, and its ethtool collector for the ConnectX pause and ECN
counters), kube-state-metrics for the nodes, and Trident's own metrics for its backends. The model
supplies what a rule watches (the SVMs, data sets, FlexGroups, data LIFs, storage NICs and MTUs,
Kubernetes hosts, copies and their schedules) and the thresholds; nothing is typed twice.

The rules are returned as Prometheus rule groups ({groups: [{name, rules}]}), the body of a
PrometheusRule; every rule carries a runbook annotation that names its section of docs/monitoring.md.
"""
from __future__ import annotations

import re
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_datasets import copies as dataset_copies
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_datasets import model as datasets_model
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m

DEFAULT_THRESHOLDS = {
    "volume_full_percent": 85,
    "nfs_latency_ms": 10,
    "gpu_temperature_c": 87,
    "for": "5m",
}
RUNBOOK = "docs/monitoring.md#{anchor}"
# Matchers the rules write themselves (Harvest's LIF labels, kube-state-metrics' Ready condition).
LIF_DOWN = 'status!="up"'
LIF_AWAY = 'is_home="false"'
NODE_READY = ('condition="Ready"', 'status="true"')
# ConnectX counters (mlx5 ethtool statistics) of the RoCE priority the pod's QoS gives storage traffic.
ROCE_PRIORITY = 3


def monitoring_section(model: dict) -> dict:
    return m.as_dict(model.get("monitoring"))


def enabled(model: dict) -> bool:
    return monitoring_section(model).get("enabled") is True


def thresholds(model: dict) -> dict[str, Any]:
    given = m.as_dict(monitoring_section(model).get("alerts"))
    return {key: given.get(key, default) for key, default in DEFAULT_THRESHOLDS.items()}


_REGEX_SPECIAL = re.compile(r"([\\.^$|?*+()\[\]{}])")


def match_any(values: list[str]) -> str:
    """A PromQL regex (RE2, anchored by PromQL) matching exactly these values."""
    return "|".join(_REGEX_SPECIAL.sub(r"\\\1", value) for value in values) or "^$"


def _label_value(value: str) -> str:
    """A PromQL string literal's content: model names are data, never PromQL."""
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _rule(name: str, expr: str, summary: str, anchor: str, wait: str, severity: str = "critical") -> dict[str, Any]:
    return {"alert": name, "expr": expr, "for": wait, "labels": {"severity": severity},
            "annotations": {"summary": summary, "runbook": RUNBOOK.format(anchor=anchor)}}


def selector(fixed: tuple[str, ...] = (), **regexes: str) -> str:
    """A PromQL label selector: label=~"regex" for each keyword (model text, escaped), then the fixed
    matchers the rule itself writes (e.g. status!="up")."""
    return "{" + ", ".join([f'{key}=~"{_label_value(value)}"' for key, value in regexes.items()] + list(fixed)) + "}"


def storage_rules(model: dict, limits: dict) -> list[dict]:
    svms = [m.as_str(svm.get("name")) for svm in m.svms(model) if m.as_str(svm.get("name"))]
    volumes = [fg["name"] for fg in m.flexgroups(model) if fg.get("name")] + list(m.dataset_volumes(model))
    lifs = [lif["name"] for lif in m.data_lifs(model) if lif.get("name")]
    wait = str(limits["for"])
    rules = []
    if volumes:
        rules.append(_rule("AipodVolumeFull",
                           f"volume_size_used_percent{selector(svm=match_any(svms), volume=match_any(sorted(set(volumes))))}"
                           f" > {float(limits['volume_full_percent']):g}",
                           "{{ $labels.svm }}:{{ $labels.volume }} is {{ $value | humanize }}% full", "volume-full", wait))
    if lifs:
        lif = {"svm": match_any(svms), "lif": match_any(lifs)}
        rules.append(_rule("AipodDataLifDown", f'lif_labels{selector((LIF_DOWN,), **lif)}',
                           "data LIF {{ $labels.svm }}:{{ $labels.lif }} is {{ $labels.status }}", "data-lif-down", "1m"))
        rules.append(_rule("AipodDataLifNotHome", f'lif_labels{selector((LIF_AWAY,), **lif)}',
                           "data LIF {{ $labels.svm }}:{{ $labels.lif }} is on {{ $labels.node }}:{{ $labels.port }}, not home",
                           "data-lif-not-home", wait, "warning"))
    if svms:
        # Harvest reports NFS latency in microseconds.
        rules.append(_rule("AipodNfsLatencyHigh",
                           f"svm_nfs_latency{selector(svm=match_any(svms))} > {float(limits['nfs_latency_ms']) * 1000:g}",
                           "NFS latency of {{ $labels.svm }} is {{ $value | humanize }}us", "nfs-latency", wait, "warning"))
    for copy in dataset_copies_of(model):
        rules.append(_rule("AipodSnapMirrorLag",
                           f'snapmirror_lag_time{{source_vserver="{_label_value(copy["source_svm"])}", '
                           f'source_volume="{_label_value(copy["dataset"])}"}} > {copy["lag_limit"]}',
                           f"the copy of data set {copy['dataset']} on {copy['peer']} is {{{{ $value | humanizeDuration }}}} behind"
                           f" (schedule {copy['schedule']})", "snapmirror-lag", wait, "warning"))
    return rules


def dataset_copies_of(model: dict) -> list[dict]:
    """Each data set copy with a known schedule, and the lag past which it is stalled (two periods)."""
    found = []
    for copy in datasets_model.copies(model):
        period = dataset_copies.SCHEDULE_SECONDS.get(copy["schedule"] or "")
        if period:
            found.append(dict(copy, lag_limit=dataset_copies.PERIODS_ALLOWED * period))
    return found


def dgx_rules(model: dict, limits: dict) -> list[dict]:
    dgx = m.hosts_of_kind(model, "dgx")
    by_mtu: dict[int, set[str]] = {}
    devices: set[str] = set()
    roce_devices: set[str] = set()
    for host in dgx:
        for nic in m.host_storage_plan(model, host):
            devices.add(nic["device"])
            by_mtu.setdefault(int(nic["mtu"]), set()).add(nic["device"])
            if m.as_dict(dgx[host]).get("roce") is True:
                roce_devices.update(nic["links"])
    wait = str(limits["for"])
    rules = []
    if devices:
        rules.append(_rule("AipodStorageLinkDown", f"node_network_up{selector(device=match_any(sorted(devices)))} == 0",
                           "storage link {{ $labels.device }} of {{ $labels.instance }} is down", "storage-link", "1m"))
        for mtu, named in sorted(by_mtu.items()):
            rules.append(_rule("AipodStorageMtuWrong",
                               f"node_network_mtu_bytes{selector(device=match_any(sorted(named)))} != {mtu}",
                               f"storage link {{{{ $labels.device }}}} of {{{{ $labels.instance }}}} has MTU {{{{ $value }}}}, the model says {mtu}",
                               "storage-mtu", wait))
    if roce_devices:
        roce = selector(device=match_any(sorted(roce_devices)))
        rules.append(_rule("AipodRocePauseRising",
                           f"rate(node_ethtool_rx_prio{ROCE_PRIORITY}_pause{roce}[5m]) > 0",
                           "PFC pause frames arrive on {{ $labels.device }} of {{ $labels.instance }}", "pfc-ecn", wait, "warning"))
        rules.append(_rule("AipodRoceEcnRising",
                           f"rate(node_ethtool_np_ecn_marked_roce_packets{roce}[5m]) > 0",
                           "ECN-marked RoCE packets arrive on {{ $labels.device }} of {{ $labels.instance }}", "pfc-ecn", wait, "warning"))
    if dgx:
        rules.append(_rule("AipodGpuXidError", "DCGM_FI_DEV_XID_ERRORS > 0",
                           "GPU {{ $labels.gpu }} of {{ $labels.Hostname }} reported XID {{ $value }}", "gpu-xid", "0s"))
        rules.append(_rule("AipodGpuHot", f"DCGM_FI_DEV_GPU_TEMP > {float(limits['gpu_temperature_c']):g}",
                           "GPU {{ $labels.gpu }} of {{ $labels.Hostname }} is at {{ $value }} C", "gpu-temperature", wait,
                           "warning"))
    return rules


def kubernetes_rules(model: dict, limits: dict) -> list[dict]:
    hosts = m.group_members(model, "kube_control_plane") + m.group_members(model, "kube_node")
    hosts = [host for host in dict.fromkeys(hosts) if host not in m.group_members(model, "decommission")]
    rules = []
    if hosts:
        rules.append(_rule("AipodNodeNotReady",
                           f'kube_node_status_condition{selector(NODE_READY, node=match_any(hosts))} == 0',
                           "node {{ $labels.node }} is not Ready", "node-not-ready", str(limits["for"])))
    rules.append(_rule("AipodTridentBackendOffline", 'trident_backend_count{backend_state!="online"} > 0',
                       "{{ $value }} Trident backend(s) of type {{ $labels.backend_type }} are {{ $labels.backend_state }}",
                       "trident-backend", str(limits["for"])))
    return rules


def alert_rules(model: dict) -> dict[str, Any]:
    """The pod's Prometheus rule groups: storage, DGX and Kubernetes."""
    limits = thresholds(model)
    groups = [("aipod-storage", storage_rules(model, limits)), ("aipod-dgx", dgx_rules(model, limits)),
              ("aipod-kubernetes", kubernetes_rules(model, limits))]
    return {"groups": [{"name": name, "rules": rules} for name, rules in groups if rules]}
