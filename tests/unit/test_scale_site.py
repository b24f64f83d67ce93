"""scripts/scale_site.py: sites of 128 and 256 DGX that validate, sized and cabled as a real pod would be."""
from __future__ import annotations

import collections
import ipaddress
import pathlib
import re
import shlex
import shutil
import sys

import pytest
import yaml
from project_paths import LAB, REPO, SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import model as network_model
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site

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


def test_a_mig_layout_follows_its_dgx(grown):
    count, _inventory, model = grown
    # The sample cuts its fourth DGX into MIG slices; the grown site's fourth DGX keeps that layout.
    assert model["gpu"]["mig"]["layouts"] == {f"dgx{4:0{len(str(count))}d}": "all-1g.5gb"}


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


LARGE_COMMAND = ["inventories/sample-aipod", "32", "inventories/sample-large",
                 "--overlay", "scripts/overlays/nva-1175.yml", "--ha-pairs", "4",
                 "--dgx-model", "DGX B200", "--gpu-model", "NVIDIA B200",
                 "--switch-model", "SN5600", "--switch-names", "sn5600", "--breakout", "4",
                 "--storage-leaf", "--spine", "--uplink-members", "4", "--pod-name", "aipod-superpod",
                 "--description", "Sample DGX SuperPOD scalable unit (NVA-1175): 32 DGX B200, four AFF A90 HA pairs, "
                                  "Spectrum SN5600 leaf and spine pairs on Cumulus"]
# inventories/sample-large before NVA-1175: the sample grown on Nexus 9364C leaves. Its switch
# configuration stays under test (tests/network/test_switch_configs_large.py, test_switch_cabling.py).
NXOS_LARGE_COMMAND = ["inventories/sample", "32", "sample-large-nxos", "--switch-model", "N9K-C9364C", "--switch-names", "leaf",
                      "--pod-name", "aipod-large",
                      "--description", "Sample larger pod: 32 DGX A100 on two Nexus 9364C leaf pairs, two AFF A800 HA pairs"]


def test_the_command_in_the_doc_is_the_one_tested():
    text = (REPO / "docs" / "sample-large.md").read_text()
    command = text[text.index("scripts/scale_site.py inventories/sample-aipod"):]
    command = command[:command.index("```")].replace("\\\n", " ")
    assert shlex.split(command) == ["scripts/scale_site.py", *LARGE_COMMAND]


def test_the_larger_sample_is_what_the_generator_writes(tmp_path, monkeypatch):
    """inventories/sample-large is regenerated with the command in docs/sample-large.md."""
    from scale_site import main

    monkeypatch.chdir(REPO)  # the files name their base and overlay as the command gave them
    large = REPO / "inventories" / "sample-large"
    assert main([LARGE_COMMAND[0], LARGE_COMMAND[1], str(tmp_path / "sample-large"), *LARGE_COMMAND[3:]]) == 0
    written = sorted(p.relative_to(tmp_path / "sample-large") for p in (tmp_path / "sample-large").rglob("*") if p.is_file())
    committed = sorted(p.relative_to(large) for p in large.rglob("*") if p.is_file())
    assert written == committed
    for name in written:
        assert (large / name).read_bytes() == (tmp_path / "sample-large" / name).read_bytes(), f"inventories/sample-large/{name} is stale"


@pytest.fixture(scope="module")
def large():
    inventory = str(REPO / "inventories" / "sample-large")
    return inventory, load_site(inventory, decrypt=DECRYPT).model


