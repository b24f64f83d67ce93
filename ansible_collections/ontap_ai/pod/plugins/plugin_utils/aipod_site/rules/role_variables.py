"""Role variables are model text: the values a site gives role overrides, checked where the safety
of a device depends on them (issue 40). A kernel parameter of dgx_node_sysctl becomes a path under
/proc/sys and a line of /etc/sysctl.d on every DGX, as root: only a name sysctl(8) could show passes.

value_problems serves both the files (role_variable_values, with file and line) and what Ansible
resolved from other sources such as extra vars (resolved.resolved_settings)."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.module_utils.aipod_compute.sysctl import NAME_RULE, name_problem

from ..characters import shown_key
from ..findings import Finding
from .context import Context

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


# role variable -> its checks. A variable whose value reaches a file name or a device is listed here.
VALUE_RULES: dict[str, Callable[[Any], Iterator[Problem]]] = {
    "dgx_node_sysctl": _kernel_parameters,
}


def value_problems(name: str, value: Any) -> list[Problem]:
    check = VALUE_RULES.get(name)
    return list(check(value)) if check else []


def role_variable_values(ctx: Context) -> None:
    """Every file's override of a variable VALUE_RULES lists is checked, each problem at its line."""
    for name in sorted(VALUE_RULES):
        for vars_file, inner in ctx.site.role_overrides.get(name, []):
            if vars_file.data is None:
                continue
            for sub, message, fix in value_problems(name, vars_file.data.get(inner[0])):
                path = inner + sub
                ctx.findings.append(Finding("role-variable", "error", path, f"'{name}' {message}", fix, vars_file.locate(path)))
