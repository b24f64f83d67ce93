"""aipod_deepops_steps: each change of a deployed cluster takes Kubespray's own path, and only that path."""
from __future__ import annotations

import json

import pytest

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.deepops import lifecycle_steps, upgrade_refusal

PLAN = {"control_plane": ["cp1"], "workers": ["dgx01", "dgx02", "dgx03"], "decommission": [],
        "hosts": [{"name": "cp1", "ip": "10.0.0.1"}, {"name": "dgx01", "ip": "10.0.0.11"}, {"name": "dgx02", "ip": "10.0.0.12"},
                  {"name": "dgx03", "ip": "10.0.0.13"}]}
DEPLOYED = {"deepops": "26.07", "kubespray": "v2.31.0", "config": "c1", "control_plane": ["cp1"],
            "workers": ["dgx01", "dgx02", "dgx03"], "hosts": {"cp1": "10.0.0.1", "dgx01": "10.0.0.11", "dgx02": "10.0.0.12", "dgx03": "10.0.0.13"}}
CURRENT = {"deepops": "26.07", "kubespray": "v2.31.0", "config": "c1", "serial": 1}


def playbooks(result: dict) -> list[tuple[str, list[str]]]:
    return [(step["playbook"], step["args"]) for step in result["steps"]]


def test_nothing_changed_runs_nothing():
    assert lifecycle_steps(PLAN, DEPLOYED, CURRENT) == {"steps": [], "refused": "", "workers_after": ["dgx01", "dgx02", "dgx03"]}


def test_a_first_deployment_runs_the_cluster_playbook():
    assert playbooks(lifecycle_steps(PLAN, None, CURRENT)) == [("playbooks/k8s-cluster.yml", [])]


def test_a_new_worker_joins_with_scale_limited_to_it_after_facts_of_every_host():
    plan = {**PLAN, "workers": [*PLAN["workers"], "dgx04"], "hosts": [*PLAN["hosts"], {"name": "dgx04", "ip": "10.0.0.14"}]}
    result = lifecycle_steps(plan, DEPLOYED, CURRENT)
    assert playbooks(result) == [("submodules/kubespray/playbooks/facts.yml", []), ("submodules/kubespray/scale.yml", ["--limit=dgx04"])]
    assert result["workers_after"] == ["dgx01", "dgx02", "dgx03", "dgx04"]


def test_a_decommissioned_worker_leaves_with_remove_node_and_stays_gone():
    plan = {**PLAN, "decommission": ["dgx02"]}
    result = lifecycle_steps(plan, DEPLOYED, CURRENT)
    assert playbooks(result) == [("submodules/kubespray/remove-node.yml", ["-e", "node=dgx02", "-e", '{"skip_confirmation": true}'])]
    assert result["workers_after"] == ["dgx01", "dgx03"]
    assert lifecycle_steps(plan, {**DEPLOYED, "workers": result["workers_after"]}, CURRENT)["steps"] == []


@pytest.mark.parametrize(("change", "reason"), [
    ({"config": "c2"}, "the generated configuration changed"),
])
def test_a_new_configuration_runs_the_cluster_playbook(change, reason):
    result = lifecycle_steps(PLAN, DEPLOYED, {**CURRENT, **change})
    assert playbooks(result) == [("playbooks/k8s-cluster.yml", [])] and result["steps"][0]["reason"] == reason


def test_a_new_control_plane_or_a_moved_worker_runs_the_cluster_playbook():
    assert lifecycle_steps({**PLAN, "control_plane": ["cp1", "cp2"]}, DEPLOYED, CURRENT)["steps"][0]["reason"] == "the control plane changed"
    moved = {**PLAN, "hosts": [h if h["name"] != "dgx01" else {"name": "dgx01", "ip": "10.0.0.99"} for h in PLAN["hosts"]]}
    assert lifecycle_steps(moved, DEPLOYED, CURRENT)["steps"][0]["reason"] == "the address of dgx01 changed"


