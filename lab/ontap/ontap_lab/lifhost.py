"""Data LIFs made real: their addresses on a network namespace attached to the lab's storage bridges.

The DGX stand-ins (lab/hosts) sit on bridges the lab creates, one per storage network of the model,
with the model's MTU. This realiser gives the endpoint's data LIFs a place on those bridges: a
network namespace (``aipod-lifs-<digest of the lab dir>``) with one veth leg per bridge, carrying the address of every
data LIF in that bridge's subnet, so that a DGX can ping its LIFs with don't-fragment jumbo frames
and a LIF that ONTAP does not have does not answer.

The bridges belong to the hosts component and exist only while it is up (it describes them in
``<lab dir>/hosts/lab.json``). The realiser applies what it can at every LIF change and again every
few seconds, so LIFs appear as soon as the bridges do and come back after the bridges are re-created.
The planning is a pure function (``plan``); ``apply`` runs iproute2.
"""
from __future__ import annotations

import hashlib
import ipaddress
import json
import os
import subprocess
import sys
import threading
from dataclasses import dataclass, field

RESYNC_SECONDS = 5.0


def namespace_for(lab_dir: str) -> str:
    """One namespace per lab state directory, so a private test lab never touches the main lab's."""
    return "aipod-lifs-" + hashlib.sha256(os.path.abspath(lab_dir).encode()).hexdigest()[:6]


@dataclass(frozen=True)
class Leg:
    """One veth pair: ``host`` on the bridge, ``inside`` in the namespace with the LIF addresses."""

    bridge: str
    network: str
    mtu: int
    host: str
    inside: str
    addresses: tuple[str, ...] = field(default=())


def lif_address(lif: dict) -> str | None:
    """'a.b.c.d/len' of an ONTAP ip interface record, or None when it has no (enabled) address."""
    ip = lif.get("ip") or {}
    if not ip.get("address") or lif.get("enabled") is False:
        return None
    netmask = str(ip.get("netmask") or "32")
    return str(ipaddress.IPv4Interface(f"{ip['address']}/{netmask}"))


def leg_names(namespace: str, network: str) -> tuple[str, str]:
    """Interface names within the kernel's 15 characters, stable per lab and network."""
    digest = hashlib.sha256(f"{namespace}/{network}".encode()).hexdigest()[:6]
    return f"alif-{digest}", f"lif-{digest}"


def leg_mac(inside: str) -> str:
    """A locally administered unicast MAC derived from the leg's name."""
    digest = hashlib.sha256(inside.encode()).digest()
    return "02:" + ":".join(f"{byte:02x}" for byte in digest[:5])


def plan(lifs: list[dict], networks: dict[str, dict], namespace: str) -> tuple[list[Leg], list[str]]:
    """Legs for the bridges that hold at least one LIF address, and the addresses no bridge holds.

    ``networks`` is the hosts component's description: name -> {bridge, subnet, mtu}.
    """
    by_network: dict[str, list[str]] = {}
    homeless: list[str] = []
    for lif in lifs:
        address = lif_address(lif)
        if address is None:
            continue
        ip = ipaddress.IPv4Interface(address).ip
        home = next((name for name, network in sorted(networks.items())
                     if ip in ipaddress.IPv4Network(network["subnet"], strict=False)), None)
        if home is None:
            homeless.append(address)
        else:
            by_network.setdefault(home, []).append(address)
    legs = []
    for name in sorted(by_network):
        host, inside = leg_names(namespace, name)
        network = networks[name]
        legs.append(Leg(bridge=network["bridge"], network=name, mtu=int(network.get("mtu") or 1500),
                        host=host, inside=inside, addresses=tuple(sorted(set(by_network[name])))))
    return legs, homeless


def _ip(*args: str, namespace: str = "", check: bool = True) -> subprocess.CompletedProcess:
    command = ["ip", *(["-n", namespace] if namespace else []), *args]
    return subprocess.run(command, capture_output=True, text=True, check=check)


def _link_exists(name: str, namespace: str = "") -> bool:
    return _ip("link", "show", "dev", name, namespace=namespace, check=False).returncode == 0


def _namespace_exists(namespace: str) -> bool:
    return namespace in _ip("netns", "list", check=False).stdout.split()


