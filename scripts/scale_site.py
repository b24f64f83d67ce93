#!/usr/bin/env python3
"""Write a copy of an inventory grown to N DGX: for benchmarks, larger lab pods and samples.

    scripts/scale_site.py inventories/sample 256 /tmp/sample-256
    scripts/scale_site.py inventories/lab 16 .lab/inventories/lab-16 --ha-pairs 1

What grows, from the base inventory's first DGX, its first two ONTAP nodes and its first switch pair:

- DGX: the first DGX's host_vars for every DGX, its addresses at the next offsets of each network
  (--dgx-model and --gpu-model change the system the copies declare).
- ONTAP HA pairs: as many as the GPUs' demand needs at the platform's figure (the sizing's table
  or pod.sizing.platform_limit_mb_s), never fewer than the base has (--ha-pairs fixes the count).
  A new node copies the first (odd) or second (even) node: ports, aggregates, interface groups,
  broadcast-domain ports, SVM aggregates, explicit data LIFs, intercluster LIFs and its switch ports.
- Switch pairs: leaf pairs as the switch model's front-panel ports require (the validator's port
  maps), each HA pair on one leaf pair and the DGX filling the rest in order; two leaf pairs are
  joined back to back, more by a spine pair, each by an uplink port-channel. Hosts the first pair
  serves besides the DGX and ONTAP (control-plane servers) stay on it.
  --storage-leaf puts the HA pairs on leaf pairs of their own (DGX SuperPOD's storage leaves),
  --spine joins even two leaf pairs through a spine pair, --uplink-members sets each leaf switch's
  uplink ports, and --breakout L cables DGX and ONTAP ports to breakout ports (L of them from each
  front-panel port: swpNs0.. on Cumulus, Ethernet1/N/1.. on NX-OS), one function per port: every
  DGX's first port, then every DGX's second, and the same for the ONTAP nodes, so that the lanes of
  one port lead to different hosts. Peer links and uplinks keep whole ports. Without these options
  the copy keeps the base's layout (storage leaves, spine, breakout lanes and uplink ports as the
  base has them).
- Networks: a network too small for its addresses grows (a shorter prefix), moving to a free block
  of the new size when the old one would overlap another, and every address in it moves along.
  Data LIFs move above the DGX addresses when those would reach them.

--overlay FILE lays settings over the copy before it grows: a YAML mapping of inventory files
(group_vars/... or host_vars/..., relative to the inventory) to the settings to merge into each.
Mappings merge key by key, a null removes a key, anything else (lists included) replaces what the
base has. A network whose subnet the overlay changes takes the base's addresses in it along, at
the same offsets. A file the overlay touches is written anew (its comments are not kept).

Pod-wide files are copied; the relative paths they hold (a CA file, a kubeconfig) are rewritten so
they still name the same files from the copy's place. The result validates (tests/unit/test_scale_site.py).
"""
from __future__ import annotations

import argparse
import copy
import ipaddress
import json
import math
import os
import re
import shutil
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import platforms  # noqa: E402
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as site_model  # noqa: E402

MODELINE = "# yaml-language-server: $schema=../../../ansible_collections/ontap_ai/pod/schemas/host.schema.json\n"
DGX_NAME = re.compile(r"^dgx\d+$")
ADDRESS = re.compile(r"(?<![\d.])(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})(/\d{1,2})?(?![\d.])")
# Keys of the model whose values are paths relative to the inventory directory.
RELATIVE_PATH_LINE = re.compile(r"^(?P<lead>\s*(?:ca_file|kubeconfig):\s*)(?P<path>\.\.?/\S+)\s*$", re.MULTILINE)
ONTAP_MAX_HA_PAIRS = 12  # an ONTAP cluster serving NAS: 24 nodes
UPLINK_CHANNEL = 90  # a leaf pair's uplink port-channel; the spine's to leaf k is UPLINK_CHANNEL + k
LIF_ALIGN = 16
OVERLAY_FILE = re.compile(r"^(group_vars|host_vars)(/[A-Za-z0-9_.-]+)+\.ya?ml$")
LANE = {"cumulus": re.compile(r"^(swp\d+)s(\d+)$"), "nxos": re.compile(r"^(Ethernet\d+/\d+)/(\d+)$")}


class ScaleError(Exception):
    """The base inventory cannot grow as asked; the message says why."""


# ----------------------------------------------------------------------------- files
class _Dumper(yaml.SafeDumper):
    """Sequences indented under their key, as yamllint (and the hand-written inventories) want them;
    a short list or map on one line in flow style, a long one in block style (never wrapped)."""

    def increase_indent(self, flow: bool = False, indentless: bool = False):
        return super().increase_indent(flow, False)


def _short(data) -> bool:
    return len(json.dumps(data, default=str)) <= 100


_Dumper.add_representer(list, lambda dumper, data: dumper.represent_sequence(
    "tag:yaml.org,2002:seq", data, flow_style=_short(data)))
_Dumper.add_representer(dict, lambda dumper, data: dumper.represent_mapping(
    "tag:yaml.org,2002:map", data, flow_style=_short(data)))


def _load(path: str):
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _dump(path: str, data, note: str, modeline: bool = False) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("---\n" + (MODELINE if modeline else "") + f"# {note}\n")
        # Lists and maps of plain values in flow style, as the hand-written inventories have them.
        yaml.dump(data, handle, Dumper=_Dumper, sort_keys=False, width=1000)


def _yaml_files(directory: str) -> list[str]:
    found = []
    for parent, _dirs, files in os.walk(directory):
        found += [os.path.join(parent, name) for name in sorted(files) if name.endswith((".yml", ".yaml"))]
    return found


