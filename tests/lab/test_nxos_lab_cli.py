"""The lab's NX-OS command line (lab/nxos): modes, port-channel rules, and output as NX-OS prints it."""
from __future__ import annotations

import json
import sys

import pytest
from project_paths import REPO

sys.path.insert(0, str(REPO / "lab" / "nxos"))

from nxos_cli import Switch, factory_state  # noqa: E402


@pytest.fixture()
def cli():
    session = Switch(factory_state("sw1", "127.0.20.9", "admin", "$5$x")).session()

    def run(*lines: str) -> str:
        return "\n".join(filter(None, (session.execute(line) for line in lines)))

    run.session = session
    return run


def interface_block(cli, name: str) -> str:
    return cli(f"show running-config | section ^interface {name}$")


def test_prompts_follow_the_mode(cli):
    assert cli.session.prompt() == "sw1# "
    cli("configure terminal", "interface Ethernet1/1")
    assert cli.session.prompt() == "sw1(config-if)# "
    cli("vlan 10")                                   # a global command from interface mode moves to its mode
    assert cli.session.prompt() == "sw1(config-vlan)# "
    cli("end")
    assert cli.session.prompt() == "sw1# "


def test_unknown_commands_are_rejected_like_nx_os(cli):
    assert cli("bogus") == "% Invalid command at '^' marker."
    assert cli("configure terminal", "interface Ethernet9/1") == "ERROR: Invalid interface Ethernet9/1"


def test_defaults_are_not_printed(cli):
    cli("configure terminal", "interface Ethernet1/1", "switchport mode access", "switchport access vlan 30",
        "description dgx01 eth1", "mtu 9216", "no shutdown", "end")
    assert interface_block(cli, "Ethernet1/1").splitlines() == [
        "interface Ethernet1/1", "  description dgx01 eth1", "  switchport access vlan 30", "  mtu 9216", "  no shutdown"]


def test_trunk_vlans_print_as_ranges_and_add_remove(cli):
    cli("configure terminal", "interface Ethernet1/2", "switchport mode trunk", "switchport trunk allowed vlan 10,11,12,20",
        "switchport trunk allowed vlan remove 20", "switchport trunk allowed vlan add 30")
    assert "  switchport trunk allowed vlan 10-12,30" in interface_block(cli, "Ethernet1/2")


def test_channel_group_needs_lacp_and_a_compatible_port(cli):
    cli("configure terminal")
    assert cli("interface Ethernet1/13", "channel-group 11 mode active").startswith("ERROR: LACP is not enabled")
    cli("feature lacp", "interface port-channel11", "switchport mode trunk", "mtu 9216")
    assert cli("interface Ethernet1/13", "channel-group 11 mode active").startswith("command failed: port not compatible")
    assert cli("channel-group 11 force mode active") == ""
    block = interface_block(cli, "Ethernet1/13")
    assert "  switchport mode trunk" in block and "  mtu 9216" in block and "  channel-group 11 mode active" in block


def test_port_channel_settings_reach_members_and_cannot_be_set_on_them(cli):
    cli("configure terminal", "feature lacp", "interface Ethernet1/13", "channel-group 11 mode active",
        "interface port-channel11", "mtu 9216")
    assert "  mtu 9216" in interface_block(cli, "Ethernet1/13")
    assert cli("interface Ethernet1/13", "mtu 1500").startswith("ERROR: Ethernet1/13: mtu cannot be changed on a member")


def test_vpc_needs_the_feature_and_dont_ask_for_peer_gateway(cli):
    cli("configure terminal")
    assert cli("vpc domain 10") == "% Invalid command at '^' marker."
    cli("feature vpc", "vpc domain 10", "role priority 10")
    assert "confirmation" in cli("peer-gateway")
    cli("terminal dont-ask", "peer-gateway", "peer-keepalive destination 127.0.20.2 source 127.0.20.1 vrf management", "end")
    assert json.loads(cli("show vpc | json"))["vpc-domain-id"] == "10"
    assert cli("show running-config vpc all | include peer-keepalive").strip() == \
        "peer-keepalive destination 127.0.20.2 source 127.0.20.1 vrf management"