def test_the_larger_sample_validates_as_its_doc_says(large):
    inventory, model = large
    report = validate_site(inventory, decrypt=DECRYPT)
    assert report.findings == [], report.text()
    sizing = m.sizing(model)
    # 125 GB/s for 256 GPUs (the design's "enhanced" read), on the design's four A90 HA pairs: by the
    # sizing alone three would do (--ha-pairs 4 in the command)
    assert (sizing["gpus"], sizing["ha_pairs"], sizing["ratio"]) == (256, 4, 1.47)
    assert sizing["demand_mb_s"] >= 125000 and -(-sizing["demand_mb_s"] // 46000) == 3
    dgx = m.hosts_of_kind(model, "dgx")
    assert {(body["model"], body["gpus"]["count"], body["gpus"]["model"]) for body in dgx.values()} == {("DGX B200", 8, "NVIDIA B200")}
    # the storage bonds of sample-aipod, primaries alternating over the DGX leaf pair
    bonds = [dgx[f"dgx{index:02d}"]["storage_bonds"][0] for index in range(1, 33)]
    assert [bond["primary"] for bond in bonds] == ["enp170s0f0np0", "enp41s0f0np0"] * 16


def test_the_larger_sample_is_a_scalable_unit_on_storage_and_dgx_leaves_and_a_spine(large):
    _inventory, model = large
    graph = network_model.pair_links(model)
    spine, dgx_leaf, storage_leaf = ("sn5600-spine-a", "sn5600-spine-b"), ("sn5600-1a", "sn5600-1b"), ("sn5600-2a", "sn5600-2b")
    assert graph == {dgx_leaf: {spine}, storage_leaf: {spine}, spine: {dgx_leaf, storage_leaf}}
    switches = m.hosts_of_kind(model, "switch")
    assert {(body["platform"], body["model"]) for body in switches.values()} == {("cumulus", "SN5600")}
    ends = collections.defaultdict(collections.Counter)
    for switch, body in switches.items():
        pair = network_model.switch_pair(model, switch)[0]
        for port in body["ports"]:
            ends[pair]["dgx" if port["connects_to"].get("host", "").startswith("dgx") else
                       "ontap" if "ontap_node" in port["connects_to"] else "server"] += 1
    # one storage port of each DGX on each DGX leaf; e6a, e11a (first) and e6b, e11b of the 8 A90 controllers
    assert ends == {"sn5600-1a": {"dgx": 64, "server": 3}, "sn5600-2a": {"ontap": 32}}
    nodes = m.ontap_nodes(model)
    assert [node["name"] for node in nodes] == [f"aff-a90-{index:02d}" for index in range(1, 9)]


def test_dgx_and_a90_ports_are_4x200g_breakouts_and_the_fabric_whole_800g_ports(large):
    _inventory, model = large
    for switch, body in m.hosts_of_kind(model, "switch").items():
        hosts = [p["name"] for p in body["ports"] if "switch" not in p["connects_to"] and not p["connects_to"].get("host", "").startswith("k8s")]
        hosts += [member for c in body["port_channels"] if "switch" not in c["connects_to"] for member in c["members"]]
        fabric = body["vpc"]["peer_link"]["members"] + [member for c in body["port_channels"] if "switch" in c["connects_to"]
                                                        for member in c["members"]]
        assert all(re.fullmatch(r"swp([1-9]|1[0-6])s[0-3]", port) for port in hosts), switch
        assert all(re.fullmatch(r"swp\d+", port) for port in fabric), switch
        # a port broken out is not used whole as well, and each is broken out in four
        wholes = {re.sub(r"s\d+$", "", port) for port in hosts}
        assert not wholes & set(fabric) and all(sum(p.startswith(f"{w}s") for p in hosts) == 4 for w in wholes), switch
        uplinks = [c for c in body["port_channels"] if "switch" in c["connects_to"]]
        assert all(len(c["members"]) == 4 for c in uplinks), switch  # 2 x 800G to each spine switch
    # NVA-1175's storage cabling: the four lanes of a port lead to four controllers
    storage = m.hosts_of_kind(model, "switch")["sn5600-2a"]["ports"]
    assert [p["connects_to"]["ontap_node"] for p in storage if p["name"].startswith("swp1s")] == [f"aff-a90-0{i}" for i in range(1, 5)]
    assert {p["connects_to"]["port"] for p in storage if p["name"].startswith(("swp1s", "swp2s"))} == {"e6a"}


def test_the_larger_sample_has_nva_1175s_data_svm(large):
    _inventory, model = large
    ontap = model["ontap"]
    assert ontap["version"] == "9.16.1"
    data = next(svm for svm in ontap["svms"] if svm["name"] == "spod_data")
    assert data["qos_policies"] == [{"name": "spod_qos", "min_throughput_mbps": 62000, "shared": True}]
    [flexgroup] = data["flexgroups"]
    assert (flexgroup["size"], flexgroup["constituents_per_aggregate"], flexgroup["efficiency"], flexgroup["qos_policy"],
            flexgroup["granular_data"]) == ("100TB", 16, False, "spod_qos", True)
    assert len(data["aggregates"]) == 8
    lifs = [lif for lif in m.data_lifs(model) if lif["svm"] == "spod_data"]
    assert len(lifs) == 8 * 4 * 2  # two on each of the four 200G data ports of the eight controllers
    assert all(lif["rdma"] for lif in lifs) and {lif["network"] for lif in lifs} == {"storage"}
    mgmt = [lif for lif in m.data_lifs(model) if lif["svm"] == "spod_mgmt"]
    assert sorted(lif["name"] for lif in mgmt) == [f"inband_lif{index}" for index in range(1, 9)]
    mounts = collections.Counter((mount["path"], mount["svm"], mount["network"], mount["lif_node"])
                                 for host in m.hosts_of_kind(model, "dgx") for mount in m.mount_plan(model, host))
    # every DGX mounts the data FlexGroup over the storage network and /home over the in-band one, 4 DGX per controller
    assert mounts == {**{("/mnt/superpod", "spod_data", "storage", f"aff-a90-{index:02d}"): 4 for index in range(1, 9)},
                      **{("/home", "spod_mgmt", "inband", f"aff-a90-{index:02d}"): 4 for index in range(1, 9)}}


def test_eight_scalable_units_validate(tmp_path):
    """1,024 DGX: 32 leaf pairs on one spine pair, whose port-channels to them skip its peer link's number."""
    inventory = scale(str(REPO / "inventories" / "sample-large"), 1024, str(tmp_path / "large-1024"))
    report = validate_site(inventory, decrypt=DECRYPT)
    assert not report.errors, report.text()
    spine = yaml.safe_load((pathlib.Path(inventory) / "host_vars" / "sn5600-spine-a.yml").read_text())["switch"]
    channels = [pc["id"] for pc in spine["port_channels"]]
    assert len(channels) == len(set(channels)) and spine["vpc"]["peer_link"]["port_channel"] not in channels


def test_a_grown_site_grows_again(tmp_path):
    """From a base that already has several pairs (sample-large: a DGX leaf, a storage leaf and a spine
    on 4x breakouts), then from one with three-digit DGX names: no pair or DGX is left behind, the
    pairs keep their names and the base's layout stays."""
    first = scale(str(REPO / "inventories" / "sample-large"), 100, str(tmp_path / "large-100"))
    again = scale(first, 104, str(tmp_path / "large-104"))
    report = validate_site(again, decrypt=DECRYPT)
    assert report.errors == [], report.text()
    model = load_site(again, decrypt=DECRYPT).model
    assert len(m.hosts_of_kind(model, "dgx")) == 104 and "dgx001" in m.hosts_of_kind(model, "dgx")
    switches = m.hosts_of_kind(model, "switch")
    assert sorted(switches)[:2] == ["sn5600-1a", "sn5600-1b"] and {"sn5600-spine-a", "sn5600-spine-b"} <= set(switches)
    for body in switches.values():
        ontap = [p for p in body["ports"] if "ontap_node" in p["connects_to"]]
        dgx = [p for p in body["ports"] if p["connects_to"].get("host", "").startswith("dgx")]
        assert not (ontap and dgx)  # storage leaves stay apart
        assert all(re.fullmatch(r"swp\d+s[0-3]", p["name"]) for p in ontap + dgx)
        assert all(len(c["members"]) == 4 for c in body["port_channels"] if "switch" in c["connects_to"])


def test_the_nxos_variant_of_the_larger_sample_still_validates(tmp_path, monkeypatch):
    """The sample grown on Nexus 9364C (the former sample-large), whose configuration the switch tests keep."""
    from scale_site import main

    monkeypatch.chdir(tmp_path)
    assert main([str(SAMPLE), *NXOS_LARGE_COMMAND[1:]]) == 0
    report = validate_site(str(tmp_path / "sample-large-nxos"), decrypt=DECRYPT)
    assert report.findings == [], report.text()
    model = load_site(str(tmp_path / "sample-large-nxos"), decrypt=DECRYPT).model
    sizing = m.sizing(model)
    assert (sizing["gpus"], sizing["ha_pairs"], sizing["ratio"]) == (256, 2, 1.71)
    graph = network_model.pair_links(model)
    assert sorted(graph) == [("leaf-1a", "leaf-1b"), ("leaf-2a", "leaf-2b")]
    dgx_per_leaf = collections.Counter(
        network_model.switch_pair(model, switch)[0] for switch, body in m.hosts_of_kind(model, "switch").items()
        for port in body["ports"] if port["connects_to"].get("host", "").startswith("dgx"))
    assert dgx_per_leaf == {"leaf-1a": 32, "leaf-2a": 32}  # 16 DGX a pair, one storage port on each switch


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


# ------------------------------------------------------------------------------ options
SAMPLE_AIPOD = REPO / "inventories" / "sample-aipod"


def test_explicit_data_lifs_follow_the_nodes_they_are_copied_from(tmp_path):
    """sample-aipod's management SVM has explicit LIFs on both nodes; the model wants one on every node."""
    grown = scale(str(SAMPLE_AIPOD), 8, str(tmp_path / "aipod-8"), ha_pairs=3)
    report = validate_site(grown, decrypt=DECRYPT)
    assert report.errors == [], report.text()
    model = load_site(grown, decrypt=DECRYPT).model
    mgmt = next(svm for svm in model["ontap"]["svms"] if svm["name"] == "basepod-mgmt")["data_lifs"]["explicit"]
    assert [(lif["name"], lif["node"], lif["address"]) for lif in mgmt] == [
        (f"vlan31-{index:02d}", f"aff-a90-{index:02d}", f"192.168.31.{20 + index}") for index in range(1, 7)]


def test_an_overlay_merges_mappings_replaces_lists_and_moves_a_networks_addresses(tmp_path):
    overlay = tmp_path / "overlay.yml"
    overlay.write_text(yaml.safe_dump({
        "group_vars/all/pod.yml": {"pod": {"sizing": {"gpu_ingest_mb_s": 200}, "security": None}},
        "group_vars/all/networks.yml": {"networks": [
            {"name": "oob-mgmt", "purpose": "mgmt", "subnet": "192.168.30.0/24", "gateway": "192.168.30.1", "mtu": 1500},
            {"name": "inband", "purpose": "inband", "vlan": 31, "subnet": "192.168.31.0/24", "gateway": "192.168.31.1", "mtu": 9000},
            {"name": "storage", "purpose": "storage", "vlan": 401, "subnet": "100.127.124.0/24", "mtu": 9000}]},
        "group_vars/all/ontap.yml": {"ontap": {"version": "9.16.1"}},
        "group_vars/dgx.yml": {"dgx_node_ring_size": 4096},
    }))
    grown = scale(str(SAMPLE_AIPOD), 4, str(tmp_path / "aipod-4"), overlay=str(overlay))
    report = validate_site(grown, decrypt=DECRYPT)
    assert report.errors == [], report.text()
    model = load_site(grown, decrypt=DECRYPT).model
    assert model["pod"]["sizing"] == {"gpu_ingest_mb_s": 200} and "security" not in model["pod"]
    assert model["pod"]["name"] == "aipod-h100"  # merged, not replaced
    assert model["ontap"]["version"] == "9.16.1" and model["ontap"]["cluster_name"] == "aipod-a90"
    # the base's storage addresses moved to the new subnet at their offsets: the DGX bonds and the LIFs
    bonds = [m.hosts_of_kind(model, "dgx")[f"dgx0{index}"]["storage_bonds"][0]["address"] for index in range(1, 5)]
    assert bonds == [f"100.127.124.{10 + index}" for index in range(1, 5)]
    assert {lif["address"] for lif in m.data_lifs(model) if lif["network"] == "storage"} == {f"100.127.124.{a}" for a in range(101, 117)}
    assert yaml.safe_load((pathlib.Path(grown) / "group_vars" / "dgx.yml").read_text())["dgx_node_ring_size"] == 4096


@pytest.mark.parametrize(("content", "message"), [
    ({"../outside.yml": {"a": 1}}, "is not a group_vars/ or host_vars/ YAML file"),
    ({"group_vars/all/pod.yml": ["not", "a", "mapping"]}, "is not a group_vars/ or host_vars/ YAML file"),
    ({"group_vars/all/vault.yml": {"vault_x": "y"}}, "is encrypted with ansible-vault"),
])
def test_an_overlay_outside_the_model_files_is_refused(tmp_path, content, message):
    overlay = tmp_path / "overlay.yml"
    overlay.write_text(yaml.safe_dump(content))
    with pytest.raises(ScaleError, match=message):
        scale(str(SAMPLE_AIPOD), 4, str(tmp_path / "out"), overlay=str(overlay))


def test_another_dgx_model_needs_its_gpu_model(tmp_path):
    with pytest.raises(ScaleError, match="a DGX B200 has B200 GPUs, but gpus.model is 'NVIDIA H100 80GB HBM3'"):
        scale(str(SAMPLE_AIPOD), 4, str(tmp_path / "out"), dgx_model="DGX B200")
    grown = scale(str(SAMPLE), 4, str(tmp_path / "dgx2"), dgx_model="DGX-2", gpu_model="Tesla V100-SXM3-32GB")
    dgx = load_site(grown, decrypt=DECRYPT).model
    assert {(d["model"], d["gpus"]["count"]) for d in m.hosts_of_kind(dgx, "dgx").values()} == {("DGX-2", 16)}


def test_breakout_ports_on_nxos_are_numbered_from_one_and_bounded_by_the_port_map(tmp_path):
    with pytest.raises(ScaleError, match="--breakout 8: a Nexus 3232C port breaks out into at most 4 ports"):
        scale(str(SAMPLE), 4, str(tmp_path / "out"), breakout=8)
    grown = scale(str(SAMPLE), 40, str(tmp_path / "broken-out"), breakout=4)
    report = validate_site(grown, decrypt=DECRYPT)
    assert report.findings == [], report.text()
    model = load_site(grown, decrypt=DECRYPT).model
    switches = m.hosts_of_kind(model, "switch")
    assert len(switches) == 2  # 40 DGX and 3 HA pairs on one pair of 32-port switches, 4 lanes a port
    names = [p["name"] for body in switches.values() for p in body["ports"] if "ontap_node" in p["connects_to"] or
             p["connects_to"].get("host", "").startswith("dgx")]
    assert all(re.fullmatch(r"Ethernet1/\d+/[1-4]", name) for name in names) and "Ethernet1/1/1" in names


def test_storage_leaves_and_a_spine_on_nxos(tmp_path):
    grown = scale(str(SAMPLE), 8, str(tmp_path / "su"), storage_leaf=True, spine=True, uplink_members=1)
    report = validate_site(grown, decrypt=DECRYPT)
    assert report.findings == [], report.text()
    model = load_site(grown, decrypt=DECRYPT).model
    graph = network_model.pair_links(model)
    assert graph[("n3232c-spine-a", "n3232c-spine-b")] == {("n3232c-a", "n3232c-b"), ("n3232c-2a", "n3232c-2b")}
    switches = m.hosts_of_kind(model, "switch")
    assert not any("ontap_node" in entry["connects_to"] for name in ("n3232c-a", "n3232c-b")
                   for entry in switches[name]["ports"] + switches[name]["port_channels"])
    assert all("host" not in p["connects_to"] for p in switches["n3232c-2a"]["ports"])
    assert all(len(c["members"]) == 1 for body in switches.values() for c in body["port_channels"] if "switch" in c["connects_to"])
