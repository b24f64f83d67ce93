"""What one role hands another is declared, not fished out of its facts (docs/conventions.md).

A role's tasks, handlers, vars, defaults and templates may read a variable named with another
role's prefix (`<role>_`, the directories under roles/) only when that role declares it as an
output: a line ``Sets `name`: ...`` in the description of one of its entry points in
meta/argument_specs.yml. The collection's playbooks may read a role's declared outputs and options.

A name belongs to the longest role name it starts with (switch_nxos_x is switch_nxos's, not a
role switch's); leading underscores are ignored (__verify_storage_reuse is verify_storage's own).
Names a role defines itself (register, set_fact, vars, loop_var) are its own whatever their prefix.
Only what Jinja reads counts: expressions in strings with {{ or {%, bare conditionals (when,
changed_when, failed_when, until, assert's that, debug's var) and template files; string
literals and attributes (item.ontap_svm_plan) are not variables. A read by a computed name
(hostvars[host]['ontap_svm_plan'], lookup('vars', ...)) is not seen; the roles read only
connection and vault variables that way.
"""
from __future__ import annotations

import pathlib
import re
import warnings

import pytest
import yaml
from jinja2 import Environment, nodes
from project_paths import COLLECTION

ROLES = COLLECTION / "roles"
PLAYBOOKS = COLLECTION / "playbooks"
ROLE_YAML_DIRECTORIES = ("tasks", "handlers", "vars", "defaults")
BARE_EXPRESSIONS = {"when", "changed_when", "failed_when", "until", "that"}
SET_FACT = {"set_fact", "ansible.builtin.set_fact", "ansible.legacy.set_fact"}
DEBUG = {"debug", "ansible.builtin.debug", "ansible.legacy.debug"}
OUTPUT = re.compile(r"^Sets `([A-Za-z_][A-Za-z0-9_]*)`")
JINJA = Environment(extensions=["jinja2.ext.do", "jinja2.ext.loopcontrols"])


class _Opaque(str):
    """A tagged scalar (!unsafe, !vault): never templated by Ansible, so it reads nothing."""


class _Loader(yaml.SafeLoader):
    pass


_Loader.add_multi_constructor("!", lambda loader, suffix, node: _Opaque(loader.construct_scalar(node)) if isinstance(node, yaml.ScalarNode) else None)


def jinja_reads(text: str) -> set[str]:
    """Top-level variables a Jinja template reads (not those it assigns itself: loop targets, set, macro arguments)."""
    with warnings.catch_warnings():  # Jinja's lexer warns on a regex escape ('\.') in a string literal, as Ansible's does
        warnings.simplefilter("ignore", DeprecationWarning)
        tree = JINJA.parse(text)
    names = list(tree.find_all(nodes.Name))
    assigned = {name.name for name in names if name.ctx in ("store", "param")}
    return {name.name for name in names if name.ctx == "load"} - assigned


def yaml_reads_and_definitions(data) -> tuple[set[str], set[str]]:
    """Variables the YAML of a task, vars or playbook file reads, and those it defines."""
    reads: set[str] = set()
    defined: set[str] = set()

    def walk(node, key=None, bare=BARE_EXPRESSIONS):
        if isinstance(node, dict):
            # the arguments of debug: var is a bare expression there, and only there
            inner = BARE_EXPRESSIONS | {"var"} if key in DEBUG else BARE_EXPRESSIONS
            for child_key, child in node.items():
                if child_key in ("register", "loop_var") and isinstance(child, str):
                    defined.add(child)
                elif (child_key in SET_FACT or child_key == "vars") and isinstance(child, dict):
                    defined.update(name for name in child if name != "cacheable")
                if isinstance(child_key, str) and ("{{" in child_key or "{%" in child_key):
                    reads.update(jinja_reads(child_key))
                walk(child, child_key, inner)
        elif isinstance(node, list):
            for child in node:
                walk(child, key, bare)
        elif isinstance(node, str) and not isinstance(node, _Opaque):
            if "{{" in node or "{%" in node:
                reads.update(jinja_reads(node))
            elif key in bare:
                reads.update(jinja_reads("{{ " + node + " }}"))

    walk(data)
    return reads, defined


def owner(name: str, roles: list[str]) -> str | None:
    """The role whose prefix the name carries (longest match), leading underscores ignored."""
    bare = name.lstrip("_")
    matches = [role for role in roles if bare.startswith(role + "_")]
    return max(matches, key=len) if matches else None


