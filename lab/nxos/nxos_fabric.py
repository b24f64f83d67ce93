"""What one lab switch can know of the rest of the lab: the cabling, and the other switches' configuration.

A real switch learns its neighbours from the wire: a link comes up when the port at the other end of
the cable is up, LLDP tells who is there, vPC peer keepalives reach the peer's address and the
peer-link forms when both ends are peer-link members. The lab has no wire, so a switch asks a
Fabric instead: which device and port each of its ports is cabled to (the lab's cabling, from the
site model), and the configuration of the switch at the other end, when that is a lab switch that
is running. From these, the functions below derive link state, LLDP neighbours and vPC peer status
the way the real protocols would, rather than reading them off the local configuration alone.

Two kinds of fabric: MemoryFabric holds Switch objects of one process (tests); DirectoryFabric reads
the other endpoints' state files and the cabling file that lab/nxos/control.py writes
(.lab/nxos/<switch>/state.json, .lab/nxos/cabling.json), since each endpoint is its own process.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from typing import Any

from nxos_cli import interface_key

CABLING_FILE = "cabling.json"
# A 3232C's QSFP28 ports run at 100G with the DACs the lab pretends are plugged in.
PORT_SPEED_MBPS = 100000
TRANSCEIVER = "QSFP-100G-CR4"


@dataclasses.dataclass(frozen=True)
class End:
    """One end of a cable: a device (a lab switch, DGX or ONTAP node by inventory name) and its port."""
    device: str
    port: str | None = None      # None: a member of a bundle whose physical port the model does not name


@dataclasses.dataclass(frozen=True)
class Link:
    """The operational state of one port, as `show interface` reports it."""
    up: bool
    reason: str                  # NX-OS's reason text: "none" when up
    far: End | None = None       # what the port is cabled to
    transceiver: bool = False    # a cable (and so a transceiver) is plugged in


def system_mac(device: str) -> str:
    """A stable, unicast base MAC for a lab switch, in NX-OS's dotted form."""
    digest = bytearray(hashlib.sha256(device.encode()).digest()[:6])
    digest[0] &= 0xFC            # unicast, globally administered, like a vendor's
    digest[5] = 0                # the base: port MACs count up from here
    return mac_text(bytes(digest))


def port_mac(device: str, index: int) -> str:
    base = bytes.fromhex(system_mac(device).replace(".", ""))
    return mac_text(base[:5] + bytes([index & 0xFF]))


def mac_text(raw: bytes) -> str:
    text = raw.hex()
    return f"{text[0:4]}.{text[4:8]}.{text[8:12]}"


class Fabric:
    """Cabling plus a view of the lab's switches; subclasses say where the switches' configuration lives."""

    def __init__(self, links: list[tuple[End, End]] | None = None):
        self._far: dict[tuple[str, str], End] = {}
        for a, b in links or []:
            self.cable(a, b)

    def cable(self, a: End, b: End) -> None:
        if a.port:
            self._far[(a.device, a.port)] = b
        if b.port:
            self._far[(b.device, b.port)] = a

    def far_end(self, device: str, port: str) -> End | None:
        return self._far.get((device, port))

    def switch_state(self, device: str) -> dict | None:
        """The running configuration of a lab switch that is up, None for anything else."""
        raise NotImplementedError

    def switch_names(self) -> list[str]:
        """Every lab switch, running or not."""
        raise NotImplementedError

    def switch_at(self, address: str) -> tuple[str, dict] | None:
        """The running lab switch whose mgmt0 has this address: where a vPC keepalive to it arrives."""
        for name in self.switch_names():
            state = self.switch_state(name)
            if state and mgmt_address(state) == address:
                return name, state
        return None


class MemoryFabric(Fabric):
    """Switches of this process (tests): `add` them, `cable` their ports, `power_off` one to stop it."""

    def __init__(self, links: list[tuple[End, End]] | None = None):
        super().__init__(links)
        self.switches: dict[str, Any] = {}
        self.powered_off: set[str] = set()

    def add(self, switch: Any) -> Any:
        self.switches[switch.name] = switch
        switch.fabric = self
        return switch

    def power_off(self, device: str) -> None:
        self.powered_off.add(device)

    def switch_state(self, device: str) -> dict | None:
        switch = self.switches.get(device)
        return switch.state if switch and device not in self.powered_off else None

    def switch_names(self) -> list[str]:
        return sorted(self.switches)


