"""The model Ansible resolved for each host, held against the model read from the inventory's files.

The validator reads the files so that a finding can name a file and a line. Ansible may resolve
something else: a second inventory file beside hosts.yml when -i names the directory, another -i,
extra vars, a vars plugin, or group variables that compete for one host. Whatever the cause, a host
or a model key that Ansible resolves differently from the files is an error, so the model that was
validated is the model that runs. Values are never shown, only where they differ. Ansible's values
are taken unrendered (hostvars' raw values): a template is judged as text, and nothing in it runs.
"""
from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.findings import Finding, Location
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import GLOBAL_KEYS, HOST_KEYS, Site, VarsFile, display_path

SOURCES_HINT = ("pass only the site's hosts file (-i inventories/<site>/hosts.yml), keep other inventory files out of its "
                "directory, and set model keys with no extra vars (-e) or vars plugin")
SHOWN_HOSTS = 5


@dataclasses.dataclass
class AnsibleView:
    """What Ansible resolved: every host of the inventory, and per host the model keys it holds."""

    hosts: list[str]
    values: dict[str, dict[str, Any]]  # host -> model key -> value, only the keys the host has
    # Every inventory source of the run (-i), and how Ansible skips entries of a directory source.
    sources: tuple[str, ...] = ()
    ignore_exts: tuple[str, ...] = ()
    ignore_patterns: tuple[str, ...] = ()
    # host -> the role overrides and ansible_* connection settings Ansible resolved for it, whatever
    # set them (the inventory's files, extra vars, a vars plugin): they reach devices as the model does.
    settings: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    # group -> its hosts, as Ansible's `groups` holds them (None: not known, as for an exported inventory's document).
    groups: dict[str, list[str]] | None = None


# Connection settings without a grammar that still reach ssh or a remote shell, and the playbooks'
# own variables that name paths and plugins.
OTHER_SETTINGS = frozenset({
    "ansible_ssh_common_args", "ansible_ssh_extra_args", "ansible_ssh_private_key_file", "ansible_python_interpreter",
    "ansible_become_method", "ansible_shell_executable", "ansible_network_os", "ansible_network_cli_ssh_type",
    "switch_configs_dir", "cabling_dir", "cabling_name", "aipod_site_files_dir", "compute_strategy", "control_node_strategy",
})


def is_setting(name: str, role_names: Sequence[str]) -> bool:
    """A variable AnsibleView.settings holds: a role override, a connection setting or a playbook setting."""
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.rules.text import CONNECTION_GRAMMARS

    return name in CONNECTION_GRAMMARS or name in OTHER_SETTINGS or any(name.startswith(f"{role}_") for role in role_names)


def model_keys() -> tuple[str, ...]:
    """The variables an AnsibleView holds for each host."""
    return GLOBAL_KEYS + tuple(HOST_KEYS)


def ansible_differences(site: Site, view: AnsibleView, sliced: bool = False) -> list[Finding]:
    """An error per host Ansible reads that the files do not list (and the reverse), and per model
    key whose resolved value differs from the files for some host.

    sliced: the run is one slice of a sliced job, whose inventory holds a share of the hosts: the
    files' hosts it lacks are the other slices', and each group is compared on the slice's hosts."""
    findings: list[Finding] = []
    listed = set(site.groups.get("all", []))
    for host in sorted(set(view.hosts) - listed) if not sliced else []:
        findings.append(Finding("ansible-resolved", "error", ("hosts", host),
                                f"Ansible reads host '{host}', which {site.hosts_file} does not list: it comes from another "
                                "inventory source", SOURCES_HINT, Location(site.hosts_file)))
    for host in sorted(listed - set(view.hosts)) if not sliced else []:
        findings.append(Finding("ansible-resolved", "error", ("hosts", host),
                                f"{site.hosts_file} lists host '{host}', which Ansible did not read", SOURCES_HINT,
                                Location(site.hosts_file)))
    for group in sorted(set(site.groups) - {"all"}):
        if view.groups is None:
            break
        theirs, ours = set(view.groups.get(group, [])), set(site.groups[group])
        if sliced:
            ours &= set(view.hosts)
        if theirs != ours:
            missing, extra = sorted(ours - theirs), sorted(theirs - ours)
            said = "; ".join(part for part in (
                f"it lacks {_some(missing)}" if missing else "", f"it also holds {_some(extra)}" if extra else "") if part)
            findings.append(Finding("ansible-resolved", "error", ("groups", group),
                                    f"Ansible's group '{group}' is not the one {site.hosts_file} lists ({said})",
                                    "fix the hosts file's groups (a group under its own children is dropped by Ansible), "
                                    "and keep other inventory sources out of the run", Location(site.hosts_file)))
    hosts = sorted(listed & set(view.hosts))
    for key in GLOBAL_KEYS:
        differing = [(host, where) for host in hosts
                     if (where := first_difference(site.model.get(key, _ABSENT), view.values.get(host, {}).get(key, _ABSENT), key))]
        if differing:
            findings.append(_differs(site, (key,), differing))
    for host in hosts:
        model = site.model["hosts"].get(host, {})
        for key in HOST_KEYS:
            where = first_difference(model.get(key, _ABSENT), view.values.get(host, {}).get(key, _ABSENT), key)
            if where:
                findings.append(_differs(site, ("hosts", host, key), [(host, where)]))
    return findings


