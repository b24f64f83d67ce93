"""The rendered switch configuration of the sample pod, on NX-OS and on Cumulus: golden files and checks.

Renders with playbooks/switch_configs.yml (nothing is contacted) for inventories/sample (Nexus
3232C) and for a copy of it whose switches run Cumulus Linux. The output must equal the golden
files in tests/golden/switches/ (AIPOD_UPDATE_GOLDEN=1 rewrites them after a reviewed change),
and the text itself must carry what the pod needs: MTU 9216 on every storage/DGX port and
port-channel, PFC on priority 3, the same VLAN list on both peers, a description on every port.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil

import pytest
from project_paths import REPO, SAMPLE
from switch_test_support import render_configs, vault_password_file, write_cumulus_sample

GOLDEN = REPO / "tests" / "golden" / "switches"
SWITCHES = ("n3232c-a", "n3232c-b")


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    work = tmp_path_factory.mktemp("switch-configs")
    vault = vault_password_file(work)
    cumulus = write_cumulus_sample(work / "inventories" / "sample-cumulus")
    return render_configs(work, vault, {"nxos": (SAMPLE, SWITCHES, "cfg"), "cumulus": (cumulus, SWITCHES, "nvue")})


@pytest.mark.slow
@pytest.mark.parametrize("platform,suffix", [("nxos", "cfg"), ("cumulus", "nvue")])
def test_rendered_configuration_equals_the_golden_files(rendered, platform, suffix):
    golden = GOLDEN / f"sample-{platform}"
    if os.environ.get("AIPOD_UPDATE_GOLDEN") == "1":
        golden.mkdir(parents=True, exist_ok=True)
        for name in SWITCHES:
            shutil.copy(rendered["dirs"][platform] / f"{name}.{suffix}", golden / f"{name}.{suffix}")
    for name in SWITCHES:
        expected = (golden / f"{name}.{suffix}").read_text()
        assert rendered[platform][name] == expected, (
            f"{name}.{suffix} differs from {golden}; if the change is intended, rerun with AIPOD_UPDATE_GOLDEN=1 and review the diff")


# ------------------------------------------------------------------------------------------ NX-OS
def sections(text: str) -> dict[str, list[str]]:
    """The rendered file's sections ('! nxos_interfaces (rendered)' ...) -> their lines."""
    result: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("! nxos"):
            current = line[2:]
            result[current] = []
        elif current and not line.startswith("!"):
            result[current].append(line)
    return result


def blocks(lines: list[str]) -> dict[str, list[str]]:
    """'interface X' followed by its commands (rendered commands are not indented)."""
    result: dict[str, list[str]] = {}
    name = None
    for line in lines:
        match = re.fullmatch(r"interface (\S+)", line.strip())
        if match:
            name = match.group(1)
            result.setdefault(name, [])
        elif name:
            result[name].append(line.strip())
    return result


@pytest.mark.slow
@pytest.mark.parametrize("switch", SWITCHES)
def test_nxos_mtu_9216_on_every_port_and_port_channel(rendered, switch):
    parts = sections(rendered["nxos"][switch])
    interfaces = blocks(parts["nxos_interfaces (rendered)"])
    lag = blocks(parts["nxos_lag_interfaces (rendered)"])
    members = {name: next(line.split()[1] for line in lines if line.startswith("channel-group")) for name, lines in lag.items()}
    owned = [name for name in interfaces if name not in members]
    assert len(owned) >= 10
    for name in owned:
        assert "mtu 9216" in interfaces[name], f"{switch} {name} has no mtu 9216"
    for member, channel in members.items():
        # a member takes its port-channel's MTU (channel-group ... force)
        assert f"channel-group {channel} force mode active" in lag[member]
        assert "mtu 9216" in interfaces[f"port-channel{channel}"]
    qos = "\n".join(parts["nxos_config: QoS"])
    assert re.search(r"class type network-qos class-default\n\s+mtu 9216", qos)
    assert qos.count("mtu 9216") == 3


