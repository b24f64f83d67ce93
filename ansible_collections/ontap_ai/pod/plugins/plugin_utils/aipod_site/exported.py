"""Read the site model from an inventory that has no files: what AWX and ansible-inventory hand over.

AWX imports an inventory source with ``ansible-inventory --list --export`` and gives each job an
executable script (``/runner/inventory/hosts``) that prints the same JSON document: every group with
its ``hosts``, ``children`` and ``vars``, and ``_meta.hostvars``. group_vars and host_vars arrive
flattened into that document, so a finding names the group or host and the key path instead of a
file and line. Inline ``!vault`` values arrive as ``{"__ansible_vault": "<ciphertext>"}`` and stay
encrypted, as AWX keeps them; whole-file vaults arrive decrypted.
"""
from __future__ import annotations

import json
import os
import subprocess
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.findings import Finding, Location
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import (
    KIND_GROUPS,
    REQUIRED_GLOBAL_KEYS,
    Site,
    VarsFile,
    _check_templating,
    _collect_keys,
    _finding,
    display_path,
    flatten_groups,
    undecryptable_values,
)
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.yamlload import MAX_DEPTH, MAX_TOTAL_NODES, Decryptor, VaultValue

EXPORT_HINT = "give an inventory directory, or the JSON of ansible-inventory --list --export (a file, or a script that prints it)"
SCRIPT_TIMEOUT_SECONDS = 120
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024


def job_inventory_script(source: str) -> str | None:
    """The script of a directory that holds nothing but one executable, as a job's /runner/inventory does
    (ansible-runner passes the directory; Ansible runs the script in it); None for anything else."""
    if not os.path.isdir(source):
        return None
    entries = [entry for entry in os.scandir(source) if not entry.name.startswith(".")]
    if len(entries) == 1 and entries[0].is_file() and os.access(entries[0].path, os.X_OK):
        return entries[0].path
    return None


def is_file_inventory(source: str) -> bool:
    """True for what load_site reads: an inventory directory or a YAML hosts file."""
    if os.path.isdir(source):
        return True
    return source.endswith((".yml", ".yaml"))


def read_document(source: str, run_scripts: bool = True) -> tuple[dict | None, str | None]:
    """(the inventory document, None) or (None, why it could not be read). A script is run with --list,
    unless run_scripts is False: then the run's Ansible does not run inventory scripts either."""
    if not os.path.isfile(source):
        return None, f"{source} is not a file"
    try:
        if os.access(source, os.X_OK):
            if not run_scripts:
                return None, (f"{source} is an executable inventory script, and this run's Ansible runs none "
                              "(the script inventory plugin is off in ansible.cfg)")
            result = subprocess.run([source, "--list"], capture_output=True, text=True, timeout=SCRIPT_TIMEOUT_SECONDS, check=False)
            if result.returncode != 0:
                return None, f"the inventory script {source} --list exited {result.returncode}: {result.stderr.strip()[:300]}"
            text = result.stdout
        else:
            with open(source, encoding="utf-8") as handle:
                if os.fstat(handle.fileno()).st_size > MAX_DOCUMENT_BYTES:
                    return None, f"refused: {source} is larger than {MAX_DOCUMENT_BYTES:,} bytes"
                text = handle.read(MAX_DOCUMENT_BYTES + 1)
    except (OSError, subprocess.TimeoutExpired, UnicodeDecodeError) as error:
        return None, f"cannot read the inventory {source}: {error}"
    if len(text) > MAX_DOCUMENT_BYTES:
        return None, f"refused: {source} gives more than {MAX_DOCUMENT_BYTES:,} bytes"
    try:
        document = json.loads(text)
    except RecursionError:
        return None, f"refused: {source} nests its values more than {MAX_DEPTH} levels deep"
    except ValueError as error:
        return None, f"{source} is not a JSON inventory ({error})"
    # Before the shape: Python 3.13's parser reads nesting that 3.11's refuses with RecursionError.
    problem = _over_budget(document)
    if problem:
        return None, f"refused: {source} {problem}"
    if not isinstance(document, dict):
        return None, f"{source} is not a JSON inventory (a mapping of groups)"
    return document, None


