# -*- coding: utf-8 -*-
"""Action plugin: render several templates/files on the controller, write them in one module run.

A role that keeps a dozen small configuration files would otherwise pay two remote module runs per
file on every run (template = stat + file), which dominates a no-op run across many hosts. This
renders each entry exactly as ansible.builtin.template does (same Jinja settings, the same
ansible_managed and template_* variables, the role's templates/ and files/ search path) and hands
the contents to the config_files module once. Documentation: plugins/modules/config_files.py.
"""
from __future__ import annotations

import os
from typing import Any

from ansible.errors import AnsibleActionFail, AnsibleError
from ansible.module_utils.common.text.converters import to_text
from ansible.plugins.action import ActionBase
from ansible.template import trust_as_template

try:  # the same helper ansible.builtin.template uses for ansible_managed and template_* variables
    from ansible._internal._templating._template_vars import generate_ansible_template_vars
except ImportError:  # pragma: no cover - other ansible-core releases
    generate_ansible_template_vars = None

ENTRY_KEYS = frozenset(("dest", "template", "src", "content", "mode", "vars"))


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(("files", "directories", "owner", "group"))

    def run(self, tmp=None, task_vars=None):
        task_vars = task_vars or {}
        result = super().run(tmp, task_vars)
        del tmp
        args = self._task.args
        files = args.get("files") or []
        if not isinstance(files, list):
            raise AnsibleActionFail(f"config_files: files must be a list, got {type(files).__name__}")
        rendered = [self._render(entry, index, task_vars) for index, entry in enumerate(files)]
        module_args = {"files": rendered, "directories": args.get("directories") or []}
        for key in ("owner", "group"):
            if args.get(key) is not None:
                module_args[key] = args[key]
        result.update(self._execute_module(module_name="config_files", module_args=module_args, task_vars=task_vars))
        return result

    def _render(self, entry: Any, index: int, task_vars: dict) -> dict:
        if not isinstance(entry, dict) or not entry.get("dest"):
            raise AnsibleActionFail(f"config_files: files[{index}] needs a dest, got {entry!r}")
        unknown = set(entry) - ENTRY_KEYS
        if unknown:
            raise AnsibleActionFail(f"config_files: files[{index}] has unknown keys {sorted(unknown)}")
        sources = [key for key in ("template", "src", "content") if key in entry]
        if len(sources) != 1:
            raise AnsibleActionFail(f"config_files: files[{index}] ({entry['dest']}) needs exactly one of template, src, content")
        rendered = {"dest": entry["dest"], "mode": entry.get("mode")}
        if "content" in entry:
            rendered["content"] = to_text(entry["content"])
        elif "src" in entry:
            path = self._find(entry["src"], "files")
            rendered["content"] = to_text(self._loader.get_text_file_contents(path))
        else:
            rendered["content"] = self._template(entry, task_vars)
        return rendered

    def _find(self, name: str, kind: str) -> str:
        try:
            return self._find_needle(kind, name)
        except AnsibleError as error:
            raise AnsibleActionFail(to_text(error)) from error

    def _template(self, entry: dict, task_vars: dict) -> str:
        """Render like ansible.builtin.template: trim_blocks, search path with templates/, template vars."""
        source = self._find(entry["template"], "templates")
        searchpath = list(task_vars.get("ansible_search_path", [])) + [self._loader._basedir, os.path.dirname(source)]
        searchpath = [path for base in searchpath for path in (os.path.join(base, "templates"), base)]
        variables = dict(task_vars)
        if generate_ansible_template_vars is not None:
            variables.update(generate_ansible_template_vars(path=entry["template"], fullpath=source, dest_path=entry["dest"],
                                                            include_ansible_managed="ansible_managed" not in variables))
        variables.update(entry.get("vars") or {})
        templar = self._templar.copy_with_new_env(searchpath=searchpath, available_variables=variables)
        data = trust_as_template(self._loader.get_text_file_contents(source))
        text = templar.template(data, escape_backslashes=False, overrides={"trim_blocks": True, "lstrip_blocks": False})
        return to_text(text if text is not None else "")