def _rebase_paths(base: str, output: str) -> None:
    """Relative paths in the copied group_vars point where they pointed from the base inventory."""
    for path in _yaml_files(os.path.join(output, "group_vars")):
        with open(path, encoding="utf-8") as handle:
            text = handle.read()

        def rebase(match: re.Match) -> str:
            target = os.path.normpath(os.path.join(os.path.abspath(base), match["path"]))
            return match["lead"] + os.path.relpath(target, os.path.abspath(output))

        rebased = RELATIVE_PATH_LINE.sub(rebase, text)
        if rebased != text:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(rebased)


# ----------------------------------------------------------------------------- overlay
def _merge(base, overlay):
    """The overlay over the base: mappings merge key by key (a null removes the key), anything else replaces."""
    if isinstance(base, dict) and isinstance(overlay, dict):
        merged = dict(base)
        for key, value in overlay.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = _merge(base.get(key), value)
        return merged
    return copy.deepcopy(overlay)


def _subnets(data) -> dict[str, ipaddress.IPv4Network]:
    networks = data.get("networks") if isinstance(data, dict) else None
    found = {}
    for network in networks if isinstance(networks, list) else []:
        try:
            found[network["name"]] = ipaddress.IPv4Network(network["subnet"])
        except (KeyError, TypeError, ValueError):
            continue
    return found


def _apply_overlay(output: str, overlay_path: str, note: str) -> None:
    """Merge the overlay's settings into the copy (see the module's docstring)."""
    try:
        overlay = _load(overlay_path)
    except OSError as error:
        raise ScaleError(f"--overlay {overlay_path}: {error.strerror}") from error
    if not isinstance(overlay, dict) or not overlay:
        raise ScaleError(f"--overlay {overlay_path}: not a mapping of inventory files to settings")
    targets = {}
    for key, value in overlay.items():
        if not isinstance(key, str) or not OVERLAY_FILE.match(key) or ".." in key.split("/") or not isinstance(value, dict):
            raise ScaleError(f"--overlay {overlay_path}: {key!r} is not a group_vars/ or host_vars/ YAML file "
                             "of the inventory with a mapping of settings")
        path = os.path.join(output, key)
        text = ""
        if os.path.exists(path):
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        if text.lstrip().startswith("$ANSIBLE_VAULT"):
            raise ScaleError(f"--overlay {overlay_path}: {key} is encrypted with ansible-vault; edit it with ansible-vault")
        targets[key] = (path, yaml.safe_load(text) if text else {})
    # Networks whose subnet the overlay changes: every address of the base in them moves first.
    moves = {}
    for key, value in overlay.items():
        if "networks" in value:
            old, new = _subnets(targets[key][1]), _subnets(value)
            moves.update({name: (old[name], new[name]) for name in old.keys() & new.keys() if old[name] != new[name]})
    if moves:
        for path in _yaml_files(output):
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            if _translate(text, moves) != text:
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write(_translate(text, moves))
        targets = {key: (path, _load(path) or {} if os.path.exists(path) else {}) for key, (path, _data) in targets.items()}
    for key, (path, data) in targets.items():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        _dump(path, _merge(data if isinstance(data, dict) else {}, overlay[key]), note, modeline=key.startswith("host_vars/"))


# ----------------------------------------------------------------------------- addresses
class Network:
    """One network of the model, its addresses kept as offsets until its final size is known."""

    def __init__(self, name: str, subnet: ipaddress.IPv4Network):
        self.name, self.old = name, subnet
        self.used: set[int] = set()
        self.blocks: list[tuple[int, int]] = []  # [start, end) offsets reserved for DGX and LIFs

    def offset(self, address: str) -> int | None:
        value = ipaddress.IPv4Address(address)
        return int(value) - int(self.old.network_address) if value in self.old else None

    def free(self, offset: int) -> bool:
        return offset not in self.used and not any(start <= offset < end for start, end in self.blocks)

    def take_after(self, offset: int) -> int:
        while not self.free(offset):
            offset += 1
        self.used.add(offset)
        return offset

    def needed_prefix(self) -> int:
        top = max([*self.used, *(end - 1 for _start, end in self.blocks), 0])
        prefix = self.old.prefixlen
        while prefix > 8 and 2 ** (32 - prefix) - 1 <= top:
            prefix -= 1
        return prefix


def _place_networks(networks: dict[str, Network]) -> dict[str, ipaddress.IPv4Network]:
    """Each network's final subnet: as it was if big enough, else the first block of the needed size
    at or after its old address that overlaps no other network."""
    final: dict[str, ipaddress.IPv4Network] = {}
    for name, network in networks.items():
        prefix = network.needed_prefix()
        if prefix == network.old.prefixlen:
            final[name] = network.old
    for name, network in networks.items():
        if name in final:
            continue
        size = 2 ** (32 - network.needed_prefix())
        start = int(network.old.network_address) // size * size
        # Neither another network's block nor any old block: an address moved into the new block can
        # then never be taken for one still to move.
        others = [n for other, n in final.items() if other != name] + [n.old for other, n in networks.items() if other != name]
        while True:
            candidate = ipaddress.IPv4Network((start, network.needed_prefix()))
            if not any(candidate.overlaps(other) for other in others):
                break
            start += size
        final[name] = candidate
    return final


def _translate(text: str, moves: dict[str, tuple[ipaddress.IPv4Network, ipaddress.IPv4Network]]) -> str:
    """Every address (and the subnet) of a moved network, moved to the same offset in its new block."""
    def move(match: re.Match) -> str:
        try:
            address = ipaddress.IPv4Address(match[1])
        except ValueError:
            return match[0]
        for old, new in moves.values():
            if match[2] and ipaddress.IPv4Network(match[0], strict=False) == old:
                return str(new)
            if not match[2] and address in old:
                return str(ipaddress.IPv4Address(int(new.network_address) + int(address) - int(old.network_address)))
        return match[0]

    return ADDRESS.sub(move, text)


