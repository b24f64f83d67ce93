"""Site models for the switch-layer unit tests: the sample pod, and its Cumulus variant."""
from __future__ import annotations

import copy
import re

from project_paths import SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site

_CACHE: dict[str, dict] = {}


def sample_model() -> dict:
    if "sample" not in _CACHE:
        _CACHE["sample"] = load_site(str(SAMPLE), decrypt=make_decryptor(SAMPLE_VAULT_PASSWORD)).model
    return copy.deepcopy(_CACHE["sample"])


def swp(port: str) -> str:
    """Ethernet1/N -> swpN: the sample's cabling on a Spectrum switch."""
    match = re.fullmatch(r"Ethernet1/(\d+)", port)
    return f"swp{match.group(1)}" if match else port


def cumulus_model() -> dict:
    """The sample pod with its two switches on Cumulus Linux (ports renamed swpN)."""
    model = sample_model()
    for body in model["hosts"].values():
        switch = body.get("switch")
        if not switch:
            continue
        switch["platform"] = "cumulus"
        switch["model"] = "SN3700"
        for port in switch.get("ports", []):
            port["name"] = swp(port["name"])
        for channel in switch.get("port_channels", []):
            channel["members"] = [swp(member) for member in channel["members"]]
        link = switch["vpc"]["peer_link"]
        link["members"] = [swp(member) for member in link["members"]]
    return model
