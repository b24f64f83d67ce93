"""Role variables are model text: the values a site gives role overrides are checked before any
device is contacted, as the role would check them only once it runs.

Every override is held to its option in the role's meta/argument_specs.yml (type, elements, choices,
sub-options), with Ansible's own argument spec validator. Where the safety of a device depends on
more than the type, VALUE_RULES adds a rule: a kernel parameter of dgx_node_sysctl becomes a path
under /proc/sys and a line of /etc/sysctl.d on every DGX, as root, so only a name sysctl(8) could
show passes. Findings never show a value.

value_problems serves both the files (role_variable_values, with file and line) and what Ansible
resolved from other sources such as extra vars (resolved.resolved_settings)."""
from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.errors import ArgumentTypeError, ArgumentValueError, UnsupportedError

from ansible_collections.ontap_ai.pod.plugins.module_utils.aipod_compute.sysctl import NAME_RULE, name_problem
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_compute.rules import SYSTEM_DIRECTORIES, normalised_path_problem
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.characters import shown_key
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.findings import Finding
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.rule_context import Context
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.templating import holds_template

Problem = tuple[tuple, str, str]  # (path inside the variable, what is wrong, the fix)


def _kernel_parameters(value: Any) -> Iterator[Problem]:
    if not isinstance(value, dict):
        yield (), f"is a {type(value).__name__}, not a mapping of kernel parameter names to values", \
            "write it as a mapping, e.g. net.core.rmem_max: 268435456"
        return
    for name, setting in value.items():
        problem = name_problem(name)
        if problem:
            yield (name,), f"key {shown_key(name)!r} is {problem}", f"name a kernel parameter as {NAME_RULE}"
        elif isinstance(setting, (dict, list, bool)) or setting is None:
            yield (name,), f"'{name}' is a {type(setting).__name__}, not a kernel parameter's value", \
                "give a number or a line of numbers and words, as sysctl -w takes it"


# Where the roles may write inside a system directory: the bundle's own state, and scratch space.
WRITABLE_INSIDE = ("/var/lib/aipod", "/tmp", "/var/tmp")


def _directory(value: Any) -> Iterator[Problem]:
    """A directory the roles write files into (rendered configurations, state, kubeconfigs, DeepOps'
    tree): written in its normal form, and never a system directory or inside one, where a file named
    after a switch or a host could become a cron job, a unit or a library."""
    if not isinstance(value, str) or not value.strip():
        yield (), f"is {'empty' if isinstance(value, str) else 'a ' + type(value).__name__}, not a directory", \
            "give the directory's path"
        return
    if not value.startswith("/"):
        if ".." in value.split("/"):
            yield (), "climbs out of the project with '..'", "give an absolute path, or one below the project"
        return
    problem = normalised_path_problem(value)
    if problem:
        yield (), f"{problem}", "write the directory in its normal form"
        return
    system = next((d for d in SYSTEM_DIRECTORIES if value == d or value.startswith(d + "/")), None)
    if system and not any(value == place or value.startswith(place + "/") for place in WRITABLE_INSIDE):
        yield (), f"is (inside) {system}, a system directory, where the role would write files", \
            "use a directory of the bundle's own, such as /opt/aipod/... or /var/lib/aipod/..."


def _set_by_the_bundle(_value: Any) -> Iterator[Problem]:
    yield (), "is handed from one role to the next by the bundle, not set by a site", "remove it from the inventory and -e"


# role variable -> its checks. A variable whose value reaches a file name or a device is listed here.
VALUE_RULES: dict[str, Callable[[Any], Iterator[Problem]]] = {
    "dgx_node_sysctl": _kernel_parameters,
    "deepops_cluster_work_dir": _directory,
    "deepops_cluster_render_dir": _directory,
    "kubernetes_access_kubeconfig_dir": _directory,
    "switch_cumulus_render_dir": _directory,
    "switch_nxos_render_dir": _directory,
    "verify_compute_rollback_state_dir": _directory,
    # What one role hands the next (meta/argument_specs.yml declares them for that handoff).
    "acceptance_verification": _set_by_the_bundle,
    "verify_report_layers": _set_by_the_bundle,
    "verify_storage_pending": _set_by_the_bundle,
}


# Keys of an argument spec that describe an option for people, not for the validator.
_DOCUMENTATION_KEYS = frozenset({"description", "version_added", "notes"})


def _validator_spec(spec: Mapping) -> dict:
    """An argument spec option as the validator takes it: without its documentation keys."""
    cleaned = {key: value for key, value in spec.items() if key not in _DOCUMENTATION_KEYS}
    if isinstance(cleaned.get("options"), Mapping):
        cleaned["options"] = {name: _validator_spec(option or {}) for name, option in cleaned["options"].items()}
    return cleaned


def _describe(spec: Mapping) -> str:
    kind = spec.get("type", "str")
    text = f"{kind} of {spec['elements']}" if kind == "list" and spec.get("elements") else str(kind)
    if spec.get("choices"):
        text += " (one of " + ", ".join(map(str, spec["choices"])) + ")"
    return text


def spec_problems(name: str, value: Any, spec: Mapping | None) -> list[Problem]:
    """What makes value not an accepted value of the option spec, as the role's own check would find
    at its start; a value holding a template is left to the template rules (it has no type yet)."""
    if spec is None or holds_template(value):
        return []
    result = ArgumentSpecValidator({name: _validator_spec(spec)}).validate({name: copy.deepcopy(value)})
    problems: list[Problem] = []
    fix = f"give {_describe(spec)}, as roles/<role>/meta/argument_specs.yml describes '{name}'"
    for error in result.errors:
        if isinstance(error, ArgumentTypeError):
            problems.append(((), f"is not of the type its role takes ({_describe(spec)}; the value is not shown)", fix))
        elif isinstance(error, ArgumentValueError):
            problems.append(((), f"is not one of the values its role takes ({_describe(spec)}; the value is not shown)", fix))
        elif isinstance(error, UnsupportedError):
            problems.append(((), "holds a key its role does not take", fix))
        else:
            problems.append(((), f"breaks its role's argument spec ({type(error).__name__})", fix))
    return list(dict.fromkeys(problems))


def value_problems(name: str, value: Any, spec: Mapping | None = None) -> list[Problem]:
    """The argument spec's findings first; a variable's own rule only on a value of the right type."""
    problems = spec_problems(name, value, spec)
    check = VALUE_RULES.get(name)
    return problems or (list(check(value)) if check else [])


def role_variable_values(ctx: Context) -> None:
    """Every file's role override is checked against its argument spec and VALUE_RULES, each problem at its line."""
    for name in sorted(ctx.site.role_overrides):
        for vars_file, inner in ctx.site.role_overrides[name]:
            if vars_file.data is None:
                continue
            for sub, message, fix in value_problems(name, vars_file.data.get(inner[0]), ctx.site.role_specs.get(name)):
                path = inner + sub
                ctx.findings.append(Finding("role-variable", "error", path, f"'{name}' {message}", fix, vars_file.locate(path)))
