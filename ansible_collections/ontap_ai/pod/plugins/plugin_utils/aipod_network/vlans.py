"""VLAN list text, as switches print it."""
from __future__ import annotations

from collections.abc import Iterable


def compress(vlans: Iterable[int]) -> str:
    """[3101, 3111, 3112] -> '3101,3111-3112' (NX-OS and NVUE both print ranges this way)."""
    ordered = sorted({int(vlan) for vlan in vlans})
    parts: list[str] = []
    index = 0
    while index < len(ordered):
        start = end = ordered[index]
        while index + 1 < len(ordered) and ordered[index + 1] == end + 1:
            index += 1
            end = ordered[index]
        parts.append(str(start) if start == end else f"{start}-{end}")
        index += 1
    return ",".join(parts)


def expand(text: str) -> list[int]:
    """'3101,3111-3112' -> [3101, 3111, 3112]; an empty text gives []."""
    result: set[int] = set()
    for part in (text or "").replace(" ", "").split(","):
        if not part:
            continue
        if "-" in part:
            low, high = part.split("-", 1)
            result.update(range(int(low), int(high) + 1))
        else:
            result.add(int(part))
    return sorted(result)