def test_vpc_json_before_a_domain_exists(cli):
    cli("configure terminal", "feature vpc", "end")
    assert json.loads(cli("show vpc | json"))["vpc-domain-id"] == "not configured"


def test_vlan_json_prints_a_single_row_as_an_object(cli):
    data = json.loads(cli("show vlan | json"))
    assert isinstance(data["TABLE_vlanbrief"]["ROW_vlanbrief"], dict)
    cli("configure terminal", "vlan 3111", "name storage-a", "end")
    rows = json.loads(cli("show vlan | json-pretty"))["TABLE_vlanbrief"]["ROW_vlanbrief"]
    assert [(r["vlanshowbr-vlanid-utf"], r["vlanshowbr-vlanname"]) for r in rows] == [(1, "default"), (3111, "storage-a")]
    assert cli("show running-config | section ^vlan").splitlines()[:3] == ["vlan 1,3111", "vlan 3111", "  name storage-a"]


def test_queuing_policy_must_name_all_four_queues(cli):
    cli("configure terminal", "policy-map type queuing Q", "class type queuing c-out-q3", "bandwidth remaining percent 100")
    assert cli("system qos", "service-policy type queuing output Q").startswith("ERROR: Queuing policy map must have")


def test_nested_qos_lines_fall_back_to_their_parent_modes(cli):
    cli("configure terminal", "class-map type network-qos NQ3", "match qos-group 3",
        "policy-map type network-qos NQ", "class type network-qos NQ3", "pause pfc-cos 3", "mtu 9216",
        "class type network-qos class-default", "mtu 9216", "system qos", "service-policy type network-qos NQ", "end")
    text = cli("show running-config")
    assert ("policy-map type network-qos NQ\n  class type network-qos NQ3\n    pause pfc-cos 3\n    mtu 9216\n"
            "  class type network-qos class-default\n    mtu 9216\nsystem qos\n  service-policy type network-qos NQ") in text


def test_filters_and_defaults_query(cli):
    assert cli("show running-config all | incl 'system default switchport'").splitlines() == [
        "system default switchport", "system default switchport shutdown"]
    assert cli("show feature | include ^lacp").split() == ["lacp", "1", "disabled"]
    assert "NXOS: version 9.3(8)" in cli("show version")
    assert json.loads(cli("show inventory | json"))["TABLE_inv"]["ROW_inv"][0]["productid"] == "N3K-C3232C"


def test_copy_running_config_saves_the_startup_config(cli):
    cli("configure terminal", "vlan 77", "end")
    assert "vlan 1,77" not in cli("show startup-config")
    assert cli("copy running-config startup-config").endswith("Copy complete.")
    assert "vlan 1,77" in cli("show startup-config")


def test_release_commands_take_a_dgx_port_and_its_vpc_port_channel_to_unused(cli):
    """The commands switch_nxos computes for a decommissioned DGX, as the switch takes them."""
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import nxos

    cli("configure terminal", "feature lacp", "feature vpc", "vlan 3000", "vlan 3111",
        "interface Ethernet1/2", "switchport access vlan 3111", "spanning-tree port type edge", "mtu 9216",
        "priority-flow-control mode on", "description dgx02 enp225s0f0", "no shutdown",
        "interface Ethernet1/6", "switchport mode trunk", "switchport trunk allowed vlan 3000", "mtu 9216",
        "description dgx02 enp1s0f0 (bond0)", "channel-group 102 mode active", "lacp rate fast", "no shutdown",
        "interface port-channel102", "vpc 102", "end")
    released = {"ports": [{"name": "Ethernet1/2"}, {"name": "Ethernet1/6"}], "port_channels": [{"name": "port-channel102"}]}
    items = nxos.release(released, cli("show running-config"))
    assert items
    cli("configure terminal")
    for item in items:
        for line in item["parents"] + item["lines"]:
            assert cli(line) == "", line
    cli("end")
    running = cli("show running-config")
    assert "interface port-channel102" not in running
    for port in ("Ethernet1/2", "Ethernet1/6"):
        assert interface_block(cli, port).splitlines() == [f"interface {port}", "  description unused"]
    # The role asks the switch, as cisco.nxos does, whether Ethernet ports are down by default.
    defaults = cli("show running-config all | incl 'system default switchport'")
    assert nxos.release(released, running, defaults) == []