def _some(hosts: list[str]) -> str:
    return ", ".join(hosts[:SHOWN_HOSTS]) + (f" and {len(hosts) - SHOWN_HOSTS} more" if len(hosts) > SHOWN_HOSTS else "")


def competing_connection_settings(site: Site) -> list[Finding]:
    """A host whose groups set one ansible_* variable to different values, with no host_vars to settle it.

    Ansible keeps one by group depth, then priority, then name: a rule nobody reads in a hosts file.
    The model's host may then be reached at another host's address.
    """
    by_group: dict[str, list[VarsFile]] = {}
    host_files: dict[str, list[VarsFile]] = {}
    for vars_file in site.files:
        if vars_file.data is None:
            continue
        (by_group if vars_file.scope == "group" else host_files).setdefault(vars_file.owner, []).append(vars_file)
    findings: list[Finding] = []
    for host, groups in sorted(site.host_groups.items()):
        settled = {str(key) for vars_file in host_files.get(host, []) for key in vars_file.data}
        setters: dict[str, list[tuple[VarsFile, Any]]] = {}
        for group in sorted(groups - {"all"}):
            for vars_file in by_group.get(group, []):
                for key, value in vars_file.data.items():
                    if str(key).startswith("ansible_") and str(key) not in settled:
                        setters.setdefault(str(key), []).append((vars_file, value))
        for key, found in sorted(setters.items()):
            if len({repr(value) for _file, value in found}) > 1:
                places = ", ".join(str(vars_file.locate((key,))) for vars_file, _value in found)
                findings.append(Finding("competing-groups", "error", ("hosts", host, key),
                                        f"{host} is in groups that set '{key}' differently ({places}); Ansible would keep "
                                        "one by group depth and name",
                                        f"set it once: in host_vars/{host}.yml, or in only one of those groups",
                                        found[0][0].locate((key,))))
    return findings


# What Ansible never reads as inventory in a directory source, whatever ansible.cfg says.
ALWAYS_SKIPPED = (r"^\.", r"^host_vars$", r"^group_vars$", r"^vars_plugins$")


def extra_inventory_sources(sources: Sequence[str], hosts_file: str, ignore_exts: Sequence[str] = (),
                            ignore_patterns: Sequence[str] = ()) -> list[Finding]:
    """An error per inventory source Ansible reads besides the site's hosts file.

    A second -i, or a second file in the directory given to -i, can add hosts and set any host's
    variables (ansible_host among them) at a precedence above group_vars: the run would reach
    hosts other than the validated ones. Directory entries are skipped as Ansible skips them
    (its ignore_extensions and ignore_patterns).
    """
    wanted = os.path.realpath(hosts_file)
    skipped = [re.compile(pattern) for pattern in (*ALWAYS_SKIPPED, *ignore_patterns)]
    extra: list[str] = []
    for source in sources:
        source = str(source)
        if os.path.realpath(source) == wanted:
            continue
        if not os.path.isdir(source):
            extra.append(source)
            continue
        for name in sorted(os.listdir(source)):
            entry = os.path.join(source, name)
            if os.path.realpath(entry) == wanted or any(pattern.search(name) for pattern in skipped):
                continue
            if any(name.endswith(ext) for ext in ignore_exts):
                continue
            extra.append(entry)
    return [Finding("inventory-source", "error", ("groups",),
                    f"Ansible also reads {display} as inventory: it can add hosts and set their variables above group_vars",
                    SOURCES_HINT, Location(display))
            for display in (display_path(path) for path in extra)]


_ABSENT = object()


def first_difference(expected: Any, actual: Any, path: str = "") -> str:
    """Where two values first differ, as a path ('' when they are equal): 'networks[2].mtu'."""
    if expected is _ABSENT or actual is _ABSENT:
        if expected is actual:
            return ""
        return (path or "the value") + (" is missing" if actual is _ABSENT else " is not in the files")
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in list(expected) + [key for key in actual if key not in expected]:
            where = first_difference(expected.get(key, _ABSENT), actual.get(key, _ABSENT), f"{path}.{key}" if path else str(key))
            if where:
                return where
        return ""
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return f"{path or 'the list'} has {len(actual)} items, not {len(expected)}"
        for index, (one, other) in enumerate(zip(expected, actual)):
            where = first_difference(one, other, f"{path}[{index}]")
            if where:
                return where
        return ""
    if isinstance(expected, bool) or isinstance(actual, bool):  # True == 1 to Python, not to the model
        return "" if isinstance(expected, bool) and isinstance(actual, bool) and expected == actual else (path or "the value")
    return "" if expected == actual else (path or "the value")