# ----------------------------------------------------------------------------- sizing
def _ha_pairs_for(model: dict, dgx_count: int, gpus_per_dgx: int, base_pairs: int) -> int:
    """The HA pairs the GPUs' demand needs, by the sizing's own figures (model: pod and ontap)."""
    per_pair = site_model.ha_pair_limit_mb_s(model)
    if not per_pair:
        return base_pairs
    wanted = math.ceil(dgx_count * gpus_per_dgx * site_model.gpu_ingest_mb_s(model) / per_pair)
    return max(base_pairs, min(wanted, ONTAP_MAX_HA_PAIRS))


# ----------------------------------------------------------------------------- switches
def _stem(name: str) -> str:
    """n3232c-a -> n3232c; leaf-1a -> leaf (a pair this script named)."""
    return re.sub(r"[-_]?(\d+)?[a-z]$", "", name) or name


def _leads_to(entry: dict, key: str, value: str) -> bool:
    return (entry.get("connects_to") or {}).get(key) == value


def _retarget(entry: dict, key: str, value: str, members: list[str] | None, channel_id: int | None) -> dict:
    entry = copy.deepcopy(entry)
    entry["connects_to"][key] = value
    entry.pop("description", None)
    if members is not None:
        entry["members"] = members
    if channel_id is not None:
        entry["id"] = channel_id
        entry.pop("vpc", None)
    return entry


def _whole(platform: str, port: str) -> str:
    """The front-panel port a breakout port belongs to (swp3s1 -> swp3, Ethernet1/3/2 -> Ethernet1/3); others as given."""
    match = LANE.get(platform, re.compile("^$")).match(port)
    return match[1] if match else port


def _lanes(platform: str, ports: list[str], lanes: int) -> list[str]:
    """The breakout ports of each port in turn (NVUE numbers them from 0, NX-OS from 1); the ports themselves for 1 lane."""
    if lanes <= 1:
        return list(ports)
    first = 0 if platform == "cumulus" else 1
    return [f"{port}s{lane}" if platform == "cumulus" else f"{port}/{lane}" for port in ports for lane in range(first, first + lanes)]


def _lane_count(platform: str, names: list[str]) -> int | None:
    """The breakout lanes the base's host ports use (the highest lane seen); None when they use whole ports."""
    counts = [int(match[2]) + (1 if platform == "cumulus" else 0) for match in (LANE.get(platform, re.compile("^$")).match(n) for n in names) if match]
    return max(counts) if counts else None


class Side:
    """One switch position of a pair (the template's first or second switch) and what each unit takes on it:
    the DGX's and the kept hosts' entries from the template, the ONTAP nodes' from node_template (the
    same position of the pair the base cables its first nodes to: the template, or its storage leaf)."""

    def __init__(self, template: dict, dgx: str, nodes: list[str], node_template: dict | None = None):
        self.template = template
        node_template = template if node_template is None else node_template
        self.dgx_ports = [p for p in template.get("ports", []) if _leads_to(p, "host", dgx)]
        self.dgx_channels = [c for c in template.get("port_channels", []) if _leads_to(c, "host", dgx)]
        self.node_ports = {n: [p for p in node_template.get("ports", []) if _leads_to(p, "ontap_node", n)] for n in nodes}
        self.node_channels = {n: [c for c in node_template.get("port_channels", []) if _leads_to(c, "ontap_node", n)] for n in nodes}
        # What stays on the first pair: ports to hosts other than the DGX (control-plane servers).
        # DGX, ONTAP nodes and uplinks are all placed anew.
        def kept(entry: dict) -> bool:
            target = entry.get("connects_to") or {}
            return "host" in target and not DGX_NAME.match(str(target["host"])) and target["host"] != dgx

        self.kept_ports = [p for p in template.get("ports", []) if kept(p)]
        self.kept_channels = [c for c in template.get("port_channels", []) if kept(c)]

    def dgx_width(self) -> int:
        return len(self.dgx_ports) + sum(len(c["members"]) for c in self.dgx_channels)

    def node_width(self, node: str) -> int:
        return len(self.node_ports[node]) + sum(len(c["members"]) for c in self.node_channels[node])


def _renumber(name: str, number: int, taken: set[str]) -> str:
    """A copied object's name for node number: its trailing number replaced (vlan31-01 -> vlan31-03,
    inband_lif1 -> inband_lif3), else the number appended; never a name already taken."""
    match = re.search(r"\d+$", name)
    renamed = f"{name[:match.start()]}{number:0{len(match[0])}d}" if match else f"{name}_{number:02d}"
    return renamed if renamed not in taken else f"{name}_{number:02d}"


def _set_system(dgx: dict, dgx_model: str | None, gpu_model: str | None) -> None:
    """The template DGX as another system: dgx.model (with the GPU count a known model has) and gpus.model."""
    if dgx_model is None and gpu_model is None:
        return
    system = site_model.dgx_system(dgx_model) if dgx_model is not None else None
    if dgx_model is not None:
        dgx["model"] = dgx_model
    gpus = dgx.get("gpus")
    if system and isinstance(gpus, dict):
        gpus["count"] = system[1]
    if gpu_model is not None:
        if not isinstance(gpus, dict):
            if not system:
                raise ScaleError(f"--gpu-model {gpu_model}: the template DGX declares no gpus and its model no GPU count; give --dgx-model")
            dgx["gpus"] = gpus = {"count": system[1]}
        gpus["model"] = gpu_model
    system = site_model.dgx_system(dgx.get("model"))
    generation = site_model.gpu_generation((dgx.get("gpus") or {}).get("model"))
    if system and generation and generation not in system[2]:
        raise ScaleError(f"a {system[0]} has {'/'.join(system[2])} GPUs, but gpus.model is {dgx['gpus']['model']!r}: "
                         "give --gpu-model as nvidia-smi names the GPU")