class DirectoryFabric(Fabric):
    """The lab's endpoints, one process each: their state files under root, the cabling in root/cabling.json.

    A switch counts as up while the pid in root/<switch>/pid (written by control.py) is a live process."""

    def __init__(self, root: str):
        super().__init__(read_cabling(os.path.join(root, CABLING_FILE)))
        self.root = root

    def switch_names(self) -> list[str]:
        try:
            entries = sorted(os.listdir(self.root))
        except OSError:
            return []
        return [entry for entry in entries if os.path.isfile(os.path.join(self.root, entry, "state.json"))]

    def switch_state(self, device: str) -> dict | None:
        directory = os.path.join(self.root, device)
        if not _process_alive(os.path.join(directory, "pid")):
            return None
        try:
            with open(os.path.join(directory, "state.json"), encoding="utf-8") as handle:
                state = json.load(handle)   # written with os.replace: never half a file
        except (OSError, ValueError):
            return None
        state.pop("startup", None)
        return state


def _process_alive(pid_file: str) -> bool:
    try:
        with open(pid_file, encoding="utf-8") as handle:
            os.kill(int(handle.read().strip()), 0)
        return True
    except (OSError, ValueError):
        return False


def read_cabling(path: str) -> list[tuple[End, End]]:
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    return [(End(**link["a"]), End(**link["b"])) for link in data.get("links", [])]


def write_cabling(path: str, links: list[tuple[End, End]]) -> None:
    data = {"links": [{"a": dataclasses.asdict(a), "b": dataclasses.asdict(b)} for a, b in links]}
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1)
    os.replace(temporary, path)


def mgmt_address(state: dict) -> str | None:
    address = state.get("interfaces", {}).get("mgmt0", {}).get("ip_address")
    return address.split("/")[0] if address else None


# ------------------------------------------------------------------------------------- links
def link(switch: Any, name: str) -> Link:
    """Operational state of one of the switch's interfaces."""
    settings = switch.state["interfaces"][name]
    if settings.get("shutdown"):
        far = switch.fabric.far_end(switch.name, name) if switch.fabric and name.startswith("Ethernet") else None
        return Link(False, "Administratively down", far, far is not None)
    if name == "mgmt0":
        return Link(True, "none")
    if name.startswith("port-channel"):
        members = switch.members_of(int(name[len("port-channel"):]))
        if any(link(switch, member).up for member in members):
            return Link(True, "none")
        return Link(False, "No operational members")
    far = switch.fabric.far_end(switch.name, name) if switch.fabric else None
    if far is None:
        return Link(False, "XCVR not inserted")
    if far.device in switch.fabric.switch_names():
        # another lab switch: the link is up only while that switch runs and its port is up too
        state = switch.fabric.switch_state(far.device)
        far_settings = (state or {}).get("interfaces", {}).get(far.port or "", {})
        if not state or far_settings.get("shutdown", True):
            return Link(False, "Link not connected", far, True)
    # a DGX or ONTAP port: the lab does not emulate those NICs and takes them as up
    return Link(True, "none", far, True)


def speed_mbps(settings: dict, up: bool) -> int | None:
    """The port's speed when up: its configured `speed`, else the 3232C's 100G."""
    if not up:
        return None
    configured = settings.get("speed")
    return int(configured) if configured and str(configured).isdigit() else PORT_SPEED_MBPS