def declared(roles_dir: pathlib.Path, role: str) -> tuple[set[str], set[str]]:
    """A role's declared outputs (``Sets `name```) and options, over all its entry points."""
    specs_file = roles_dir / role / "meta" / "argument_specs.yml"
    outputs: set[str] = set()
    options: set[str] = set()
    if not specs_file.is_file():
        return outputs, options
    for entry in (yaml.safe_load(specs_file.read_text()) or {}).get("argument_specs", {}).values():
        description = entry.get("description") or []
        for line in [description] if isinstance(description, str) else description:
            match = OUTPUT.match(str(line))
            if match:
                outputs.add(match.group(1))
        options.update(entry.get("options") or {})
    return outputs, options


def role_files(role_dir: pathlib.Path) -> tuple[list[pathlib.Path], list[pathlib.Path]]:
    yaml_files = [path for directory in ROLE_YAML_DIRECTORIES for path in sorted((role_dir / directory).rglob("*.y*ml"))]
    templates = sorted(path for path in (role_dir / "templates").rglob("*") if path.is_file())
    return yaml_files, templates


def undeclared_reads(roles_dir: pathlib.Path) -> list[str]:
    """Every read of another role's variable that the other role does not declare as an output."""
    roles = sorted(path.name for path in roles_dir.iterdir() if path.is_dir())
    outputs = {role: declared(roles_dir, role)[0] for role in roles}
    problems = []
    for role in roles:
        yaml_files, templates = role_files(roles_dir / role)
        reads: dict[str, set[pathlib.Path]] = {}
        defined: set[str] = set()
        for path in yaml_files:
            file_reads, file_defined = yaml_reads_and_definitions(yaml.load(path.read_text(), Loader=_Loader))
            defined |= file_defined
            for name in file_reads:
                reads.setdefault(name, set()).add(path)
        for path in templates:
            for name in jinja_reads(path.read_text()):
                reads.setdefault(name, set()).add(path)
        for name, paths in sorted(reads.items()):
            other = owner(name, roles)
            if other is None or other == role or name in defined or name in outputs[other]:
                continue
            where = ", ".join(str(path.relative_to(roles_dir)) for path in sorted(paths))
            problems.append(f"role {role} reads {name} of role {other}, which does not declare it (Sets `{name}`) ({where})")
    return problems


def playbook_undeclared_reads(playbooks_dir: pathlib.Path, roles_dir: pathlib.Path) -> list[str]:
    """Reads, in the collection's playbooks, of a role's variable that is neither its declared output nor its option."""
    roles = sorted(path.name for path in roles_dir.iterdir() if path.is_dir())
    known = {role: set().union(*declared(roles_dir, role)) for role in roles}
    problems = []
    for path in sorted(playbooks_dir.rglob("*.yml")):
        reads, defined = yaml_reads_and_definitions(yaml.load(path.read_text(), Loader=_Loader))
        for name in sorted(reads - defined):
            other = owner(name, roles)
            if other is not None and name not in known[other]:
                problems.append(f"{path.relative_to(playbooks_dir)} reads {name}, neither an output nor an option of role {other}")
    return problems


# ---------------------------------------------------------------------------- the collection
def test_roles_read_only_what_other_roles_declare():
    problems = undeclared_reads(ROLES)
    assert not problems, "\n".join(problems)


def test_playbooks_read_only_declared_outputs_and_options():
    problems = playbook_undeclared_reads(PLAYBOOKS, ROLES)
    assert not problems, "\n".join(problems)


def test_the_verify_roles_are_handed_their_inputs_as_options():
    """The hand-offs the verify layer makes are options of the verify roles, with a type and a description."""
    for role, option, kind in (("verify_switches", "verify_switches_pending", "list"), ("verify_storage", "verify_storage_pending", "dict")):
        spec = yaml.safe_load((ROLES / role / "meta" / "argument_specs.yml").read_text())["argument_specs"]["main"]["options"][option]
        assert spec["type"] == kind and spec["description"], (role, option)
    layer = yaml.load((PLAYBOOKS / "layers" / "verify.yml").read_text(), Loader=_Loader)
    handed = {name for play in layer for role in play.get("roles", []) for name in role.get("vars", {})}
    assert {"verify_switches_pending", "verify_storage_pending"} <= handed
    for role in ("verify_switches", "verify_storage"):
        reads = set().union(*(yaml_reads_and_definitions(yaml.load(path.read_text(), Loader=_Loader))[0]
                              for path in role_files(ROLES / role)[0]))
        assert not {name for name in reads if name.startswith(("storage_layer_", "switch_nxos_"))}, (role, sorted(reads))


