#!/usr/bin/python
# -*- coding: utf-8 -*-
"""GPU facts of a DGX from `nvidia-smi -q -x`, checked against the count the site model expects."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: gpu_facts
short_description: Report a host's NVIDIA GPUs from nvidia-smi and check them against the site model
description:
  - Runs C(nvidia-smi -q -x) and reports the GPU count, product names, driver and CUDA versions,
    ECC mode and ECC error counts (volatile and aggregate, correctable and uncorrectable) per GPU
    and in total, as the fact C(aipod_gpus).
  - Reads both ECC layouts of the XML, the older single_bit/double_bit one (DGX-1, V100) and the
    SRAM/DRAM one of newer drivers (DGX A100 and later).
  - With O(expected_count), a host whose GPU count differs fails; with O(expected_model), a different
    product name is a warning.
  - A host without GPUs (no C(nvidia-smi), or C(nvidia-smi) reporting no devices) is reported as such,
    with C(present=false) and the reason; it never fails, so the checks can be skipped plainly.
    A C(nvidia-smi) that fails in another way (the driver cannot be reached) fails the task.
version_added: "1.0.0"
author: ONTAP AI pod bundle contributors
options:
  expected_count:
    description: GPUs the site model expects (C(dgx.gpus.count)); a present GPU stack reporting another count fails.
    type: int
  expected_model:
    description: Product name the site model expects (C(dgx.gpus.model)); another name is a warning.
    type: str
  nvidia_smi:
    description: The nvidia-smi program, by name (searched in PATH) or absolute path.
    type: str
    default: nvidia-smi
notes:
  - Only reads; check mode runs it the same way.
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  facts:
    support: full
"""

EXAMPLES = r"""
- name: Check the GPUs against the site model
  gpu_facts:
    expected_count: "{{ dgx.gpus.count }}"
    expected_model: "{{ dgx.gpus.model | default(omit) }}"

- name: Show them
  ansible.builtin.debug:
    msg: "{{ ansible_facts.aipod_gpus.count }} x {{ ansible_facts.aipod_gpus.models | join(', ') }}"
  when: ansible_facts.aipod_gpus.present
"""

RETURN = r"""
ansible_facts:
  description: Facts set by the module.
  returned: always
  type: dict
  contains:
    aipod_gpus:
      description: The host's GPUs.
      type: dict
      returned: always
      contains:
        present:
          description: Whether an NVIDIA GPU stack with at least one GPU answered.
          type: bool
        reason:
          description: Why no GPUs are reported (present=false only).
          type: str
        count:
          description: Number of GPUs.
          type: int
          sample: 8
        models:
          description: Distinct product names.
          type: list
          elements: str
          sample: [NVIDIA A100-SXM4-40GB]
        driver_version:
          description: NVIDIA driver version.
          type: str
          sample: 535.129.03
        cuda_version:
          description: CUDA version the driver supports.
          type: str
          sample: "12.2"
        ecc_errors:
          description: ECC errors summed over all GPUs (volatile_correctable, volatile_uncorrectable, aggregate_correctable, aggregate_uncorrectable).
          type: dict
        gpus:
          description: Per GPU, index, name, uuid, serial, pci_bus_id, memory_total_mib, ecc_enabled and ecc_errors.
          type: list
          elements: dict
summary:
  description: One line saying what was found.
  returned: always
  type: str
  sample: 8 GPU(s) NVIDIA A100-SXM4-40GB, driver 535.129.03, CUDA 12.2, 0 uncorrectable ECC error(s)
"""

from ansible.module_utils.aipod_compute.gpus import NvidiaSmiError, absent, compare, gather, parse_nvidia_smi_xml, summary
from ansible.module_utils.basic import AnsibleModule

__all__ = ["NvidiaSmiError", "absent", "compare", "parse_nvidia_smi_xml", "summary"]


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "expected_count": {"type": "int"},
            "expected_model": {"type": "str"},
            "nvidia_smi": {"type": "str", "default": "nvidia-smi"},
        },
        supports_check_mode=True,
    )
    facts = gather(module, module.params["nvidia_smi"])
    errors, warnings = compare(facts, module.params["expected_count"], module.params["expected_model"])
    for warning in warnings:
        module.warn(warning)
    result = {"changed": False, "ansible_facts": {"aipod_gpus": facts}, "summary": summary(facts)}
    if errors:
        module.fail_json(msg="; ".join(errors), **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
