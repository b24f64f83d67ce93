"""The lab's NVUE object model (lab/nvue/nvue_model.py): what Cumulus keeps for `nv set`, refuses and applies.

The golden commands of the sample's Cumulus variant (what switch_cumulus sends) are the input: every
one must be taken, and the applied tree must hold NVUE's shapes (collections keyed by id, single-key
enumerations). Unknown paths and bad values are refused with NVUE's messages, and apply checks what
NVUE checks at apply time (ports the switch has, reserved VLANs).
"""
from __future__ import annotations

import re
import shlex
import sys

import pytest
import yaml
from project_paths import REPO

sys.path.insert(0, str(REPO / "lab" / "nvue"))
from nvue_model import NvueError, NvueSwitch  # noqa: E402

GOLDEN = REPO / "tests" / "golden" / "switches" / "sample-cumulus" / "n3232c-a.nvue"


def run(switch: NvueSwitch, line: str) -> None:
    words = shlex.split(line)
    assert words[0] == "nv"
    switch.edit(words[1], words[2:])


def role_commands() -> list[str]:
    return [line for line in GOLDEN.read_text().splitlines() if line.startswith("nv ")]


def test_every_command_the_role_sends_is_taken_and_applied():
    switch = NvueSwitch.factory("n3232c-a", ports=32)
    for line in role_commands():
        run(switch, line)
    assert switch.apply() == "applied [rev_id: 1]"
    applied = switch.show([])
    assert applied["bridge"]["domain"]["br_default"]["vlan"] == {"3101": {}, "3111": {}, "3112": {}}
    swp1 = applied["interface"]["swp1"]
    assert swp1 == {"description": "dgx01 enp225s0f0", "type": "swp", "link": {"mtu": 9216, "state": {"up": {}}},
                    "bridge": {"domain": {"br_default": {"access": 3111, "stp": {"admin-edge": "on", "bpdu-guard": "on"}}}}}
    # both peer-link members kept: a set adds a key to a collection
    assert set(applied["interface"]["peerlink"]["bond"]["member"]) == {"swp31", "swp32"}
    assert applied["interface"]["peerlink"]["type"] == "peerlink"
    assert applied["qos"]["pfc"]["default-global"]["switch-priority"] == {"3": {}}
    assert switch.startup == applied  # auto-save


def test_a_second_identical_run_changes_nothing():
    switch = NvueSwitch.factory("n3232c-a", ports=32)
    for line in role_commands():
        run(switch, line)
    switch.apply()
    for line in role_commands():
        run(switch, line)
    assert switch.diff() == ""
    assert switch.apply().startswith("Warning: The following revision has no changes to apply")
    assert [r["rev_id"] for r in switch.history()] == [1]


def test_the_diff_is_nested_yaml_of_sets_and_unsets():
    switch = NvueSwitch.factory(ports=32)
    run(switch, "nv set interface swp1 link mtu 9216")
    switch.apply()
    run(switch, "nv set interface swp1 description 'dgx01 eth1'")
    run(switch, "nv unset interface swp1 link mtu")
    assert yaml.safe_load(switch.diff()) == [{"set": {"interface": {"swp1": {"description": "dgx01 eth1"}}}},
                                            {"unset": {"interface": {"swp1": {"link": None}}}}]


@pytest.mark.parametrize(("line", "message"), [
    ("nv set interface swp1 foo bar", "Invalid Command: set interface swp1 foo bar"),
    ("nv set interface swp1 link mtu 99999", "Error: At mtu: Valid range is 552-9216"),
    ("nv set interface swp1 link mtu big", "Error: 'big' is not an integer"),
    ("nv set bridge domain br_default vlan 5000", "Error: At vlan: Valid range is 1-4094 ('5000')"),
    ("nv set interface bond1 bond lacp-rate bogus", "Error: At lacp-rate: 'bogus' is not one of ['fast', 'slow']"),
    ("nv set interface swp1 link state sideways", "Error: At state: 'sideways' is not one of ['up', 'down']"),
    ("nv set interface swp1 link", "Error: Incomplete Command"),
    ("nv set mlag backup 10.0.0.300 vrf mgmt", "Error: At backup: '10.0.0.300' is not a 'ipv4'"),
])
def test_what_nvue_refuses_at_set_time_is_refused_with_its_message(line, message):
    switch = NvueSwitch.factory(ports=32)
    with pytest.raises(NvueError) as refused:
        run(switch, line)
    assert str(refused.value) == message
    assert switch.diff() == ""


def test_apply_refuses_a_port_the_switch_lacks_and_reserved_vlans():
    switch = NvueSwitch.factory(ports=32)
    run(switch, "nv set interface swp40 link mtu 9216")
    run(switch, "nv set bridge domain br_default vlan 3800")
    with pytest.raises(NvueError) as refused:
        switch.apply()
    text = str(refused.value)
    assert text.startswith("Invalid config [rev_id: 1]")
    assert "Config invalid at interface.swp40: the switch has no port swp40" in text
    assert "Config invalid at bridge.domain.br_default.vlan.3800: VLAN 3800 is reserved (3725-3999)" in text
    assert "interface" not in switch.show([])  # nothing applied


