"""Every interface the compute layer configures on a DGX has a name Linux takes (at most 15 bytes, no
'/', ':' or white space, not 'lo'), VLAN devices <parent>.<vlan> included, and no two share one."""
from __future__ import annotations

import pytest

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import validate_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.rules.hosts import linux_name_problem

NICS = ("    - {name: enp225s0f0, network: storage-a, address: 100.127.111.11, speed: 200G}\n"
        "    - {name: enp225s0f1, network: storage-b, address: 100.127.112.11, speed: 200G}\n")


def linux_findings(sample_copy, decrypt, nics: str) -> list:
    path = sample_copy / "host_vars" / "dgx01.yml"
    text = path.read_text()
    assert NICS in text
    path.write_text(text.replace(NICS, nics))
    return [f for f in validate_site(str(sample_copy), decrypt=decrypt).errors if f.rule == "linux-name"]


@pytest.mark.parametrize(("nics", "where", "problem"), [
    ("    - {name: 'enp225s0f0:1', network: storage-a, address: 100.127.111.11, speed: 200G}\n"
     "    - {name: enp225s0f1, network: storage-b, address: 100.127.112.11, speed: 200G}\n",
     ("storage_nics", 0, "name"), "holds '/', ':' or white space"),
    ("    - {name: lo, network: storage-a, address: 100.127.111.11, speed: 200G}\n"
     "    - {name: enp225s0f1, network: storage-b, address: 100.127.112.11, speed: 200G}\n",
     ("storage_nics", 0, "name"), "is the loopback's name"),
    ("    - {name: enp225s0f0np0, network: storage-a, address: 100.127.111.11, speed: 200G, tagged: true}\n"
     "    - {name: enp225s0f1, network: storage-b, address: 100.127.112.11, speed: 200G}\n",
     ("storage_nics", 0, "name"), "VLAN device 'enp225s0f0np0.3111' of dgx01 is 18 bytes long"),
    ("    - {name: enp225s0f0, network: storage-a, address: 100.127.111.11, speed: 200G, tagged: true}\n"
     "    - {name: enp225s0f0.3111, network: storage-b, address: 100.127.112.11, speed: 200G}\n",
     ("storage_nics", 0, "name"), "has the name of its interface enp225s0f0.3111"),
])
def test_a_name_linux_cannot_take_or_a_shared_one_is_refused(sample_copy, decrypt, nics, where, problem):
    [error] = linux_findings(sample_copy, decrypt, nics)
    assert error.path == ("hosts", "dgx01", "dgx", *where) and problem in error.message and error.location.line


def test_the_samples_names_and_a_tagged_nic_pass(sample_copy, decrypt):
    assert linux_findings(sample_copy, decrypt, NICS.replace("speed: 200G}", "speed: 200G, tagged: true}", 1)) == []


@pytest.mark.parametrize(("name", "ok"), [("enp225s0f0", True), ("bond1.3111", True), ("a" * 15, True), ("a" * 16, False),
                                          ("é" * 8, False), ("eth 0", False), ("eth/0", False), ("..", False)])
def test_linux_name_rules(name, ok):
    assert (linux_name_problem(name) is None) == ok
