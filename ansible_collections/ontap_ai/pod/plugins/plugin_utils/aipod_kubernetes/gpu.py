"""GPUs in Kubernetes: the NVIDIA GPU Operator set up the DGX OS way, from the model's `gpu` section.

DGX OS brings the driver, the container toolkit and DCGM (nvidia-dcgm.service). NVIDIA's recipe for
such hosts installs the GPU Operator with the driver and the toolkit left to the host and
containerd's default runtime set to `nvidia`. On a DeepOps cluster that runtime must be declared in
Kubespray's own variables: every Kubespray run rewrites /etc/containerd/config.toml and would drop
a runtime added by hand or by the operator's toolkit (kubespray#12277). The DCGM exporter talks to
the host's DCGM over localhost, which makes the operator give it the host network.

Per-node MIG layouts are names from MIG Manager's default configuration (`all-disabled`,
`all-balanced`, `all-<profile>`); the profiles each GPU takes are listed below, from NVIDIA's MIG
user guide. Defensive on malformed models, like ..model.
"""
from __future__ import annotations

import re
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes import helm
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m

GPU_OPERATOR_CHART_REPO = "https://helm.ngc.nvidia.com/nvidia"
GPU_OPERATOR_CHART_NAME = "gpu-operator"
GPU_OPERATOR_CHART_VERSION = "v26.7.0"
GPU_OPERATOR_NAMESPACE = "gpu-operator"
GPU_OPERATOR_RELEASE = "gpu-operator"
MIG_STRATEGIES = ("single", "mixed")
# Where DGX OS runs DCGM's host engine (nvidia-dcgm.service listens on 127.0.0.1:5555).
HOST_DCGM = "localhost:5555"
# The runtime Kubespray declares for containerd, as NVIDIA's recipe for DGX OS asks.
# Its cgroup driver and base spec are Kubespray's own runc's, written as Kubespray writes them.
NVIDIA_RUNTIME = {
    "name": "nvidia",
    "type": "io.containerd.runc.v2",
    "base_runtime_spec": "cri-base.json",
    "options": {
        "Root": "",
        "SystemdCgroup": "{{ containerd_use_systemd_cgroup | ternary('true', 'false') }}",
        "BinaryName": "/usr/bin/nvidia-container-runtime",
    },
}
NFD_IMAGE_PATH = "nfd/node-feature-discovery"
# The chart's images by value key, with the path under nvcr.io each keeps in a mirror.
CHART_IMAGES = {
    "operator": "nvidia",
    "validator": "nvidia/cloud-native",
    "devicePlugin": "nvidia",
    "dcgmExporter": "nvidia/k8s",
    "gfd": "nvidia",
    "migManager": "nvidia/cloud-native",
    "nodeStatusExporter": "nvidia/cloud-native",
}

