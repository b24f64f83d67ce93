"""The rendered switch configuration of the larger pods: golden files and what several pairs need.

inventories/sample-large (NVA-1175: a DGX leaf pair, a storage leaf pair and a spine pair of
Spectrum SN5600 on Cumulus, DGX and A90 on 4x200G breakout ports) renders NVUE commands; the
sample grown to 32 DGX on two Nexus 9364C vPC pairs joined back to back (scripts/scale_site.py,
the former sample-large) renders NX-OS. Both render with playbooks/switch_configs.yml (nothing is
contacted) and are compared with the golden files in tests/golden/switches/sample-large-cumulus/
and sample-large-nxos/ (AIPOD_UPDATE_GOLDEN=1 rewrites them after a reviewed change). The checks
are what a further pair needs: its own vPC/MLAG domain and keepalive or backup, and uplinks that
trunk exactly the networks both sides serve, lossless and not spanning-tree edge ports; and, on
the breakouts, every DGX and A90 port on a lane of a port that is not used whole.
"""
from __future__ import annotations

import collections
import os
import pathlib
import re
import shutil
import sys

import pytest
from project_paths import REPO, SAMPLE
from switch_test_support import render_configs, vault_password_file
from test_switch_configs import blocks, interfaces_of, nv, sections

LARGE = REPO / "inventories" / "sample-large"
GOLDEN = REPO / "tests" / "golden" / "switches"
NXOS_SWITCHES = ("leaf-1a", "leaf-1b", "leaf-2a", "leaf-2b")
CUMULUS_SWITCHES = ("sn5600-1a", "sn5600-1b", "sn5600-2a", "sn5600-2b", "sn5600-spine-a", "sn5600-spine-b")
pytestmark = pytest.mark.slow


def nxos_variant(target):
    """The sample on two Nexus 9364C leaf pairs, as docs/sample-large.md gives the command."""
    sys.path.insert(0, str(REPO / "scripts"))
    from scale_site import scale

    return pathlib.Path(scale(str(SAMPLE), 32, str(target), switch_model="N9K-C9364C", switch_stem="leaf", pod_name="aipod-large",
                 description="Sample larger pod: 32 DGX A100 on two Nexus 9364C leaf pairs, two AFF A800 HA pairs"))


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    work = tmp_path_factory.mktemp("switch-configs-large")
    vault = vault_password_file(work)
    variant = nxos_variant(work / "inventories" / "sample-large-nxos")
    return render_configs(work, vault, {"cumulus": (LARGE, CUMULUS_SWITCHES, "nvue"), "nxos": (variant, NXOS_SWITCHES, "cfg")})


@pytest.mark.parametrize(("platform", "suffix", "switches"), [("cumulus", "nvue", CUMULUS_SWITCHES), ("nxos", "cfg", NXOS_SWITCHES)])
def test_rendered_configuration_equals_the_golden_files(rendered, platform, suffix, switches):
    golden = GOLDEN / f"sample-large-{platform}"
    if os.environ.get("AIPOD_UPDATE_GOLDEN") == "1":
        golden.mkdir(parents=True, exist_ok=True)
        for name in switches:
            shutil.copy(rendered["dirs"][platform] / f"{name}.{suffix}", golden / f"{name}.{suffix}")
    for name in switches:
        assert rendered[platform][name] == (golden / f"{name}.{suffix}").read_text(), (
            f"{name}.{suffix} differs from {golden}; if the change is intended, rerun with AIPOD_UPDATE_GOLDEN=1 and review the diff")


