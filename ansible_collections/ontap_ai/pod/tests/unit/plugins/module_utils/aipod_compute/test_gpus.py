"""aipod_compute.gpus: parsing nvidia-smi -q -x of a DGX-1 (V100) and a DGX A100, and the model check."""
from __future__ import annotations

import pathlib

import pytest

from ansible_collections.ontap_ai.pod.plugins.module_utils.aipod_compute import gpus as gpu_facts

FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures"
V100 = (FIXTURES / "dgx1-v100.xml").read_text()
A100 = (FIXTURES / "dgx-a100.xml").read_text()


def test_dgx1_v100_layout_single_and_double_bit():
    facts = gpu_facts.parse_nvidia_smi_xml(V100)
    assert facts["present"] is True
    assert facts["count"] == 8
    assert facts["models"] == ["Tesla V100-SXM2-32GB"]
    assert facts["driver_version"] == "450.102.04"
    assert facts["cuda_version"] == "11.0"
    assert [gpu["index"] for gpu in facts["gpus"]] == list(range(8))
    assert facts["gpus"][0]["pci_bus_id"] == "00000000:06:00.0"
    assert facts["gpus"][0]["memory_total_mib"] == 32510
    assert all(gpu["ecc_enabled"] for gpu in facts["gpus"])
    # GPU 3 of the fixture has 2 volatile single-bit and, since manufacture, 14 single / 1 double.
    assert facts["gpus"][3]["ecc_errors"] == {"volatile_correctable": 2, "volatile_uncorrectable": 0,
                                              "aggregate_correctable": 14, "aggregate_uncorrectable": 1}
    assert facts["ecc_errors"] == {"volatile_correctable": 2, "volatile_uncorrectable": 0,
                                   "aggregate_correctable": 14, "aggregate_uncorrectable": 1}


def test_dgx_a100_layout_sram_and_dram():
    facts = gpu_facts.parse_nvidia_smi_xml(A100)
    assert facts["count"] == 8
    assert facts["models"] == ["NVIDIA A100-SXM4-40GB"]
    assert facts["driver_version"] == "535.129.03"
    assert facts["cuda_version"] == "12.2"
    assert facts["gpus"][5]["ecc_errors"] == {"volatile_correctable": 3, "volatile_uncorrectable": 0,
                                              "aggregate_correctable": 10, "aggregate_uncorrectable": 0}
    assert facts["gpus"][7]["uuid"] == "GPU-7b882daf-cf09-e2bd-f83f-a06917e42c88"
    assert facts["gpus"][1]["memory_total_mib"] == 40960


def test_uncorrectable_sram_counters_of_both_driver_generations_are_summed():
    xml = ("<nvidia_smi_log><attached_gpus>1</attached_gpus><gpu id='0'><product_name>X</product_name><ecc_errors>"
           "<volatile><sram_correctable>1</sram_correctable><sram_uncorrectable>2</sram_uncorrectable>"
           "<dram_correctable>N/A</dram_correctable><dram_uncorrectable>4</dram_uncorrectable></volatile>"
           "<aggregate><sram_uncorrectable_parity>1</sram_uncorrectable_parity>"
           "<sram_uncorrectable_secded>1</sram_uncorrectable_secded></aggregate></ecc_errors></gpu></nvidia_smi_log>")
    facts = gpu_facts.parse_nvidia_smi_xml(xml)
    assert facts["gpus"][0]["ecc_errors"] == {"volatile_correctable": 1, "volatile_uncorrectable": 6,
                                              "aggregate_correctable": 0, "aggregate_uncorrectable": 2}


@pytest.mark.parametrize("text, message", [
    ("NVIDIA-SMI has failed", "not XML"),
    ("<other/>", "expected <nvidia_smi_log>"),
    ("<nvidia_smi_log><attached_gpus>2</attached_gpus><gpu/></nvidia_smi_log>", "attached_gpus=2"),
])
def test_unreadable_output_is_an_error(text, message):
    with pytest.raises(gpu_facts.NvidiaSmiError, match=message):
        gpu_facts.parse_nvidia_smi_xml(text)


def test_count_differing_from_the_model_is_an_error():
    facts = gpu_facts.parse_nvidia_smi_xml(A100)
    errors, _warnings = gpu_facts.compare(facts, 4, None)
    assert errors == ["8 GPU(s) found but the site model expects 4 (dgx.gpus.count); "
                      "check for a failed or missing GPU (nvidia-smi -q)"]
    assert gpu_facts.compare(facts, 8, "NVIDIA A100-SXM4-40GB") == ([], [])


def test_other_model_is_a_warning():
    facts = gpu_facts.parse_nvidia_smi_xml(V100)
    errors, warnings = gpu_facts.compare(facts, 8, "NVIDIA A100-SXM4-40GB")
    assert errors == []
    assert warnings == ["GPU model Tesla V100-SXM2-32GB differs from the site model's NVIDIA A100-SXM4-40GB (dgx.gpus.model)"]


def test_host_without_gpus_has_nothing_to_compare():
    facts = gpu_facts.absent("nvidia-smi not found (no NVIDIA driver installed)")
    assert gpu_facts.compare(facts, 8, "NVIDIA A100-SXM4-40GB") == ([], [])
    assert gpu_facts.summary(facts) == "no GPUs: nvidia-smi not found (no NVIDIA driver installed); GPU checks skipped"