def test_bare_no_forms_reset_a_port_as_nx_os_does(cli):
    cli("configure terminal", "interface Ethernet1/3", "description old tenant", "mtu 9000", "speed 40000",
        "switchport mode trunk", "switchport trunk allowed vlan 3901", "switchport trunk native vlan 5",
        "spanning-tree port type edge trunk")
    assert cli("no description", "no mtu", "no speed", "no switchport trunk allowed vlan", "no switchport trunk native vlan",
               "no spanning-tree port type", "no switchport mode") == ""
    assert interface_block(cli, "Ethernet1/3").splitlines() == ["interface Ethernet1/3"]
    assert cli("mtu") == "% Incomplete command at '^' marker."      # the value is left out only after `no`


def test_default_interface_takes_a_port_back_to_factory_settings(cli):
    cli("configure terminal", "feature lacp", "interface Ethernet1/4", "description dgx04 eth1", "switchport mode trunk",
        "mtu 9216", "channel-group 14 mode active", "no shutdown", "exit")
    assert cli("default interface Ethernet1/4") == ""
    assert interface_block(cli, "Ethernet1/4").splitlines() == ["interface Ethernet1/4"]
    assert "interface port-channel14" in cli("show running-config")      # the port-channel stays, without members
    assert cli("default interface port-channel14") == ""
    assert cli("default interface port-channel99").startswith("ERROR: Interface port-channel99 does not exist")


# ------------------------------------------------------------------ vPC peer status, from both switches
@pytest.fixture()
def pair():
    """Two switches of one fabric, cabled on their peer-link ports (as lab/nxos/control.py cables the lab)."""
    from nxos_fabric import End, MemoryFabric

    fabric = MemoryFabric([(End("sw-a", port), End("sw-b", port)) for port in ("Ethernet1/31", "Ethernet1/32")])
    switches = {name: fabric.add(Switch(factory_state(name, address, "admin", "$5$x"), name=name))
                for name, address in (("sw-a", "127.0.20.1"), ("sw-b", "127.0.20.2"))}

    def vpc(name: str, domain: int = 10, peer_link: bool = True, keepalive_to: str | None = None) -> None:
        peer_address = keepalive_to or ("127.0.20.2" if name == "sw-a" else "127.0.20.1")
        session = switches[name].session()
        lines = ["configure terminal", "feature lacp", "feature vpc", f"vpc domain {domain}",
                 f"peer-keepalive destination {peer_address} vrf management"]
        if peer_link:
            lines += ["interface Ethernet1/31-32", "switchport mode trunk", "channel-group 10 mode active", "no shutdown",
                      "interface port-channel10", "vpc peer-link"]
        for line in lines + ["end"]:
            assert session.execute(line) == "", line

    def status(name: str) -> dict:
        return json.loads(switches[name].session().execute("show vpc | json"))

    return {"fabric": fabric, "switches": switches, "vpc": vpc, "status": status}


def test_vpc_peer_is_ok_only_once_both_peers_agree(pair):
    pair["vpc"]("sw-a")
    alone = pair["status"]("sw-a")
    # the peer has no vPC: it does not answer keepalives, and the peer-link has no far end up
    assert (alone["vpc-peer-status"], alone["vpc-peer-keepalive-status"], alone["vpc-role"]) == \
        ("peer-link-down", "peer-not-alive", "none-established")
    assert alone["TABLE_peerlink"]["ROW_peerlink"]["peer-link-port-state"] == 0
    pair["vpc"]("sw-b")
    formed_a, formed_b = pair["status"]("sw-a"), pair["status"]("sw-b")
    assert (formed_a["vpc-peer-status"], formed_a["vpc-peer-keepalive-status"]) == ("peer-ok", "peer-alive")
    # the lower role priority wins; with the default on both, the lower system MAC decides, and only one is primary
    assert {formed_a["vpc-role"], formed_b["vpc-role"]} == {"primary", "secondary"}


