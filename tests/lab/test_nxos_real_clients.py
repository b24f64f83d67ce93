"""The lab's NX-OS endpoint against clients nobody here wrote: netmiko with ntc-templates' TextFSM
templates, and napalm's nxos_ssh driver.

ntc-templates' templates end in `^. -> Error` for many commands, so a line NX-OS would not print
fails the parse; the tests then check field values, not only that a call returned. The endpoint
runs in a thread of the test on an ephemeral port (no lab/lab, no container), as a pair of
switches in one MemoryFabric: lab-sw-a is served over SSH, lab-sw-b is its vPC peer, cabled on
the peer-link ports, so LLDP and vPC see a real neighbour. The clients are pinned test
dependencies (requirements.txt: netmiko, napalm, ntc-templates, textfsm).
"""
from __future__ import annotations

import logging
import sys
from collections.abc import Iterator

import paramiko
import pytest
from netmiko import ConnectHandler
from ntc_templates.parse import parse_output
from project_paths import REPO

sys.path.insert(0, str(REPO / "lab" / "nxos"))

from endpoint import Endpoint  # noqa: E402
from napalm import get_network_driver  # noqa: E402
from nxos_cli import Switch, factory_state  # noqa: E402
from nxos_fabric import End, MemoryFabric  # noqa: E402

# netmiko 4.8 finds ntc-templates through importlib.resources.path, deprecated in Python 3.11+
pytestmark = pytest.mark.filterwarnings("ignore:path is deprecated:DeprecationWarning")
USER, PASSWORD = "admin", "lab-nxos-client-test"
PEER_LINK = ("Ethernet1/31", "Ethernet1/32")


def configure(switch: Switch, peer_address: str, role_priority: int) -> None:
    """What switch_nxos pushes to a lab switch, typed at the CLI: VLANs, vPC and its peer-link, a DGX port."""
    session = switch.session()
    lines = ["configure terminal", "terminal dont-ask", "feature lacp", "feature vpc", "feature lldp",
             "vlan 3000", "name roce", "vlan 3111", "name storage-a",
             "vpc domain 10", f"role priority {role_priority}",
             f"peer-keepalive destination {peer_address} vrf management", "peer-gateway",
             "interface Ethernet1/31-32", "switchport mode trunk", "mtu 9216", "channel-group 10 mode active",
             "no shutdown", "interface port-channel10", "description vpc peer-link", "vpc peer-link",
             "interface Ethernet1/1", "description dgx01 eth1", "switchport access vlan 3111", "mtu 9216",
             "no shutdown",
             "interface Ethernet1/13", "description lab-ontap-01 e0e", "switchport mode trunk",
             "switchport trunk allowed vlan 3000,3111", "mtu 9216", "channel-group 11 mode active", "no shutdown",
             "interface port-channel11", "vpc 11", "end"]
    for line in lines:
        assert session.execute(line) == "", line


@pytest.fixture(scope="module")
def pod() -> Iterator[dict]:
    fabric = MemoryFabric()
    for port in PEER_LINK:
        fabric.cable(End("lab-sw-a", port), End("lab-sw-b", port))
    fabric.cable(End("lab-sw-a", "Ethernet1/1"), End("dgx01", "eth1"))
    fabric.cable(End("lab-sw-a", "Ethernet1/13"), End("lab-ontap-01", None))
    fabric.cable(End("lab-sw-b", "Ethernet1/13"), End("lab-ontap-01", None))
    switches = {}
    for name, address, serial in (("lab-sw-a", "127.0.20.1", "FOC1A2B3C4D"), ("lab-sw-b", "127.0.20.2", "FOC5E6F7A8B")):
        switches[name] = fabric.add(Switch(factory_state(name, address, USER, "$5$x"), serial=serial, name=name))
    configure(switches["lab-sw-a"], "127.0.20.2", 10)
    configure(switches["lab-sw-b"], "127.0.20.1", 20)
    logging.getLogger("paramiko").setLevel(logging.CRITICAL)
    # the lab's keys are ed25519; paramiko cannot generate those, and the clients take any host key type
    endpoint = Endpoint(switches["lab-sw-a"], paramiko.ECDSAKey.generate(), USER, PASSWORD)
    port = endpoint.start("127.0.0.1", 0)
    yield {"port": port, "switches": switches, "fabric": fabric}
    endpoint.stop()