def test_a_new_release_upgrades_rolling_with_the_site_s_batch():
    result = lifecycle_steps(PLAN, DEPLOYED, {**CURRENT, "deepops": "26.10", "kubespray": "v2.32.0", "serial": "25%"})
    assert playbooks(result) == [("submodules/kubespray/upgrade-cluster.yml", ["-e", "serial=25%"])]


@pytest.mark.parametrize(("deployed", "wanted", "why"), [
    ("v2.31.0", "v2.30.2", "older than the deployed v2.31.0"),
    ("v2.31.0", "v2.33.0", "skips minor releases"),
    ("v2.31.0", "v3.0.0", "skips minor releases"),
])
def test_a_downgrade_or_a_skipped_minor_is_refused_and_nothing_runs(deployed, wanted, why):
    result = lifecycle_steps(PLAN, {**DEPLOYED, "kubespray": deployed}, {**CURRENT, "deepops": "27.01", "kubespray": wanted})
    assert why in result["refused"] and result["steps"] == []


@pytest.mark.parametrize(("deployed", "wanted"), [("v2.31.0", "v2.31.2"), ("v2.31.3", "v2.32.0"), ("v2.31.0", "v2.31.0")])
def test_a_patch_or_the_next_minor_is_allowed(deployed, wanted):
    assert upgrade_refusal(deployed, wanted) == ""


def test_a_decommission_that_meets_another_change_waits_for_the_next_run_and_is_not_lost():
    plan = {**PLAN, "decommission": ["dgx02"]}
    first = lifecycle_steps(plan, DEPLOYED, {**CURRENT, "config": "c2"})
    assert playbooks(first) == [("playbooks/k8s-cluster.yml", [])]
    assert "dgx02" in first["workers_after"]  # still in the cluster: the record keeps it
    second = lifecycle_steps(plan, {**DEPLOYED, "config": "c2", "workers": first["workers_after"]}, {**CURRENT, "config": "c2"})
    assert playbooks(second) == [("submodules/kubespray/remove-node.yml", ["-e", "node=dgx02", "-e", '{"skip_confirmation": true}'])]


def test_a_dead_decommissioned_worker_leaves_first_and_alone():
    """Kubespray gathers facts from every host, and a dead one fails that: nothing else runs with it."""
    plan = {**PLAN, "decommission": ["dgx02", "dgx03"], "workers": [*PLAN["workers"], "dgx04"],
            "hosts": [*PLAN["hosts"], {"name": "dgx04", "ip": "10.0.0.14"}]}
    result = lifecycle_steps(plan, DEPLOYED, {**CURRENT, "unreachable": ["dgx03"]})
    assert playbooks(result) == [
        ("submodules/kubespray/remove-node.yml",
         ["-e", "node=dgx03", "-e", '{"skip_confirmation": true, "reset_nodes": false, "allow_ungraceful_removal": true}'])]
    assert json.loads(result["steps"][0]["args"][-1])["skip_confirmation"] is True
    assert "not reachable: dgx03" in result["steps"][0]["reason"] and "waits for the next run" in result["steps"][0]["reason"]
    assert result["workers_after"] == ["dgx01", "dgx02"]
    # Even before an upgrade, which would run on every host.
    upgrade = lifecycle_steps(plan, DEPLOYED, {**CURRENT, "kubespray": "v2.32.0", "deepops": "26.10", "unreachable": ["dgx03"]})
    assert [step["playbook"] for step in upgrade["steps"]] == ["submodules/kubespray/remove-node.yml"]
    # The next run: dgx03 is gone from the record, dgx02 leaves drained and reset, dgx04 joins.
    after = {**DEPLOYED, "workers": ["dgx01", "dgx02"]}
    assert [step["playbook"] for step in lifecycle_steps(plan, after, CURRENT)["steps"]] == [
        "submodules/kubespray/remove-node.yml", "submodules/kubespray/playbooks/facts.yml", "submodules/kubespray/scale.yml"]


def test_only_a_host_being_decommissioned_may_be_removed_as_dead():
    result = lifecycle_steps(PLAN, DEPLOYED, {**CURRENT, "unreachable": ["dgx01"]})
    assert result["steps"] == [] and "dgx01 in deepops_cluster_remove_unreachable is not in the group decommission" in result["refused"]
