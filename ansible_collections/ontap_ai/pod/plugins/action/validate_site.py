"""Action plugin: validate the site model on the control node before anything is touched."""
from __future__ import annotations

import os

from ansible import constants as C
from ansible.errors import AnsibleError
from ansible.module_utils.common.text.converters import to_text
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action import ActionBase

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_run.vault import run_decryptor
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.templating import TEMPLATE_MARK
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.resolved import AnsibleView, is_setting, model_keys
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import COLLECTION_ROOT, validate_site

DOCUMENTATION = "see plugins/modules/validate_site.py"


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(("inventory", "check_files", "fail_on_warnings", "roles_dir", "files_dir", "slice_group", "sliceable"))

    def run(self, tmp=None, task_vars=None):
        task_vars = task_vars or {}
        result = super().run(tmp, task_vars)
        args = self._task.args
        inventory = args.get("inventory") or self._default_inventory(task_vars)
        report = validate_site(
            inventory,
            decrypt=run_decryptor(),
            roles_dir=args.get("roles_dir") or os.path.join(COLLECTION_ROOT, "roles"),
            check_files=bool(args.get("check_files", True)),
            files_dir=args.get("files_dir") or self._files_dir(task_vars),
            # Validate what Ansible runs: an exported inventory must give Ansible the hosts it lists.
            ansible_view=None if args.get("inventory") else self._ansible_view(
                task_vars, sorted(os.listdir(args.get("roles_dir") or os.path.join(COLLECTION_ROOT, "roles")))),
            # The validator runs an inventory script only where this run's Ansible would run one.
            run_scripts=any(name.rsplit(".", 1)[-1] == "script" for name in C.INVENTORY_ENABLED),
            slice_group=to_text(args.get("slice_group") or ""),
            sliceable=boolean(args.get("sliceable", False), strict=False),
        )
        data = report.as_dict()
        # Ansible prints a result's `warnings` as [WARNING] lines; the structured form is site_warnings.
        data["site_warnings"] = data.pop("warnings")
        result.update(data)
        result["warnings"] = [str(finding) for finding in report.warnings]
        result["changed"] = False
        result["inventory"] = inventory
        result["site_name"] = report.site.name
        fail = not report.ok or (bool(args.get("fail_on_warnings", False)) and report.warnings)
        result["failed"] = bool(fail)
        result["msg"] = report.text()
        return result

    @staticmethod
    def _default_inventory(task_vars):
        sources = task_vars.get("ansible_inventory_sources") or []
        if not sources:
            raise AnsibleError("validate_site: no inventory given and none in use")
        return to_text(sources[0])

    @staticmethod
    def _files_dir(task_vars) -> str | None:
        """The site's aipod_site_files_dir as written (never rendered: the validator judges it), else AIPOD_SITE_FILES_DIR."""
        hostvars = task_vars.get("hostvars")
        written = hostvars.raw_get("localhost").get("aipod_site_files_dir") if hostvars is not None else None
        if isinstance(written, str) and written and not TEMPLATE_MARK.search(written):
            return written
        return os.environ.get("AIPOD_SITE_FILES_DIR") or None

    @staticmethod
    def _ansible_view(task_vars, role_names):
        """The hosts Ansible read and, per host, the model keys and the settings (role overrides,
        connection settings) as they are written, extra vars included. Nothing is rendered: a
        template is judged by the validator before anything in it could run."""
        hosts = [to_text(host) for host in (task_vars.get("groups") or {}).get("all") or []]
        hostvars = task_vars.get("hostvars")
        values, settings = {}, {}
        for host in hosts:
            written = hostvars.raw_get(host)
            values[host] = {key: written[key] for key in model_keys() if key in written}
            settings[host] = {to_text(key): value for key, value in written.items() if is_setting(to_text(key), role_names)}
        groups = {to_text(group): sorted(to_text(host) for host in members or [])
                  for group, members in (task_vars.get("groups") or {}).items()}
        return AnsibleView(hosts=hosts, values=values, settings=settings, groups=groups,
                           sources=tuple(to_text(source) for source in task_vars.get("ansible_inventory_sources") or []),
                           ignore_exts=tuple(C.INVENTORY_IGNORE_EXTS), ignore_patterns=tuple(C.INVENTORY_IGNORE_PATTERNS))