@pytest.fixture(scope="module")
def netmiko(pod) -> Iterator:
    connection = ConnectHandler(device_type="cisco_nxos", host="127.0.0.1", port=pod["port"], username=USER,
                                password=PASSWORD, use_keys=False, allow_agent=False, timeout=20)
    yield connection
    connection.disconnect()


@pytest.fixture(scope="module")
def napalm_device(pod) -> Iterator:
    device = get_network_driver("nxos_ssh")(hostname="127.0.0.1", username=USER, password=PASSWORD, timeout=20,
                                            optional_args={"port": pod["port"], "use_keys": False, "allow_agent": False})
    device.open()
    yield device
    device.close()


def parsed(netmiko, command: str) -> list[dict]:
    rows = netmiko.send_command(command, use_textfsm=True, raise_parsing_error=True)
    assert isinstance(rows, list), f"{command}: TextFSM did not parse: {rows!r}"
    return rows


def by(rows: list[dict], key: str) -> dict[str, dict]:
    return {row[key]: row for row in rows}


# --------------------------------------------------------------------------- netmiko + ntc-templates
def test_show_version_and_inventory(netmiko):
    version = parsed(netmiko, "show version")[0]
    assert (version["os"], version["platform"], version["hostname"], version["serial"]) == \
        ("9.3(8)", "C3232C", "lab-sw-a", "FOC1A2B3C4D")
    assert version["boot_image"] == "bootflash:///nxos.9.3.8.bin" and version["last_reboot_reason"] == "Unknown"
    assert version["uptime"].endswith("second(s)")
    chassis = by(parsed(netmiko, "show inventory"), "name")["Chassis"]
    assert (chassis["pid"], chassis["sn"]) == ("N3K-C3232C", "FOC1A2B3C4D")


def test_show_interface_parses_into_full_rows(netmiko):
    rows = by(parsed(netmiko, "show interface"), "interface")
    assert len(rows) == 1 + 32 + 2                     # mgmt0, the 32 ports, port-channel10 and 11
    dgx = rows["Ethernet1/1"]
    assert (dgx["link_status"], dgx["admin_state"], dgx["description"], dgx["mtu"], dgx["mode"]) == \
        ("up", "up", "dgx01 eth1", "9216", "access")
    assert (dgx["hardware_type"], dgx["bandwidth"], dgx["duplex"], dgx["speed"]) == \
        ("40000/100000 Ethernet", "100000000 Kbit", "full-duplex", "100 Gb/s")
    assert dgx["mac_address"] == dgx["bia"] and dgx["input_packets"] == "0"
    unused = rows["Ethernet1/5"]
    assert (unused["link_status"], unused["admin_state"], unused["mtu"], unused["speed"]) == \
        ("down (Administratively down)", "down", "1500", "auto-speed")
    peer_link = rows["port-channel10"]
    assert (peer_link["link_status"], peer_link["description"], peer_link["mode"], peer_link["bandwidth"]) == \
        ("up", "vpc peer-link", "trunk", "200000000 Kbit")
    mgmt = rows["mgmt0"]
    assert (mgmt["ip_address"], mgmt["prefix_length"], mgmt["link_status"]) == ("127.0.20.1", "24", "up")
    # one interface asked by name, in any spelling NX-OS takes
    assert [row["interface"] for row in parsed(netmiko, "show interface eth1/31")] == ["Ethernet1/31"]


