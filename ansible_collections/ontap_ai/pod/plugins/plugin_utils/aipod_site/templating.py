"""The one kind of Jinja a site may write, judged by parsing it and never by rendering it.

The model and the role variables are literal data. Connection settings (``ansible_*``) may
need a template: a host's address is its model's ``mgmt_address``, a password names its vault
secret, the lab finds its own files from the inventory's directory. They may hold expressions
over the model, the vault secrets and a few of Ansible's own names, string methods that only
cut text (``split``), and the environment lookup: nothing that runs a command, reads a file or
calls a filter a site could have installed. Anything else is refused before Ansible renders it.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable
from typing import Any

from jinja2 import Environment, nodes
from jinja2.exceptions import TemplateSyntaxError

TEMPLATE_MARK = re.compile(r"{{|{%|{#")
SECRET_NAME = re.compile(r"^vault_[a-z0-9_]+$")
# The lookups a connection setting may call, and Ansible's names it may read.
ALLOWED_LOOKUPS = frozenset({"ansible.builtin.env", "env"})
ANSIBLE_NAMES = frozenset({"inventory_dir", "inventory_file", "inventory_hostname", "inventory_hostname_short",
                           "ansible_playbook_python", "playbook_dir"})
ALLOWED_METHODS = frozenset({"split"})
ALLOWED_COMPARISONS = frozenset({"in", "notin", "eq", "ne"})
ALLOWANCE = ("a connection setting may template only the model's values, vault_* secrets and Ansible's "
             f"{', '.join(sorted(ANSIBLE_NAMES))}, with ~, if/else, in, split and "
             "lookup('ansible.builtin.env', ...) (docs/site-model.md, \"Templates\")")
_PARSER = Environment()


def holds_template(value: Any) -> bool:
    """Whether any text in value (keys included) carries a Jinja mark."""
    if isinstance(value, str):
        return bool(TEMPLATE_MARK.search(value))
    if isinstance(value, dict):
        return any(holds_template(key) or holds_template(item) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return any(holds_template(item) for item in value)
    return False


def connection_template_problem(text: str, model_keys: Collection[str]) -> str | None:
    """None when text holds no template, or only the kind a connection setting may hold; else what
    in it is refused."""
    if not TEMPLATE_MARK.search(text):
        return None

    def readable(name: str) -> bool:
        return name in model_keys or name in ANSIBLE_NAMES or bool(SECRET_NAME.match(name))

    try:
        tree = _PARSER.parse(text)
    except TemplateSyntaxError as exc:
        return f"a template Jinja cannot parse (line {exc.lineno} of the value: {exc.message})"
    return _problem(tree, readable)


def rendered_reference(text: str, variables: dict[str, Any]) -> Any:
    """What a template that only names a variable ("{{ dgx.mgmt_address }}") renders to over
    variables, found by walking them; text itself when it holds no template; None otherwise."""
    if not TEMPLATE_MARK.search(text):
        return text
    try:
        body = _PARSER.parse(text).body
    except TemplateSyntaxError:
        return None
    if len(body) != 1 or not isinstance(body[0], nodes.Output) or len(body[0].nodes) != 1:
        return None
    attributes: list[str] = []
    node = body[0].nodes[0]
    while isinstance(node, nodes.Getattr):
        attributes.insert(0, node.attr)
        node = node.node
    if not isinstance(node, nodes.Name):
        return None
    value: Any = variables.get(node.name)
    for attribute in attributes:
        value = value.get(attribute) if isinstance(value, dict) else None
    return value


def _problem(node: nodes.Node, readable: Callable[[str], bool]) -> str | None:  # noqa: PLR0911 - one branch per node kind
    if isinstance(node, (nodes.Template, nodes.Output)):
        return _first(node.iter_child_nodes(), readable)
    if isinstance(node, (nodes.TemplateData, nodes.Const)):
        return None
    if isinstance(node, nodes.Name):
        return None if node.ctx == "load" and readable(node.name) else f"the variable '{node.name}'"
    if isinstance(node, nodes.Getattr):
        return f"the attribute '{node.attr}'" if node.attr.startswith("_") else _problem(node.node, readable)
    if isinstance(node, nodes.Getitem):
        if not isinstance(node.arg, nodes.Const):
            return "an index that is not a literal"
        if isinstance(node.arg.value, str) and node.arg.value.startswith("_"):
            return f"the attribute '{node.arg.value}'"
        return _problem(node.node, readable)
    if isinstance(node, (nodes.Concat, nodes.CondExpr, nodes.And, nodes.Or, nodes.Not)):
        return _first(node.iter_child_nodes(), readable)
    if isinstance(node, nodes.Compare):
        refused = [operand.op for operand in node.ops if operand.op not in ALLOWED_COMPARISONS]
        return f"the comparison '{refused[0]}'" if refused else _first(node.iter_child_nodes(), readable)
    if isinstance(node, nodes.Operand):
        return _problem(node.expr, readable)
    if isinstance(node, nodes.Call):
        return _call_problem(node, readable)
    if isinstance(node, nodes.Filter):
        return f"the filter '{node.name}'"
    if isinstance(node, nodes.Test):
        return f"the test '{node.name}'"
    if isinstance(node, nodes.Stmt):
        return f"a statement ({{% {type(node).__name__.lower()} %}})"
    return f"an expression of kind {type(node).__name__}"


def _call_problem(call: nodes.Call, readable: Callable[[str], bool]) -> str | None:
    if call.dyn_args is not None or call.dyn_kwargs is not None:
        return "a call with * or ** arguments"
    if isinstance(call.node, nodes.Name) and call.node.name == "lookup":
        plugin = call.args[0].value if call.args and isinstance(call.args[0], nodes.Const) else None
        if plugin not in ALLOWED_LOOKUPS:
            return f"the lookup '{plugin}'" if isinstance(plugin, str) else "a lookup not named by a literal"
        if not all(isinstance(arg, nodes.Const) for arg in call.args[1:]):
            return "an environment lookup of a name that is not a literal"
        if any(keyword.key != "default" for keyword in call.kwargs):
            return "an environment lookup with an option other than default"
        return _first((keyword.value for keyword in call.kwargs), readable)
    if isinstance(call.node, nodes.Getattr) and call.node.attr in ALLOWED_METHODS:
        if call.kwargs or not all(isinstance(arg, nodes.Const) for arg in call.args):
            return f"'{call.node.attr}' with arguments that are not literals"
        return _problem(call.node.node, readable)
    name = call.node.attr if isinstance(call.node, nodes.Getattr) else getattr(call.node, "name", type(call.node).__name__)
    return f"the call '{name}'"


def _first(children: Iterable[nodes.Node], readable: Callable[[str], bool]) -> str | None:
    for child in children:
        problem = _problem(child, readable)
        if problem:
            return problem
    return None
