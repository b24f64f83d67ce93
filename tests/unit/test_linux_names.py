"""Every interface the compute layer configures on a DGX has a name Linux and systemd-networkd take
(at most 15 bytes of printable ASCII, no '/', ':' or '%', not a number, not 'lo'), VLAN devices
<parent>.<vlan> included, and no two share one."""
from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_compute.rules import linux_name_problem
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site

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
     ("storage_nics", 0, "name"), "or '/', ':' or '%', which an interface name cannot"),
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


def systemd_takes(name: str) -> bool:
    """The oracle, written from Linux's dev_valid_name() (net/core/dev.c) and systemd's
    ifname_valid_full() (src/basic/netif-util.c, no flags), which judge bytes: 1 to 15 of them,
    each from 33 to 126 and none of '/', ':' or '%'; not '.', '..', 'all' or 'default'; not only
    digits. 'lo' is the loopback's."""
    data = name.encode()
    return (0 < len(data) <= 15 and all(33 <= byte <= 126 and byte not in b"/:%" for byte in data)
            and name not in (".", "..", "all", "default", "lo") and not data.isdigit())


@given(st.text(min_size=0, max_size=20) | st.from_regex(r"[a-z0-9.%:/ -]{0,16}", fullmatch=True))
@example("à")
@example("")
@example("123")
def test_the_rule_takes_exactly_the_names_linux_and_systemd_take(name):
    """Property: linux_name_problem refuses a name exactly when Linux or systemd-networkd would."""
    assert (linux_name_problem(name) is None) == systemd_takes(name)
