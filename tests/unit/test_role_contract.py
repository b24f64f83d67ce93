"""Every device role has a read-only entry point `compare`, declared in meta/argument_specs.yml,
and its tasks/compare.yml exists; main makes the same comparison before it changes anything."""
from __future__ import annotations

import pytest
import yaml
from project_paths import REPO

ROLES = REPO / "ansible_collections" / "ontap_ai" / "pod" / "roles"
DEVICE_ROLES = ("switch_nxos", "switch_cumulus", "ontap_cluster_network", "ontap_svm", "ontap_lifs", "ontap_exports",
                "ontap_flexgroups", "ontap_accounts", "ontap_protection", "dgx_node", "trident", "kubernetes_datasets")


@pytest.mark.parametrize("role", DEVICE_ROLES)
def test_a_device_role_declares_its_compare_entry_point(role):
    specs = yaml.safe_load((ROLES / role / "meta" / "argument_specs.yml").read_text())["argument_specs"]
    assert "compare" in specs, f"{role}: no compare entry point in meta/argument_specs.yml"
    assert specs["compare"].get("short_description")
    assert (ROLES / role / "tasks" / "compare.yml").is_file()


@pytest.mark.parametrize("role", [r for r in DEVICE_ROLES if r.startswith("ontap_")])
def test_an_ontap_role_compares_before_its_first_change(role):
    tasks = yaml.safe_load((ROLES / role / "tasks" / "main.yml").read_text())
    assert tasks[0].get("ansible.builtin.import_tasks") == "compare.yml", tasks[0]


def test_no_role_keeps_a_plan_file_that_reads_a_device():
    # plan.yml is the desired state from the model; reading a device belongs in compare.yml.
    readers = [str(path.relative_to(ROLES)) for path in ROLES.glob("*/tasks/plan.yml")
               if "na_ontap_rest_info" in path.read_text() or "nxos_facts" in path.read_text()]
    assert not readers, readers


# trident applies each object on its own: its tasks loop over the objects of one kind that the same
# comparison found pending, indexed by kind and name before the items are made (preflight.yml).
PER_OBJECT_GATES = {"trident": "_trident_to_apply."}


@pytest.mark.parametrize("role", DEVICE_ROLES)
def test_compare_hands_on_the_roles_pending_items(role):
    """compare declares `<role>_pending` (an output line in its description) and main applies only what is pending:
    its changing part runs under a condition on that list."""
    specs = yaml.safe_load((ROLES / role / "meta" / "argument_specs.yml").read_text())["argument_specs"]
    described = " ".join(specs["compare"]["description"]) + " " + " ".join(specs["main"]["description"])
    assert f"`{role}_pending`" in described, f"{role}: compare does not declare {role}_pending"
    tasks = "".join(path.read_text() for path in (ROLES / role / "tasks").glob("*.yml"))
    gate = PER_OBJECT_GATES.get(role, f"{role}_pending | length")
    assert gate in tasks, f"{role}: no task is conditioned on what is pending"


def test_the_pending_shape_is_the_one_the_conventions_describe():
    from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending
    conventions = (REPO / "docs" / "conventions.md").read_text()
    assert "{" + ", ".join(aipod_pending.KEYS) + "}" in conventions
    assert all(f"`{action}`" in conventions for action in aipod_pending.ACTIONS)
