"""Front-panel port maps of the switch models the pod designs use.

A switch's `model` text is matched against the families below; an unknown model has no map and
its ports are not checked. Counts are the fixed front-panel data ports of each model from the
vendors' datasheets (docs/network.md, "Port maps"); a breakout port (Ethernet1/N/M from 1 on NX-OS,
swpNsM from 0 on NVUE) splits one of them into at most `lanes` ports.
"""
from __future__ import annotations

import re
from typing import Any

# (pattern on the model text, platform, family shown in messages, front-panel data ports that break
# out, further fixed ports (SFP+/SFP28 or RJ45 that do not), breakout lanes)
_FAMILIES: tuple[tuple[str, str, str, int, int, int], ...] = (
    (r"3232C", "nxos", "Nexus 3232C", 32, 2, 4),
    (r"9336C-FX2", "nxos", "Nexus 9336C-FX2", 36, 0, 4),
    (r"9364C(?!-)", "nxos", "Nexus 9364C", 64, 2, 4),
    (r"9332D-GX2B", "nxos", "Nexus 9332D-GX2B", 32, 2, 4),
    (r"9364D-GX2A", "nxos", "Nexus 9364D-GX2A", 64, 2, 4),
    # 48 RJ45 ports (swp1-48) that do not break out, then four QSFP28 ports that do
    (r"SN2201", "cumulus", "Spectrum SN2201", 4, 48, 4),
    (r"SN2700", "cumulus", "Spectrum SN2700", 32, 0, 4),
    (r"SN3700", "cumulus", "Spectrum SN3700", 32, 0, 4),
    (r"SN4600", "cumulus", "Spectrum SN4600", 64, 0, 4),
    (r"SN4700", "cumulus", "Spectrum SN4700", 32, 0, 8),
    (r"SN5400", "cumulus", "Spectrum SN5400", 64, 0, 8),
    (r"SN5600", "cumulus", "Spectrum SN5600", 64, 1, 8),
)
_PORT = {"nxos": re.compile(r"^Ethernet(\d+)/(\d+)(?:/(\d+))?$"), "cumulus": re.compile(r"^swp(\d+)(?:s(\d+))?$")}


def port_map(platform: Any, model: Any) -> dict | None:
    """{family, ports, lanes} of a switch model on its platform, or None when the model is unknown."""
    if not isinstance(model, str):
        return None
    for pattern, family_platform, family, fast, fixed, lanes in _FAMILIES:
        if family_platform == platform and re.search(pattern, model, re.IGNORECASE):
            # The SN2201's breakout ports come after its RJ45 ports; elsewhere the fixed ports come last.
            first_fast = fixed + 1 if family.endswith("SN2201") else 1
            return {"family": family, "ports": fast + fixed, "lanes": lanes,
                    "fast": (first_fast, first_fast + fast - 1)}
    return None


def port_identity(platform: Any, name: Any) -> tuple[int, int, int | None] | None:
    """(module, port, lane) of a port name as the switch reads its numbers (leading zeros and all);
    None for a name of another form. A whole port has lane None."""
    if not isinstance(name, str) or platform not in _PORT:
        return None
    match = _PORT[platform].match(name)
    if not match:
        return None
    if platform == "nxos":
        return int(match[1]), int(match[2]), int(match[3]) if match[3] is not None else None
    return 1, int(match[1]), int(match[2]) if match[2] is not None else None


def port_name(platform: str, identity: tuple[int, int, int | None]) -> str:
    """The port's name as the switch shows it (no leading zeros)."""
    module, number, lane = identity
    if platform == "nxos":
        return f"Ethernet{module}/{number}" + (f"/{lane}" if lane is not None else "")
    return f"swp{number}" + (f"s{lane}" if lane is not None else "")


def port_problem(platform: Any, name: Any, ports: dict | None) -> str | None:
    """Why a port name does not exist on a switch with this port map (None: it exists, or no map)."""
    if ports is None or not isinstance(name, str) or platform not in _PORT:
        return None
    match = _PORT[platform].match(name)
    if not match:
        return None  # the name's form is the schema's and the switch-port rule's concern
    if platform == "nxos":
        module, number, lane = int(match[1]), int(match[2]), match[3]
        if module != 1:
            return f"the {ports['family']} has one module: its ports are Ethernet1/1-{ports['ports']}"
    else:
        number, lane = int(match[1]), match[2]
    if not 1 <= number <= ports["ports"]:
        first = "Ethernet1/" if platform == "nxos" else "swp"
        return f"the {ports['family']} has {ports['ports']} front-panel ports ({first}1-{ports['ports']})"
    low, high = ports["fast"]
    if lane is not None and not low <= number <= high:
        first = "Ethernet1/" if platform == "nxos" else "swp"
        return f"only {first}{low}-{high} of the {ports['family']} break out"
    # NX-OS numbers breakout ports from 1 (Ethernet1/1/1-4), NVUE from 0 (swp1s0-s3).
    first_lane = 1 if platform == "nxos" else 0
    if lane is not None and not first_lane <= int(lane) < first_lane + ports["lanes"]:
        last = first_lane + ports["lanes"] - 1
        example = f"Ethernet1/N/{first_lane}-{last}" if platform == "nxos" else f"swpNs{first_lane}-s{last}"
        return f"a {ports['family']} port breaks out into at most {ports['lanes']} ports ({example})"
    return None


def free_ports(platform: str, ports: dict, used: set[str]) -> list[str]:
    """The fast front-panel ports of a switch not in used, in order (no breakouts, none of the fixed
    low-speed ports): those a DGX, an ONTAP node or an uplink is cabled to."""
    low, high = ports["fast"]
    names = [f"Ethernet1/{n}" if platform == "nxos" else f"swp{n}" for n in range(low, high + 1)]
    return [name for name in names if name not in used]