def test_show_interface_status_brief_description_switchport(netmiko):
    status = by(parsed(netmiko, "show interface status"), "port")
    assert status["Eth1/1"] == {"port": "Eth1/1", "name": "dgx01 eth1", "status": "connected", "vlan_id": "3111",
                                "duplex": "full", "speed": "100G", "type": "QSFP-100G-CR4"}
    assert (status["Eth1/5"]["status"], status["Eth1/5"]["vlan_id"]) == ("disabled", "1")
    assert (status["Po10"]["status"], status["Po10"]["vlan_id"], status["Po10"]["name"]) == ("connected", "trunk", "vpc peer-link")
    brief = by(parsed(netmiko, "show interface brief"), "interface")
    assert (brief["mgmt0"]["ip_address"], brief["mgmt0"]["mtu"]) == ("127.0.20.1", "1500")
    assert (brief["Eth1/13"]["mode"], brief["Eth1/13"]["status"], brief["Eth1/13"]["portch"]) == ("trunk", "up", "11")
    assert (brief["Eth1/6"]["status"], brief["Eth1/6"]["reason"]) == ("down", "Administratively down")
    assert (brief["Po11"]["protocol"], brief["Po11"]["status"], brief["Po11"]["speed"]) == ("lacp", "up", "100G(D)")
    description = by(parsed(netmiko, "show interface description"), "port")
    assert (description["Eth1/1"]["description"], description["Eth1/1"]["speed"]) == ("dgx01 eth1", "100G")
    assert description["Po10"]["description"] == "vpc peer-link"
    switchport = by(parsed(netmiko, "show interface switchport"), "interface")
    assert (switchport["Ethernet1/1"]["access_vlan"], switchport["Ethernet1/1"]["access_vlan_name"]) == ("3111", "storage-a")
    assert (switchport["port-channel11"]["mode"], switchport["port-channel11"]["trunking_vlans"]) == ("trunk", "3000,3111")
    # members report their port-channel's settings
    assert switchport["Ethernet1/13"]["trunking_vlans"] == "3000,3111"


def test_show_vlan_lists_every_member_port(netmiko):
    vlans = by(parsed(netmiko, "show vlan brief"), "vlan_id")
    assert (vlans["3111"]["vlan_name"], vlans["3111"]["status"]) == ("storage-a", "active")
    assert vlans["3111"]["interfaces"] == ["Po10", "Po11", "Eth1/1"]
    assert vlans["3000"]["interfaces"] == ["Po10", "Po11"]
    # VLAN 1 wraps over many lines; every port is kept, not one per line
    assert vlans["1"]["interfaces"][:3] == ["Po10", "Eth1/2", "Eth1/3"] and len(vlans["1"]["interfaces"]) == 1 + 28
    assert by(parsed(netmiko, "show vlan"), "vlan_id").keys() == {"1", "3000", "3111"}
    assert [(v["vlan_id"], v["vlan_name"]) for v in parsed(netmiko, "show vlan id 3000")] == [("3000", "roce")]


def test_show_lldp_neighbors_name_the_vpc_peer(netmiko):
    neighbours = parsed(netmiko, "show lldp neighbors")
    assert [(n["neighbor_name"], n["local_interface"], n["neighbor_interface"], n["capabilities"]) for n in neighbours] == \
        [("lab-sw-b", "Eth1/31", "Ethernet1/31", "BR"), ("lab-sw-b", "Eth1/32", "Ethernet1/32", "BR")]
    detail = parsed(netmiko, "show lldp neighbors detail")
    assert {(n["neighbor_name"], n["mgmt_address"], n["local_interface"], n["vlan_id"]) for n in detail} == \
        {("lab-sw-b", "127.0.20.2", "Eth1/31", "1"), ("lab-sw-b", "127.0.20.2", "Eth1/32", "1")}
    assert len({n["chassis_id"] for n in detail}) == 1 and detail[0]["capabilities"] == "B, R"