def test_every_declared_output_is_set_by_its_role():
    """A ``Sets `name``` line names a fact the role really sets (set_fact or register), not a stale name."""
    for role_dir in sorted(path for path in ROLES.iterdir() if path.is_dir()):
        outputs, _ = declared(ROLES, role_dir.name)
        defined: set[str] = set()
        for path in role_files(role_dir)[0]:
            defined |= yaml_reads_and_definitions(yaml.load(path.read_text(), Loader=_Loader))[1]
        assert outputs <= defined, (role_dir.name, sorted(outputs - defined))


# ---------------------------------------------------------------------------- the check itself
def _role(roles_dir: pathlib.Path, name: str, tasks: str = "", outputs: tuple[str, ...] = (), template: str = "") -> None:
    (roles_dir / name / "tasks").mkdir(parents=True)
    (roles_dir / name / "tasks" / "main.yml").write_text(tasks or "---\n[]\n")
    description = ["A role."] + [f"Sets `{output}`: something." for output in outputs]
    (roles_dir / name / "meta").mkdir()
    (roles_dir / name / "meta" / "argument_specs.yml").write_text(
        yaml.safe_dump({"argument_specs": {"main": {"short_description": name, "description": description, "options": {}}}}))
    if template:
        (roles_dir / name / "templates").mkdir()
        (roles_dir / name / "templates" / "page.j2").write_text(template)


@pytest.fixture
def roles_dir(tmp_path):
    roles = tmp_path / "roles"
    _role(roles, "switch", "---\n- name: Own\n  ansible.builtin.debug:\n    msg: \"{{ switch_mtu }}\"\n")
    _role(roles, "switch_nxos", "---\n- name: Own, not role switch's\n  ansible.builtin.debug:\n    msg: \"{{ switch_nxos_intent }}\"\n",
          outputs=("switch_nxos_pending",))
    _role(roles, "ontap_svm", outputs=("ontap_svm_plan",))
    return roles


def test_declared_outputs_own_internal_and_registered_variables_pass(roles_dir):
    _role(roles_dir, "verify_storage", """---
- name: Plan
  ansible.builtin.include_role:
    name: ontap_ai.pod.ontap_svm
    tasks_from: compare
- name: Probe
  ansible.builtin.command: "true"
  changed_when: false
  register: ontap_svm_probe
- name: Judge
  ansible.builtin.set_fact:
    verify_storage_checks: "{{ ontap_svm_plan | length + ontap_svm_probe.rc + __verify_storage_reuse + _verify_storage_x }}"
  vars:
    __verify_storage_reuse: "{{ verify_storage_pending | length > 0 }}"
    _verify_storage_x: 1
  when: item.ontap_svm_attribute is defined and 'ontap_svm_literal' != ''
  loop: "{{ [switch_nxos_pending] }}"
""")
    assert undeclared_reads(roles_dir) == []


def test_an_undeclared_variable_of_another_role_fails(roles_dir):
    _role(roles_dir, "verify_storage", """---
- name: Judge
  ansible.builtin.set_fact:
    verify_storage_checks: "{{ ontap_svm_plan }}"
  when: not ontap_svm_hidden_flag | bool
- name: Show
  ansible.builtin.debug:
    var: ontap_svm_debugged
""", template="{% for line in lines %}{{ line }} {{ switch_nxos_intent }}{% endfor %}\n")
    problems = undeclared_reads(roles_dir)
    assert [problem.split(",")[0] for problem in problems] == [
        "role verify_storage reads ontap_svm_debugged of role ontap_svm",
        "role verify_storage reads ontap_svm_hidden_flag of role ontap_svm",
        "role verify_storage reads switch_nxos_intent of role switch_nxos",
    ], problems


def test_a_name_belongs_to_the_longest_role_prefix(roles_dir):
    _role(roles_dir, "switch_cumulus", "---\n- name: Reads\n  ansible.builtin.debug:\n    msg: \"{{ switch_nxos_intent }}{{ switch_mtu }}\"\n")
    assert owner("switch_nxos_intent", ["switch", "switch_nxos"]) == "switch_nxos"
    assert owner("__switch_nxos_x", ["switch", "switch_nxos"]) == "switch_nxos"
    assert owner("switch_mtu", ["switch", "switch_nxos"]) == "switch"
    assert owner("switchport", ["switch", "switch_nxos"]) is None
    assert [problem.split(" (")[0] for problem in undeclared_reads(roles_dir)] == [
        "role switch_cumulus reads switch_mtu of role switch, which does not declare it",
        "role switch_cumulus reads switch_nxos_intent of role switch_nxos, which does not declare it",
    ]
