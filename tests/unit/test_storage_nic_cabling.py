"""A DGX storage NIC on a network the switches serve is cabled to a switch port of the model, as a bond
member must be; a NIC the model cables elsewhere says so with cabled_outside_model: true."""
from __future__ import annotations

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site


def uncable(sample_copy, nic_line_edit: tuple[str, str] | None = None) -> None:
    switch = sample_copy / "host_vars" / "n3232c-a.yml"
    text = switch.read_text()
    line = "    - {name: Ethernet1/1, connects_to: {host: dgx01, nic: enp225s0f0}}\n"
    assert line in text
    switch.write_text(text.replace(line, ""))
    if nic_line_edit:
        dgx = sample_copy / "host_vars" / "dgx01.yml"
        dgx.write_text(dgx.read_text().replace(*nic_line_edit))


def test_a_storage_nic_cabled_to_no_port_is_refused(sample_copy, decrypt):
    uncable(sample_copy)
    errors = [f for f in validate_site(str(sample_copy), decrypt=decrypt).errors
              if f.rule == "switch-port" and "cabled to no switch port" in f.message]
    [error] = errors
    assert error.path == ("hosts", "dgx01", "dgx", "storage_nics", 0, "name") and error.location.line
    assert "storage NIC enp225s0f0 of dgx01 is on network storage-a" in error.message and "cabled_outside_model" in error.hint


def test_a_nic_cabled_outside_the_model_says_so(sample_copy, decrypt):
    uncable(sample_copy, ("speed: 200G}", "speed: 200G, cabled_outside_model: true}"))
    assert not [f for f in validate_site(str(sample_copy), decrypt=decrypt).errors if "cabled to no switch port" in f.message]
