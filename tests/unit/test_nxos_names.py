"""Names that reach an NX-OS CLI fit it: a VLAN's name (the network's) has at most 32 characters, and
the vPC keepalive VRF is one VRF name (a '?' would ask the CLI for help in the middle of a command)."""
from __future__ import annotations

import pytest

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site


def test_a_network_name_longer_than_an_nxos_vlan_name_is_refused(sample_copy, decrypt):
    for path in [*(sample_copy / "group_vars" / "all").glob("*.yml"),
                 *(sample_copy / "host_vars").glob("*.yml")]:
        path.write_text(path.read_text().replace("storage-a", "storage-a-" + "x" * 30))
    report = validate_site(str(sample_copy), decrypt=decrypt)
    errors = [f for f in report.errors if f.rule == "vlan-limit"]
    assert [f.path for f in errors] == [("networks", 2, "name")], errors
    assert "at most 32 characters (40 here)" in errors[0].message and errors[0].location.line


@pytest.mark.parametrize(("vrf", "accepted"), [("management", True), ("keepalive-vrf_1", True), ("mgmt?", False),
                                                ("a" * 33, False), ("mgmt vrf", False)])
def test_the_keepalive_vrf_is_one_vrf_name(sample_copy, decrypt, vrf, accepted):
    (sample_copy / "group_vars" / "switches.yml").write_text(
        (sample_copy / "group_vars" / "switches.yml").read_text() + f"switch_nxos_vpc_keepalive_vrf: '{vrf}'\n")
    errors = [f for f in validate_site(str(sample_copy), decrypt=decrypt).errors if f.rule == "connection-setting"]
    assert (errors == []) == accepted, errors
    if not accepted:
        assert "an NX-OS VRF name of at most 32" in errors[0].message