def _over_budget(document: Any) -> str | None:
    """Why a parsed document is too large or too deep for the validator to read, else None."""
    count = 0
    pending = [(document, 1)]
    while pending:
        value, depth = pending.pop()
        count += 1
        if count > MAX_TOTAL_NODES:
            return f"holds more than {MAX_TOTAL_NODES:,} values"
        if depth > MAX_DEPTH:
            return f"nests its values more than {MAX_DEPTH} levels deep"
        if isinstance(value, dict):
            pending.extend((item, depth + 1) for item in value.values())
        elif isinstance(value, list):
            pending.extend((item, depth + 1) for item in value)
    return None


def _unvault(value: Any) -> Any:
    """Inline vault values as AWX keeps them, {"__ansible_vault": ciphertext}, become VaultValue."""
    if isinstance(value, dict):
        if set(value) == {"__ansible_vault"}:
            return VaultValue(str(value["__ansible_vault"]))
        return {key: _unvault(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_unvault(item) for item in value]
    return value


def _groups(document: dict) -> tuple[dict[str, list[str]], dict[str, set[str]]]:
    """Flattened group membership (children included) and each host's groups."""
    direct: dict[str, set[str]] = {}
    children: dict[str, set[str]] = {}
    for name, body in document.items():
        if name == "_meta":
            continue
        body = body if isinstance(body, dict) else {"hosts": body if isinstance(body, list) else []}
        direct[name] = {str(host) for host in body.get("hosts") or []}
        children[name] = {str(child) for child in body.get("children") or []}
    return flatten_groups(direct, children, ((document.get("_meta") or {}).get("hostvars") or {}).keys())


def load_exported_site(document: dict, source: str, role_options: dict[str, set[str]] | None = None,
                       decrypt: Decryptor | None = None) -> Site:
    """The Site of an exported inventory document; findings name 'group <g>' or 'host <h>' and the key."""
    shown = display_path(source)
    groups, host_groups = _groups(document)
    files: list[VarsFile] = []
    for name, body in sorted(document.items()):
        if name != "_meta" and isinstance(body, dict) and isinstance(body.get("vars"), dict) and body["vars"]:
            files.append(VarsFile(f"{shown} (group {name})", "group", name, _unvault(body["vars"]), {}))
    for host, variables in sorted(((document.get("_meta") or {}).get("hostvars") or {}).items()):
        if isinstance(variables, dict) and variables:
            files.append(VarsFile(f"{shown} (host {host})", "host", str(host), _unvault(variables), {}))
    findings: list[Finding] = []
    site = Site(
        inventory_dir=os.path.dirname(os.path.abspath(source)),
        hosts_file=shown,
        model={"hosts": {host: {"groups": sorted(names - {"all"})} for host, names in host_groups.items()}},
        groups=groups,
        host_groups=host_groups,
        files=files,
        origins={},
        inventory_lines={},
        host_paths={},
        group_paths={},
        secrets={},
        plaintext_secrets={},
        role_overrides={},
        findings=findings,
        source_kind="exported",
    )
    for vars_file in files:
        _collect_keys(site, vars_file, role_options)
    if decrypt is not None:
        findings.extend(undecryptable_values(files, decrypt))
    for key in REQUIRED_GLOBAL_KEYS:
        if key not in site.model:
            findings.append(_finding("required-key", Location(f"{shown} (group all)"), (key,), f"the site model has no '{key}'",
                                     f"add a top-level '{key}:' to the vars of group all (group_vars/all/{key}.yml before export)"))
    if not any(groups.get(kind) for kind in KIND_GROUPS):
        findings.append(_finding("inventory-layout", Location(shown), ("groups",),
                                 "no host is in any of the groups " + ", ".join(KIND_GROUPS), EXPORT_HINT))
    _check_templating(site)
    return site


def unreadable_site(source: str, problem: str) -> Site:
    """A Site that holds only the reason the inventory could not be read."""
    shown = display_path(source)
    return Site(inventory_dir=os.path.dirname(os.path.abspath(source)), hosts_file=shown, model={"hosts": {}}, groups={"all": []},
                host_groups={}, files=[], origins={}, inventory_lines={}, host_paths={}, group_paths={}, secrets={},
                plaintext_secrets={}, role_overrides={},
                findings=[_finding("inventory-layout", Location(shown), ("groups",), problem, EXPORT_HINT)], source_kind="exported")