# ---------------------------------------------------------------------- Cumulus: inventories/sample-large
def test_each_mlag_pair_has_its_own_system_mac_and_backs_up_over_its_peer(rendered):
    commands = {name: nv(text) for name, text in rendered["cumulus"].items()}
    macs = {name: [c[2] for c in found if c[:2] == ["mlag", "mac-address"]] for name, found in commands.items()}
    # one MAC a pair, from its domain (1 DGX leaf, 2 storage leaf, 3 spine)
    assert macs == {"sn5600-1a": ["44:38:39:ff:00:01"], "sn5600-1b": ["44:38:39:ff:00:01"],
                    "sn5600-2a": ["44:38:39:ff:00:02"], "sn5600-2b": ["44:38:39:ff:00:02"],
                    "sn5600-spine-a": ["44:38:39:ff:00:03"], "sn5600-spine-b": ["44:38:39:ff:00:03"]}
    # the backup is the peer's management address (sn5600-1a .11, -1b .12, ... spine-b .16), in VRF mgmt
    backups = {name: [c[2:] for c in found if c[:2] == ["mlag", "backup"]] for name, found in commands.items()}
    assert backups == {"sn5600-1a": [["192.168.30.12", "vrf", "mgmt"]], "sn5600-1b": [["192.168.30.11", "vrf", "mgmt"]],
                       "sn5600-2a": [["192.168.30.14", "vrf", "mgmt"]], "sn5600-2b": [["192.168.30.13", "vrf", "mgmt"]],
                       "sn5600-spine-a": [["192.168.30.16", "vrf", "mgmt"]], "sn5600-spine-b": [["192.168.30.15", "vrf", "mgmt"]]}
    for found in commands.values():
        assert ["interface", "peerlink", "bridge", "domain", "br_default"] in found
        assert len([c for c in found if c[:4] == ["interface", "peerlink", "bond", "member"] and len(c) == 5]) == 8


@pytest.mark.parametrize("switch", CUMULUS_SWITCHES)
def test_uplinks_trunk_the_shared_networks_losslessly_as_mlag_bonds_and_no_edge_ports(rendered, switch):
    commands = nv(rendered["cumulus"][switch])
    assert ["qos", "roce", "mode", "lossless"] in commands
    assert [c for c in commands if c[:4] == ["bridge", "domain", "br_default", "vlan"]] == [["bridge", "domain", "br_default", "vlan", "31,401"]]
    uplinks = ["bond91", "bond92"] if "spine" in switch else ["bond90"]
    for bond in uplinks:
        assert ["interface", bond, "bridge", "domain", "br_default", "vlan", "31,401"] in commands
        assert ["interface", bond, "bond", "mlag", "id", bond[4:]] in commands
        assert not [c for c in commands if c[:2] == ["interface", bond] and "stp" in c]
        members = [c[4] for c in commands if c[:4] == ["interface", bond, "bond", "member"] and len(c) == 5]
        # four whole 800G ports a switch: two to each spine switch (from a leaf), two to each switch of a leaf pair (from the spine)
        assert len(members) == 4 and all(re.fullmatch(r"swp\d+", member) for member in members)
        far = [next(c[3] for c in commands if c[:3] == ["interface", member, "description"]).split()[0] for member in members]
        assert sorted(collections.Counter(far).values()) == [2, 2]


def test_every_cable_between_switches_reads_the_same_from_both_ends(rendered):
    """Each uplink and peer-link member names the switch port at its far end; that port names it back."""
    ends = {}
    for name, text in rendered["cumulus"].items():
        for command in nv(text):
            match = re.fullmatch(r"(?:MLAG peer-link )?(sn5600-\S+) (swp\d+)(?: \(bond\d+\))?", command[3]) \
                if command[0] == "interface" and command[2] == "description" else None
            if match:
                ends[(name, command[1])] = (match[1], match[2])
    assert len(ends) == 6 * 8 + 4 * 4 + 2 * 8  # peer links, leaf uplinks, spine downlinks
    for near, far in ends.items():
        assert ends.get(far) == near, f"{near} says it meets {far}, which says {ends.get(far)}"


