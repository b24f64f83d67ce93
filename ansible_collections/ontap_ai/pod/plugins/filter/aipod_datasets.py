"""Filters that hand the data set roles values derived from the site model.

Docs: aipod_dataset_claims.yml, aipod_dataset_pending.yml, aipod_judge_dataset_claims.yml,
aipod_dataops_config.yml, aipod_dataset_copy_peers.yml and aipod_judge_dataset_copies.yml beside this
file. The derivations live in plugins/plugin_utils/aipod_datasets/ (kubernetes.py, toolkit.py, model.py,
copies.py).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ansible.errors import AnsibleFilterError

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_datasets import copies as datasets_copies
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_datasets import model as datasets_model
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_datasets.kubernetes import claims, judge_claims, pending
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_datasets.toolkit import toolkit_config


def aipod_dataset_claims(model: Mapping, live_claims: list | None = None) -> dict[str, Any]:
    if not isinstance(model, Mapping) or "hosts" not in model:
        raise AnsibleFilterError("aipod_dataset_claims: expected the site model (hostvars | ontap_ai.pod.aipod_model(groups)), "
                                 f"got {type(model).__name__}")
    return claims(dict(model), list(live_claims or []))


def aipod_dataops_config(model: Mapping, svm: str | None = None) -> dict[str, Any] | None:
    if not isinstance(model, Mapping) or "hosts" not in model:
        raise AnsibleFilterError("aipod_dataops_config: expected the site model (hostvars | ontap_ai.pod.aipod_model(groups)), "
                                 f"got {type(model).__name__}")
    return toolkit_config(dict(model), svm or None)


def aipod_dataset_copy_peers(model: Mapping) -> list[dict[str, Any]]:
    if not isinstance(model, Mapping) or "hosts" not in model:
        raise AnsibleFilterError("aipod_dataset_copy_peers: expected the site model (hostvars | ontap_ai.pod.aipod_model(groups)), "
                                 f"got {type(model).__name__}")
    peers = datasets_model.peers(dict(model))
    return [peers[name] for name in datasets_model.peers_in_use(dict(model))]


def aipod_judge_dataset_copies(relationships: Any, model: Mapping, flexcaches: Any = None) -> list[dict[str, str]]:
    if not isinstance(model, Mapping) or "hosts" not in model:
        raise AnsibleFilterError("aipod_judge_dataset_copies: expected the site model as its argument")
    return datasets_copies.judge(dict(model), list(relationships or []), list(flexcaches or []))


def aipod_dataset_pending(plan: Mapping, live: Mapping, field_manager: str) -> list[dict[str, Any]]:
    return pending(dict(plan), dict(live), field_manager)


def aipod_judge_dataset_claims(bindings: list, live_claims: list) -> list[dict[str, str]]:
    return judge_claims(list(bindings or []), list(live_claims or []))


class FilterModule:
    """Data set filters of the site model."""

    def filters(self):
        return {
            "aipod_dataset_claims": aipod_dataset_claims,
            "aipod_dataops_config": aipod_dataops_config,
            "aipod_dataset_copy_peers": aipod_dataset_copy_peers,
            "aipod_dataset_pending": aipod_dataset_pending,
            "aipod_judge_dataset_claims": aipod_judge_dataset_claims,
            "aipod_judge_dataset_copies": aipod_judge_dataset_copies,
        }
