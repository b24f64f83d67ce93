"""Rules of model text: text is data, so nothing in it may read as a second line, hide what it
says, or be a name a sink cannot take.

Every string of the site model reaches some sink: a switch CLI line, an NVUE command, a generated
inventory or file, a path, a Kubernetes object. A line break there starts a second command; bidi
overrides and zero-width characters make a name read as something it is not. So no string of the
model may hold a control character (Unicode category Cc), a format character (Cf: bidi controls,
zero-width characters, the BOM) or a line or paragraph separator (Zl, Zp). Host names are
RFC 1123 names: lowercase, as a Kubernetes node name must be, and usable as a file name.
"""
from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.characters import hidden_characters, shown_key
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.findings import Finding
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import GLOBAL_KEYS, HOST_KEYS, VarsFile
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.rule_context import Context
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.templating import ALLOWANCE, TEMPLATE_MARK, connection_template_problem, holds_template

HOST_NAME = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*")
HOST_NAME_MAX = 253
WALK_LIMIT = 200_000
# The variables a connection setting's template may read beside vault_* secrets and Ansible's own.
MODEL_NAMES = frozenset(GLOBAL_KEYS) | frozenset(HOST_KEYS)


def _strings(value: Any, path: tuple) -> Iterator[tuple[tuple, str, bool]]:
    """(path, text, is_key) of every string in a value, keys included, each node once."""
    pending = [(value, path)]
    seen = 0
    while pending and seen < WALK_LIMIT:
        node, where = pending.pop()
        seen += 1
        if isinstance(node, str):
            yield where, node, False
        elif isinstance(node, dict):
            for key, child in node.items():
                if isinstance(key, str):
                    yield where + (key,), key, True
                pending.append((child, where + (key,)))
        elif isinstance(node, list):
            pending.extend((child, where + (index,)) for index, child in enumerate(node))


def no_hidden_characters(ctx: Context) -> None:
    """No string of the model (names, descriptions, paths, user names, URLs) holds a control or
    invisible character."""
    for key, value in ctx.model.items():
        if key == "hosts":
            continue
        _check(ctx, value, (key,))
    for host, body in ctx.model["hosts"].items():
        for kind in ("switch", "dgx", "server"):
            if kind in m.as_dict(body):
                _check(ctx, body[kind], ("hosts", host, kind))


def _check(ctx: Context, value: Any, path: tuple) -> None:
    for where, text, is_key in _strings(value, path):
        hidden = hidden_characters(text)
        if hidden:
            what = "key" if is_key else "value"
            ctx.error("hidden-character", where, f"this {what} holds {', '.join(hidden)}, which would reach a switch CLI, a shell "
                      "or a generated file as more than the text it shows",
                      "write it as one line of visible characters")


# Connection settings that reach ssh, a network CLI session or a generated inventory as one token.
CONNECTION_GRAMMARS = {
    "ansible_host": (re.compile(r"[A-Za-z0-9]([A-Za-z0-9.:-]{0,252})"), "an IP address or a DNS name"),
    # '@' for directory users (SSSD: jdoe@corp.example).
    "ansible_user": (re.compile(r"[A-Za-z0-9_][A-Za-z0-9._@-]{0,63}"), "a user name (letters, digits, '.', '_', '-', '@')"),
    "ansible_become_user": (re.compile(r"[A-Za-z0-9_][A-Za-z0-9._@-]{0,63}"), "a user name (letters, digits, '.', '_', '-', '@')"),
    "ansible_connection": (re.compile(r"[a-z0-9_]+(\.[a-z0-9_]+)*"), "a connection plugin name (ssh, local, ansible.netcommon.network_cli)"),
    "ansible_network_os": (re.compile(r"[a-z0-9_]+(\.[a-z0-9_]+)*"), "a network OS name (cisco.nxos.nxos)"),
    "ansible_port": (re.compile(r"[0-9]{1,5}"), "a TCP port number"),
    # The NX-OS class-map and policy-map names are this prefix plus at most 12 characters (-QUEUING-OUT).
    "switch_nxos_qos_prefix": (re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,27}"), "one NX-OS word of at most 28 letters, digits, '_' or '-'"),
    # NX-OS VRF names: at most 32 characters; '?' would ask the CLI for help mid-command.
    "switch_nxos_vpc_keepalive_vrf": (re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,31}"),
                                      "an NX-OS VRF name of at most 32 letters, digits, '_', '.', ':' or '-'"),
}
# Settings whose values the bundle writes out as YAML (to_nice_yaml), where a line break is data.
MULTILINE_SETTINGS = frozenset({"deepops_cluster_config_vars"})


def setting_hidden_characters(name: str, text: str) -> list[str]:
    """hidden_characters of a setting's text, a line break allowed where the setting is written out as YAML."""
    hidden = hidden_characters(text)
    return [label for label in hidden if not (name in MULTILINE_SETTINGS and label.startswith("U+000A"))]