def test_show_hostname_clock_module_mac_table_and_ip_interfaces(netmiko):
    assert parsed(netmiko, "show hostname") == [{"hostname": "lab-sw-a"}]
    clock = parsed(netmiko, "show clock")[0]
    assert clock["timezone"] == "UTC" and len(clock["year"]) == 4
    module = parsed(netmiko, "show module")[0]
    assert (module["module"], module["ports"], module["model"], module["status"]) == ("1", "32", "N3K-C3232C", "active *")
    # no traffic, nothing learnt: the template reads the header and finds no row (netmiko calls that a failure)
    table = netmiko.send_command("show mac address-table")
    assert "   VLAN     MAC Address      Type      age     Secure NTFY Ports" in table.splitlines()
    assert parse_output(platform="cisco_nxos", command="show mac address-table", data=table) == []
    assert parsed(netmiko, "show ip interface brief vrf management") == [
        {"vrf": "management", "interface": "mgmt0", "ip_address": "127.0.20.1", "status": "admin-up", "link": "link-up",
         "proto": "protocol-up"}]


def test_qos_and_running_config_sections(netmiko):
    assert "policy-map type network-qos default-nq-policy" in netmiko.send_command("show policy-map system type network-qos")
    assert "Egress Queuing for Ethernet1/1 [System]" in netmiko.send_command("show queuing interface Ethernet1/1")
    assert netmiko.send_command("show running-config vlan 3111").splitlines()[-3:] == ["vlan 3111", "vlan 3111", "  name storage-a"]
    vpc = netmiko.send_command("show vpc")
    assert "Peer status                       : peer adjacency formed ok" in vpc
    assert "vPC role                          : primary" in vpc


def test_json_forms_are_structured_as_nx_os(netmiko):
    import json

    interfaces = json.loads(netmiko.send_command("show interface | json"))["TABLE_interface"]["ROW_interface"]
    row = next(r for r in interfaces if r["interface"] == "Ethernet1/1")
    assert (row["state"], row["desc"], row["eth_mtu"], row["eth_bw"], row["eth_mode"]) == ("up", "dgx01 eth1", "9216", 100000000, "access")
    vlans = json.loads(netmiko.send_command("show vlan brief | json"))["TABLE_vlanbriefxbrief"]["ROW_vlanbriefxbrief"]
    assert {(r["vlanshowbr-vlanid-utf"], r["vlanshowbr-vlanname"]) for r in vlans} == {("1", "default"), ("3000", "roce"), ("3111", "storage-a")}
    lldp = json.loads(netmiko.send_command("show lldp neighbors | json"))
    assert [(r["chassis_id"], r["l_port_id"], r["port_id"]) for r in lldp["TABLE_nbor"]["ROW_nbor"]] == \
        [("lab-sw-b", "Eth1/31", "Ethernet1/31"), ("lab-sw-b", "Eth1/32", "Ethernet1/32")]
    status = json.loads(netmiko.send_command("show interface status | json"))["TABLE_interface"]["ROW_interface"]
    assert next(r for r in status if r["interface"] == "port-channel11")["state"] == "connected"
    vpc = json.loads(netmiko.send_command("show vpc | json"))
    assert (vpc["vpc-peer-status"], vpc["vpc-peer-keepalive-status"], vpc["TABLE_vpc"]["ROW_vpc"]["vpc-port-state"]) == \
        ("peer-ok", "peer-alive", 1)


def test_configuration_with_the_no_and_default_forms(netmiko, pod):
    netmiko.send_config_set(["interface Ethernet1/7", "description old tenant", "switchport mode trunk",
                             "switchport trunk allowed vlan 3901", "mtu 9000", "no shutdown"], error_pattern=r"% |ERROR")
    assert pod["switches"]["lab-sw-a"].state["interfaces"]["Ethernet1/7"]["allowed_vlans"] == "3901"
    netmiko.send_config_set(["interface Ethernet1/7", "no description", "no mtu", "no switchport trunk allowed vlan"],
                            error_pattern=r"% |ERROR")
    rows = by(parsed(netmiko, "show interface switchport"), "interface")
    assert rows["Ethernet1/7"]["trunking_vlans"] == "1-4094"
    netmiko.send_config_set(["default interface Ethernet1/7"], error_pattern=r"% |ERROR")
    block = netmiko.send_command("show running-config interface Ethernet1/7")
    assert block.splitlines()[-1] == "interface Ethernet1/7"          # nothing left but the header


