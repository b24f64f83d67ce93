"""Filters that hand the Kubernetes and Trident roles values derived from the site model.

Docs: aipod_trident_plan.yml, aipod_deepops_plan.yml, aipod_ini_token.yml, aipod_deepops_steps.yml, aipod_kubeconfig_source.yml,
aipod_kube_node_cidrs.yml, aipod_storage_class_changes.yml, aipod_snapshot_api_state.yml, aipod_snapshot_class_defaults.yml,
aipod_k8s_apply_pending.yml, aipod_k8s_pending_items.yml, aipod_trident_secrets.yml, aipod_nodes_of_hosts.yml,
aipod_gpu_plan.yml, aipod_gpu_pending.yml, aipod_judge_gpu_operator.yml, aipod_gpu_smoke_plan.yml,
aipod_gpu_smoke_finished.yml, aipod_judge_gpu_smoke.yml, aipod_helm_chart_arguments.yml and
the verification judges (aipod_judge_*.yml, aipod_schedulable_nodes.yml,
aipod_verification_result.yml) beside this file. The derivations live in
plugins/plugin_utils/aipod_kubernetes/ (deepops.py, trident.py, gpu.py, gpu_smoke.py, helm.py, apply.py, verify.py),
which the site validator uses too.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ansible.errors import AnsibleFilterError

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes import gpu_smoke
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.apply import (
    apply_pending,
    pending_items,
    secret_manifests,
    snapshot_api_state,
    snapshot_class_defaults,
    storage_class_changes,
)
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.deepops import (
    deepops_plan,
    ini_token,
    kube_node_cidrs,
    kubeconfig_source,
    lifecycle_steps,
)
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.gpu import operator_pending, operator_plan
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.helm import chart_arguments
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.trident import trident_plan, version_step
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.verify import (
    judge_backends,
    judge_classes,
    judge_gpu_operator,
    judge_nodes,
    nodes_of_hosts,
    schedulable_nodes,
    verification_result,
)
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import resolve_site_file


def _require_model(model: Any, name: str) -> dict:
    if not isinstance(model, Mapping) or "hosts" not in model:
        raise AnsibleFilterError(f"{name}: expected the site model (hostvars | ontap_ai.pod.aipod_model(groups)), got {type(model).__name__}")
    return dict(model)


def aipod_trident_plan(model: Mapping) -> dict[str, Any]:
    checked = _require_model(model, "aipod_trident_plan")
    if not isinstance(checked.get("trident"), Mapping):
        raise AnsibleFilterError("aipod_trident_plan: the site model has no 'trident' section")
    return trident_plan(checked)


def aipod_ini_token(value: Any, name: str = "value") -> str:
    """The value as one INI inventory token; fails naming `name` when it cannot be one."""
    try:
        return ini_token(value, name)
    except ValueError as error:
        raise AnsibleFilterError(f"aipod_ini_token: {error}") from None


def aipod_deepops_plan(model: Mapping) -> dict[str, Any]:
    checked = _require_model(model, "aipod_deepops_plan")
    if kubeconfig_source(checked)["mode"] != "deepops":
        raise AnsibleFilterError("aipod_deepops_plan: kubernetes.deployment is not 'deepops' in the site model")
    return deepops_plan(checked)


def aipod_deepops_steps(plan: Mapping, deployed: Any, current: Mapping) -> dict[str, Any]:
    if not isinstance(plan, Mapping) or not isinstance(current, Mapping):
        raise AnsibleFilterError("aipod_deepops_steps: expected the DeepOps plan and this run's versions and configuration")
    if deployed is not None and not isinstance(deployed, Mapping):
        raise AnsibleFilterError("aipod_deepops_steps: the record of the last run must be a mapping or null")
    return lifecycle_steps(dict(plan), dict(deployed) if deployed else None, dict(current))


def aipod_trident_version_step(installed: Any, wanted: Any, method: Any) -> dict[str, Any]:
    if not isinstance(wanted, str) or not isinstance(method, str):
        raise AnsibleFilterError("aipod_trident_version_step: expects the installed version (or null), the model's version and the install method")
    return version_step(str(installed) if installed else None, wanted, method)


def aipod_kubeconfig_source(model: Mapping) -> dict[str, Any]:
    return kubeconfig_source(_require_model(model, "aipod_kubeconfig_source"))


def aipod_kube_node_cidrs(model: Mapping) -> list[str]:
    return kube_node_cidrs(_require_model(model, "aipod_kube_node_cidrs"))


def aipod_storage_class_changes(existing: Any, planned: Any) -> dict[str, list]:
    if not isinstance(existing, list) or not isinstance(planned, list):
        raise AnsibleFilterError("aipod_storage_class_changes: expects the cluster's StorageClasses (a list) and the planned ones (a list)")
    return storage_class_changes(existing, planned)


def aipod_snapshot_class_defaults(existing: Any, planned: Any) -> list[str]:
    if not isinstance(existing, list) or not isinstance(planned, Mapping):
        raise AnsibleFilterError("aipod_snapshot_class_defaults: expects the cluster's VolumeSnapshotClasses (a list) and the planned one (a dict)")
    return snapshot_class_defaults(existing, dict(planned))


def aipod_k8s_apply_pending(existing: Any, declared: Any, field_manager: str = "",
                            last_applied: bool = False, unkept: Any = None) -> dict[str, dict[str, str]]:
    if not isinstance(existing, list) or not isinstance(declared, list):
        raise AnsibleFilterError("aipod_k8s_apply_pending: expects the cluster's objects (a list) and the declared manifests (a list)")
    if not field_manager and not last_applied:
        raise AnsibleFilterError("aipod_k8s_apply_pending: the field manager is empty (a server-side apply needs one)")
    if unkept is not None and not isinstance(unkept, list):
        raise AnsibleFilterError("aipod_k8s_apply_pending: unkept is a list of field names")
    return apply_pending(existing, declared, str(field_manager), bool(last_applied),
                         [str(name) for name in unkept or []])


def aipod_k8s_pending_items(to_apply: Any, version_step: Any = None, namespace: str = "") -> list[dict[str, Any]]:
    if not isinstance(to_apply, Mapping) or not all(isinstance(objects, Mapping) for objects in to_apply.values()):
        raise AnsibleFilterError("aipod_k8s_pending_items: expects aipod_k8s_apply_pending's {kind: {name: why}}")
    return pending_items(dict(to_apply), dict(version_step) if isinstance(version_step, Mapping) else None, str(namespace))


def aipod_trident_secrets(secrets: Any, namespace: str, values: Any) -> list[dict[str, Any]]:
    if not isinstance(secrets, list) or not isinstance(values, list):
        raise AnsibleFilterError("aipod_trident_secrets: expects the plan's secrets (a list) and their vault values (a list)")
    try:
        return secret_manifests(secrets, str(namespace), values)
    except ValueError as error:
        raise AnsibleFilterError(f"aipod_trident_secrets: {error}") from None


def aipod_snapshot_api_state(crds: Any) -> dict[str, Any]:
    if not isinstance(crds, list):
        raise AnsibleFilterError(f"aipod_snapshot_api_state: expects a list of CustomResourceDefinitions, got {type(crds).__name__}")
    return snapshot_api_state(crds)


def aipod_judge_nodes(nodes: Any, model: Mapping) -> list[dict]:
    return judge_nodes(_require_model(model, "aipod_judge_nodes"), list(nodes or []))


def aipod_judge_gpu_operator(plan: Any, policies: Any, pods: Any) -> list[dict]:
    if not isinstance(plan, Mapping) or "nodes" not in plan:
        raise AnsibleFilterError("aipod_judge_gpu_operator: expected the plan of aipod_gpu_plan")
    return judge_gpu_operator(dict(plan), list(policies or []), list(pods or []))


def _require_smoke_plan(plan: Any, name: str) -> dict:
    if not isinstance(plan, Mapping) or "jobs" not in plan:
        raise AnsibleFilterError(f"{name}: expected the plan of aipod_gpu_smoke_plan")
    return dict(plan)


def aipod_gpu_smoke_plan(model: Mapping, nodes: Any = None) -> dict[str, Any]:
    if nodes is not None and not isinstance(nodes, list):
        raise AnsibleFilterError("aipod_gpu_smoke_plan: nodes are the cluster's Node objects")
    return gpu_smoke.smoke_plan(_require_model(model, "aipod_gpu_smoke_plan"), nodes)


def aipod_gpu_smoke_finished(plan: Any, jobs: Any) -> bool:
    return gpu_smoke.finished(_require_smoke_plan(plan, "aipod_gpu_smoke_finished"), list(jobs or []))


def aipod_judge_gpu_smoke(plan: Any, jobs: Any = None, logs: Any = None, not_run: str = "", pods: Any = None,
                          failed: str = "") -> list[dict]:
    if logs is not None and not isinstance(logs, list):
        raise AnsibleFilterError("aipod_judge_gpu_smoke: logs are k8s_log's loop results (register: ...; .results)")
    return gpu_smoke.judge_smoke(_require_smoke_plan(plan, "aipod_judge_gpu_smoke"), list(jobs or []), list(logs or []),
                                 str(not_run or ""), list(pods or []), str(failed or ""))


def aipod_judge_backends(configs: Any, plan: Mapping, backends: Any, controller_running: bool) -> list[dict]:
    return judge_backends(dict(plan), list(configs or []), list(backends or []), bool(controller_running))


def aipod_judge_classes(classes: Any, plan: Mapping, snapshot_classes: Any) -> list[dict]:
    return judge_classes(dict(plan), list(classes or []), list(snapshot_classes or []))


def aipod_schedulable_nodes(nodes: Any) -> list[str]:
    return schedulable_nodes(list(nodes or []))


def aipod_verification_result(checks: Any) -> dict[str, Any]:
    return verification_result(list(checks or []))


def aipod_nodes_of_hosts(nodes: Any, hosts: Any) -> dict[str, dict]:
    if not isinstance(nodes, list) or not isinstance(hosts, list):
        raise AnsibleFilterError("aipod_nodes_of_hosts: expected a list of Node objects and a list of host names")
    return nodes_of_hosts(nodes, hosts)


def aipod_gpu_plan(model: Mapping) -> dict[str, Any]:
    return operator_plan(_require_model(model, "aipod_gpu_plan"))


def aipod_gpu_pending(plan: Mapping, release: Any, nodes: Any, policies: Any = None) -> list[dict]:
    if not isinstance(plan, Mapping) or "chart" not in plan:
        raise AnsibleFilterError("aipod_gpu_pending: expected the plan of aipod_gpu_plan")
    if release is not None and not isinstance(release, Mapping):
        raise AnsibleFilterError("aipod_gpu_pending: the release is helm_info's status, or none when it does not exist")
    if not isinstance(nodes, list):
        raise AnsibleFilterError("aipod_gpu_pending: expected a list of Node objects")
    return operator_pending(dict(plan), dict(release) if release else None, nodes, list(policies or []))


def aipod_helm_chart_arguments(chart: Any, inventory_dir: str, files_dir: str | None = None) -> dict[str, Any]:
    if not isinstance(chart, Mapping) or not chart.get("name"):
        raise AnsibleFilterError(f"aipod_helm_chart_arguments: expected a plan's chart {{name, version, repo, file}}, got {chart!r}")
    chart_file = chart.get("file")
    resolved = resolve_site_file(chart_file, files_dir or os.environ.get("AIPOD_SITE_FILES_DIR"), str(inventory_dir)) if chart_file else None
    return chart_arguments(dict(chart), resolved)


class FilterModule:
    """Kubernetes and Trident filters of the site model."""

    def filters(self):
        return {
            "aipod_nodes_of_hosts": aipod_nodes_of_hosts,
            "aipod_trident_plan": aipod_trident_plan,
            "aipod_deepops_plan": aipod_deepops_plan,
            "aipod_gpu_plan": aipod_gpu_plan,
            "aipod_gpu_pending": aipod_gpu_pending,
            "aipod_helm_chart_arguments": aipod_helm_chart_arguments,
            "aipod_gpu_smoke_plan": aipod_gpu_smoke_plan,
            "aipod_gpu_smoke_finished": aipod_gpu_smoke_finished,
            "aipod_judge_gpu_smoke": aipod_judge_gpu_smoke,
            "aipod_ini_token": aipod_ini_token,
            "aipod_deepops_steps": aipod_deepops_steps,
            "aipod_trident_version_step": aipod_trident_version_step,
            "aipod_kubeconfig_source": aipod_kubeconfig_source,
            "aipod_kube_node_cidrs": aipod_kube_node_cidrs,
            "aipod_storage_class_changes": aipod_storage_class_changes,
            "aipod_snapshot_class_defaults": aipod_snapshot_class_defaults,
            "aipod_snapshot_api_state": aipod_snapshot_api_state,
            "aipod_k8s_apply_pending": aipod_k8s_apply_pending,
            "aipod_k8s_pending_items": aipod_k8s_pending_items,
            "aipod_trident_secrets": aipod_trident_secrets,
            "aipod_judge_nodes": aipod_judge_nodes,
            "aipod_judge_gpu_operator": aipod_judge_gpu_operator,
            "aipod_judge_backends": aipod_judge_backends,
            "aipod_judge_classes": aipod_judge_classes,
            "aipod_schedulable_nodes": aipod_schedulable_nodes,
            "aipod_verification_result": aipod_verification_result,
        }
