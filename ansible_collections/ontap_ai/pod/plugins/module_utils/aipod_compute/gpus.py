"""The GPUs of a host as nvidia-smi reports them, and how they compare with the site model.

Read by dgx_host_facts (the compute layer's GPU check), gpu_facts (the same, as a module of its own) and
dgx_verify (the verification's GPU count).
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from xml.etree import ElementTree

NO_DEVICES = re.compile(r"No devices were found", re.IGNORECASE)
ECC_KEYS = ("volatile_correctable", "volatile_uncorrectable", "aggregate_correctable", "aggregate_uncorrectable")


class NvidiaSmiError(ValueError):
    """nvidia-smi's XML cannot be read."""


def _text(element: ElementTree.Element | None, path: str) -> str | None:
    found = element.find(path) if element is not None else None
    if found is None or found.text is None:
        return None
    value = found.text.strip()
    return None if value in ("", "N/A") else value


def _count(element: ElementTree.Element | None, *paths: str) -> int:
    """Sum of the integer counters at paths (N/A and absent count as 0)."""
    total = 0
    for path in paths:
        value = _text(element, path)
        if value is not None and value.isdigit():
            total += int(value)
    return total


def ecc_errors(gpu: ElementTree.Element) -> dict[str, int]:
    """ECC error counts of one GPU, from either layout nvidia-smi has used."""
    errors = gpu.find("ecc_errors")
    result = {}
    for scope in ("volatile", "aggregate"):
        block = errors.find(scope) if errors is not None else None
        if block is not None and block.find("single_bit") is not None:
            # Up to driver 470 or so (Volta): single-bit corrected, double-bit uncorrectable.
            correctable = _count(block, "single_bit/total")
            uncorrectable = _count(block, "double_bit/total")
        else:
            # Ampere and newer drivers: SRAM and DRAM counters; SRAM uncorrectable may be split
            # into parity and SEC-DED (newer drivers) or be one counter (older ones).
            correctable = _count(block, "sram_correctable", "dram_correctable")
            uncorrectable = _count(block, "sram_uncorrectable", "sram_uncorrectable_parity",
                                   "sram_uncorrectable_secded", "dram_uncorrectable")
        result[f"{scope}_correctable"] = correctable
        result[f"{scope}_uncorrectable"] = uncorrectable
    return result


def _mib(value: str | None) -> int | None:
    match = re.match(r"^(\d+)\s*MiB$", value or "")
    return int(match.group(1)) if match else None


def parse_nvidia_smi_xml(text: str) -> dict[str, Any]:
    """The facts of `nvidia-smi -q -x` output."""
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as error:
        raise NvidiaSmiError(f"nvidia-smi output is not XML: {error}") from error
    if root.tag != "nvidia_smi_log":
        raise NvidiaSmiError(f"nvidia-smi output has root <{root.tag}>, expected <nvidia_smi_log>")
    gpus = []
    for position, gpu in enumerate(root.findall("gpu")):
        minor = _text(gpu, "minor_number") or ""
        gpus.append({
            "index": int(minor) if minor.isdigit() else position,
            "name": _text(gpu, "product_name"),
            "uuid": _text(gpu, "uuid"),
            "serial": _text(gpu, "serial"),
            "pci_bus_id": gpu.get("id") or _text(gpu, "pci/pci_bus_id"),
            "memory_total_mib": _mib(_text(gpu, "fb_memory_usage/total")),
            "ecc_enabled": _text(gpu, "ecc_mode/current_ecc") == "Enabled",
            "ecc_errors": ecc_errors(gpu),
        })
    attached = _text(root, "attached_gpus")
    if attached is not None and attached.isdigit() and int(attached) != len(gpus):
        raise NvidiaSmiError(f"nvidia-smi lists {len(gpus)} <gpu> entries but says attached_gpus={attached}")
    models = sorted({gpu["name"] for gpu in gpus if gpu["name"]})
    return {
        "present": bool(gpus),
        "reason": "" if gpus else "nvidia-smi reports no GPUs",
        "count": len(gpus),
        "models": models,
        "driver_version": _text(root, "driver_version"),
        "cuda_version": _text(root, "cuda_version"),
        "ecc_errors": {key: sum(gpu["ecc_errors"][key] for gpu in gpus) for key in ECC_KEYS},
        "gpus": gpus,
    }