# --------------------------------------------------------------------------- napalm nxos_ssh
def test_napalm_get_facts(napalm_device):
    facts = napalm_device.get_facts()
    assert {key: facts[key] for key in ("hostname", "fqdn", "vendor", "model", "os_version", "serial_number")} == {
        "hostname": "lab-sw-a", "fqdn": "", "vendor": "Cisco", "model": "Nexus3000 C3232C Chassis",
        "os_version": "9.3(8)", "serial_number": "FOC1A2B3C4D"}
    # napalm names interfaces canonically (netutils): mgmt0 is Management0, Po10 Port-channel10
    assert facts["interface_list"][:3] == ["Management0", "Ethernet1/1", "Ethernet1/2"]
    assert facts["interface_list"][-2:] == ["Port-channel10", "Port-channel11"] and len(facts["interface_list"]) == 35
    assert facts["uptime"] >= 0


def test_napalm_get_interfaces(napalm_device):
    interfaces = napalm_device.get_interfaces()
    assert len(interfaces) == 35
    dgx = interfaces["Ethernet1/1"]
    assert (dgx["description"], dgx["is_enabled"], dgx["is_up"], dgx["mtu"], dgx["speed"]) == ("dgx01 eth1", True, True, 9216, 100000.0)
    assert dgx["mac_address"].count(":") == 5
    assert (interfaces["Ethernet1/5"]["is_enabled"], interfaces["Ethernet1/5"]["is_up"]) == (False, False)
    assert (interfaces["Port-channel10"]["description"], interfaces["Port-channel10"]["speed"]) == ("vpc peer-link", 200000.0)
    assert interfaces["Management0"]["mtu"] == 1500


def test_napalm_get_vlans(napalm_device):
    vlans = napalm_device.get_vlans()
    assert {vlan: data["name"] for vlan, data in vlans.items()} == {"1": "default", "3000": "roce", "3111": "storage-a"}
    assert vlans["3111"]["interfaces"] == ["Port-channel10", "Port-channel11", "Ethernet1/1"]
    assert len(vlans["1"]["interfaces"]) == 1 + 28


def test_napalm_get_lldp_neighbors(napalm_device):
    assert napalm_device.get_lldp_neighbors() == {
        "Ethernet1/31": [{"hostname": "lab-sw-b", "port": "Ethernet1/31"}],
        "Ethernet1/32": [{"hostname": "lab-sw-b", "port": "Ethernet1/32"}]}
    detail = napalm_device.get_lldp_neighbors_detail()["Ethernet1/31"][0]
    assert (detail["remote_system_name"], detail["remote_port"], detail["remote_system_capab"]) == \
        ("lab-sw-b", "Ethernet1/31", ["bridge", "router"])


def test_napalm_get_config(napalm_device, pod):
    config = napalm_device.get_config()
    running = config["running"].splitlines()
    # napalm drops !Command and !Time; NX-OS 9.3's "last done at" line stays, as it does on a real switch
    assert running[0].startswith("!Running configuration last done at: ")
    assert running[2] == "version 9.3(8) Bios:version 05.45" and "hostname lab-sw-a" in running
    assert "vlan 3111" in running and "  name storage-a" in running and "  vpc peer-link" in running
    assert not any(line.startswith("!Command") or line.startswith("!Time") for line in running)
    assert config["startup"] == "No startup-config present"
    assert napalm_device.get_users() == {USER: {"level": 15, "password": "$5$x", "sshkeys": []}}   # network-admin
    pod["switches"]["lab-sw-a"].session().execute("copy running-config startup-config")
    assert "  name storage-a" in napalm_device.get_config(retrieve="startup")["startup"].splitlines()