def no_hidden_characters_in_settings(ctx: Context) -> None:
    """Every other variable the inventory sets (role overrides, ansible_* connection settings, in
    vars files and in hosts.yml) holds no hidden character either, and the connection settings are
    one token of their grammar: a role override reaches a CLI or a file as the model does, and
    ansible_host reaches ssh and generated inventories."""
    for vars_file in ctx.site.files:
        if vars_file.data is None:
            continue
        for key, value in vars_file.data.items():
            if str(key) in GLOBAL_KEYS or str(key) in HOST_KEYS:
                continue  # the model: no_hidden_characters
            for where, text, is_key in _strings(value, (key,)):
                hidden = hidden_characters(text) if is_key else setting_hidden_characters(str(key), text)
                if hidden:
                    where = tuple(shown_key(part) if isinstance(part, str) else part for part in where)
                    _setting_error(ctx, vars_file, where, "hidden-character",
                                   f"'{where[0]}' holds {', '.join(hidden)} in a {'key' if is_key else 'value'}: it would reach "
                                   "a connection, a CLI or a generated file as more than the text it shows",
                                   "write it as one line of visible characters")
            grammar = CONNECTION_GRAMMARS.get(str(key))
            if grammar is None or value is None or isinstance(value, bool):
                continue
            text = str(value) if isinstance(value, (str, int)) else None
            if text is not None and (TEMPLATE_MARK.search(text) or hidden_characters(text)):
                continue  # a template resolves to model values, which are checked; hidden ones are reported above
            if text is None or not grammar[0].fullmatch(text) or (key == "ansible_port" and not 0 < int(text) < 65536):
                _setting_error(ctx, vars_file, (key,), "connection-setting",
                               f"'{key}' is not {grammar[1]}: it reaches ssh, a CLI session and generated inventories as one word",
                               f"give {grammar[1]}, with no spaces, quotes or shell characters")


def settings_are_literal(ctx: Context) -> None:
    """Role variables, secrets and playbook settings are literal data; a connection setting may hold
    only the narrow kind of template docs/site-model.md describes. Judged from the text: nothing is
    rendered, so a lookup in a refused value never runs."""
    for vars_file in ctx.site.files:
        if vars_file.data is None:
            continue
        for key, value in vars_file.data.items():
            problem = setting_template_problem(str(key), value)
            if problem:
                _setting_error(ctx, vars_file, (key,), "templating", *problem)


def setting_template_problem(name: str, value: Any) -> tuple[str, str] | None:
    """(what is wrong, the fix) when a setting's value holds a template it may not hold."""
    if name in GLOBAL_KEYS or name in HOST_KEYS:
        return None  # the model: the inventory loader refuses any template in it
    if name.startswith("ansible_"):
        for _where, text, _is_key in _strings(value, ()):
            problem = connection_template_problem(text, MODEL_NAMES)
            if problem:
                return (f"'{name}' holds a template with {problem}: Ansible would run it on the control node",
                        f"write the value itself; {ALLOWANCE}")
        return None
    if holds_template(value):
        return (f"'{name}' holds a Jinja template: role variables, secrets and settings are literal data, read as written",
                "write the value itself; the roles derive what they need from the site model")
    return None


def _setting_error(ctx: Context, vars_file: VarsFile, where: tuple, rule: str, message: str, hint: str) -> None:
    path = (("hosts", vars_file.owner) if vars_file.scope == "host" else ("groups", vars_file.owner)) + tuple(where)
    ctx.findings.append(Finding(rule, "error", path, message, hint, vars_file.locate(tuple(where))))


def host_names(ctx: Context) -> None:
    """Inventory host names are RFC 1123 names: lowercase letters, digits, '-' and '.'."""
    for host in ctx.model["hosts"]:
        if len(host) <= HOST_NAME_MAX and HOST_NAME.fullmatch(host):
            continue
        hidden = hidden_characters(host)
        shown = host.encode("unicode_escape").decode("ascii")
        why = (f"holds {', '.join(hidden)}" if hidden else
               "is longer than 253 characters" if len(host) > HOST_NAME_MAX else
               "holds characters outside a-z, 0-9, '-' and '.', or a label that starts or ends with '-'")
        ctx.error("host-name", ("hosts", host), f"host name '{shown}' {why}: it becomes a Kubernetes node name, a file name "
                  "and a word in generated inventories", "name hosts with lowercase letters, digits and '-' (dgx01)")


def normalised_path_problem(path: str) -> str:
    """Why an absolute path is not in its normal form ('' when it is): '..', '.', '//', a trailing '/'."""
    parts = path.split("/")[1:]
    if ".." in parts:
        return "goes up with '..'"
    if "." in parts:
        return "holds a '.' component"
    if path != "/" and (path.endswith("/") or "//" in path):
        return "holds an empty component ('//' or a trailing '/')"
    return ""


def normalised_paths(ctx: Context) -> None:
    """Mount points and junction paths are absolute and normal: '/mnt/../etc' is /etc, not under /mnt."""
    entries = [(("compute", "mounts", index, "path"), m.as_dict(mount).get("path"))
               for index, mount in enumerate(m.as_list(m.as_dict(ctx.model.get("compute")).get("mounts")))]
    for svm_index, svm in enumerate(m.as_list(m.as_dict(ctx.model.get("ontap")).get("svms"))):
        for index, flexgroup in enumerate(m.as_list(m.as_dict(svm).get("flexgroups"))):
            entries.append((("ontap", "svms", svm_index, "flexgroups", index, "junction_path"),
                            m.as_dict(flexgroup).get("junction_path")))
    for path, value in entries:
        if not isinstance(value, str) or not value.startswith("/"):
            continue  # the schema refuses it
        problem = normalised_path_problem(value)
        if problem:
            normal = posixpath.normpath(value)
            ctx.error("path-form", path, f"'{value}' {problem}: it means {normal}",
                      f"write the path in its normal form ({normal}), and check that it is the place you meant")