def absent(reason: str) -> dict[str, Any]:
    """Facts of a host without GPUs."""
    return {"present": False, "reason": reason, "count": 0, "models": [], "driver_version": None,
            "cuda_version": None, "ecc_errors": dict.fromkeys(ECC_KEYS, 0), "gpus": []}


def compare(facts: dict[str, Any], expected_count: int | None, expected_model: str | None) -> tuple[list[str], list[str]]:
    """(errors, warnings) of a host's GPUs against the model; a host without GPUs has neither."""
    errors: list[str] = []
    warnings: list[str] = []
    if not facts["present"]:
        return errors, warnings
    if expected_count is not None and facts["count"] != expected_count:
        errors.append(f"{facts['count']} GPU(s) found but the site model expects {expected_count} "
                      f"(dgx.gpus.count); check for a failed or missing GPU (nvidia-smi -q)")
    if expected_model and any(model != expected_model for model in facts["models"]):
        warnings.append(f"GPU model {', '.join(facts['models'])} differs from the site model's {expected_model} (dgx.gpus.model)")
    uncorrectable = facts["ecc_errors"]["volatile_uncorrectable"]
    if uncorrectable:
        bad = [str(gpu["index"]) for gpu in facts["gpus"] if gpu["ecc_errors"]["volatile_uncorrectable"]]
        warnings.append(f"{uncorrectable} uncorrectable ECC error(s) since the driver loaded on GPU(s) {', '.join(bad)}")
    return errors, warnings


def summary(facts: dict[str, Any]) -> str:
    if not facts["present"]:
        return f"no GPUs: {facts['reason']}; GPU checks skipped"
    return (f"{facts['count']} GPU(s) {', '.join(facts['models']) or 'unnamed'}, driver {facts['driver_version']}, "
            f"CUDA {facts['cuda_version']}, {facts['ecc_errors']['volatile_uncorrectable']} uncorrectable ECC error(s)")


def gather(module: Any, program: str = "nvidia-smi") -> dict[str, Any]:
    """Run nvidia-smi (the one place this module touches the host) and read its answer."""
    path = module.get_bin_path(program) if "/" not in program else program
    if not path:
        return absent(f"{program} not found (no NVIDIA driver installed)")
    rc, out, err = module.run_command([path, "-q", "-x"])
    if rc != 0:
        message = (err or out or "").strip()
        if NO_DEVICES.search(message):
            return absent("nvidia-smi reports no devices")
        module.fail_json(msg=f"{path} -q -x failed (rc={rc}): {message}", rc=rc)
    try:
        return parse_nvidia_smi_xml(out)
    except NvidiaSmiError as error:
        module.fail_json(msg=str(error))
    raise AssertionError("unreachable")  # fail_json exits


def gpu_check(found: Mapping | None, expected: Mapping | None) -> dict[str, str]:
    """The verification's GPU count check: the GPUs read here against the model's GPUs for the host."""
    found = found or {}
    want = (expected or {}).get("count")
    if not found.get("present"):
        reason = found.get("reason") or "no NVIDIA GPU stack answered"
        return {"layer": "compute", "name": "GPU count", "status": "not_applicable",
                "detail": f"no GPUs on this host ({reason}); the model expects {want if want is not None else 'none'}"}
    count = int(found.get("count") or 0)
    if want is None:
        return {"layer": "compute", "name": "GPU count", "status": "pass", "detail": f"{count} GPU(s); the model names no count"}
    return {"layer": "compute", "name": "GPU count", "status": "pass" if count == int(want) else "fail",
            "detail": f"{count} GPU(s) {', '.join(found.get('models') or [])}, model {want}"}