def apply(legs: list[Leg], namespace: str) -> None:
    """Make the namespace hold exactly the planned legs and addresses (bridges that are absent are skipped)."""
    if not legs and not _namespace_exists(namespace):
        return
    if not _namespace_exists(namespace):
        _ip("netns", "add", namespace)
        _ip("link", "set", "dev", "lo", "up", namespace=namespace)
    wanted = {leg.inside for leg in legs if _link_exists(leg.bridge)}
    for line in _ip("-o", "link", "show", namespace=namespace).stdout.splitlines():
        name = line.split(":")[1].strip().split("@")[0]
        if name.startswith("lif-") and name not in wanted:
            _ip("link", "del", "dev", name, namespace=namespace)
    for leg in legs:
        if leg.inside not in wanted:
            continue
        if not _link_exists(leg.inside, namespace=namespace):
            if _link_exists(leg.host):
                _ip("link", "del", "dev", leg.host)
            # A fixed MAC per leg: the DGX stand-ins' ARP caches stay right when a leg is re-created
            # (a factory reset drops the LIFs, the storage layer brings them back).
            _ip("link", "add", leg.host, "mtu", str(leg.mtu), "type", "veth", "peer", "name", leg.inside,
                "address", leg_mac(leg.inside), "mtu", str(leg.mtu), "netns", namespace)
        # A re-created bridge leaves the host leg detached: attach it every time.
        _ip("link", "set", "dev", leg.host, "master", leg.bridge, "mtu", str(leg.mtu), "up")
        _ip("link", "set", "dev", leg.inside, "mtu", str(leg.mtu), "up", namespace=namespace)
        present = set()
        for entry in json.loads(_ip("-j", "-4", "addr", "show", "dev", leg.inside, namespace=namespace).stdout or "[]"):
            for info in entry.get("addr_info", []):
                present.add(f"{info['local']}/{info['prefixlen']}")
        for address in sorted(present - set(leg.addresses)):
            _ip("addr", "del", address, "dev", leg.inside, namespace=namespace)
        added = sorted(set(leg.addresses) - present)
        for address in added:
            _ip("addr", "add", address, "dev", leg.inside, namespace=namespace)
        if added:
            announce(namespace, leg.inside, [a.split("/")[0] for a in added])


# Sent from inside the namespace (Python 3.11 has no os.setns): one gratuitous ARP per address,
# as ONTAP does when a LIF comes up or moves, so neighbours' ARP caches follow at once.
_GRATUITOUS_ARP = r"""
import socket, sys
device, addresses = sys.argv[1], sys.argv[2:]
mac = bytes.fromhex(open(f"/sys/class/net/{device}/address").read().strip().replace(":", ""))
with socket.socket(socket.AF_PACKET, socket.SOCK_RAW) as s:
    s.bind((device, 0))
    for address in addresses:
        ip = socket.inet_aton(address)
        arp = b"\x00\x01\x08\x00\x06\x04\x00\x02" + mac + ip + b"\xff" * 6 + ip
        s.send(b"\xff" * 6 + mac + b"\x08\x06" + arp)
"""


def announce(namespace: str, device: str, addresses: list[str]) -> None:
    subprocess.run(["ip", "netns", "exec", namespace, sys.executable, "-c", _GRATUITOUS_ARP, device, *addresses],
                   capture_output=True, text=True, check=True)


def remove(lab_dir: str) -> None:
    """Drop the lab's namespace (its veth legs go with it)."""
    namespace = namespace_for(lab_dir)
    if _namespace_exists(namespace):
        _ip("netns", "del", namespace, check=False)


class NamespaceRealiser:
    """The endpoint's realiser: LIF addresses on the lab's storage bridges (see the module text)."""

    def __init__(self, lab_dir: str, log=print):
        self.description = os.path.join(lab_dir, "hosts", "lab.json")
        self.namespace = namespace_for(lab_dir)
        self.lifs: dict[str, dict] = {}
        self.log = log
        self.lock = threading.Lock()
        self.last: tuple | None = None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._resync_loop, name="lif-realiser", daemon=True)

    def networks(self) -> dict[str, dict]:
        try:
            with open(self.description, encoding="utf-8") as handle:
                return json.load(handle).get("networks", {})
        except (OSError, ValueError):
            return {}

    def lif_changed(self, before: dict | None, after: dict | None) -> None:
        with self.lock:
            if before is not None:
                self.lifs.pop(before.get("uuid", ""), None)
            if after is not None and after.get("scope", "svm") == "svm":
                self.lifs[after.get("uuid", "")] = after
        self.realise()

    def resync(self, lifs: list[dict]) -> None:
        with self.lock:
            self.lifs = {lif.get("uuid", ""): lif for lif in lifs}
        self.realise()
        if not self.thread.is_alive():
            self.thread.start()

    def realise(self) -> None:
        with self.lock:
            networks = self.networks()
            legs, homeless = plan(list(self.lifs.values()), networks, self.namespace)
            present = tuple((leg, _link_exists(leg.bridge)) for leg in legs)
            try:
                apply(legs, self.namespace)
            except (OSError, subprocess.CalledProcessError) as error:
                detail = getattr(error, "stderr", "") or str(error)
                self.log(f"ontap lab: could not place LIF addresses on the lab bridges: {detail.strip()}")
                return
            if present != self.last:
                self.last = present
                placed = [f"{a} on {leg.bridge}" for leg, there in present if there for a in leg.addresses]
                waiting = [a for leg, there in present if not there for a in leg.addresses] + homeless
                self.log(f"ontap lab: data LIFs in namespace {self.namespace}: {', '.join(placed) or 'none'}"
                         + (f"; not on any lab bridge (yet): {', '.join(waiting)}" if waiting else ""))

    def _resync_loop(self) -> None:
        while not self.stop.wait(RESYNC_SECONDS):
            self.realise()