# ------------------------------------------------------------------------------------- LLDP
def lldp_neighbours(switch: Any) -> list[dict]:
    """What LLDP would have learnt on each port: only lab switches run an LLDP agent the lab emulates
    (DGX and ONTAP ports show no neighbour), and both ends need `feature lldp` and an up link."""
    if not switch.feature_enabled("lldp") or switch.fabric is None:
        return []
    result = []
    for name in sorted(switch.state["interfaces"], key=interface_key):
        if not name.startswith("Ethernet"):
            continue
        state_of_port = link(switch, name)
        far = state_of_port.far
        if not state_of_port.up or far is None or far.port is None:
            continue
        peer = switch.fabric.switch_state(far.device)
        if not peer or "lldp" not in peer.get("features", []):
            continue
        peer_port = peer["interfaces"].get(far.port, {})
        result.append({
            "local_port": name,
            "chassis_id": system_mac(far.device),
            "system_name": peer["hostname"],
            "port_id": far.port,
            "port_description": peer_port.get("description"),
            "mgmt_address": mgmt_address(peer),
            # the port VLAN id TLV: the access VLAN, or the native VLAN of a trunk
            "vlan_id": peer_port.get("access_vlan", 1) if peer_port.get("mode", "access") == "access"
            else peer_port.get("native_vlan", 1),
        })
    return result


# ------------------------------------------------------------------------------------- vPC
@dataclasses.dataclass
class VpcStatus:
    keepalive: str               # alive | not-alive | unreachable | not-configured | domain-mismatch
    peer_link_up: bool
    peer_ok: bool
    role: str                    # primary | secondary | none-established
    peer: tuple[str, dict] | None = None


def vpc_status(switch: Any) -> VpcStatus:
    """vPC peer status from both switches' configuration: keepalive, domain id and peer-link must agree,
    as they must for NX-OS to form the adjacency."""
    state = switch.state
    domain = state.get("vpc_domain")
    keepalive_line = (domain or {}).get("lines", {}).get("peer-keepalive")
    if not domain or not keepalive_line:
        return VpcStatus("not-configured", False, False, "none-established")
    destination = keepalive_line.split()[2]
    peer = switch.fabric.switch_at(destination) if switch.fabric else None
    if peer is None:
        return VpcStatus("unreachable", False, False, "none-established")
    peer_name, peer_state = peer
    peer_domain = peer_state.get("vpc_domain") if "vpc" in peer_state.get("features", []) else None
    peer_keepalive = (peer_domain or {}).get("lines", {}).get("peer-keepalive", "")
    # the peer answers keepalives only when its own keepalive is aimed back at this switch
    own_address = mgmt_address(state)
    if not peer_domain or len(peer_keepalive.split()) < 3 or peer_keepalive.split()[2] != own_address:
        return VpcStatus("not-alive", False, False, "none-established", peer)
    if peer_domain["id"] != domain["id"]:
        return VpcStatus("domain-mismatch", False, False, "none-established", peer)
    peer_link_up = _peer_link_up(switch, peer_name, peer_state)
    if not peer_link_up:
        return VpcStatus("alive", False, False, "none-established", peer)
    mine = (_role_priority(domain), system_mac(switch.name))
    theirs = (_role_priority(peer_domain), system_mac(peer_name))
    return VpcStatus("alive", True, True, "primary" if mine < theirs else "secondary", peer)


def _role_priority(domain: dict) -> int:
    return int(domain.get("lines", {}).get("role priority", "role priority 32667").split()[-1])


def _peer_link_up(switch: Any, peer_name: str, peer_state: dict) -> bool:
    """Up when an up member of this switch's peer-link is cabled to a member of the peer's peer-link."""
    interfaces = switch.state["interfaces"]
    local = next((name for name, s in interfaces.items() if s.get("vpc") == "peer-link"), None)
    remote = next((name for name, s in peer_state["interfaces"].items() if s.get("vpc") == "peer-link"), None)
    if local is None or remote is None or interfaces[local].get("shutdown") or peer_state["interfaces"][remote].get("shutdown"):
        return False
    remote_members = {name for name, s in peer_state["interfaces"].items()
                      if s.get("channel_group") and f"port-channel{s['channel_group'][0]}" == remote}
    for member in switch.members_of(int(local[len("port-channel"):])):
        state_of_member = link(switch, member)
        if state_of_member.up and state_of_member.far and state_of_member.far.device == peer_name \
                and state_of_member.far.port in remote_members:
            return True
    return False
