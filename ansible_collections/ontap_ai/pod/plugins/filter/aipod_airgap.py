"""Filters that list what an air-gapped site mirrors (playbooks/airgap_artifacts.yml).

Docs: aipod_deepops_artifacts.yml, aipod_trident_artifacts.yml, aipod_gpu_artifacts.yml, aipod_gpu_smoke_artifacts.yml,
aipod_monitoring_artifacts.yml, aipod_toolchain_artifacts.yml,
aipod_artifacts_table.yml and aipod_artifacts_markdown.yml beside this file. The logic lives in
plugins/plugin_utils/aipod_report/airgap.py (pure functions, unit-tested without Ansible).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ansible.errors import AnsibleFilterError

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_report import airgap


def _mapping(value: Any, filter_name: str, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise AnsibleFilterError(f"{filter_name}: expected {what} (a dict), got {type(value).__name__}")
    return value


def _artifacts(value: Any, filter_name: str) -> list[Mapping[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(item, Mapping) and set(airgap.FIELDS) <= set(item) for item in value):
        raise AnsibleFilterError(f"{filter_name}: expected a list of artefacts (dicts with {', '.join(airgap.FIELDS)})")
    return value


def aipod_gpu_artifacts(plan: Any) -> list[dict[str, str]]:
    checked = _mapping(plan, "aipod_gpu_artifacts", "the GPU plan (aipod_gpu_plan)")
    registry = checked.get("image_registry") or ""
    return airgap.gpu_artifacts(checked, str(registry))


def aipod_gpu_smoke_artifacts(plan: Any) -> list[dict[str, str]]:
    return airgap.gpu_smoke_artifacts(_mapping(plan, "aipod_gpu_smoke_artifacts", "the GPU smoke test's plan (aipod_gpu_smoke_plan)"))


def aipod_monitoring_artifacts(plan: Any) -> list[dict[str, str]]:
    return airgap.monitoring_artifacts(_mapping(plan, "aipod_monitoring_artifacts", "the monitoring plan (aipod_monitoring_plan)"))


def aipod_deepops_artifacts(plan: Any, settings: Any) -> list[dict[str, str]]:
    return airgap.deepops_artifacts(_mapping(plan, "aipod_deepops_artifacts", "the DeepOps plan (aipod_deepops_plan)"),
                                    _mapping(settings, "aipod_deepops_artifacts", "the role's settings"))


def aipod_trident_artifacts(plan: Any, settings: Any) -> list[dict[str, str]]:
    settings = _mapping(settings, "aipod_trident_artifacts", "the role's settings")
    if not isinstance(settings.get("image_sources"), Mapping) or not {"trident", "csi"} <= set(settings["image_sources"]):
        raise AnsibleFilterError("aipod_trident_artifacts: settings.image_sources needs the keys trident and csi")
    return airgap.trident_artifacts(_mapping(plan, "aipod_trident_artifacts", "the Trident plan (aipod_trident_plan)"), settings)


def aipod_toolchain_artifacts(requirements_txt: Any, constraints_txt: str, requirements_yml: Any,
                              pip_index: str, galaxy_server: str, ee_definition: Any = None) -> list[dict[str, str]]:
    if not isinstance(requirements_txt, str) or not isinstance(constraints_txt, str):
        raise AnsibleFilterError("aipod_toolchain_artifacts: expects the texts of requirements.txt and constraints.txt")
    return airgap.toolchain_artifacts(requirements_txt, constraints_txt,
                                      _mapping(requirements_yml, "aipod_toolchain_artifacts", "requirements.yml"),
                                      str(pip_index), str(galaxy_server),
                                      _mapping(ee_definition, "aipod_toolchain_artifacts", "execution-environment.yml") if ee_definition else None)


def aipod_artifacts_table(artifacts: Any) -> list[str]:
    return airgap.table(_artifacts(artifacts, "aipod_artifacts_table"))


def aipod_artifacts_markdown(artifacts: Any) -> str:
    return airgap.markdown(_artifacts(artifacts, "aipod_artifacts_markdown"))


class FilterModule:
    """Air-gap filters: what a site mirrors."""

    def filters(self):
        return {
            "aipod_deepops_artifacts": aipod_deepops_artifacts,
            "aipod_trident_artifacts": aipod_trident_artifacts,
            "aipod_gpu_artifacts": aipod_gpu_artifacts,
            "aipod_gpu_smoke_artifacts": aipod_gpu_smoke_artifacts,
            "aipod_monitoring_artifacts": aipod_monitoring_artifacts,
            "aipod_toolchain_artifacts": aipod_toolchain_artifacts,
            "aipod_artifacts_table": aipod_artifacts_table,
            "aipod_artifacts_markdown": aipod_artifacts_markdown,
        }