# MIG profiles (compute slices and memory) each GPU takes; a GPU missing here has no MIG.
_A100_40 = ("1g.5gb", "1g.5gb.me", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb")
_80GB = ("1g.10gb", "1g.10gb.me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb")
MIG_PROFILES: dict[str, tuple[str, ...]] = {
    "A100-40GB": _A100_40,
    "A100-80GB": _80GB,
    "H100": _80GB,
    "H200": ("1g.18gb", "1g.18gb.me", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"),
    "B200": ("1g.23gb", "1g.23gb.me", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"),
}
NO_MIG = ("P100", "V100")
LAYOUTS_ANY_MIG_GPU = ("all-disabled", "all-enabled", "all-balanced")
_MEMORY = re.compile(r"(\d+)\s*GB", re.IGNORECASE)


def gpu_section(model: dict) -> dict:
    return m.as_dict(model.get("gpu"))


def dgx_workers(model: dict) -> list[str]:
    """Kubernetes workers that are DGX systems, in the inventory's order; not those being decommissioned."""
    dgx = m.hosts_of_kind(model, "dgx")
    leaving = m.group_members(model, "decommission")
    return [host for host in m.group_members(model, "kube_node") if host in dgx and host not in leaving]


def operator_enabled(model: dict) -> bool:
    """The bundle installs the GPU Operator: on by default when a DGX is a Kubernetes worker."""
    operator = m.as_dict(gpu_section(model).get("operator"))
    enabled = operator.get("enabled")
    if isinstance(enabled, bool):
        return enabled
    return bool(dgx_workers(model))


def gpu_kind(dgx: dict) -> str | None:
    """Which row of MIG_PROFILES a DGX's GPUs are ('A100-80GB', 'H100', ...); 'A100' when its memory is not said;
    the generation (P100, V100, B300) for a GPU without a row; None when unknown."""
    gpus = m.as_dict(dgx.get("gpus"))
    generation = m.gpu_generation(gpus.get("model"))
    if generation is None:
        system = m.dgx_system(dgx.get("model"))
        generation = system[2][-1] if system and len(system[2]) == 1 else None
        if system and system[0] == "DGX-1":
            generation = "V100"
    if generation == "A100":
        memory = _MEMORY.search(m.as_str(gpus.get("model")) or "")
        if memory:
            return "A100-80GB" if int(memory.group(1)) > 40 else "A100-40GB"
    return generation


def mig_profiles(kind: str | None) -> tuple[str, ...] | None:
    """The MIG profiles of a GPU kind; () for a GPU without MIG; None when the bundle does not know them."""
    if kind in NO_MIG:
        return ()
    if kind == "A100":
        return tuple(dict.fromkeys(_A100_40 + _80GB))
    return MIG_PROFILES.get(kind or "")


def mig_layout_refusal(kind: str | None, layout: str) -> str:
    """Why a GPU of this kind cannot take the MIG layout ('' when it can, or when the kind is unknown)."""
    profiles = mig_profiles(kind)
    if profiles is None:
        return ""
    if not profiles:
        return "" if layout == "all-disabled" else f"{kind} GPUs have no MIG; the only layout is all-disabled"
    if layout in LAYOUTS_ANY_MIG_GPU:
        return ""
    if layout.startswith("all-") and layout[4:] in profiles:
        return ""
    return (f"{kind} GPUs take the MIG layouts {', '.join(LAYOUTS_ANY_MIG_GPU)} and "
            + ", ".join(f"all-{profile}" for profile in profiles) + f", not {layout}")


def mig_layouts(model: dict) -> dict[str, str]:
    """{host: layout} for each DGX worker whose layout the model names (others keep MIG Manager's all-disabled)."""
    layouts = m.as_dict(m.as_dict(gpu_section(model).get("mig")).get("layouts"))
    workers = dgx_workers(model)
    return {host: layouts[host] for host in workers if isinstance(layouts.get(host), str)}


def operator_values(model: dict) -> dict[str, Any]:
    """The chart's values, from the model: NVIDIA's recipe for hosts that bring their own driver and toolkit."""
    gpu = gpu_section(model)
    operator = m.as_dict(gpu.get("operator"))
    mig = m.as_dict(gpu.get("mig"))
    exporter = gpu.get("dcgm_exporter")
    exporter_on = exporter if isinstance(exporter, bool) else True
    values: dict[str, Any] = {
        "operator": {"defaultRuntime": "containerd", "upgradeCRD": True},
        "driver": {"enabled": False},
        "toolkit": {"enabled": False},
        "cdi": {"enabled": True},
        "dcgm": {"enabled": False},
        "dcgmExporter": {
            "enabled": exporter_on,
            "env": [{"name": "DCGM_REMOTE_HOSTENGINE_INFO", "value": HOST_DCGM}],
        },
        "mig": {"strategy": m.as_str(mig.get("strategy")) or "single"},
        "migManager": {"enabled": True, "config": {"default": "all-disabled"}},
    }
    watched = m.as_dict(model.get("monitoring"))
    if exporter_on and watched.get("enabled") is True:
        # The operator then declares the exporter's ServiceMonitor, which Prometheus picks up (the monitoring
        # layer runs first: without the Prometheus Operator's CRDs the operator reports the exporter NotReady).
        values["dcgmExporter"]["serviceMonitor"] = {"enabled": True, "honorLabels": True,
                                                    "interval": m.as_str(watched.get("scrape_interval")) or "30s"}
    registry = m.as_str(operator.get("image_registry"))
    if registry:
        # An air-gapped site's mirror of nvcr.io: every image the operator runs on a DGX OS node comes from it.
        for key, path in CHART_IMAGES.items():
            values.setdefault(key, {})["repository"] = f"{registry.rstrip('/')}/{path}"
        # Node feature discovery, the chart's subchart, comes from registry.k8s.io: mirrored beside them.
        values["node-feature-discovery"] = {"image": {"repository": f"{registry.rstrip('/')}/{NFD_IMAGE_PATH}"}}
    return values


def operator_plan(model: dict) -> dict[str, Any]:
    """What the GPU layer makes: {enabled, namespace, release, chart {repo, name, version, file}, values, image_registry,
    nodes [{host, gpus, mig_layout}], kubespray {containerd runtime settings}}."""
    gpu = gpu_section(model)
    operator = m.as_dict(gpu.get("operator"))
    dgx = m.hosts_of_kind(model, "dgx")
    layouts = mig_layouts(model)
    enabled = operator_enabled(model)
    return {
        "enabled": enabled,
        "namespace": m.as_str(operator.get("namespace")) or GPU_OPERATOR_NAMESPACE,
        "release": GPU_OPERATOR_RELEASE,
        "chart": {
            "repo": m.as_str(operator.get("chart_repo")) or GPU_OPERATOR_CHART_REPO,
            "name": GPU_OPERATOR_CHART_NAME,
            "version": m.as_str(operator.get("chart_version")) or GPU_OPERATOR_CHART_VERSION,
            # A chart archive beside the inventory (an air-gapped site's copy): used instead of the repository.
            "file": m.as_str(operator.get("chart_file")),
        },
        "values": operator_values(model),
        "image_registry": m.as_str(operator.get("image_registry")),
        "nodes": [{"host": host, "gpus": m.dgx_gpu_count(m.as_dict(dgx.get(host))),
                   "mig_layout": layouts.get(host)} for host in dgx_workers(model)],
        "kubespray": kubespray_runtime(model) if enabled else {},
    }


def kubespray_runtime(model: dict) -> dict[str, Any]:
    """Kubespray's containerd variables that keep the nvidia runtime and CDI across every Kubespray run."""
    return {
        "containerd_additional_runtimes": [NVIDIA_RUNTIME],
        "containerd_default_runtime": "nvidia",
        "enable_cdi": True,
    }


MIG_LABEL = "nvidia.com/mig.config"


def foreign_policy(plan: dict, policies: list) -> str:
    """Who installed a ClusterPolicy that is not this release's ('' when there is none): a second
    operator must not be installed beside it (DeepOps installs its own as nvidia-gpu-operator)."""
    for policy in policies:
        annotations = m.as_dict(m.as_dict(m.as_dict(policy).get("metadata")).get("annotations"))
        owner = (m.as_str(annotations.get("meta.helm.sh/release-name")), m.as_str(annotations.get("meta.helm.sh/release-namespace")))
        if owner != (plan.get("release"), plan.get("namespace")):
            name = m.as_str(m.as_dict(m.as_dict(policy).get("metadata")).get("name")) or "?"
            return (f"ClusterPolicy {name} of helm release {owner[0]} in {owner[1]}" if owner[0]
                    else f"ClusterPolicy {name}, not installed by helm")
    return ""


def operator_pending(plan: dict, release: dict | None, nodes: list, policies: list | None = None) -> list[dict]:
    """The GPU layer's pending items: the chart's release against the plan, and each DGX's MIG label.

    release is kubernetes.core.helm_info's status (None when the release does not exist); nodes are
    the cluster's Node objects; policies its ClusterPolicy objects. A GPU Operator installed otherwise
    (another release's or no release's ClusterPolicy) is refused, never replaced; a release helm left
    pending is refused: helm upgrades no such release. A MIG label the model does not name is the
    operator's or an operator's, and is not compared.
    """
    if not plan.get("enabled"):
        return []
    chart = m.as_dict(plan.get("chart"))
    found: list[dict] = []
    other = foreign_policy(plan, m.as_list(policies)) if not release else ""
    if other:
        reason = (f"a GPU Operator is installed otherwise ({other}); the bundle installs no second one. Uninstall it "
                  "(helm uninstall <release> -n <namespace>; DeepOps names it nvidia-gpu-operator) and run again, or set "
                  "gpu.operator.enabled: false to keep it")
        found.append(aipod_pending.item(helm.release_object(plan), None, None, f"{chart.get('name')} {chart.get('version')}",
                                        "refuse", reason))
    else:
        found.extend(helm.release_pending(plan, release))
    labels = {m.as_str(m.as_dict(node.get("metadata")).get("name")): m.as_dict(m.as_dict(node.get("metadata")).get("labels"))
              for node in nodes if isinstance(node, dict)}
    for node in plan.get("nodes") or []:
        layout = node.get("mig_layout")
        if not layout:
            continue
        if node["host"] not in labels:
            reason = "the node is not in the cluster; its MIG layout is set once it joins"
            found.append(aipod_pending.item(f"node {node['host']}", MIG_LABEL, None, layout, "refuse", reason))
        elif labels[node["host"]].get(MIG_LABEL) != layout:
            found.append(aipod_pending.item(f"node {node['host']}", MIG_LABEL, labels[node["host"]].get(MIG_LABEL), layout))
    return found