def scale(base: str, count: int, output: str, ha_pairs: int | None = None, switch_model: str | None = None,
          pod_name: str | None = None, description: str | None = None, switch_stem: str | None = None,
          overlay: str | None = None, dgx_model: str | None = None, gpu_model: str | None = None,
          breakout: int | None = None, storage_leaf: bool | None = None, spine: bool | None = None,
          uplink_members: int | None = None) -> str:
    """Create output from base with count DGX; returns the output directory.

    switch_model replaces the switches' model (same platform; the peer link moves to the last
    ports); pod_name and description replace pod.name and pod.description; switch_stem names every
    switch STEM-<leaf>a/b and STEM-spine-a/b (default: the first pair keeps its names). overlay,
    dgx_model, gpu_model, breakout, storage_leaf, spine and uplink_members: see the module's
    docstring (None: as the base has it).
    """
    if count < 1:
        raise ValueError("count must be at least 1")
    if os.path.abspath(output) == os.path.abspath(base):
        raise ValueError("output must differ from the base inventory")
    if breakout is not None and breakout < 1:
        raise ScaleError(f"--breakout {breakout}: a port breaks out into one or more ports")
    if uplink_members is not None and uplink_members < 1:
        raise ScaleError(f"--uplink-members {uplink_members}: an uplink has at least one port on each switch")
    if os.path.exists(output):
        shutil.rmtree(output)
    shutil.copytree(base, output)
    _rebase_paths(base, output)
    if overlay is not None:
        _apply_overlay(output, overlay, f"generated by scripts/scale_site.py: {base} with the settings of {overlay}")
    host_vars = os.path.join(output, "host_vars")
    hosts_path = os.path.join(output, "hosts.yml")
    inventory = _load(hosts_path)
    children = inventory["all"]["children"]
    switch_names = list((children.get("switches") or {}).get("hosts") or {})
    raw = {name: _load(os.path.join(host_vars, f"{name}.yml")) or {} for name in switch_names}
    first = switch_names[0]
    peer = raw[first]["switch"].get("vpc", {}).get("peer")
    if peer not in raw:
        raise ScaleError(f"{first} has no vPC/MLAG peer in the base inventory: nothing to grow into pairs")
    template_pair = (first, peer)
    ontap_path = os.path.join(output, "group_vars", "all", "ontap.yml")
    ontap_file = _load(ontap_path)
    ontap = ontap_file["ontap"]
    base_nodes = [node["name"] for node in ontap["nodes"]]
    if len(base_nodes) < 2:
        raise ScaleError("the base inventory's ONTAP cluster has fewer than two nodes: no HA pair to copy")
    networks_path = os.path.join(output, "group_vars", "all", "networks.yml")
    networks_file = _load(networks_path)
    networks = {n["name"]: Network(n["name"], ipaddress.IPv4Network(n["subnet"])) for n in networks_file["networks"]}
    pod_path = os.path.join(output, "group_vars", "all", "pod.yml")
    with open(pod_path, encoding="utf-8") as handle:
        pod_text = handle.read()
    for key, value in (("name", pod_name), ("description", description)):
        if value is not None:
            pod_text = re.sub(rf"(?m)^(  {key}:).*$", lambda match, value=value: f"{match[1]} {json.dumps(value)}", pod_text, count=1)
    with open(pod_path, "w", encoding="utf-8") as handle:
        handle.write(pod_text)
    pod = yaml.safe_load(pod_text) or {}
    base_dgx = sorted(((children.get("dgx") or {}).get("hosts") or {}), key=site_model.natural_key)
    if not base_dgx:
        raise ScaleError("the base inventory has no host in group dgx to copy")
    template_dgx = base_dgx[0]
    # The copy's, not the base's: the overlay may have changed it.
    template = _load(os.path.join(host_vars, f"{template_dgx}.yml"))
    _set_system(template["dgx"], dgx_model, gpu_model)
    gpus = site_model.dgx_gpu_count(template["dgx"])
    base_pairs = (len(base_nodes) + 1) // 2
    if ha_pairs is not None and not base_pairs <= ha_pairs <= ONTAP_MAX_HA_PAIRS:
        raise ScaleError(f"--ha-pairs {ha_pairs}: between the base's {base_pairs} and {ONTAP_MAX_HA_PAIRS} (24 nodes, ONTAP's NAS limit)")
    pairs = ha_pairs if ha_pairs is not None else _ha_pairs_for({"pod": pod.get("pod"), "ontap": ontap}, count, gpus, base_pairs)
    node_count = max(len(base_nodes), 2 * pairs)
    node_prefix = re.sub(r"\d+$", "", base_nodes[0])
    nodes = base_nodes + [f"{node_prefix}{index + 1:02d}" for index in range(len(base_nodes), node_count)]

    def network_of(address: str) -> Network | None:
        return next((n for n in networks.values() if n.offset(address) is not None), None)

    # Addresses in use: everything the copy holds but the DGX other than the template, and data LIF
    # first addresses (their ranges are placed below).
    first_addresses = {name: address for svm in ontap.get("svms", [])
                       for name, address in ((svm.get("data_lifs") or {}).get("first_address") or {}).items()}
    for path in _yaml_files(output):
        name = os.path.splitext(os.path.basename(path))[0]
        if os.path.dirname(path) == host_vars and DGX_NAME.match(name) and name != template_dgx:
            continue
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        for match in ADDRESS.finditer(text):
            if match[2] or match[1] in first_addresses.values():
                continue
            try:
                network = network_of(match[1])
            except ValueError:
                continue
            if network:
                network.used.add(network.offset(match[1]))

    # The DGX blocks, then the LIF blocks above them where they would collide.
    dgx_addresses = [(("mgmt_address",), template["dgx"]["mgmt_address"])]
    if template["dgx"].get("inband", {}).get("address"):
        dgx_addresses.append((("inband", "address"), template["dgx"]["inband"]["address"]))
    for key in ("storage_nics", "storage_bonds"):
        for index, nic in enumerate(template["dgx"].get(key, [])):
            dgx_addresses.append(((key, index, "address"), nic["address"]))
    dgx_offsets = {}
    for key, address in dgx_addresses:
        network = network_of(address)
        if network is None:
            continue
        start = network.offset(address)
        network.used.discard(start)
        network.blocks.append((start, start + count))
        dgx_offsets[key] = (network, start)
    lif_ports = {}
    for domain in ontap.get("broadcast_domains", []):
        per_node = sum(1 for entry in domain.get("ports", []) if entry.split(":", 1)[0] == base_nodes[0])
        lif_ports[domain.get("network")] = per_node
    lif_moves = {}
    for svm in ontap.get("svms", []):
        spec = svm.get("data_lifs") or {}
        for name, address in (spec.get("first_address") or {}).items():
            network = networks.get(name)
            if network is None or network.offset(address) is None:
                continue
            width = lif_ports.get(name, 1) * node_count * int(spec.get("per_port", 1))
            start = network.offset(address)
            if any(start < end and begin < start + width for begin, end in network.blocks):
                start = math.ceil(max(end for _begin, end in network.blocks) / LIF_ALIGN) * LIF_ALIGN
            network.blocks.append((start, start + width))
            lif_moves[(svm["name"], name)] = start

    # ONTAP nodes.
    node_mgmt = {}
    explicit_lifs = {}
    intercluster = {}
    for index, name in enumerate(nodes[len(base_nodes):], start=len(base_nodes)):
        source = ontap["nodes"][index % 2]
        network = network_of(source["mgmt_address"])
        node = copy.deepcopy(source)
        node["name"] = name
        node_mgmt[name] = (network, network.take_after(network.offset(source["mgmt_address"]))) if network else None
        for aggregate in node.get("aggregates", []):
            renamed = aggregate["name"].replace(source["name"].replace("-", "_"), name.replace("-", "_"))
            aggregate["name"] = renamed if renamed != aggregate["name"] else f"{aggregate['name']}_{index + 1:02d}"
        ontap["nodes"].append(node)
        # Intercluster LIFs: the source node's, for this node, each at the next free address.
        for lif in [lif for lif in ontap.get("intercluster_lifs") or [] if lif.get("node") == source["name"]]:
            network = network_of(lif["address"])
            intercluster[(name, len(ontap["intercluster_lifs"]))] = (
                (network, network.take_after(network.offset(lif["address"]))) if network else None)
            ontap["intercluster_lifs"].append(dict(copy.deepcopy(lif), node=name))
        for group in [g for g in ontap.get("interface_groups", []) if g.get("node") == source["name"]]:
            ontap.setdefault("interface_groups", []).append(dict(copy.deepcopy(group), node=name))
        for domain in ontap.get("broadcast_domains", []):
            domain["ports"] += [f"{name}:{entry.split(':', 1)[1]}" for entry in list(domain.get("ports", []))
                                if entry.split(":", 1)[0] == source["name"]]
        for svm in ontap.get("svms", []):
            source_aggregates = {a["name"] for a in source.get("aggregates", [])}
            if source_aggregates & set(svm.get("aggregates", [])):
                svm["aggregates"] += [a["name"] for a in node.get("aggregates", [])]
            # Explicit data LIFs: the source node's, renamed for this node, each at the next free address.
            explicit = (svm.get("data_lifs") or {}).get("explicit")
            for lif in [lif for lif in explicit or [] if lif.get("node") == source["name"]]:
                taken = {other["name"] for other in explicit}
                lif = dict(copy.deepcopy(lif), node=name, name=_renumber(lif["name"], index + 1, taken))
                network = network_of(lif["address"])
                explicit_lifs[(svm["name"], lif["name"])] = (network, network.take_after(network.offset(lif["address"]))) if network else None
                explicit.append(lif)

    # Switch pairs.
    pairs_of_base = []  # the base's pairs, each (first switch in hosts.yml order, its peer)
    for name in switch_names:
        partner = (raw[name].get("switch") or {}).get("vpc", {}).get("peer")
        if not any(name in pair for pair in pairs_of_base):
            pairs_of_base.append((name, partner))

    def serves(pair: tuple, key: str, value: str) -> bool:
        return any(_leads_to(entry, key, value) for name in pair if name in raw
                   for entry in raw[name]["switch"].get("ports", []) + raw[name]["switch"].get("port_channels", []))

    # The base's ONTAP nodes may hang off a leaf pair of their own (a storage leaf): its ports are their template.
    node_pair = next((pair for pair in pairs_of_base if serves(pair, "ontap_node", base_nodes[0])), template_pair)
    if node_pair[1] not in raw:
        raise ScaleError(f"{node_pair[0]} has no vPC/MLAG peer in the base inventory: its ONTAP ports cannot be copied to pairs")
    if switch_model:
        for name in template_pair:
            raw[name]["switch"]["model"] = switch_model
    sides = [Side(raw[template_pair[s]]["switch"], template_dgx, base_nodes[:2], raw[node_pair[s]]["switch"]) for s in (0, 1)]
    platform = sides[0].template.get("platform")
    port_map = platforms.port_map(platform, sides[0].template.get("model"))
    if port_map is None:
        raise ScaleError(f"no port map for switch model {sides[0].template.get('model')!r}: cannot tell when a pair is full")
    # What the options leave open follows the base's layout.
    if storage_leaf is None:
        storage_leaf = node_pair != template_pair
    if spine is None:  # a pair with nothing but uplinks
        spine = any(all(not raw[name]["switch"].get("ports") and all("switch" in (c.get("connects_to") or {})
                                                                      for c in raw[name]["switch"].get("port_channels", []))
                        for name in pair if name in raw) for pair in pairs_of_base)
    if breakout is None:  # the highest lane any port of the base uses
        breakout = _lane_count(platform, [p["name"] for body in raw.values() for p in body["switch"].get("ports", [])]
                               + [m for body in raw.values() for c in body["switch"].get("port_channels", []) for m in c["members"]]) or 1
    if breakout > 1 and breakout > port_map["lanes"]:
        raise ScaleError(f"--breakout {breakout}: a {port_map['family']} port breaks out into at most {port_map['lanes']} ports")
    if uplink_members is None:
        uplink_members = next((len(c["members"]) for c in raw[first]["switch"].get("port_channels", [])
                               if "switch" in (c.get("connects_to") or {})), 2)
    lanes = breakout
    peer_members = [list(raw[name]["switch"]["vpc"]["peer_link"]["members"]) for name in template_pair]
    every_port = platforms.free_ports(platform, port_map, set())
    if switch_model:
        peer_members = [every_port[-len(members):] for members in peer_members]
        for name, members in zip(template_pair, peer_members):
            raw[name]["switch"]["vpc"]["peer_link"]["members"] = members
    # The front-panel ports the kept hosts use (a breakout port takes its whole port away from the DGX).
    kept = [{_whole(platform, p["name"]) for p in side.kept_ports} | {_whole(platform, m) for c in side.kept_channels for m in c["members"]}
            for side in sides]
    dgx_width = max(side.dgx_width() for side in sides)
    pair_width = [max(sides[s].node_width(base_nodes[0]) + sides[s].node_width(base_nodes[1]), 0) for s in (0, 1)]
    pair_width = max(pair_width)

    def capacity(leaf_index: int, leaves: int, uplink: int) -> int:
        """The host ports (breakout ports with lanes) a leaf pair offers the DGX and ONTAP nodes."""
        reserved = len(peer_members[0]) + (uplink if leaves > 1 else 0) + (len(kept[0] | kept[1]) if leaf_index == 0 else 0)
        return (len(every_port) - reserved) * lanes

    if not storage_leaf:
        leaves = 1
        while True:
            pairs_on = [list(range(pairs))[leaf::leaves] for leaf in range(leaves)]
            room = [capacity(leaf, leaves, uplink_members) - pair_width * len(pairs_on[leaf]) for leaf in range(leaves)]
            if all(r >= 0 for r in room) and sum(r // max(dgx_width, 1) for r in room) >= count:
                break
            leaves += 1
            if leaves > 64:
                raise ScaleError(f"{count} DGX do not fit on {port_map['family']} switches: use a switch with more ports")
    else:
        # The DGX on the first leaf pairs (the control-plane servers with them), the HA pairs on leaf pairs of their own after them.
        per_storage_leaf = capacity(1, 2, uplink_members) // max(pair_width, 1)
        if per_storage_leaf < 1:
            raise ScaleError(f"an HA pair's ports do not fit on a {port_map['family']} leaf pair")
        storage_leaves = -(-pairs // per_storage_leaf)
        dgx_leaves = 1
        while sum(capacity(leaf, 2, uplink_members) // max(dgx_width, 1) for leaf in range(dgx_leaves)) < count:
            dgx_leaves += 1
            if dgx_leaves > 64:
                raise ScaleError(f"{count} DGX do not fit on {port_map['family']} switches: use a switch with more ports")
        leaves = dgx_leaves + storage_leaves
        pairs_on = [[] for _ in range(dgx_leaves)] + [list(range(pairs))[leaf::storage_leaves] for leaf in range(storage_leaves)]
        room = [capacity(leaf, leaves, uplink_members) for leaf in range(dgx_leaves)] + [0] * storage_leaves
    # The DGX spread evenly over the leaf pairs, as far as each one's free ports allow.
    quota = [0] * leaves
    remaining = count
    for position, leaf in enumerate(sorted(range(leaves), key=lambda leaf: room[leaf])):
        quota[leaf] = min(room[leaf] // max(dgx_width, 1), -(-remaining // (leaves - position)))
        remaining -= quota[leaf]
    has_spine = leaves > 2 or (spine and leaves > 1)
    spine_members = 0
    if has_spine:
        spine_room = len(every_port) - len(peer_members[0])
        spine_members = min(uplink_members, spine_room // leaves)
        if not spine_members:
            raise ScaleError(f"{leaves} leaf pairs need more uplinks than a {port_map['family']} spine has ports")

    stem = switch_stem or _stem(first)
    names = [template_pair if not switch_stem else (f"{stem}-1a", f"{stem}-1b")] + \
        [(f"{stem}-{leaf + 1}a", f"{stem}-{leaf + 1}b") for leaf in range(1, leaves)]
    spine_pair = (f"{stem}-spine-a", f"{stem}-spine-b") if has_spine else None
    domain = raw[first]["switch"]["vpc"]["domain"]
    # The spine's port-channel to leaf pair k: the next number after UPLINK_CHANNEL that the pair's
    # own port-channels (its peer link) do not take.
    taken = {raw[first]["switch"]["vpc"].get("peer_link", {}).get("port_channel")} | {
        pc.get("id") for pc in raw[first]["switch"].get("port_channels") or []}
    spine_channels = [number for number in range(UPLINK_CHANNEL + 1, UPLINK_CHANNEL + 2 + leaves + len(taken))
                      if number not in taken][:leaves]
    switch_mgmt = {}
    for pair in names[1:] + ([spine_pair] if spine_pair else []):
        for side, name in enumerate(pair):
            source = raw[template_pair[side]]["switch"]["mgmt_address"]
            network = network_of(source)
            switch_mgmt[name] = (network, network.take_after(network.offset(source))) if network else None

    bodies: dict[str, dict] = {}
    dgx_names = [f"dgx{index:0{max(2, len(str(count)))}d}" for index in range(1, count + 1)]
    next_dgx = 0
    for leaf, pair in enumerate(names):
        free = []
        for side in (0, 1):
            taken = set(peer_members[side]) | (kept[side] if leaf == 0 else set())
            free.append([p for p in every_port if p not in taken])
        uplinks = [[free[side].pop() for _ in range(uplink_members)][::-1] if leaves > 1 else [] for side in (0, 1)]
        free = [_lanes(platform, ports, lanes) for ports in free]
        entries: list[dict] = [{"ports": list(sides[s].kept_ports) if leaf == 0 else [],
                                "port_channels": list(sides[s].kept_channels) if leaf == 0 else []} for s in (0, 1)]

        def place(side: int, units: list[tuple], free: list[list[str]] = free, entries: list[dict] = entries) -> None:
            """Cable units (ports, channels, key, value, channel id) in turn: whole ports one unit after the
            other; breakout ports one function after the other (every unit's first port, then every
            unit's second, then the channels), so that the lanes of one port lead to different hosts."""
            def port(unit: tuple, entry: dict) -> None:
                entries[side]["ports"].append(dict(_retarget(entry, unit[2], unit[3], None, None), name=free[side].pop(0)))

            def channel(unit: tuple, entry: dict) -> None:
                members = [free[side].pop(0) for _ in entry["members"]]
                entries[side]["port_channels"].append(_retarget(entry, unit[2], unit[3], members, unit[4]))

            if lanes == 1:
                for unit in units:
                    for entry in unit[0]:
                        port(unit, entry)
                    for entry in unit[1]:
                        channel(unit, entry)
                return
            for kind, add in ((0, port), (1, channel)):
                for position in range(max((len(unit[kind]) for unit in units), default=0)):
                    for unit in units:
                        if position < len(unit[kind]):
                            add(unit, unit[kind][position])

        leaf_nodes = [(node_index, nodes[node_index], base_nodes[node_index % 2])
                      for pair_index in pairs_on[leaf] for node_index in (2 * pair_index, 2 * pair_index + 1)]
        leaf_dgx = range(next_dgx, next_dgx + quota[leaf])
        for side in (0, 1):
            place(side, [(sides[side].node_ports[source], sides[side].node_channels[source], "ontap_node", node, 11 + node_index)
                         for node_index, node, source in leaf_nodes])
            place(side, [(sides[side].dgx_ports, sides[side].dgx_channels, "host", dgx_names[index], 101 + index) for index in leaf_dgx])
        next_dgx += quota[leaf]
        for side, name in enumerate(pair):
            body = copy.deepcopy(raw[template_pair[side]])
            switch = body["switch"]
            switch["ports"], switch["port_channels"] = entries[side]["ports"], entries[side]["port_channels"]
            if leaves > 1:
                far = spine_pair[0] if spine_pair else (names[1][0] if leaf == 0 else names[0][0])
                far_channel = spine_channels[leaf] if spine_pair else UPLINK_CHANNEL
                switch["port_channels"].append({"id": UPLINK_CHANNEL, "members": uplinks[side],
                                                "connects_to": {"switch": far, "port_channel": far_channel}})
            if pair != template_pair:
                _rename_pair(switch, pair[1 - side], domain + leaf)
            bodies[name] = body
    if next_dgx < count:
        raise ScaleError(f"placed {next_dgx} of {count} DGX: the leaf pairs are full")
    if spine_pair:
        for side, name in enumerate(spine_pair):
            body = copy.deepcopy(raw[template_pair[side]])
            switch = body["switch"]
            free = [p for p in every_port if p not in set(peer_members[side])]
            switch["ports"] = []
            switch["port_channels"] = [{"id": spine_channels[leaf], "members": [free.pop(0) for _ in range(spine_members)],
                                        "connects_to": {"switch": names[leaf][0], "port_channel": UPLINK_CHANNEL}}
                                       for leaf in range(leaves)]
            _rename_pair(switch, spine_pair[1 - side], domain + leaves)
            bodies[name] = body
        for leaf in range(leaves):
            for name in names[leaf]:
                bodies[name]["switch"]["port_channels"][-1]["members"] = bodies[name]["switch"]["port_channels"][-1]["members"][:spine_members]

    # Final subnets. Every file the copy holds moves its addresses first; the addresses this script
    # hands out are set afterwards, in their final networks.
    final = _place_networks(networks)
    moves = {name: (networks[name].old, subnet) for name, subnet in final.items() if subnet != networks[name].old}

    def moved(data):
        return yaml.safe_load(_translate(yaml.safe_dump(data, sort_keys=False), moves)) if moves else data

    def address(place: tuple[Network, int] | None, what: str) -> str:
        if place is None:
            raise ScaleError(f"{what}: its template's address lies in no network of networks.yml, so no address can be handed out")
        network, offset = place
        return str(ipaddress.IPv4Address(int(final[network.name].network_address) + offset))

    for name in os.listdir(host_vars):
        if DGX_NAME.match(os.path.splitext(name)[0]):
            os.remove(os.path.join(host_vars, name))
    for path in _yaml_files(output):
        if path in (ontap_path, networks_path, hosts_path):
            continue
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        if moves and _translate(text, moves) != text:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(_translate(text, moves))
    for index, name in enumerate(dgx_names):
        body = copy.deepcopy(template)
        for key, (network, start) in dgx_offsets.items():
            target = body["dgx"]
            for part in key[:-1]:
                target = target[part]
            target[key[-1]] = address((network, start + index), name)
        # NVA-1173 spreads the storage bonds' primaries over the two switches: every other DGX.
        for bond in body["dgx"].get("storage_bonds", []):
            if len(bond.get("members", [])) == 2:
                bond["primary"] = bond["members"][index % 2]
        _dump(os.path.join(host_vars, f"{name}.yml"), body, f"generated by scripts/scale_site.py from {base}", modeline=True)
    for side, name in enumerate(names[0]):
        source = raw[template_pair[side]]["switch"]["mgmt_address"]
        network = network_of(source)
        switch_mgmt[name] = (network, network.offset(source)) if network else None
    for name in switch_names:  # the base's switches: those not written again are gone
        if name not in bodies:
            os.remove(os.path.join(host_vars, f"{name}.yml"))
    for name, body in bodies.items():
        body = moved(body)
        if name in switch_mgmt:
            body["switch"]["mgmt_address"] = address(switch_mgmt[name], name)
        _dump(os.path.join(host_vars, f"{name}.yml"), body, f"generated by scripts/scale_site.py from {base}", modeline=True)
    ontap_file = moved(ontap_file)
    ontap = ontap_file["ontap"]
    for node in ontap["nodes"]:
        if node["name"] in node_mgmt:
            node["mgmt_address"] = address(node_mgmt[node["name"]], node["name"])
    for (name, position), taken in intercluster.items():
        ontap["intercluster_lifs"][position]["address"] = address(taken, f"intercluster LIF of {name}")
    for svm in ontap.get("svms", []):
        for lif in (svm.get("data_lifs") or {}).get("explicit") or []:
            if (svm["name"], lif["name"]) in explicit_lifs:
                lif["address"] = address(explicit_lifs[(svm["name"], lif["name"])], f"data LIF {lif['name']}")
        for name in list((svm.get("data_lifs") or {}).get("first_address") or {}):
            if (svm["name"], name) in lif_moves:
                svm["data_lifs"]["first_address"][name] = address((networks[name], lif_moves[(svm["name"], name)]), f"data LIFs on {name}")
    _dump(ontap_path, ontap_file, f"generated by scripts/scale_site.py: {base} with {len(nodes) // 2} HA pair(s)")
    networks_file = moved(networks_file)
    for entry in networks_file["networks"]:
        entry["subnet"] = str(final[entry["name"]])
    _dump(networks_path, networks_file, f"generated by scripts/scale_site.py: {base} with {count} DGX")
    for group, body in children.items():
        if not isinstance(body, dict):
            continue
        hosts = body.get("hosts") or {}
        if template_dgx in hosts:
            kept_hosts = {h: v for h, v in hosts.items() if not DGX_NAME.match(str(h))}
            kept_hosts.update({name: None for name in dgx_names})
            body["hosts"] = kept_hosts
        if group == "switches":
            body["hosts"] = {name: None for name in bodies}
    with open(hosts_path, "w", encoding="utf-8") as handle:
        handle.write(f"---\n# generated by scripts/scale_site.py: {base} with {count} DGX, {len(nodes) // 2} HA pair(s), "
                     f"{leaves} leaf pair(s){' and a spine pair' if spine_pair else ''}\n")
        yaml.dump(moved(inventory), handle, Dumper=_Dumper, sort_keys=False, width=1000)
    _rename_mig_layouts(output, dict(zip(base_dgx, dgx_names)), base)
    return output


def _rename_mig_layouts(output: str, renamed: dict[str, str], base: str) -> None:
    """The base's per-DGX MIG layouts go to the DGX that takes its place (the nth DGX for the nth);
    a layout of a DGX the smaller site lacks goes with it."""
    path = os.path.join(output, "group_vars", "all", "gpu.yml")
    if not os.path.exists(path):
        return
    data = _load(path)
    layouts = (((data or {}).get("gpu") or {}).get("mig") or {}).get("layouts")
    if not isinstance(layouts, dict):
        return
    data["gpu"]["mig"]["layouts"] = {renamed[host]: layout for host, layout in layouts.items() if host in renamed}
    _dump(path, data, f"generated by scripts/scale_site.py from {base}: MIG layouts follow their DGX")


def _rename_pair(switch: dict, peer: str, domain: int) -> None:
    switch["vpc"]["peer"] = peer
    switch["vpc"]["domain"] = domain
    switch["vpc"].pop("system_mac", None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base", help="inventory to grow (its first DGX, first two ONTAP nodes and first switch pair are the templates)")
    parser.add_argument("count", type=int, help="number of DGX nodes")
    parser.add_argument("output", help="directory to write (replaced if it exists)")
    parser.add_argument("--ha-pairs", type=int, help="ONTAP HA pairs (default: what the GPUs' demand needs)")
    parser.add_argument("--switch-model", help="the switches' model, on the base's platform (default: the base's)")
    parser.add_argument("--switch-names", help="name the switches NAME-1a, NAME-1b, ... NAME-spine-a (default: the first pair keeps its names)")
    parser.add_argument("--pod-name", help="pod.name of the copy (default: the base's)")
    parser.add_argument("--description", help="pod.description of the copy (default: the base's)")
    parser.add_argument("--overlay", metavar="FILE", help="YAML of settings merged into the copy's files before it grows")
    parser.add_argument("--dgx-model", help="dgx.model of every DGX, e.g. 'DGX B200' (default: the template DGX's)")
    parser.add_argument("--gpu-model", help="gpus.model of every DGX as nvidia-smi names the GPU (default: the template DGX's)")
    parser.add_argument("--breakout", type=int, metavar="LANES",
                        help="cable DGX and ONTAP ports to breakout ports, LANES of them from each front-panel port; 1: whole ports "
                             "(default: as the base)")
    parser.add_argument("--storage-leaf", action=argparse.BooleanOptionalAction, default=None,
                        help="put the HA pairs on leaf pairs of their own, the DGX on the others (default: as the base)")
    parser.add_argument("--spine", action=argparse.BooleanOptionalAction, default=None,
                        help="join the leaf pairs through a spine pair even when two could join back to back (default: as the base)")
    parser.add_argument("--uplink-members", type=int, metavar="N", help="ports of each leaf switch in its uplink (default: as the base, else 2)")
    args = parser.parse_args(argv)
    try:
        print(scale(args.base, args.count, args.output, ha_pairs=args.ha_pairs, switch_model=args.switch_model,
                    pod_name=args.pod_name, description=args.description, switch_stem=args.switch_names,
                    overlay=args.overlay, dgx_model=args.dgx_model, gpu_model=args.gpu_model, breakout=args.breakout,
                    storage_leaf=args.storage_leaf, spine=args.spine, uplink_members=args.uplink_members))
    except ScaleError as error:
        print(f"scale_site: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
