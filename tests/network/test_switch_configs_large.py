"""The rendered NX-OS configuration of inventories/sample-large: two vPC pairs joined by an uplink.

Renders with playbooks/switch_configs.yml (nothing is contacted), compares with the golden files in
tests/golden/switches/sample-large-nxos/ (AIPOD_UPDATE_GOLDEN=1 rewrites them after a reviewed
change), and checks what a second pair needs: its own vPC domain and keepalive, and an uplink
that trunks exactly the networks both pairs serve, lossless and not a spanning-tree edge port.
"""
from __future__ import annotations

import os
import shutil

import pytest
from project_paths import REPO
from switch_test_support import finish, playbook, vault_password_file
from test_switch_configs import blocks, sections

LARGE = REPO / "inventories" / "sample-large"
GOLDEN = REPO / "tests" / "golden" / "switches" / "sample-large-nxos"
SWITCHES = ("leaf-1a", "leaf-1b", "leaf-2a", "leaf-2b")
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    work = tmp_path_factory.mktemp("switch-configs-large")
    finish(playbook(LARGE, "switch_configs.yml", "-e", f"switch_configs_dir={work}", vault=vault_password_file(work)))
    return {name: (work / f"{name}.cfg").read_text() for name in SWITCHES}, work


def test_rendered_configuration_equals_the_golden_files(rendered):
    texts, work = rendered
    if os.environ.get("AIPOD_UPDATE_GOLDEN") == "1":
        GOLDEN.mkdir(parents=True, exist_ok=True)
        for name in SWITCHES:
            shutil.copy(work / f"{name}.cfg", GOLDEN / f"{name}.cfg")
    for name in SWITCHES:
        assert texts[name] == (GOLDEN / f"{name}.cfg").read_text(), (
            f"{name}.cfg differs from {GOLDEN}; if the change is intended, rerun with AIPOD_UPDATE_GOLDEN=1 and review the diff")


def test_each_pair_has_its_own_domain_and_keepalive(rendered):
    texts, _work = rendered
    assert "vpc domain 10" in texts["leaf-1a"] and "vpc domain 10" in texts["leaf-1b"]
    assert "vpc domain 11" in texts["leaf-2a"] and "vpc domain 11" in texts["leaf-2b"]
    assert "peer-keepalive destination 10.61.218.14 source 10.61.218.13" in texts["leaf-2a"]


@pytest.mark.parametrize("switch", SWITCHES)
def test_the_uplink_trunks_the_shared_networks_losslessly_as_a_vpc(rendered, switch):
    texts, _work = rendered
    parts = sections(texts[switch])
    trunks = blocks(parts["nxos_config: trunk allowed VLANs, each list whole"])
    assert trunks["port-channel90"] == ["switchport trunk allowed vlan 3101,3111-3112"]
    interfaces = blocks(parts["nxos_interfaces (rendered)"])
    assert any(line.startswith("description uplink leaf-") for line in interfaces["port-channel90"])
    assert "vpc 90" in blocks(parts["nxos_vpc, nxos_vpc_interface"])["port-channel90"]
    port_settings = blocks(parts["nxos_config: per-port PFC and spanning-tree"])
    assert port_settings["port-channel90"] == ["priority-flow-control mode on"]  # lossless, and no edge port
    # the bow tie: two members a switch, one to each switch of the other pair
    members = [name for name, lines in interfaces.items() if any("(port-channel90)" in line for line in lines)]
    assert len(members) == 2
