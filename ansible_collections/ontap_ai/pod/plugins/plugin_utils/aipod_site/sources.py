"""Inventory sources Ansible must not read: the guard inventory plugin's judgement.

Ansible parses its inventory before any playbook, callback or validation runs, with loaders that
have no bound: a 50 MB hosts file takes minutes and gigabytes, a FIFO blocks for ever, and YAML
nested thousands of levels deep crashes the interpreter. The same limits as the site model's own
files apply to every inventory source (aipod_site.yamlload.Budget).
"""
from __future__ import annotations

import os
import stat
from collections.abc import Callable

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.findings import Finding
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import _read_text, load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.yamlload import Budget, YamlRefused, check_budget

# What Ansible's yaml plugin parses: these extensions, and files with none.
YAML_EXTENSIONS = (".yml", ".yaml", ".json")


def unsafe_source(path: str) -> str | None:
    """Why Ansible must not read the inventory source `path`, or None (directories are judged entry by entry)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISDIR(mode):
        return None
    budget = Budget()
    try:
        text = _read_text(path, budget)
        if path.endswith(YAML_EXTENSIONS) or not os.path.splitext(path)[1]:
            check_budget(text, budget)
    except YamlRefused as refusal:
        where = f"{path}:{refusal.line}" if refusal.line else path
        return f"{where}: {refusal} ({refusal.hint})"
    except (OSError, UnicodeDecodeError):
        return None  # Ansible's own plugins report what they cannot read
    return None


def unreadable_site_files(source: str, decrypt: Callable[[str, str], str] | None) -> tuple[list[Finding], list[Finding]]:
    """The site model's own files (group_vars, host_vars) behind the inventory source `source`, read
    as validation reads them: (refused, not YAML).

    Refused: a file over the loading budget, which Ansible's loader would expand or crash on (nested
    tens of thousands of levels deep, it kills the interpreter), and a vault file the run's vault ids
    cannot decrypt, which Ansible would stop on without saying how to mend it. Not YAML: Ansible
    stops on those by itself, without naming the line.
    """
    if not os.path.exists(source):
        return [], []
    try:
        site = load_site(source, decrypt=decrypt)
    except (OSError, ValueError, TypeError, RecursionError):  # validation reports the model
        return [], []
    errors = [finding for finding in site.findings if finding.severity == "error"]
    refused = [finding for finding in errors
               if finding.rule == "yaml-limit" or (finding.rule == "vault" and not finding.path)]
    not_yaml = [finding for finding in errors if finding.rule == "yaml"]
    return refused, not_yaml
