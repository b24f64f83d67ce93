"""Compute-layer filters: which ring sizes to set (the files and their text: test_compute_files.py)."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.ontap_ai.pod.plugins.filter.aipod_compute import FilterModule

FILTERS = FilterModule().filters()


def test_ring_sizes_are_capped_and_unsupported_nics_left_out():
    nics = {"enp225s0f0": {"rings": {"rx": 1024, "tx": 1024, "rx_max": 8192, "tx_max": 4096}},
            "enp225s0f1": {"rings": {"rx": 8192, "tx": 8192, "rx_max": 8192, "tx_max": 8192}},
            "eth1": {"rings": None}}
    assert FILTERS["aipod_ring_settings"](nics, 8192) == [
        {"name": "enp225s0f0", "rx": 8192, "tx": 4096, "current_rx": 1024, "current_tx": 1024, "differs": True},
        {"name": "enp225s0f1", "rx": 8192, "tx": 8192, "current_rx": 8192, "current_tx": 8192, "differs": False},
    ]
    assert FILTERS["aipod_ring_settings"](nics, 0) == []


def test_compute_plans_of_the_lab_pod():
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
    model = load_site("inventories/lab").model
    plans = FILTERS["aipod_compute_plans"](model, ["dgx01", "dgx02"])
    assert sorted(plans) == ["dgx01", "dgx02"]
    assert [nic["cidr"] for nic in plans["dgx02"]["nics"]] == ["172.31.251.12/24", "172.31.252.12/24"]
    assert plans["dgx02"]["storage_networks"] == ["172.31.251.0/24", "172.31.252.0/24"]
    assert plans["dgx01"]["mount_points"] == [{"path": mount["path"]} for mount in plans["dgx01"]["mounts"]]
    assert [mount["src"] for mount in plans["dgx01"]["mounts"]] == ["172.31.251.101:/data", "172.31.251.103:/home_vol"]
    assert plans["dgx01"]["roce"] is True and plans["dgx01"]["gpus"]["count"] == 8
    assert plans["dgx01"]["common_user"] == {"name": "aipod", "uid": 2000, "group": "aipod", "gid": 2000}
    model["hosts"]["dgx02"]["groups"] = ["dgx"]
    assert FILTERS["aipod_compute_plans"](model, ["dgx02"])["dgx02"]["common_user"] == {}
    with pytest.raises(AnsibleFilterError, match="'lab-sw-a' is not a DGX"):
        FILTERS["aipod_compute_plans"](model, ["lab-sw-a"])


def test_storage_networks_are_the_subnets_then_the_static_routes():
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.model import storage_destinations
    nics = [{"cidr": "10.0.1.5/24", "routes": [{"to": "10.9.0.0/16", "via": "10.0.1.1"}]}, {"cidr": "10.0.2.5/25", "routes": []}]
    assert storage_destinations(nics) == ["10.0.1.0/24", "10.0.2.0/25", "10.9.0.0/16"]


def test_mounts_pending_are_those_not_active_with_their_planned_source():
    nics = [{"device": "enp225s0f0.3111", "network": "storage-a", "address": "172.31.241.11"}]
    plan = [
        {"path": "/mnt/data", "src": "172.31.241.101:/data", "options": ["vers=4.1"], "lif": "a", "export_policy": "p",
         "svm": "s", "network": "storage-a", "server": "172.31.241.101", "fstype": "nfs"},
        {"path": "/mnt/home", "src": "172.31.241.102:/home_vol", "options": ["vers=3"], "lif": "b", "export_policy": "p",
         "svm": "s", "network": "storage-a", "server": "172.31.241.102", "fstype": "nfs"},
    ]
    pending = FILTERS["aipod_mounts_pending"]
    assert pending(plan, {"/mnt/data": {"src": "172.31.241.101:/data"}, "/mnt/home": {"src": "172.31.241.102:/home_vol"}},
                   nics) == []
    # Not mounted, or mounted from another source: probed, with the client side named.
    [home] = pending(plan, {"/mnt/data": {"src": "172.31.241.101:/data"}, "/mnt/home": {"src": "172.31.241.101:/home_vol"}},
                     nics)
    assert home == {"path": "/mnt/home", "src": "172.31.241.102:/home_vol", "options": ["vers=3"], "lif": "b",
                    "export_policy": "p", "svm": "s", "network": "storage-a", "client_address": "172.31.241.11",
                    "client_device": "enp225s0f0.3111"}
    assert [m["path"] for m in pending(plan, {}, nics)] == ["/mnt/data", "/mnt/home"]
    with pytest.raises(AnsibleFilterError):
        pending({"not": "a list"}, {}, nics)


def test_the_dgx_in_service_are_those_not_leaving_the_pod():
    from ansible.errors import AnsibleFilterError

    from ansible_collections.ontap_ai.pod.plugins.filter.aipod_compute import aipod_dgx_in_service
    assert aipod_dgx_in_service({"dgx": ["dgx01", "dgx02", "dgx03"], "decommission": ["dgx02"]}) == ["dgx01", "dgx03"]
    assert aipod_dgx_in_service({"dgx": ["dgx01"]}) == ["dgx01"] and aipod_dgx_in_service({"all": []}) == []
    with pytest.raises(AnsibleFilterError, match="groups magic variable"):
        aipod_dgx_in_service(["dgx01"])
