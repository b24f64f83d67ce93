"""The IP plan: every network, every address the model holds or derives, and the free ranges."""
from __future__ import annotations

import csv
import io
import ipaddress

import pytest
from switch_test_models import sample_model

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import ipplan
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m


@pytest.fixture(scope="module")
def model():
    return sample_model()


def _network(plan, name):
    return next(n for n in plan["networks"] if n["name"] == name)


def test_every_address_the_model_holds_or_derives_is_listed_once(model):
    plan = ipplan.ip_plan(model)
    listed = [e["address"] for n in plan["networks"] for e in n["entries"] if e["role"] == "interface"]
    expected = [a["address"] for a in m.address_assignments(model)]
    assert sorted(listed) == sorted(expected) and len(listed) == len(set(listed))
    # every kind the issue names: mgmt, in-band, storage NICs, LIFs, SVM mgmt, switch mgmt
    keys = {e["key"] for n in plan["networks"] for e in n["entries"]}
    assert "hosts.dgx01.dgx.mgmt_address" in keys and "hosts.dgx01.dgx.inband.address" in keys
    assert "hosts.dgx01.dgx.storage_nics[1].address" in keys and "hosts.n3232c-a.switch.mgmt_address" in keys
    assert "ontap.svms[0].mgmt_lif.address" in keys and "ontap.nodes[1].mgmt_address" in keys
    lifs = [e for e in _network(plan, "storage-a")["entries"] if e["key"].endswith("first_address.storage-a")]
    assert len(lifs) == 8 and all(e["derived"] for e in lifs)   # 2 nodes x 2 ports x 2 per port
    assert plan["unplaced"] == []


def test_management_addresses_join_the_network_that_holds_them(model):
    plan = ipplan.ip_plan(model)
    mgmt = _network(plan, "oob-mgmt")
    assert mgmt["entries"][0] == {"address": "10.61.218.1", "role": "gateway", "device": "", "interface": "",
                                  "key": "networks.oob-mgmt.gateway", "derived": False}
    assert {e["device"] for e in mgmt["entries"]} >= {"n3232c-a", "aipod-a800", "aipod-a800-01", "dgx04", "k8s-cp03"}


def test_free_ranges_are_the_host_addresses_nothing_uses(model):
    plan = ipplan.ip_plan(model)
    for network in plan["networks"]:
        subnet = ipaddress.ip_network(network["subnet"])
        used = {e["address"] for e in network["entries"]}
        free = [str(ipaddress.ip_address(a) + i) for a, _b, count in network["free"] for i in range(count)]
        assert not used & set(free)
        assert len(used) + len(free) == subnet.num_addresses - 2
        for first, last, count in network["free"]:
            assert int(ipaddress.ip_address(last)) - int(ipaddress.ip_address(first)) + 1 == count


def test_free_ranges_of_a_small_subnet():
    subnet = ipaddress.ip_network("10.0.0.0/29")                 # hosts .1 - .6
    used = {int(ipaddress.ip_address(a)) for a in ("10.0.0.1", "10.0.0.4", "10.0.0.9")}
    assert ipplan._free_ranges(subnet, used) == [("10.0.0.2", "10.0.0.3", 2), ("10.0.0.5", "10.0.0.6", 2)]
    assert ipplan._free_ranges(ipaddress.ip_network("10.0.0.0/31"), set()) == [("10.0.0.0", "10.0.0.1", 2)]


def test_routes_next_hops_and_stray_addresses_are_shown():
    model = sample_model()
    model["networks"][1]["routes"] = [{"to": "10.99.0.0/16", "via": "10.61.219.254"}]
    model["hosts"]["dgx02"]["dgx"]["mgmt_address"] = "192.0.2.7"
    plan = ipplan.ip_plan(model)
    hop = [e for e in _network(plan, "inband")["entries"] if e["role"] == "next hop"]
    assert hop == [{"address": "10.61.219.254", "role": "next hop", "device": "", "interface": "route to 10.99.0.0/16",
                    "key": "networks.inband.routes[0].via", "derived": False}]
    assert [e["key"] for e in plan["unplaced"]] == ["hosts.dgx02.dgx.mgmt_address"]
    assert "## In no declared network" in ipplan.markdown(plan, "t")


def test_csv_parses_back_to_the_plan(model):
    plan = ipplan.ip_plan(model)
    rows = list(csv.DictReader(io.StringIO(ipplan.csv_text(plan))))
    addresses = [r for r in rows if r["role"] != "free"]
    free = [r for r in rows if r["role"] == "free"]
    assert len(addresses) == sum(len(n["entries"]) for n in plan["networks"])
    assert len(free) == sum(len(n["free"]) for n in plan["networks"])
    row = next(r for r in rows if r["address"] == "100.127.112.11")
    assert (row["network"], row["vlan"], row["mtu"], row["device"], row["interface"]) == ("storage-b", "3112", "9000", "dgx01", "enp225s0f1")
    assert sum(int(r["count"]) for r in free if r["network"] == "storage-b") == 242


def test_markdown_summarises_each_network(model):
    text = ipplan.markdown(ipplan.ip_plan(model), "aipod-sample")
    assert "| storage-a | storage | 3111 | 100.127.111.0/24 | - | 9000 | 12 | 242 |" in text
    assert "| oob-mgmt | mgmt | untagged | 10.61.218.0/24 | 10.61.218.1 | 1500 | 12 | 241 |" in text
    assert "derived from ontap.svms[0].data_lifs.first_address.storage-b" in text
