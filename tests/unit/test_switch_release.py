"""A decommissioned host's switch ports: released from the plan and returned to the unused configuration."""
from __future__ import annotations

from switch_test_models import cumulus_model, sample_model

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import nvue, nxos

RUNNING = """\
interface port-channel102
  description dgx02 bond0
  switchport mode trunk
  switchport trunk allowed vlan 3000
  mtu 9216
  vpc 102
interface Ethernet1/2
  description dgx02 enp225s0f0
  switchport access vlan 3111
  priority-flow-control mode on
  spanning-tree port type edge
  mtu 9216
  service-policy type qos input AIPOD-QOS-IN
  no shutdown
interface Ethernet1/6
  description dgx02 enp1s0f0 (bond0)
  switchport mode trunk
  switchport trunk allowed vlan 3000
  mtu 9216
  channel-group 102 mode active
  lacp rate fast
  no shutdown
interface Ethernet1/7
  description dgx03 enp1s0f0 (bond0)
  no shutdown
"""


def decommissioned(model: dict, host: str) -> dict:
    model["hosts"][host]["groups"].append("decommission")
    return model


def test_the_ports_of_a_decommissioned_dgx_leave_the_plan_and_are_released():
    plan = m.switch_plan(decommissioned(sample_model(), "dgx02"), "n3232c-a")
    assert [p["name"] for p in plan["released"]["ports"]] == ["Ethernet1/2", "Ethernet1/6"]
    assert [c["name"] for c in plan["released"]["port_channels"]] == ["port-channel102"]
    owned = {e["name"] for e in plan["ports"] + plan["port_channels"] + plan["member_ports"]}
    assert not owned & {"Ethernet1/2", "Ethernet1/6", "port-channel102"}
    assert "Ethernet1/3" in owned                       # dgx03's port stays
    intent = nxos.intent(plan)
    assert "102" not in [item.get("vpc") for item in intent["vpc_interfaces"]]


def test_nothing_is_released_without_decommission():
    assert m.switch_plan(sample_model(), "n3232c-a")["released"] == {"ports": [], "port_channels": []}


def test_a_port_given_to_another_host_in_the_same_edit_is_not_released():
    model = decommissioned(sample_model(), "dgx02")
    ports = model["hosts"]["n3232c-a"]["switch"]["ports"]
    ports.append({**next(p for p in ports if p["name"] == "Ethernet1/2"), "connects_to": {"host": "dgx03", "nic": "enp225s0f0"}})
    released = m.switch_plan(model, "n3232c-a")["released"]
    assert "Ethernet1/2" not in [p["name"] for p in released["ports"]]


def test_release_undoes_every_line_members_leave_first_and_the_channel_goes_last():
    released = {"ports": [{"name": "Ethernet1/2"}, {"name": "Ethernet1/6"}], "port_channels": [{"name": "port-channel102"}]}
    items = nxos.release(released, RUNNING)
    assert items == [
        {"parents": ["interface Ethernet1/2"], "lines": [
            "shutdown", "no switchport access vlan 3111", "no priority-flow-control mode on", "no spanning-tree port type edge",
            "no mtu 9216", "no service-policy type qos input AIPOD-QOS-IN", "description unused"]},
        {"parents": ["interface Ethernet1/6"], "lines": [
            "shutdown", "no channel-group", "no switchport mode trunk", "no switchport trunk allowed vlan", "no mtu 9216",
            "no lacp rate fast", "description unused"]},
        {"parents": [], "lines": ["no interface port-channel102"]},
    ]


def test_lines_the_bundle_never_writes_are_left_alone():
    running = ("interface Ethernet1/2\n  description dgx02 enp225s0f0\n  no cdp enable\n  no negotiate auto\n"
               "  mtu 9216\n  shutdown\n")
    assert nxos.release({"ports": [{"name": "Ethernet1/2"}], "port_channels": []}, running) == [
        {"parents": ["interface Ethernet1/2"], "lines": ["no mtu 9216", "description unused"]}]


def test_the_peer_link_keeps_the_vlans_of_a_leaving_host_until_its_ports_are_released():
    model = sample_model()
    before = m.switch_plan(model, "n3232c-a")
    after = m.switch_plan(decommissioned(model, "dgx02"), "n3232c-a")
    assert after["vlans"] == before["vlans"]
    assert after["peer_link"]["trunk_vlans"] == before["peer_link"]["trunk_vlans"]


def test_an_unused_port_gets_nothing():
    running = "interface Ethernet1/2\n  description unused\ninterface Ethernet1/6\n  description unused\n  shutdown\n"
    released = {"ports": [{"name": "Ethernet1/2"}, {"name": "Ethernet1/6"}], "port_channels": [{"name": "port-channel102"}]}
    assert nxos.release(released, running, "system default switchport\nsystem default switchport shutdown\n") == []


def test_an_ethernet_port_without_a_shutdown_line_is_up_unless_ports_are_down_by_default():
    running = "interface Ethernet1/2\n  description unused\n"
    released = {"ports": [{"name": "Ethernet1/2"}], "port_channels": []}
    assert nxos.release(released, running, "system default switchport\nno system default switchport shutdown\n") == [
        {"parents": ["interface Ethernet1/2"], "lines": ["shutdown"]}]
    assert nxos.release(released, running, "system default switchport shutdown") == []


def test_compare_reports_released_ports_as_pending():
    plan = m.switch_plan(decommissioned(sample_model(), "dgx02"), "n3232c-a")
    result = nxos.compare(nxos.intent(plan), {}, RUNNING)
    assert (result["release_pending"][0]["object"], result["release_pending"][0]["after"]) == ("Ethernet1/2", "shutdown")
    assert ("switch", "no interface port-channel102") in [(entry["object"], entry["after"]) for entry in result["release_pending"]]
    assert not [entry for entry in result["pending"] if entry["object"] == "port-channel102"]
    assert result["steps"]["release"][-1] == {"parents": [], "lines": ["no interface port-channel102"]}


def test_nvue_unsets_released_bonds_and_ports_and_shuts_them():
    plan = m.switch_plan(decommissioned(cumulus_model(), "dgx02"), "n3232c-a")
    # the model's commands no longer name the released bond; they unset only what they set again
    assert not any("bond102" in line for line in nvue.commands(plan))
    lines = nvue.release_commands(plan)
    assert "nv unset interface bond102" in lines
    unset = lines.index("nv unset interface swp6")
    assert lines[unset:unset + 3] == ["nv unset interface swp6", "nv set interface swp6 description unused",
                                      "nv set interface swp6 link state down"]
    assert lines.index("nv unset interface bond102") < unset
    assert not any(line.startswith("nv set interface bond102") for line in lines)
    assert nvue.release_commands(m.switch_plan(cumulus_model(), "n3232c-a")) == []
