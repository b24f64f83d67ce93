"""The filter glue of plugins/filter/aipod_kubernetes.py: registered names and errors that name the bad input."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.ontap_ai.pod.plugins.filter import aipod_kubernetes as f


def test_every_filter_is_registered():
    assert set(f.FilterModule().filters()) == {
        "aipod_trident_plan", "aipod_deepops_plan", "aipod_kubeconfig_source", "aipod_kube_node_cidrs",
        "aipod_storage_class_changes", "aipod_snapshot_api_state", "aipod_snapshot_class_defaults", "aipod_judge_nodes", "aipod_judge_backends",
        "aipod_judge_classes", "aipod_schedulable_nodes", "aipod_verification_result", "aipod_k8s_apply_pending", "aipod_k8s_pending_items",
        "aipod_trident_secrets", "aipod_deepops_steps", "aipod_trident_version_step",
        "aipod_nodes_of_hosts", "aipod_ini_token", "aipod_gpu_plan", "aipod_gpu_pending", "aipod_judge_gpu_operator",
        "aipod_gpu_smoke_plan", "aipod_gpu_smoke_finished", "aipod_judge_gpu_smoke", "aipod_helm_chart_arguments"}


def test_declaration_filters_refuse_what_they_cannot_compare():
    with pytest.raises(AnsibleFilterError, match="aipod_k8s_apply_pending: expects"):
        f.aipod_k8s_apply_pending({"items": []}, [], "aipod")
    with pytest.raises(AnsibleFilterError, match="field manager is empty"):
        f.aipod_k8s_apply_pending([], [], "")
    with pytest.raises(AnsibleFilterError, match="1 Secrets but 0 values"):
        f.aipod_trident_secrets([{"name": "s", "kind": "ontap"}], "trident", [])


def test_model_filters_refuse_what_is_not_a_model():
    with pytest.raises(AnsibleFilterError, match=r"aipod_trident_plan: expected the site model"):
        f.aipod_trident_plan(["not", "a", "model"])
    with pytest.raises(AnsibleFilterError, match="has no 'trident' section"):
        f.aipod_trident_plan({"hosts": {}})
    with pytest.raises(AnsibleFilterError, match="is not 'deepops'"):
        f.aipod_deepops_plan({"hosts": {}, "kubernetes": {"deployment": "existing", "existing": {"kubeconfig": "k"}}})


def test_cluster_state_filters_refuse_wrong_types():
    with pytest.raises(AnsibleFilterError, match="aipod_storage_class_changes"):
        f.aipod_storage_class_changes({"resources": []}, [])
    with pytest.raises(AnsibleFilterError, match="got dict"):
        f.aipod_snapshot_api_state({})


def test_the_ini_token_filter_names_the_variable_it_refuses():
    assert f.aipod_ini_token("dgx01", "host name") == "dgx01"
    with pytest.raises(AnsibleFilterError, match="aipod_ini_token: ansible_user of dgx04 'a b'"):
        f.aipod_ini_token("a b", "ansible_user of dgx04")


def test_the_gpu_smoke_filters_refuse_what_is_not_their_plan():
    with pytest.raises(AnsibleFilterError, match="expected the plan of aipod_gpu_smoke_plan"):
        f.aipod_judge_gpu_smoke({"nodes": []}, [], [])
    with pytest.raises(AnsibleFilterError, match="k8s_log's loop results"):
        f.aipod_judge_gpu_smoke({"jobs": []}, [], {"job": "log"})
    assert f.aipod_gpu_smoke_finished({"jobs": []}, None) is True
