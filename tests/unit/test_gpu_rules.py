"""A DGX has GPUs: gpus.count is a positive integer, the count of its model where the model is known
(dgx.model: DGX A100, H100, H200, B200, B300 have 8), a warning where it is not."""
from __future__ import annotations

import copy
import dataclasses

import pytest
from project_paths import SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import check_model

SITE = load_site(str(SAMPLE), decrypt=make_decryptor(SAMPLE_VAULT_PASSWORD))
DGX = ("hosts", "dgx01", "dgx")


def findings_with(change):
    model = copy.deepcopy(SITE.model)
    change(model["hosts"]["dgx01"]["dgx"])
    return check_model(dataclasses.replace(SITE, model=model, findings=[]), check_files=False), model


def gpu_findings(change, severity):
    findings, _model = findings_with(change)
    return [f for f in findings if f.severity == severity and (f.rule == "gpu" or f.path[:4] == DGX + ("gpus",))]


@pytest.mark.parametrize(("text", "expected"), [
    ("DGX A100", ("DGX A100", 8)), ("NVIDIA DGX H100", ("DGX H100", 8)), ("DGX H200 (rack 3)", ("DGX H200", 8)),
    ("DGX B200", ("DGX B200", 8)), ("DGX B300", ("DGX B300", 8)), ("DGX-1", ("DGX-1", 8)), ("DGX-2", ("DGX-2", 16)),
    ("DGX Station A100", ("DGX Station A100", 4)), ("dgx a100 (lab stand-in)", ("DGX A100", 8)),
    ("DGX GB200", None), ("DGX A800", None), ("HGX H100", None), ("", None), (None, None),
])
def test_known_dgx_systems(text, expected):
    system = m.dgx_system(text)
    assert (system[:2] if system else None) == expected


@pytest.mark.parametrize("count", [0, -1, True, 2.5, "8", None])
def test_a_count_that_is_not_a_positive_integer_is_refused_with_its_line(count):
    [error] = gpu_findings(lambda dgx: dgx["gpus"].update(count=count), "error")
    assert error.rule == "schema" and error.path == DGX + ("gpus", "count") and error.location.line


@pytest.mark.parametrize(("model", "count"), [("DGX A100", 4), ("DGX-2", 8), ("NVIDIA DGX H100", 16)])
def test_a_count_other_than_the_known_models_is_an_error(model, count):
    [error] = gpu_findings(lambda dgx: dgx.update(model=model, gpus={"count": count}), "error")
    assert error.rule == "gpu" and error.path == DGX + ("gpus", "count")
    assert f"has {m.dgx_system(model)[1]} GPUs, gpus.count says {count}" in error.message
    assert error.location.file.endswith("host_vars/dgx01.yml") and error.location.line


def test_an_unknown_model_is_a_warning_and_the_count_stands():
    [warning] = gpu_findings(lambda dgx: dgx.update(model="DGX GB200 compute tray", gpus={"count": 4}), "warning")
    assert warning.path == DGX + ("model",) and "not one the validator knows" in warning.message
    assert gpu_findings(lambda dgx: dgx.update(model="DGX GB200 compute tray", gpus={"count": 4}), "error") == []


def test_no_model_is_a_warning():
    [warning] = gpu_findings(lambda dgx: dgx.pop("model"), "warning")
    assert warning.path == DGX and "no dgx.model" in warning.message


def test_a_gpu_of_another_generation_is_a_warning():
    [warning] = gpu_findings(lambda dgx: dgx["gpus"].update(model="NVIDIA H100 80GB HBM3"), "warning")
    assert warning.path == DGX + ("gpus", "model") and "a DGX A100 has A100 GPUs" in warning.message


def test_without_gpus_sizing_counts_the_gpus_of_a_known_model():
    findings, model = findings_with(lambda dgx: dgx.pop("gpus"))
    [warning] = [f for f in findings if f.rule == "gpu"]
    assert "sizing counts the 8 GPUs of a DGX A100" in warning.message
    assert m.sizing(model)["gpus"] == m.sizing(SITE.model)["gpus"] == 32
    model["hosts"]["dgx01"]["dgx"]["model"] = "custom box"
    assert m.sizing(model)["gpus"] == 24


def test_the_sample_and_its_counts_raise_nothing():
    assert gpu_findings(lambda dgx: None, "warning") == gpu_findings(lambda dgx: None, "error") == []


def test_an_rdma_mount_needs_rdma_on_the_lifs_it_mounts_from():
    import copy
    import dataclasses

    from project_paths import SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor

    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import check_model

    site = load_site(str(SAMPLE), decrypt=make_decryptor(SAMPLE_VAULT_PASSWORD))
    model = copy.deepcopy(site.model)
    svm = model["ontap"]["svms"][0]
    svm["nfs"]["rdma"] = True
    model["compute"]["mounts"][0]["transport"] = "rdma"

    def mount_errors(model: dict) -> list[str]:
        findings = check_model(dataclasses.replace(site, model=model, findings=[]), check_files=False)
        return [f.message for f in findings if f.severity == "error" and f.rule == "mount"]

    assert mount_errors(model) == []  # the LIFs take RDMA from the SVM
    svm["data_lifs"]["rdma"] = False
    [message] = mount_errors(model)
    assert message == ("RDMA mount, but the mount plan sends DGX to LIF(s) without RDMA: aipod-a800-01_e6a-3111_1, "
                       "aipod-a800-01_e6b-3112_1, aipod-a800-02_e6a-3111_1, aipod-a800-02_e6b-3112_1")
