"""The one kind of template a connection setting may hold, judged by parsing, never by rendering."""
from __future__ import annotations

import pytest
import yaml
from ansible import constants
from ansible.plugins.become import sudo
from ansible.plugins.connection import local
from ansible.plugins.doc_fragments import shell_common
from project_paths import REPO

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.templating import (
    connection_template_problem,
    holds_template,
    rendered_reference,
)

MODEL = frozenset({"pod", "dgx", "switch", "server"})
LAB_DIR = ("{{ lookup('ansible.builtin.env', 'AIPOD_LAB_DIR', default=(inventory_dir.split('/.lab/')[0] "
           "if '/.lab/' in inventory_dir else inventory_dir ~ '/../..')) }}/.lab/hosts/id_ed25519")


@pytest.mark.parametrize("text", [
    "10.0.0.1", "{{ dgx.mgmt_address }}", "{{ vault_switch_admin_password }}", "{{ ansible_playbook_python }}",
    "{{ switch['mgmt_address'] }}", LAB_DIR, "-o UserKnownHostsFile={{ inventory_dir }}/known_hosts",
    "{{ lookup('env', 'HOME') }}",
])
def test_what_a_connection_setting_may_template(text):
    assert connection_template_problem(text, MODEL) is None


@pytest.mark.parametrize(("text", "problem"), [
    ("{{ lookup('ansible.builtin.pipe', 'id') }}", "the lookup 'ansible.builtin.pipe'"),
    ("{{ lookup('file', '/etc/shadow') }}", "the lookup 'file'"),
    ("{{ query('ansible.builtin.env', 'HOME') }}", "the call 'query'"),
    ("{{ lookup('env', name) }}", "an environment lookup of a name that is not a literal"),
    ("{{ lookup(*plugins) }}", "a call with * or ** arguments"),
    ("{{ dgx.mgmt_address | upper }}", "the filter 'upper'"),
    ("{{ pod.name is defined }}", "the test 'defined'"),
    ("{% if true %}x{% endif %}", "a statement ({% if %})"),
    ("{{ other_variable }}", "the variable 'other_variable'"),
    ("{{ ''.__class__ }}", "the attribute '__class__'"),
    ("{{ dgx['__class__'] }}", "the attribute '__class__'"),
    ("{{ dgx[pod.name] }}", "an index that is not a literal"),
    ("{{ dgx.mgmt_address.replace('a', 'b') }}", "the call 'replace'"),
    ("{{ inventory_dir.split(pod.name) }}", "'split' with arguments that are not literals"),
    ("{{ 1 + 1 }}", "an expression of kind Add"),
    ("{{ pod.name", "a template Jinja cannot parse"),
])
def test_what_a_connection_setting_may_not_template(text, problem):
    assert problem in (connection_template_problem(text, MODEL) or "")


def test_a_template_is_found_in_keys_and_nested_values():
    assert holds_template({"a": [1, {"b": "{% raw %}"}]}) and holds_template({"{{ x }}": 1}) and holds_template("{# c #}")
    assert not holds_template({"a": ["{ not }", 1, None]})


def test_a_reference_is_followed_through_the_model_and_anything_else_is_not_rendered():
    model = {"dgx": {"mgmt_address": "10.0.0.1"}}
    assert rendered_reference("{{ dgx.mgmt_address }}", model) == "10.0.0.1"
    assert rendered_reference("10.0.0.9", model) == "10.0.0.9"
    assert rendered_reference("{{ dgx.missing }}", model) is None
    assert rendered_reference("{{ lookup('env', 'X') }}", model) is None


def test_the_validate_play_pins_every_variable_ansible_renders_for_its_local_task():
    """Ansible renders a task's connection, shell and become variables before the task runs: an
    inventory's template there would run before validation. The validate play's vars file outranks
    the inventory for each of them (the list comes from this Ansible, so a new one fails here)."""
    rendered = {name for names in constants.MAGIC_VARIABLE_MAPPING.values() for name in names}
    for documentation in (local.DOCUMENTATION, sudo.DOCUMENTATION, shell_common.ModuleDocFragment.DOCUMENTATION):
        for option in (yaml.safe_load(documentation).get("options") or {}).values():
            rendered.update(entry["name"] for entry in option.get("vars") or [])
    rendered.add("ansible_python_interpreter")
    pinned = yaml.safe_load((REPO / "ansible_collections/ontap_ai/pod/playbooks/vars/validation_connection.yml").read_text())
    assert sorted(rendered - set(pinned) - {"inventory_hostname"}) == []
    assert not any(holds_template(value) for name, value in pinned.items() if name != "ansible_python_interpreter")
