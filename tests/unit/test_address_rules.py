"""Every address the model holds is checked alike: inside its network, not the network's network or
broadcast address, not a gateway or a route's next hop, and not used twice anywhere in the pod.

Management addresses name no network; theirs is the declared mgmt (else inband) network whose
subnet holds them. Each case mutates one address of the sample in memory and expects an error at
that address, or, for an address used twice, an error that names it.
"""
from __future__ import annotations

import copy
import dataclasses

import pytest
from project_paths import SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import check_model

SITE = load_site(str(SAMPLE), decrypt=make_decryptor(SAMPLE_VAULT_PASSWORD))
OOB = {"network": "10.61.218.0", "broadcast": "10.61.218.255", "gateway": "10.61.218.1", "taken": ["10.61.218.101", "10.61.218.20"]}
INBAND = {"network": "10.61.219.0", "broadcast": "10.61.219.255", "gateway": "10.61.219.1", "taken": ["10.61.219.101", "10.61.219.20"]}
STORAGE_A = {"network": "100.127.111.0", "broadcast": "100.127.111.255", "taken": ["100.127.111.12", "100.127.111.11"]}
ADDRESSES = {
    ("ontap", "mgmt_address"): OOB,
    ("ontap", "nodes", 1, "mgmt_address"): OOB,
    ("ontap", "svms", 0, "mgmt_lif", "address"): INBAND,
    ("hosts", "n3232c-a", "switch", "mgmt_address"): OOB,
    ("hosts", "dgx01", "dgx", "mgmt_address"): OOB,
    ("hosts", "dgx01", "dgx", "inband", "address"): INBAND,
    ("hosts", "dgx01", "dgx", "storage_nics", 0, "address"): STORAGE_A,
    ("hosts", "k8s-cp01", "server", "mgmt_address"): OOB,
    ("hosts", "k8s-cp01", "server", "inband", "address"): INBAND,
}


def get_path(model: dict, path: tuple):
    for key in path:
        model = model[key]
    return model


def set_path(model: dict, path: tuple, value) -> None:
    get_path(model, path[:-1])[path[-1]] = value


CASES = [(path, kind, value) for path, network in ADDRESSES.items() for kind, value in network.items() if kind != "taken"]
# Used twice: another interface's address on the same network.
CASES += [(path, "taken", next(a for a in network["taken"] if a != get_path(SITE.model, path))) for path, network in ADDRESSES.items()]


def errors_after(path: tuple, value: str):
    model = copy.deepcopy(SITE.model)
    set_path(model, path, value)
    site = dataclasses.replace(SITE, model=model, findings=[])
    return [f for f in check_model(site, check_files=False) if f.severity == "error"]


def test_the_sample_holds_the_addresses_of_the_cases():
    for path in ADDRESSES:
        assert isinstance(get_path(SITE.model, path), str), path


@pytest.mark.parametrize(("path", "kind", "value"), CASES, ids=[f"{'.'.join(map(str, p[1:]))}-{k}" for p, k, _v in CASES])
def test_every_address_is_refused_on_a_reserved_or_taken_address(path, kind, value):
    errors = errors_after(path, value)
    located = str(SITE.locate(path))
    hits = [f for f in errors if f.path == path or located in f.message]
    assert hits, f"{path} = {value} ({kind}) accepted; errors: {[str(f) for f in errors]}"
    for finding in hits:
        assert finding.rule in ("address-in-subnet", "duplicate-address"), finding
        assert finding.location.line is not None and finding.hint, finding


def test_the_first_data_lif_address_is_refused_on_the_broadcast_and_network_addresses():
    path = ("ontap", "svms", 0, "data_lifs", "first_address", "storage-a")
    for value in ("100.127.111.0", "100.127.111.255"):
        assert any(f.path == path and f.rule == "address-in-subnet" for f in errors_after(path, value)), value


def test_a_host_address_that_is_another_networks_route_next_hop_is_refused():
    model = copy.deepcopy(SITE.model)
    model["networks"][2]["routes"] = [{"to": "10.200.0.0/16", "via": "100.127.111.11", "metric": 20}]
    errors = check_model(dataclasses.replace(SITE, model=model, findings=[]), check_files=False)
    assert any(f.rule == "duplicate-address" and f.path == ("hosts", "dgx01", "dgx", "storage_nics", 0, "address")
               and "next hop of a route of network 'storage-a'" in f.message for f in errors), [str(f) for f in errors]


@pytest.mark.parametrize("via", ["100.127.111.0", "100.127.111.255"])
def test_a_route_next_hop_is_not_its_networks_network_or_broadcast_address(via):
    model = copy.deepcopy(SITE.model)
    model["networks"][2]["routes"] = [{"to": "10.200.0.0/16", "via": via, "metric": 20}]
    errors = check_model(dataclasses.replace(SITE, model=model, findings=[]), check_files=False)
    assert any(f.rule == "route" and f.path == ("networks", 2, "routes", 0, "via") for f in errors), [str(f) for f in errors]
