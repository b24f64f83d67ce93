"""Rules of device limits: what a platform refuses or silently misreads, caught before any device.

Sources (docs/site-model.md, "Device limits"):
- NX-OS reserves VLANs 3968-4094 for internal use by default (Cisco Nexus "Configuring VLANs":
  `system vlan <id> reserve` moves the block), so a storage VLAN there cannot be created.
- NX-OS VLAN names (`name` under `vlan <id>`, here the network's name) take 1-32 characters.
- VLAN 1 is every switch port's default (native) VLAN: a storage or in-band network on it mixes with
  untagged traffic of any port left at its defaults.
- ONTAP broadcast domains take an MTU of at most 9000 (`network port broadcast-domain create -mtu`);
  the switches carry 9216 around it.
"""
from __future__ import annotations

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.rule_context import Context

NXOS_RESERVED_VLANS = range(3968, 4095)
NXOS_VLAN_NAME_MAX = 32  # `vlan <id>` / `name <name>`: 1-32 characters
DEFAULT_VLAN = 1
ONTAP_MAX_MTU = 9000
TAGGED_PURPOSES = ("storage", "roce", "inband")


def vlan_limits(ctx: Context) -> None:
    """No VLAN the switches reserve; VLAN 1 never for storage or in-band traffic."""
    platforms = {m.as_dict(switch).get("platform") for switch in ctx.switches.values()}
    for index, network in enumerate(m.as_list(ctx.model.get("networks"))):
        network = m.as_dict(network)
        vlan = m.as_int(network.get("vlan"))
        if vlan is None:
            continue
        name = m.as_str(network.get("name")) or f"networks[{index}]"
        path = ("networks", index, "vlan")
        if vlan == DEFAULT_VLAN and network.get("purpose") in TAGGED_PURPOSES:
            ctx.error("vlan-limit", path, f"network '{name}' ({network.get('purpose')}) is on VLAN 1, the default VLAN of every "
                      "switch port", "give it a VLAN of its own, 2-3967")
        if "nxos" in platforms and len(name) > NXOS_VLAN_NAME_MAX:
            ctx.error("vlan-limit", ("networks", index, "name"), f"network '{name}' names its VLAN on NX-OS, which takes "
                      f"VLAN names of at most {NXOS_VLAN_NAME_MAX} characters ({len(name)} here)",
                      f"shorten the network's name to {NXOS_VLAN_NAME_MAX} characters")
        if "nxos" in platforms and vlan in NXOS_RESERVED_VLANS:
            ctx.error("vlan-limit", path, f"VLAN {vlan} of network '{name}' is in NX-OS's reserved range 3968-4094, where the "
                      "switch refuses to create it", "choose a VLAN from 2-3967")


def ontap_mtu_limit(ctx: Context) -> None:
    """ONTAP broadcast domains take an MTU of at most 9000, whatever the switches carry."""
    for index, domain in enumerate(m.broadcast_domains(ctx.model)):
        mtu = domain.get("mtu")
        if mtu is not None and mtu > ONTAP_MAX_MTU:
            own = m.as_dict(m.as_list(m.as_dict(ctx.model.get("ontap")).get("broadcast_domains"))[index]).get("mtu") is not None
            path = ("ontap", "broadcast_domains", index, "mtu") if own else ("networks", _network_index(ctx, domain["network"]), "mtu")
            ctx.error("mtu-limit", path, f"broadcast domain '{domain['name']}' would get MTU {mtu}; ONTAP takes at most "
                      f"{ONTAP_MAX_MTU}", "use 9000 for jumbo frames on hosts and ONTAP (the switches carry 9216)")


def _network_index(ctx: Context, name: str | None) -> int:
    for index, network in enumerate(m.as_list(ctx.model.get("networks"))):
        if m.as_dict(network).get("name") == name:
            return index
    return 0