def test_vpc_peer_status_follows_domain_keepalive_link_and_power(pair):
    pair["vpc"]("sw-a")
    pair["vpc"]("sw-b", domain=11)
    assert pair["status"]("sw-a")["vpc-peer-keepalive-status"] == "peer-alive-domain-mismatch"
    assert pair["status"]("sw-a")["vpc-peer-status"] == "peer-link-down"
    session = pair["switches"]["sw-b"].session()
    for line in ("configure terminal", "terminal dont-ask", "no vpc domain 11", "vpc domain 10",
                 "peer-keepalive destination 127.0.20.1 vrf management", "end"):
        session.execute(line)
    assert pair["status"]("sw-a")["vpc-peer-status"] == "peer-ok"
    for line in ("configure terminal", "interface Ethernet1/31-32", "shutdown", "end"):   # the peer-link cables go dark
        session.execute(line)
    assert (pair["status"]("sw-a")["vpc-peer-status"], pair["status"]("sw-a")["vpc-peer-keepalive-status"]) == \
        ("peer-link-down", "peer-alive")
    pair["fabric"].power_off("sw-b")
    text = pair["switches"]["sw-a"].session().execute("show vpc")
    assert "vPC keep-alive status             : Suspended (Destination IP not reachable)" in text
    assert "Peer status                       : peer link is down" in text


def test_a_switch_without_a_fabric_has_no_links_and_no_lldp_neighbours(cli):
    cli("configure terminal", "feature lldp", "interface Ethernet1/1", "no shutdown", "end")
    assert cli("show interface Ethernet1/1").splitlines()[0] == "Ethernet1/1 is down (XCVR not inserted)"
    assert cli("show lldp neighbors").splitlines()[-1] == "Total entries displayed: 0"
    cli("configure terminal", "no feature lldp", "end")
    assert cli("show lldp neighbors") == "% Invalid command at '^' marker."


def test_the_lab_cabling_comes_from_the_site_model():
    import control
    from nxos_fabric import End

    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site

    links = control.cabling(load_site(str(REPO / "inventories" / "lab")).model)
    assert (End("lab-sw-a", "Ethernet1/31"), End("lab-sw-b", "Ethernet1/31")) in links
    assert (End("lab-sw-a", "Ethernet1/1"), End("dgx01", "eth1")) in links
    assert (End("lab-sw-b", "Ethernet1/13"), End("lab-ontap-01", None)) in links
    assert len({end for link in links for end in link if end.port}) == len([end for link in links for end in link if end.port])


def test_local_users_are_configured_shown_and_removed_as_nx_os_does(cli):
    """The commands cisco.nxos's nxos_user sends (`username NAME role ROLE`, then `password 5 HASH`),
    and the output it reads back (`show user-account | json`, `show running-config | section ^username`)."""
    hashed = "$5$JFHICC$u.zXRUgprAkkYLiEns8VrhsNEIOj7FzVrn67tuJdtKB"
    assert cli("configure terminal", "username harvest role network-operator", f"username harvest password 5 {hashed}", "end") == ""
    assert cli("show running-config | section ^username").splitlines() == [
        "username admin password 5 $5$x  role network-admin", f"username harvest password 5 {hashed}  role network-operator"]
    rows = json.loads(cli("show user-account | json"))["TABLE_template"]["ROW_template"]
    assert [(row["usr_name"], row["TABLE_role"]["ROW_role"]) for row in rows] == [
        ("admin", {"role": "network-admin"}), ("harvest", {"role": "network-operator"})]
    assert cli("show user-account harvest") == "user:harvest\n        this user account has no expiry date\n        roles:network-operator "
    cli("configure terminal")
    assert cli("username harvest role superuser") == "% Invalid role superuser"
    assert cli("username harvest password 5 not-a-hash") == "% Invalid encrypted password"
    assert cli("no username admin") == "ERROR: Cannot delete the user of this session"
    cli("no username harvest", "end")
    assert "harvest" not in cli("show running-config | section ^username")
