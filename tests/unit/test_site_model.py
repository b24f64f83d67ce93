"""Derived values every layer uses: LIFs, VLAN ports, switch plans, mount targets, sizing."""
from __future__ import annotations

import collections

import pytest
from project_paths import LAB, SAMPLE

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import model as network_model
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site


@pytest.fixture(scope="module")
def sample():
    return load_site(str(SAMPLE)).model


@pytest.fixture(scope="module")
def lab():
    return load_site(str(LAB)).model


def test_data_lifs_follow_the_reference_design(sample):
    lifs = m.data_lifs(sample)
    per_node = collections.Counter(lif["node"] for lif in lifs)
    assert per_node == {"aipod-a800-01": 8, "aipod-a800-02": 8}
    per_port = collections.Counter((lif["node"], lif["port"]) for lif in lifs)
    assert set(per_port.values()) == {2}
    first = lifs[0]
    assert first == {"svm": "aipod-data", "name": "aipod-a800-01_e6a-3111_1", "node": "aipod-a800-01", "port": "e6a-3111",
                     "network": "storage-a", "address": "100.127.111.101", "prefix_len": 24, "broadcast_domain": "storage-a",
                     "ipspace": "Default", "rdma": False, "index": 1}
    storage_b = [lif["address"] for lif in lifs if lif["network"] == "storage-b"]
    assert storage_b == [f"100.127.112.{n}" for n in range(101, 109)]
    assert len({lif["name"] for lif in lifs}) == len(lifs)


def test_vlan_ports_come_from_broadcast_domains(sample):
    ports = m.ontap_vlan_ports(sample)
    assert {(p["node"], p["name"], p["vlan"]) for p in ports} >= {("aipod-a800-01", "a0a-3101", 3101), ("aipod-a800-02", "e11b-3112", 3112)}
    assert len(ports) == 10
    assert all(p["name"] == f"{p['base_port']}-{p['vlan']}" for p in ports)


def test_broadcast_domain_mtu_is_the_network_mtu(sample):
    assert {d["name"]: d["mtu"] for d in m.broadcast_domains(sample)} == {"inband": 1500, "storage-a": 9000, "storage-b": 9000}


def test_mount_targets_spread_over_nodes_and_are_deterministic(sample):
    plans = {host: m.mount_plan(sample, host) for host in ("dgx01", "dgx02", "dgx03", "dgx04")}
    data_nodes = [plans[h][0]["lif_node"] for h in plans]
    assert collections.Counter(data_nodes) == {"aipod-a800-01": 2, "aipod-a800-02": 2}
    data_lifs = [plans[h][0]["lif"] for h in plans]
    assert len(set(data_lifs)) == 4
    for host, plan in plans.items():
        for mount in plan:
            nic_network = {n["name"]: n["network"] for n in [{"name": k, **v} for k, v in m.host_interfaces(sample, host).items()]}
            assert nic_network[mount["nic"]] == mount["network"]
            assert mount["src"] == f"{mount['server']}:{mount['junction_path']}"
    assert plans == {host: m.mount_plan(sample, host) for host in plans}


def test_mount_options(sample):
    [data, home] = m.mount_plan(sample, "dgx01")
    assert data["options"] == ["vers=4.1", "proto=tcp", "nconnect=16", "rsize=262144", "wsize=262144", "hard"]
    assert home["options_text"] == "vers=3,proto=tcp,nconnect=16,rsize=262144,wsize=262144,hard"
    assert m.nfs_mount_options({"nfs_version": "4.1", "transport": "rdma", "nconnect": 16}) == [
        "vers=4.1", "proto=rdma", "port=20049", "max_connect=16", "rsize=262144", "wsize=262144", "hard"]
    # NVA-1173's RDMA data mount: eager writes, only when the model asks for them.
    assert m.nfs_mount_options({"nfs_version": "4.1", "transport": "rdma", "nconnect": 16, "write": "eager"}) == [
        "vers=4.1", "proto=rdma", "port=20049", "max_connect=16", "rsize=262144", "wsize=262144", "write=eager", "hard"]


