"""Kernel parameter names are model text: only a name sysctl(8) could show becomes a file under
/proc/sys or a line of /etc/sysctl.d. A key such as `net./etc/sudoers` (dgx_node_sysctl in group_vars
or -e) is refused by both modules that take names, before they open anything."""
from __future__ import annotations

import json
import os

import pytest
import yaml
from ansible.module_utils.testing import patch_module_args
from hypothesis import given
from hypothesis import strategies as st
from project_paths import COLLECTION

from ansible_collections.ontap_ai.pod.plugins.module_utils.aipod_compute import sysctl
from ansible_collections.ontap_ai.pod.plugins.modules import dgx_host_facts, sysctl_runtime

HOSTILE = ["net./etc/sudoers", "net/../../etc/shadow", "net.core..rmem_max", "net.core.rmem_max\nkernel.x",
           "rmem_max", ".net.core", "net.core.", "net.core rmem", "net.ipv4.conf.eth1/100.rp_filter", ""]


def test_the_role_defaults_are_kernel_parameter_names():
    defaults = yaml.safe_load((COLLECTION / "roles" / "dgx_node" / "defaults" / "main.yml").read_text())
    assert defaults["dgx_node_sysctl"]
    assert all(sysctl.name_problem(name) is None for name in defaults["dgx_node_sysctl"])


@pytest.mark.parametrize("name", HOSTILE)
def test_a_name_that_is_not_a_kernel_parameter_has_no_path(name):
    assert sysctl.name_problem(name)
    with pytest.raises(ValueError, match="kernel parameter name"):
        sysctl.proc_path(name)


def test_a_name_that_is_not_a_string_is_refused():
    assert sysctl.name_problem(7) == "a int, not a string"


@given(st.text(min_size=1, max_size=40))
def test_every_accepted_name_maps_to_a_file_below_proc_sys(name):
    if sysctl.name_problem(name) is None:
        path = sysctl.proc_path(name, "/proc/sys")
        assert os.path.commonpath([os.path.normpath(path), "/proc/sys"]) == "/proc/sys"
        assert os.path.normpath(path) == path and "\n" not in path


def run_module(module, capsys, args: dict) -> tuple[int, dict]:
    with patch_module_args(args), pytest.raises(SystemExit) as exit_info:
        module.main()
    return exit_info.value.code, json.loads(capsys.readouterr().out)


def test_sysctl_runtime_refuses_the_whole_call_before_writing(capsys, monkeypatch):
    opened = []
    monkeypatch.setattr("builtins.open", lambda *args, **kwargs: opened.append(args) or pytest.fail("opened a file"))
    code, result = run_module(sysctl_runtime, capsys, {"settings": {"net.core.rmem_max": 1, "net./etc/sudoers": "x"}})
    assert code == 1 and result["failed"], result
    assert "'net./etc/sudoers'" in result["msg"] and result["refused"] == ["net./etc/sudoers"]
    assert opened == []


def test_dgx_host_facts_refuses_a_name_before_reading(capsys):
    code, result = run_module(dgx_host_facts, capsys, {"sysctl": ["net.core.rmem_max", "../../etc/shadow"]})
    assert code == 1 and result["failed"] and "'../../etc/shadow'" in result["msg"], result


# ----------------------------------------------------------------------------- validation, before any host
def test_validation_refuses_a_hostile_key_with_its_file_and_line(sample_copy, decrypt):
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site

    (sample_copy / "group_vars" / "dgx.yml").write_text(
        "---\ndgx_node_sysctl:\n  net.core.rmem_max: 1\n  net./etc/sudoers: 'aipod ALL=(ALL) NOPASSWD: ALL'\n"
        "  net.core.wmem_max: [1]\n")
    report = validate_site(str(sample_copy), decrypt=decrypt)
    found = [f for f in report.errors if f.rule == "role-variable"]
    assert [(f.path, f.location.line) for f in found] == [(("dgx_node_sysctl", "net./etc/sudoers"), 4),
                                                          (("dgx_node_sysctl", "net.core.wmem_max"), 5)], found
    assert all(str(f.location.file).endswith("group_vars/dgx.yml") for f in found)
    assert "NOPASSWD" not in " ".join(f.message + f.hint for f in found)


def test_validation_refuses_a_hostile_key_from_extra_vars(sample_copy):
    from test_resolved_model import SAMPLE_VAULT_PASSWORD, validate

    password_file = sample_copy.parent / "sample-vault-password"
    password_file.write_bytes(SAMPLE_VAULT_PASSWORD + b"\n")
    refused = validate(sample_copy / "hosts.yml", password_file, "-e", '{"dgx_node_sysctl": {"net./etc/sudoers": 1}}')
    # A key that is not a name is shown by its length only.
    assert "'dgx_node_sysctl' key '<a key of 16 characters that is not a name, not shown>' is not two or more dot-separated" \
        in refused, refused[-3000:]
    assert "extra vars (-e)" in refused and "sudoers" not in refused
