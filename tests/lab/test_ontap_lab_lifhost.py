"""The lab's LIF realiser (lab/ontap/ontap_lab/lifhost.py): where the endpoint's data LIFs get their addresses."""
from __future__ import annotations

import sys

from project_paths import REPO

sys.path.insert(0, str(REPO / "lab" / "ontap"))
from ontap_lab import lifhost  # noqa: E402


def test_lif_realiser_places_each_address_on_the_bridge_of_its_subnet():
    networks = {"storage-a": {"bridge": "aplab-storage-a", "subnet": "172.31.251.0/24", "mtu": 9000},
                "storage-b": {"bridge": "aplab-storage-b", "subnet": "172.31.252.0/24", "mtu": 9000}}
    lifs = [{"uuid": "1", "ip": {"address": "172.31.251.101", "netmask": "24"}},
            {"uuid": "2", "ip": {"address": "172.31.252.101", "netmask": "255.255.255.0"}},
            {"uuid": "3", "ip": {"address": "172.31.253.20", "netmask": "24"}},
            {"uuid": "4", "ip": {"address": "172.31.251.102", "netmask": "24"}, "enabled": False}]
    legs, homeless = lifhost.plan(lifs, networks, "ns")
    assert [(leg.bridge, leg.mtu, leg.addresses) for leg in legs] == [
        ("aplab-storage-a", 9000, ("172.31.251.101/24",)), ("aplab-storage-b", 9000, ("172.31.252.101/24",))]
    assert homeless == ["172.31.253.20/24"]
    assert all(len(name) <= 15 for leg in legs for name in (leg.host, leg.inside))
    assert lifhost.namespace_for("/a/.lab") != lifhost.namespace_for("/b/.lab")


def test_lif_legs_keep_their_mac_across_re_creation():
    # DGX ARP caches stay valid when a factory reset drops and the storage layer re-creates the LIFs.
    mac = lifhost.leg_mac("lif-abcdef")
    assert mac == lifhost.leg_mac("lif-abcdef") and mac.startswith("02:") and len(mac.split(":")) == 6