@pytest.mark.parametrize("switch", CUMULUS_SWITCHES)
def test_every_interface_has_mtu_9216_and_a_description(rendered, switch):
    commands = nv(rendered["cumulus"][switch])
    names = interfaces_of([c for c in commands if c[2:4] != ["link", "breakout"]])  # a broken-out port carries no traffic
    for name in names:
        assert ["interface", name, "link", "mtu", "9216"] in commands, f"{switch} {name} has no link mtu 9216"
    described = {c[1] for c in commands if c[0] == "interface" and c[2] == "description" and c[3]}
    assert names == described


@pytest.mark.parametrize("switch", ["sn5600-1a", "sn5600-1b", "sn5600-2a", "sn5600-2b"])
def test_dgx_and_a90_ports_are_breakout_lanes_of_ports_not_used_whole(rendered, switch):
    commands = nv(rendered["cumulus"][switch])
    configured = [c for c in commands if c[2:4] != ["link", "breakout"]]
    ports = {name for name in interfaces_of(configured) if name.startswith("swp")}
    lanes = {name for name in ports if re.fullmatch(r"swp\d+s[0-3]", name)}
    whole = ports - lanes
    parents = {re.sub(r"s\d$", "", lane) for lane in lanes}
    assert not parents & whole
    # Each parent is broken out 4x before its lanes are configured, and nothing else is broken out.
    broken_out = [c for c in commands if c[2:4] == ["link", "breakout"]]
    assert sorted(c[1] for c in broken_out) == sorted(parents) and all(c[4] == "4x" for c in broken_out)
    for parent in parents:
        first_lane = min(i for i, c in enumerate(commands) if c[0] == "interface" and c[1].startswith(parent + "s"))
        assert commands.index(["interface", parent, "link", "breakout", "4x"]) < first_lane
    assert all(sum(lane.startswith(f"{parent}s") for lane in lanes) == 4 for parent in parents)
    described = {c[1]: c[3] for c in commands if c[0] == "interface" and c[2] == "description"}
    hosts = {lane: described[lane].split()[0] for lane in lanes}
    fabric = {f"swp{n}" for n in range(53, 65)}  # uplink and peer-link members, whole 800G ports
    if switch.startswith("sn5600-1"):
        # 32 storage ports and 32 in-band bond members: swp1-16, one lane per DGX on each
        assert len(lanes) == 64 and parents == {f"swp{n}" for n in range(1, 17)}
        assert set(hosts.values()) == {f"dgx{n:02d}" for n in range(1, 33)}
        servers = {"swp45", "swp46", "swp47"} if switch == "sn5600-1a" else set()  # the control plane, on whole ports
        assert whole == fabric | servers
    else:
        # e6x, e11x and the a1a member of the 8 controllers: swp1-6; one port's lanes lead to 4 controllers
        assert len(lanes) == 24 and parents == {f"swp{n}" for n in range(1, 7)} and whole == fabric
        for parent in parents:
            assert len({hosts[f"{parent}s{lane}"] for lane in range(4)}) == 4
        access = {c[1]: c[6] for c in commands if c[0] == "interface" and c[1] in lanes and c[2:6] == ["bridge", "domain", "br_default", "access"]}
        assert {vlan for port, vlan in access.items() if re.fullmatch(r"swp[1-4]s\d", port)} == {"401"}  # the data ports


# ---------------------------------------------------------------------- NX-OS: the sample on two Nexus 9364C pairs
def test_each_vpc_pair_has_its_own_domain_and_keepalive(rendered):
    texts = rendered["nxos"]
    assert "vpc domain 10" in texts["leaf-1a"] and "vpc domain 10" in texts["leaf-1b"]
    assert "vpc domain 11" in texts["leaf-2a"] and "vpc domain 11" in texts["leaf-2b"]
    assert "peer-keepalive destination 10.61.218.14 source 10.61.218.13" in texts["leaf-2a"]


@pytest.mark.parametrize("switch", NXOS_SWITCHES)
def test_the_nxos_uplink_trunks_the_shared_networks_losslessly_as_a_vpc(rendered, switch):
    texts = rendered["nxos"]
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
