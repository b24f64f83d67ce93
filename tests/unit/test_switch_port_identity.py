"""A switch port is one port however it is written: a breakout lane and its unbroken parent, or a name
with leading zeros beside the switch's own, cannot both be used."""
from __future__ import annotations

import shutil

import pytest
from hypothesis import given
from hypothesis import strategies as st
from project_paths import REPO

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network.platforms import port_identity, port_name
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site


def port_findings(inventory, decrypt, switch: str, old: str, new: str) -> list:
    path = inventory / "host_vars" / f"{switch}.yml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return [f for f in validate_site(str(inventory), decrypt=decrypt).errors if f.rule == "switch-port"]


@pytest.mark.parametrize(("old", "new", "problem"), [
    ("members: [Ethernet1/5]", "members: [Ethernet1/05]", "port Ethernet1/05 is written with leading zeros; the switch shows it as Ethernet1/5"),
    ("{name: Ethernet1/4, connects_to:", "{name: Ethernet1/1/2, connects_to:", "uses Ethernet1/1/2 and Ethernet1/1"),
    ("members: [Ethernet1/31, Ethernet1/32]", "members: [Ethernet1/31, Ethernet1/32, Ethernet1/1/1]", "uses Ethernet1/1 and Ethernet1/1/1"),
])
def test_one_port_written_two_ways_is_refused_on_nxos(sample_copy, decrypt, old, new, problem):
    errors = port_findings(sample_copy, decrypt, "n3232c-a", old, new)
    assert any(problem in error.message and error.location.line for error in errors), errors


def test_a_lane_beside_its_unbroken_parent_is_refused_on_cumulus(tmp_path, decrypt):
    inventory = tmp_path / "site"
    shutil.copytree(REPO / "inventories" / "sample-aipod", inventory)
    errors = port_findings(inventory, decrypt, "sn4600-a", "members: [swp18]", "members: [swp17s1]")
    assert any("uses swp17s1 and swp17" in error.message or "uses swp17 and swp17s1" in error.message for error in errors), errors


@pytest.mark.parametrize(("platform", "name", "identity", "shown"), [
    ("nxos", "Ethernet1/01", (1, 1, None), "Ethernet1/1"), ("nxos", "Ethernet1/1/02", (1, 1, 2), "Ethernet1/1/2"),
    ("cumulus", "swp001s0", (1, 1, 0), "swp1s0"), ("cumulus", "swp12", (1, 12, None), "swp12"), ("cumulus", "eth0", None, None),
])
def test_port_identity(platform, name, identity, shown):
    assert port_identity(platform, name) == identity
    if identity:
        assert port_name(platform, identity) == shown


NUMBERS = st.integers(min_value=0, max_value=999)
ZEROS = st.integers(min_value=0, max_value=3)


@given(st.sampled_from(["nxos", "cumulus"]), NUMBERS, NUMBERS, st.one_of(st.none(), NUMBERS), ZEROS, ZEROS)
def test_every_way_to_write_a_port_names_its_one_identity(platform, module, number, lane, zeros, lane_zeros):
    """Property: a port written with any leading zeros has the identity of the name the switch shows,
    and that name reads back as the same identity (the map from identities to names is injective)."""
    module = module if platform == "nxos" else 1
    shown = port_name(platform, (module, number, lane))
    assert port_identity(platform, shown) == (module, number, lane)
    padded = "0" * zeros + str(number)
    written = (f"Ethernet{module}/{padded}" + (f"/{'0' * lane_zeros}{lane}" if lane is not None else "")
               if platform == "nxos" else f"swp{padded}" + (f"s{'0' * lane_zeros}{lane}" if lane is not None else ""))
    assert port_identity(platform, written) == (module, number, lane)


@given(st.sampled_from(["nxos", "cumulus"]), st.lists(st.tuples(NUMBERS, NUMBERS, st.one_of(st.none(), NUMBERS)),
                                                        min_size=2, max_size=6, unique=True))
def test_distinct_ports_get_distinct_names(platform, identities):
    identities = list(dict.fromkeys((module if platform == "nxos" else 1, number, lane)
                                    for module, number, lane in identities))
    names = [port_name(platform, identity) for identity in identities]
    assert len(set(names)) == len(names)
