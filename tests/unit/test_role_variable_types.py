"""Role variables are checked against their role's argument_specs before any device is contacted:
a type or a choice the role would refuse at its start is refused at validation, with file and line
(or, from -e, with its origin), and the value is never shown."""
from __future__ import annotations

import pytest

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.rules.role_variables import spec_problems
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site


def role_findings(sample_copy, decrypt, group: str, text: str) -> list:
    path = sample_copy / "group_vars" / f"{group}.yml"
    path.write_text((path.read_text() if path.exists() else "---\n") + text)
    return [f for f in validate_site(str(sample_copy), decrypt=decrypt).errors if f.rule == "role-variable"]


@pytest.mark.parametrize(("group", "text", "problem"), [
    ("dgx", "dgx_node_ring_size: lots-of-rings\n", "is not of the type its role takes (int"),
    ("dgx", "dgx_node_roce_trust: sometimes\n", "is not one of the values its role takes (str (one of"),
    ("dgx", "dgx_node_mount_extra_options: {nofail: true}\n", "is not of the type its role takes (list of str"),
    ("dgx", "dgx_node_sysctl: [net.core.rmem_max]\n", "is not of the type its role takes (dict"),
    ("switches", "switch_cumulus_lacp_rate: warp\n", "is not one of the values its role takes"),
])
def test_an_override_its_role_would_refuse_is_refused_at_its_line(sample_copy, decrypt, group, text, problem):
    [error] = role_findings(sample_copy, decrypt, group, text)
    name, value = text.split(": ", 1)
    assert error.path == (name,) and problem in error.message, error
    assert str(error.location).endswith(f"group_vars/{group}.yml:{len((sample_copy / 'group_vars' / f'{group}.yml').read_text().splitlines())}")
    assert value.strip() not in error.message + error.hint


def test_overrides_of_the_right_type_pass(sample_copy, decrypt):
    assert role_findings(sample_copy, decrypt, "dgx", "dgx_node_ring_size: 4096\ndgx_node_roce_trust: pcp\n"
                         "dgx_node_mount_extra_options: [nofail]\n") == []


def test_a_templated_override_is_left_to_the_template_rules():
    assert spec_problems("dgx_node_ring_size", "{{ ring }}", {"type": "int"}) == []


def test_an_override_from_extra_vars_is_typed_too(sample_copy):
    from test_resolved_model import SAMPLE_VAULT_PASSWORD, validate

    password_file = sample_copy.parent / "sample-vault-password"
    password_file.write_bytes(SAMPLE_VAULT_PASSWORD + b"\n")
    refused = validate(sample_copy / "hosts.yml", password_file, "-e", "dgx_node_roce_trust=sometimes")
    assert "'dgx_node_roce_trust' is not one of the values its role takes" in refused and "extra vars (-e)" in refused, refused[-3000:]
    assert "sometimes" not in refused
    assert validate(sample_copy / "hosts.yml", password_file, "-e", "dgx_node_ring_size=4096") == ""


@pytest.mark.parametrize(("group", "text", "problem"), [
    ("switches", "switch_nxos_render_dir: /etc/cron.d\n", "is (inside) /etc, a system directory"),
    ("all/paths", "deepops_cluster_work_dir: /usr/local/lib\n", "is (inside) /usr"),
    ("dgx", "verify_compute_rollback_state_dir: /var/lib/aipod/../../../etc\n", "is not written in its normal form"),
    ("all/paths", "kubernetes_access_kubeconfig_dir: ../../somewhere\n", "climbs out of the project"),
    ("all/paths", "verify_report_layers: {switches: ok}\n", "is handed from one role to the next by the bundle"),
])
def test_a_directory_the_roles_write_into_stays_out_of_system_directories(sample_copy, decrypt, group, text, problem):
    [error] = role_findings(sample_copy, decrypt, group, text)
    assert problem in error.message, error


def test_the_bundles_own_directories_pass(sample_copy, decrypt):
    assert role_findings(sample_copy, decrypt, "all/paths", "deepops_cluster_work_dir: /opt/aipod/deepops\n"
                         "verify_compute_rollback_state_dir: /var/lib/aipod/storage-net\nswitch_nxos_render_dir: reports/switches\n") == []