def test_breakout_ports_are_numbered_from_zero_and_need_the_breakout():
    switch = NvueSwitch.factory(ports=64)
    run(switch, "nv set interface swp1s0 link mtu 9216")
    with pytest.raises(NvueError, match="swp1 is not broken out into swp1s0"):
        switch.apply()
    run(switch, "nv set interface swp1 link breakout 4x")
    run(switch, "nv set interface swp1s3 link mtu 9216")
    assert switch.apply().startswith("applied")
    assert switch.show(["interface", "swp1", "link", "breakout"]) == {"4x": {}}


def test_detach_drops_the_pending_revision_and_apply_of_an_old_revision_reverts():
    switch = NvueSwitch.factory(ports=32)
    run(switch, "nv set interface swp1 description first")
    switch.apply()
    run(switch, "nv set interface swp1 description second")
    switch.apply()
    run(switch, "nv set interface swp1 description third")
    switch.detach()
    assert switch.diff() == "" and switch.show(["interface", "swp1", "description"]) == "second"
    assert switch.apply("1").startswith("applied")
    assert switch.show(["interface", "swp1", "description"]) == "first"
    with pytest.raises(NvueError, match="The requested item does not exist"):
        switch.show(["interface", "swp2"])


def test_unset_of_a_collection_member_removes_only_it():
    switch = NvueSwitch.factory(ports=32)
    run(switch, "nv set interface peerlink bond member swp31")
    run(switch, "nv set interface peerlink bond member swp32")
    switch.apply()
    run(switch, "nv unset interface peerlink bond member swp31")
    switch.apply()
    assert switch.show(["interface", "peerlink", "bond", "member"]) == {"swp32": {}}


def test_the_command_line_keeps_state_between_calls_and_changes_nothing_on_a_refusal(tmp_path):
    import json
    import os
    import subprocess

    env = dict(os.environ, NVUE_STATE=str(tmp_path / "state.json"), NVUE_PORTS="32", NVUE_HOSTNAME="lab-sn-a")

    def nv(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(REPO / "lab" / "nvue" / "nv.py"), *args], env=env,
                              capture_output=True, text=True, timeout=60)

    assert nv("set", "interface", "swp1", "description", "dgx01 eth1").returncode == 0
    refused = nv("set", "interface", "swp1", "link", "mtu", "99999")
    assert (refused.returncode, refused.stderr.strip()) == (1, "Error: At mtu: Valid range is 552-9216")
    assert "description: dgx01 eth1" in nv("config", "diff").stdout
    assert nv("config", "apply", "-y").stdout.strip() == "applied [rev_id: 1]"
    shown = json.loads(nv("show", "interface", "swp1", "-o", "json").stdout)
    assert shown == {"description": "dgx01 eth1", "type": "swp"}
    assert json.loads(nv("show", "system", "-o", "json").stdout) == {"hostname": "lab-sn-a"}
    missing = nv("show", "interface", "swp2")
    assert (missing.returncode, missing.stderr.strip()) == (1, "Error: The requested item does not exist.")


def test_apply_refuses_bridge_settings_on_a_bond_member_and_a_port_in_two_bonds():
    switch = NvueSwitch.factory("sw", 32)
    factory = switch.applied
    for line in ("nv set bridge domain br_default vlan 10", "nv set interface bond1 bond member swp1",
                 "nv set interface swp1 bridge domain br_default access 10", "nv set interface bond2 bond member swp1"):
        run(switch, line)
    with pytest.raises(NvueError) as refused:
        switch.apply()
    assert "swp1 is a member of bond1; a bond member takes no bridge or address settings" in str(refused.value)
    assert "swp1 is already a member of bond1" in str(refused.value)
    assert switch.applied == factory


def test_the_diff_as_json_is_the_list_of_set_and_unset_parts():
    switch = NvueSwitch.factory("sw", 32)
    run(switch, "nv set interface swp1 link mtu 9216")
    switch.apply()
    run(switch, "nv unset interface swp1 link mtu")
    run(switch, "nv set interface swp2 description spare")
    assert switch.diff_parts() == [{"set": {"interface": {"swp2": {"description": "spare", "type": "swp"}}}},
                                   {"unset": {"interface": {"swp1": {"link": None}}}}]


@pytest.mark.parametrize("golden", sorted((REPO / "tests" / "golden" / "switches" / "sample-large-cumulus").glob("*.nvue")),
                         ids=lambda path: path.stem)
def test_the_large_samples_breakouts_bonds_and_uplinks_apply(golden):
    """sample-large (NVA-1175: SN5600, 800G ports broken out 4x200G): NVUE takes and applies every command."""
    switch = NvueSwitch.factory(golden.stem, ports=65)
    for line in golden.read_text().splitlines():
        if line.startswith("nv "):
            run(switch, line)
    assert switch.apply().startswith("applied")
    interfaces = switch.show([])["interface"]
    parents = {re.fullmatch(r"(swp\d+)s\d+", name)[1] for name in interfaces if re.fullmatch(r"swp\d+s\d+", name)}
    assert bool(parents) == ("spine" not in golden.stem)  # leaves use lanes, spines whole ports
    assert all(interfaces[parent]["link"]["breakout"] == {"4x": {}} for parent in parents)