@pytest.mark.slow
@pytest.mark.parametrize("switch", SWITCHES)
def test_nxos_pfc_on_priority_3_on_the_dgx_storage_ports(rendered, switch):
    parts = sections(rendered["nxos"][switch])
    assert "    pause pfc-cos 3" in parts["nxos_config: QoS"]
    ports = blocks(parts["nxos_config: per-port PFC and spanning-tree"])
    interfaces = blocks(parts["nxos_interfaces (rendered)"])
    dgx_storage = [name for name, lines in interfaces.items()
                   if any(re.fullmatch(r"description dgx\d+ enp225s0f\d", line) for line in lines)]
    assert len(dgx_storage) == 4
    for name in dgx_storage:
        assert "priority-flow-control mode on" in ports[name]
        assert "service-policy type qos input AIPOD-QOS-IN" in interfaces[name]


def nxos_vlans(text: str) -> list[int]:
    return [int(line.split()[1]) for line in sections(text)["nxos_vlans (rendered)"] if re.fullmatch(r"vlan \d+", line)]


@pytest.mark.slow
def test_nxos_vlan_lists_are_identical_on_both_peers(rendered):
    a, b = (nxos_vlans(rendered["nxos"][name]) for name in SWITCHES)
    assert a == b == [3101, 3111, 3112]
    peer_links = {name: blocks(sections(rendered["nxos"][name])["nxos_config: trunk allowed VLANs, each list whole"])["port-channel10"]
                  for name in SWITCHES}
    assert peer_links["n3232c-a"] == peer_links["n3232c-b"] == ["switchport trunk allowed vlan 3101,3111-3112"]


@pytest.mark.slow
@pytest.mark.parametrize("switch", SWITCHES)
def test_nxos_trunk_lists_are_whole_and_left_to_nxos_config(rendered, switch):
    """cisco.nxos 11.2 renders `allowed vlan add`, which opens nothing up but restricts nothing either."""
    parts = sections(rendered["nxos"][switch])
    assert not any("allowed vlan" in line for line in parts["nxos_l2_interfaces (rendered)"])
    trunk_lines = [line for line in parts["nxos_config: trunk allowed VLANs, each list whole"] if not line.startswith("interface ")]
    assert trunk_lines and all(re.fullmatch(r"  switchport trunk allowed vlan [0-9,-]+", line) for line in trunk_lines)


@pytest.mark.slow
@pytest.mark.parametrize("switch", SWITCHES)
def test_nxos_every_port_is_described(rendered, switch):
    interfaces = blocks(sections(rendered["nxos"][switch])["nxos_interfaces (rendered)"])
    for name, lines in interfaces.items():
        assert any(line.startswith("description ") and len(line) > len("description ") for line in lines), \
            f"{switch} {name} has no description"


# ---------------------------------------------------------------------------------------- Cumulus
def nv(text: str) -> list[list[str]]:
    return [shlex.split(line)[2:] for line in text.splitlines() if line.startswith("nv set ")]


def interfaces_of(commands: list[list[str]]) -> set[str]:
    return {c[1] for c in commands if c[0] == "interface"}


@pytest.mark.slow
@pytest.mark.parametrize("switch", SWITCHES)
def test_cumulus_mtu_9216_on_every_port_and_bond(rendered, switch):
    commands = nv(rendered["cumulus"][switch])
    names = interfaces_of(commands)
    assert {"swp1", "swp13", "bond11", "bond101", "peerlink"} <= names
    for name in names:
        assert ["interface", name, "link", "mtu", "9216"] in commands, f"{switch} {name} has no link mtu 9216"


@pytest.mark.slow
@pytest.mark.parametrize("switch", SWITCHES)
def test_cumulus_lossless_roce_with_pfc_on_priority_3(rendered, switch):
    commands = nv(rendered["cumulus"][switch])
    assert ["qos", "roce", "mode", "lossless"] in commands
    assert ["qos", "pfc", "default-global", "switch-priority", "3"] in commands


@pytest.mark.slow
def test_cumulus_vlan_lists_are_identical_on_both_peers(rendered):
    lists = [[c for c in nv(rendered["cumulus"][name]) if c[:4] == ["bridge", "domain", "br_default", "vlan"]] for name in SWITCHES]
    assert lists[0] == lists[1] == [["bridge", "domain", "br_default", "vlan", "3101,3111-3112"]]


@pytest.mark.slow
@pytest.mark.parametrize("switch", SWITCHES)
def test_cumulus_every_port_is_described(rendered, switch):
    commands = nv(rendered["cumulus"][switch])
    described = {c[1] for c in commands if c[0] == "interface" and c[2] == "description" and c[3]}
    assert interfaces_of(commands) == described