def _differs(site: Site, path: tuple, differing: list[tuple[str, str]]) -> Finding:
    by_place: dict[str, list[str]] = {}
    for host, where in differing:
        by_place.setdefault(where, []).append(host)
    parts = []
    for where, hosts in by_place.items():
        parts.append(f"{where} on {_some(hosts)}")
    return Finding("ansible-resolved", "error", path,
                   f"Ansible resolves '{path[-1]}' differently from this file ({'; '.join(parts)}): it is also set by a source "
                   "the validator does not read", SOURCES_HINT, site.locate(path))


def resolved_settings(view: AnsibleView, already: Sequence[Finding], hosts_file: str,
                      role_specs: Mapping[str, Mapping] | None = None) -> list[Finding]:
    """Hidden characters and connection grammars in the settings as Ansible resolved them, for every
    variable the files' own checks did not already refuse: extra vars (-e) and vars plugins set text
    that never was in a file. Values are never shown."""
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.templating import TEMPLATE_MARK
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.rules.role_variables import value_problems
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.rules.text import (
        CONNECTION_GRAMMARS,
        setting_hidden_characters,
        setting_template_problem,
    )

    refused = {str(f.path[2]) for f in already
               if f.rule in ("hidden-character", "connection-setting", "templating") and len(f.path) > 2
               and f.path[0] in ("hosts", "groups")}
    # Values the files' own check of role variables already refused.
    refused_values = {str(f.path[0]) for f in already if f.rule == "role-variable"}
    findings: list[Finding] = []
    reported: set[tuple[str, str]] = set()
    origin = "it was not in the inventory's files as Ansible resolved it: extra vars (-e), a vars plugin or another source set it"
    for host in sorted(view.settings):
        for name, value in sorted(view.settings[host].items()):
            if name in refused or (name, "any") in reported:
                continue
            problem = None
            texts = [value] if isinstance(value, str) else [text for _where, text, _key in _strings_of(value)]
            hidden = sorted({label for text in texts for label in setting_hidden_characters(name, text)})
            grammar = CONNECTION_GRAMMARS.get(name)
            unsafe = value_problems(name, value, (role_specs or {}).get(name)) if name not in refused_values else []
            templated = setting_template_problem(name, value)
            if hidden:
                problem = (f"'{name}' holds {', '.join(hidden)} for host {host}; {origin}", "write it as one line of visible characters")
            elif templated:
                problem = (f"{templated[0]} (host {host}); {origin}", templated[1])
            elif unsafe:
                _sub, message, fix = unsafe[0]
                problem = (f"'{name}' {message} for host {host}; {origin}", fix)
            elif grammar is not None and value is not None and not isinstance(value, bool):
                text = str(value) if isinstance(value, (str, int)) else None
                if text is None or (not TEMPLATE_MARK.search(text) and not grammar[0].fullmatch(text)):
                    problem = (f"'{name}' is not {grammar[1]} for host {host}; {origin}",
                               f"give {grammar[1]}, with no spaces, quotes or shell characters")
            if problem:
                reported.add((name, "any"))
                rule = ("hidden-character" if hidden else "templating" if templated else "role-variable" if unsafe
                        else "connection-setting")
                findings.append(Finding(rule, "error", ("hosts", host, name),
                                        problem[0], problem[1], Location(hosts_file)))
    return findings


def shared_connection_addresses(view: AnsibleView, hosts_file: str) -> list[Finding]:
    """Two hosts Ansible would reach at one address and port: the run would configure one machine
    twice, as two different hosts of the model, and the other never."""
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.templating import rendered_reference

    by_target: dict[tuple[str, str], list[str]] = {}
    for host in sorted(view.settings):
        # As written: "{{ dgx.mgmt_address }}" is read from the host's model, nothing is rendered.
        address = view.settings[host].get("ansible_host")
        if isinstance(address, str):
            address = rendered_reference(address, view.values.get(host, {}))
        if not isinstance(address, str) or not address.strip():
            continue
        port = str(view.settings[host].get("ansible_port") or "")
        by_target.setdefault((address.strip().lower(), port), []).append(host)
    return [Finding("ansible-resolved", "error", ("hosts", hosts[1], "ansible_host"),
                    f"hosts {', '.join(hosts)} are all reached at {address}{f' port {port}' if port else ''}: the run would "
                    "configure one machine as several hosts of the model",
                    "give each host its own management address (its model's mgmt_address)", Location(hosts_file))
            for (address, port), hosts in sorted(by_target.items()) if len(hosts) > 1]


def _strings_of(value: Any):
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.rules.text import _strings

    return _strings(value, ())
