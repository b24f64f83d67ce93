"""NVUE commands hold model text only as data: every comment stays one line, every command is an
`nv set` or `nv unset` argument list, and a description is one argument exactly as written."""
from __future__ import annotations

import copy

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from project_paths import COLLECTION
from switch_test_models import cumulus_model

from ansible_collections.ontap_ai.pod.plugins.modules.nvue_stage import staged_argv
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import nvue

PLAN = m.switch_plan(cumulus_model(), "n3232c-a")
HOSTILE = st.text(alphabet=st.sampled_from(list("ab ;|&$()`'\"\\\n\r\t\x00\u202e\u200b#~*?<>{}[]!") + ["\u0430"]),
                  min_size=1, max_size=40)


def with_description(description: str) -> list[str]:
    plan = copy.deepcopy(PLAN)
    plan["ports"][0]["description"] = description
    return nvue.commands(plan)


@settings(max_examples=200, deadline=None)
@given(HOSTILE)
def test_a_hostile_description_is_one_argument_and_no_comment_breaks_its_line(description):
    lines = with_description(description)
    assert all("\n" not in line and "\r" not in line for line in lines if line.startswith("#"))
    argv = staged_argv(lines)
    assert all(command[:2] in (["nv", "set"], ["nv", "unset"]) for command in argv)
    port = PLAN["ports"][0]["name"]
    assert ["nv", "set", "interface", port, "description", description] in argv


def test_a_comment_shows_control_characters_as_escapes():
    lines = with_description("dgx02 storage\nreboot")
    assert f"# {PLAN['ports'][0]['name']}: dgx02 storage\\nreboot" in lines


@pytest.mark.parametrize("line", ["reboot", "nv config apply -y", "sudo nv set system hostname x", "nv set"])
def test_only_nv_set_and_unset_commands_are_staged(line):
    with pytest.raises(ValueError, match="is not an NVUE set or unset command"):
        staged_argv(["# a comment", "nv set interface swp1 link mtu 9216", line])


def test_comments_and_blank_lines_are_skipped_whole():
    assert staged_argv(["# x\nreboot", "", "nv unset interface bond1 bond"]) == [["nv", "unset", "interface", "bond1", "bond"]]


def test_no_task_of_the_cumulus_role_hands_model_text_to_a_shell():
    tasks = COLLECTION / "roles" / "switch_cumulus" / "tasks"
    for path in tasks.glob("*.yml"):
        for task in yaml.safe_load(path.read_text()) or []:
            assert "ansible.builtin.shell" not in task and "shell" not in task, (path.name, task.get("name"))
            command = task.get("ansible.builtin.command") or {}
            assert "switch_cumulus_commands" not in str(command), (path.name, task.get("name"))


@pytest.mark.parametrize("text", ["dgx02 storage\nreboot", "a\rb", "rtl\u202eevil", "zero\u200bwidth", "nul\x00"])
def test_a_switch_plan_with_hidden_characters_is_refused_for_every_platform(text):
    plan = copy.deepcopy(PLAN)
    plan["ports"][0]["description"] = text
    found = m.hidden_texts(plan)
    assert len(found) == 1 and "description" in found[0]
    assert m.hidden_texts(PLAN) == []


def test_the_switch_plan_filter_fails_before_any_switch_role_renders_it():
    from ansible.errors import AnsibleFilterError

    from ansible_collections.ontap_ai.pod.plugins.filter.aipod import aipod_switch_plan

    model = cumulus_model()
    model["hosts"]["n3232c-a"]["switch"]["ports"][0]["description"] = "dgx02 storage\nreboot"
    with pytest.raises(AnsibleFilterError, match="hidden characters"):
        aipod_switch_plan(model, "n3232c-a")
