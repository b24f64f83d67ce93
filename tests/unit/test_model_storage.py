"""Storage derivations of the site model: sizes, export policies with resolved clients, FlexGroups."""
from __future__ import annotations

import copy
import pathlib

import pytest

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as site_model
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site

REPO = pathlib.Path(__file__).resolve().parents[2]
SAMPLE = REPO / "inventories" / "sample"
LAB = REPO / "inventories" / "lab"


@pytest.fixture(scope="module")
def sample():
    return load_site(str(SAMPLE)).model


@pytest.mark.parametrize("text, expected", [("10TB", 10 * 1024 ** 4), ("1.5GB", int(1.5 * 1024 ** 3)), ("100MB", 100 * 1024 ** 2),
                                            ("10 TB", None), ("10T", None), (10, None), (None, None)])
def test_size_bytes_uses_ontaps_binary_units(text, expected):
    assert site_model.size_bytes(text) == expected


def test_export_policies_resolve_network_names_to_subnets(sample):
    policies = site_model.export_policies(sample)
    assert policies == [{"svm": "aipod-data", "name": "k8s-nodes", "root": True, "rules": [
        {"index": 1, "clients": ["100.127.111.0/24", "100.127.112.0/24"], "ro": ["sys"], "rw": ["sys"],
         "superuser": ["sys"], "protocols": ["nfs3", "nfs4"]}]}]


def test_export_clients_normalise_cidrs_and_skip_nonsense(sample):
    assert site_model.export_clients(sample, ["100.127.111.7/24", "storage-b", "storage-b", "bogus", 5]) == \
        ["100.127.111.0/24", "100.127.112.0/24"]
    assert site_model.export_clients(sample, ["100.127.111.9"]) == ["100.127.111.9/32"]


def test_rules_are_numbered_in_model_order_and_defaults_left_to_roles(sample):
    model = copy.deepcopy(sample)
    model["ontap"]["svms"][0]["export_policies"][0]["rules"].append({"clients": ["oob-mgmt"]})
    rules = site_model.export_policies(model)[0]["rules"]
    assert [rule["index"] for rule in rules] == [1, 2]
    assert rules[1] == {"index": 2, "clients": ["10.61.218.0/24"], "ro": None, "rw": None, "superuser": None, "protocols": None}


def test_flexgroups_take_the_svm_aggregates_and_count_constituents(sample):
    data, home = site_model.flexgroups(sample)
    assert data["aggregates"] == ["aipod_a800_01_nvme_ssd_1", "aipod_a800_02_nvme_ssd_1"]
    assert data["constituents"] == 16 and data["size_bytes"] == 100 * 1024 ** 4
    assert home["junction_path"] == "/home_vol" and home["snapshot_policy"] == "default"
    assert data["thin_provisioning"] is None and data["efficiency"] is None


def test_flexgroup_aggregates_given_explicitly_win(sample):
    model = copy.deepcopy(sample)
    model["ontap"]["svms"][0]["flexgroups"][0]["aggregates"] = ["aipod_a800_01_nvme_ssd_1"]
    model["ontap"]["svms"][0]["flexgroups"][0]["thin_provisioning"] = False
    data = site_model.flexgroups(model)[0]
    assert data["aggregates"] == ["aipod_a800_01_nvme_ssd_1"] and data["constituents"] == 8
    assert data["thin_provisioning"] is False


def test_derivations_tolerate_a_broken_model():
    broken = {"hosts": {}, "ontap": {"svms": [{"name": "x", "export_policies": ["nope", {"name": "p", "rules": "x"}],
                                                "flexgroups": [{"size": 3}, {"name": "f", "constituents_per_aggregate": "2"}]}]}}
    assert site_model.export_policies(broken) == [{"svm": "x", "name": "p", "root": False, "rules": []}]
    assert site_model.flexgroups(broken)[0]["constituents"] is None


def test_lab_inventory_names_the_lab_ca():
    assert load_site(str(LAB)).model["ontap"]["ca_file"] == "../../.lab/ontap/pki/ca.pem"
