"""Which Kubernetes Node an inventory host still is (decommissioning an adopted cluster's DGX)."""
from __future__ import annotations

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.verify import nodes_of_hosts


def node(name: str, ready: str = "True", hostname: str | None = None) -> dict:
    labels = {"kubernetes.io/hostname": hostname} if hostname else {}
    return {"metadata": {"name": name, "labels": labels}, "status": {"conditions": [{"type": "Ready", "status": ready}]}}


def test_a_node_named_like_the_host_or_by_its_fully_qualified_name_is_the_hosts():
    nodes = [node("dgx04"), node("dgx05.pod.example.net", "False"), node("dgx050")]
    assert nodes_of_hosts(nodes, ["dgx04", "dgx05"]) == {
        "dgx04": {"name": "dgx04", "ready": True}, "dgx05": {"name": "dgx05.pod.example.net", "ready": False}}


def test_the_hostname_label_names_the_host_too_and_a_host_without_a_node_is_left_out():
    nodes = [node("10-0-0-15", hostname="dgx05"), node("dgx050")]
    assert nodes_of_hosts(nodes, ["dgx05", "dgx06"]) == {"dgx05": {"name": "10-0-0-15", "ready": True}}
    assert nodes_of_hosts([], ["dgx05"]) == {}
