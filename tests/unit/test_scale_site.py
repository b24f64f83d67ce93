"""scripts/scale_site.py: sites of 128 and 256 DGX that validate, sized and cabled as a real pod would be."""
from __future__ import annotations

import collections
import ipaddress
import shutil
import sys

import pytest
import yaml
from project_paths import LAB, REPO, SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import model as network_model
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import validate_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site

sys.path.insert(0, str(REPO / "scripts"))
from scale_site import ScaleError, scale  # noqa: E402

DECRYPT = make_decryptor(SAMPLE_VAULT_PASSWORD)


@pytest.fixture(scope="module", params=[128, 256])
def grown(request, tmp_path_factory):
    inventory = scale(str(SAMPLE), request.param, str(tmp_path_factory.mktemp("scale") / f"sample-{request.param}"))
    return request.param, inventory, load_site(inventory, decrypt=DECRYPT).model


def test_the_grown_site_validates_with_no_error_or_warning(grown):
    _count, inventory, _model = grown
    report = validate_site(inventory, decrypt=DECRYPT)
    assert report.findings == [], report.text()


def test_the_storage_keeps_up_with_the_gpus(grown):
    count, _inventory, model = grown
    sizing = m.sizing(model)
    assert sizing["gpus"] == 8 * count and sizing["ratio"] >= 1
    # the fewest A800 HA pairs that meet 82 MB/s per GPU at 18 GB/s each
    assert sizing["ha_pairs"] == -(-sizing["demand_mb_s"] // 18000)


def test_every_node_serves_dgx_and_no_lif_carries_much_more_than_its_share(grown):
    _count, _inventory, model = grown
    lifs = {lif["name"]: lif["node"] for lif in m.data_lifs(model)}
    hosts = list(m.hosts_of_kind(model, "dgx"))
    per_lif = collections.Counter(mount["lif"] for host in hosts for mount in m.mount_plan(model, host))
    per_node = collections.Counter(lifs[lif] for lif in per_lif.elements())
    assert set(per_node) == {node["name"] for node in m.ontap_nodes(model)}
    assert max(per_node.values()) - min(per_node.values()) <= 2
    # the acceptance test's bound: no LIF above 1.5 times its share
    assert max(per_lif.values()) <= 1.5 * sum(per_lif.values()) / len(lifs)
    for host in hosts:  # each DGX's mounts go to different nodes
        nodes = [lifs[mount["lif"]] for mount in m.mount_plan(model, host)]
        assert len(set(nodes)) == len(nodes)


def test_leaf_pairs_hang_off_a_spine_and_fill_the_switch_model(grown):
    count, _inventory, model = grown
    switches = m.hosts_of_kind(model, "switch")
    graph = network_model.pair_links(model)
    spine = [pair for pair in graph if "spine" in pair[0]]
    assert len(spine) == 1 and len(graph[spine[0]]) == len(graph) - 1
    leaves = [pair for pair in graph if pair != spine[0]]
    # a 3232C has 32 ports: 2 for the peer link and 2 for the uplink leave 28, each DGX takes 2
    assert len(leaves) >= -(-count * 2 // 28)
    used = [len(body["ports"]) + sum(len(c["members"]) for c in body["port_channels"]) + 2 for body in switches.values()]
    assert max(used) <= 32
    domains = {switches[pair[0]]["vpc"]["domain"] for pair in graph}
    assert len(domains) == len(graph)


def test_networks_grow_and_move_with_every_address(grown):
    count, _inventory, model = grown
    subnets = {n["name"]: ipaddress.IPv4Network(n["subnet"]) for n in model["networks"]}
    assert all(not a.overlaps(b) for a in subnets.values() for b in subnets.values() if a is not b)
    if count == 256:
        assert subnets["oob-mgmt"].prefixlen == 23 and subnets["storage-a"].prefixlen == 23
    for lif in m.data_lifs(model):
        assert ipaddress.IPv4Address(lif["address"]) in subnets[lif["network"]]


def test_the_lab_grows_on_its_own_loopback_switches_with_a_fixed_ha_pair(tmp_path):
    inventory = scale(str(LAB), 64, str(tmp_path / "lab-64"), ha_pairs=1)
    model = load_site(inventory).model
    switches = m.hosts_of_kind(model, "switch")
    assert all(body["mgmt_address"].startswith("127.0.20.") for body in switches.values())
    assert len({body["mgmt_address"] for body in switches.values()}) == len(switches) > 2
    assert len(m.ontap_nodes(model)) == 2
    # The lab's CA file is written when its ONTAP endpoint first starts: not there on a fresh clone.
    report = validate_site(inventory, check_files=False)
    assert report.errors == [], report.text()


def test_a_switch_model_without_a_port_map_is_refused(tmp_path):
    base = tmp_path / "base"
    scale(str(SAMPLE), 4, str(base))
    for name in ("n3232c-a", "n3232c-b"):
        path = base / "host_vars" / f"{name}.yml"
        path.write_text(path.read_text().replace("N3K-C3232C", "Some Future Switch"))
    with pytest.raises(ScaleError, match="no port map for switch model 'Some Future Switch'"):
        scale(str(base), 64, str(tmp_path / "out"))


LARGE_COMMAND = ["32", "--switch-model", "N9K-C9364C", "--switch-names", "leaf", "--pod-name", "aipod-large",
                 "--description", "Sample larger pod: 32 DGX A100 on two Nexus 9364C leaf pairs, two AFF A800 HA pairs"]


def test_the_larger_sample_is_what_the_generator_writes(tmp_path, monkeypatch):
    """inventories/sample-large is regenerated with the command in docs/sample-large.md."""
    from scale_site import main

    monkeypatch.chdir(REPO)  # the files name their base as the command gave it
    large = REPO / "inventories" / "sample-large"
    assert main(["inventories/sample", LARGE_COMMAND[0], str(tmp_path / "sample-large"), *LARGE_COMMAND[1:]]) == 0
    written = sorted(p.relative_to(tmp_path / "sample-large") for p in (tmp_path / "sample-large").rglob("*") if p.is_file())
    committed = sorted(p.relative_to(large) for p in large.rglob("*") if p.is_file())
    assert written == committed
    for name in written:
        assert (large / name).read_bytes() == (tmp_path / "sample-large" / name).read_bytes(), f"inventories/sample-large/{name} is stale"


def test_the_larger_sample_validates_as_its_doc_says():
    inventory = str(REPO / "inventories" / "sample-large")
    report = validate_site(inventory, decrypt=DECRYPT)
    assert report.findings == [], report.text()
    model = load_site(inventory, decrypt=DECRYPT).model
    sizing = m.sizing(model)
    assert (sizing["gpus"], sizing["ha_pairs"], sizing["ratio"]) == (256, 2, 1.71)
    graph = network_model.pair_links(model)
    assert sorted(graph) == [("leaf-1a", "leaf-1b"), ("leaf-2a", "leaf-2b")]
    dgx_per_leaf = collections.Counter(
        network_model.switch_pair(model, switch)[0] for switch, body in m.hosts_of_kind(model, "switch").items()
        for port in body["ports"] if port["connects_to"].get("host", "").startswith("dgx"))
    assert dgx_per_leaf == {"leaf-1a": 32, "leaf-2a": 32}  # 16 DGX a pair, one storage port on each switch


def test_a_grown_site_grows_again(tmp_path):
    """From a base that already has several pairs (sample-large), then from one with three-digit DGX
    names: no pair or DGX is left behind, and the pairs keep their names."""
    first = scale(str(REPO / "inventories" / "sample-large"), 100, str(tmp_path / "large-100"))
    again = scale(first, 104, str(tmp_path / "large-104"))
    report = validate_site(again, decrypt=DECRYPT)
    assert report.errors == [], report.text()
    model = load_site(again, decrypt=DECRYPT).model
    assert len(m.hosts_of_kind(model, "dgx")) == 104 and "dgx001" in m.hosts_of_kind(model, "dgx")
    switches = sorted(m.hosts_of_kind(model, "switch"))
    assert switches[:4] == ["leaf-1a", "leaf-1b", "leaf-2a", "leaf-2b"] and all(s.startswith("leaf-") for s in switches)


@pytest.mark.parametrize("pairs", [0, 13])
def test_ha_pairs_outside_what_ontap_takes_are_refused(tmp_path, pairs):
    with pytest.raises(ScaleError, match=f"--ha-pairs {pairs}: between the base's 1 and 12"):
        scale(str(SAMPLE), 8, str(tmp_path / "out"), ha_pairs=pairs)


def test_a_pod_of_storage_bonds_grows_with_an_address_each_and_primaries_spread(tmp_path):
    base = tmp_path / "lab-bonded"
    shutil.copytree(LAB, base, symlinks=True)
    for host in ("dgx01", "dgx02", "dgx03", "dgx04"):
        path = base / "host_vars" / f"{host}.yml"
        data = yaml.safe_load(path.read_text())
        address = data["dgx"].pop("storage_nics")[0]["address"]
        data["dgx"]["storage_bonds"] = [{"name": "bond1", "members": ["eth1", "eth2"], "primary": "eth1",
                                         "network": "storage-a", "address": address}]
        path.write_text("---\n" + yaml.safe_dump(data, sort_keys=False))
    grown = scale(str(base), 8, str(tmp_path / "lab-bonded-8"), ha_pairs=1)
    report = validate_site(grown, check_files=False)
    assert report.ok, [str(finding) for finding in report.errors]
    dgx = m.hosts_of_kind(load_site(grown).model, "dgx")
    bonds = [dgx[f"dgx{index:02d}"]["storage_bonds"][0] for index in range(1, 9)]
    assert len({bond["address"] for bond in bonds}) == 8
    assert [bond["primary"] for bond in bonds] == ["eth1", "eth2"] * 4