def test_mounts_spread_over_64_hosts_evenly(tmp_path):
    from scale_site import scale

    model = load_site(scale(str(SAMPLE), 64, str(tmp_path / "sample-64"))).model
    hosts = list(m.hosts_of_kind(model, "dgx"))
    lifs = {lif["name"]: lif["node"] for lif in m.data_lifs(model)}
    assert len(lifs) == 48  # three HA pairs for 512 GPUs at 82 MB/s on the A800's 18 GB/s, 8 LIFs a node
    for mount in (0, 1):
        targets = collections.Counter(m.mount_plan(model, host)[mount]["lif"] for host in hosts)
        assert len(targets) == 48 and set(targets.values()) == {1, 2}  # 64 mounts on 48 LIFs, as even as it gets
    per_node = collections.Counter(lifs[mount["lif"]] for host in hosts for mount in m.mount_plan(model, host))
    assert len(per_node) == 6 and max(per_node.values()) - min(per_node.values()) <= 2


def test_switch_plan_for_a_dgx_storage_port(sample):
    plan = network_model.switch_plan(sample, "n3232c-a")
    port = next(p for p in plan["ports"] if p["name"] == "Ethernet1/1")
    assert (port["description"], port["mode"], port["access_vlan"], port["mtu"], port["pfc"], port["speed"]) == (
        "dgx01 enp225s0f0", "access", 3111, 9216, True, "200G")
    ontap_port = next(p for p in plan["ports"] if p["name"] == "Ethernet1/9")
    assert (ontap_port["mode"], ontap_port["trunk_vlans"], ontap_port["pfc"]) == ("trunk", [3111], False)
    channel = next(c for c in plan["port_channels"] if c["id"] == 11)
    assert (channel["description"], channel["trunk_vlans"], channel["members"], channel["vpc"]) == (
        "aipod-a800-01 a0a", [3101], ["Ethernet1/13"], 11)
    assert plan["peer_link"]["trunk_vlans"] == [3101, 3111, 3112]
    assert plan["vpc"]["keepalive_destination"] == "10.61.218.12"


def test_vlan_lists_are_identical_on_both_peers(sample, lab):
    for model, pair in ((sample, ("n3232c-a", "n3232c-b")), (lab, ("lab-sw-a", "lab-sw-b"))):
        a, b = (network_model.switch_plan(model, s) for s in pair)
        assert a["vlans"] == b["vlans"]
        assert [v["name"] for v in a["vlans"]] == ["inband", "storage-a", "storage-b"]


def test_every_switch_port_has_a_description(sample):
    for switch in ("n3232c-a", "n3232c-b"):
        plan = network_model.switch_plan(sample, switch)
        for entry in plan["ports"] + plan["port_channels"] + [plan["peer_link"]]:
            assert entry["description"], entry


def test_sizing_uses_the_platform_table_and_the_port_line_rate(sample):
    figures = m.sizing(sample)
    assert figures["gpus"] == 32 and figures["demand_mb_s"] == 32 * 82
    assert figures["storage_ports"] == 8 and figures["line_rate_mb_s"] == 8 * 12500
    assert figures["platform_limit_mb_s"] == 18000 and figures["supply_mb_s"] == 18000
    assert figures["ratio"] == round(18000 / 2624, 2)


def test_sizing_without_a_known_platform_counts_ports_only(sample):
    model = dict(sample, ontap=dict(sample["ontap"], platform="AFF A1K"))
    figures = m.sizing(model)
    assert figures["platform_limit_mb_s"] is None and figures["supply_mb_s"] == figures["line_rate_mb_s"]


@pytest.mark.parametrize(("written", "per_pair"), [("AFF A90", 46000), ("aff-a90", 46000), ("aff_a90", 46000), ("A90", 46000),
                                                   ("NetApp AFF A800", 18000), ("AFF C190", 4400), ("AFF A220", 6200)])
def test_current_platforms_have_their_published_figure_however_written(sample, written, per_pair):
    figures = m.sizing(dict(sample, ontap=dict(sample["ontap"], platform=written)))
    assert figures["platform"] == m.platform_key(written) and figures["platform_limit_mb_s"] == per_pair  # one HA pair


def test_a_site_figure_overrides_the_table(sample):
    model = dict(sample, ontap=dict(sample["ontap"], platform="AFF A90"),
                 pod=dict(sample["pod"], sizing={"platform_limit_mb_s": 30000}))
    assert m.sizing(model)["platform_limit_mb_s"] == 30000


def test_derivations_survive_a_malformed_model():
    broken = {"hosts": {"x": {"groups": ["dgx"], "dgx": {"storage_nics": [None, 5, {"name": 3}]}}},
              "networks": "nope", "ontap": {"svms": [{"name": "s", "data_lifs": {"per_port": "two"}}], "nodes": [1]}}
    assert m.data_lifs(broken) == []
    assert m.mount_plan(broken, "x") == []
    assert m.sizing(broken)["ratio"] is None
