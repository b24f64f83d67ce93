"""Validate a site: load the inventory, check the schema, then the cross-layer rules; report all at once."""
from __future__ import annotations

import copy
import dataclasses
import os
import time
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_ontap import plan as ontap_plan
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.exported import (
    is_file_inventory,
    job_inventory_script,
    load_exported_site,
    read_document,
    unreadable_site,
)
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.findings import Finding, Location, sort_findings
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import Site, find_hosts_file, load_role_specs, load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.schema import SCHEMA_DIR, schema_findings_and_bad_paths
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.yamlload import Decryptor
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.resolved import (
    AnsibleView,
    ansible_differences,
    competing_connection_settings,
    extra_inventory_sources,
    resolved_settings,
    shared_connection_addresses,
)
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.rules import run_rules
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.slices import (
    files_dir_missing,
    other_slices,
    slice_findings,
    slice_group_problem,
    vaulted_host_keys,
)

COLLECTION_ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


@dataclasses.dataclass
class Report:
    site: Site
    findings: list[Finding]
    sizing: dict[str, Any]
    seconds: float
    # A slice of a sliced job: {group, hosts (the slice's), others ({host: model data})}; None otherwise.
    job_slice: dict[str, Any] | None = None

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]

    @property
    def ok(self) -> bool:
        return not self.errors

    def summary(self) -> dict[str, Any]:
        model = self.site.model
        return {
            "switches": len(m.hosts_of_kind(model, "switch")),
            "ontap_nodes": len(m.ontap_nodes(model)),
            "svms": len(m.svms(model)),
            "data_lifs": len(m.data_lifs(model)),
            "dgx": len(m.hosts_of_kind(model, "dgx")),
            "servers": len(m.hosts_of_kind(model, "server")),
            "kube_control_plane": len(self.site.groups.get("kube_control_plane", [])),
            "kube_node": len(self.site.groups.get("kube_node", [])),
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "errors": [f.as_dict() for f in self.errors],
            "warnings": [f.as_dict() for f in self.warnings],
            "summary": self.summary(),
            "sizing": self.sizing,
            "seconds": round(self.seconds, 3),
            "job_slice": self.job_slice,
            # Where the keys that size a volume were written: a refusal the storage layer can only make
            # against the cluster's free space (aggregates) names them at their file and line.
            "size_locations": {key: str(self.site.locate(path)) for key, path in ontap_plan.size_keys(self.site.model).items()},
        }

    def text(self) -> str:
        """The report as a person reads it: every problem on its own line, errors first."""
        lines = []
        for finding in self.findings:
            lines.append(f"{finding.severity.upper():7} {finding}")
        s = self.sizing
        if s.get("ratio") is not None:
            lines.append(f"SIZING  {s['gpus']} GPUs x {s['gpu_ingest_mb_s']} MB/s = {s['demand_mb_s']:.0f} MB/s demand; "
                         f"supply {s['supply_mb_s']:.0f} MB/s (ports {s['line_rate_mb_s']:.0f}, platform "
                         f"{s['platform_limit_mb_s'] if s['platform_limit_mb_s'] is not None else 'unknown'}); ratio {s['ratio']}")
        source = self.site.inventory_dir if self.site.source_kind == "files" else self.site.hosts_file
        lines.append(f"{len(self.errors)} error(s), {len(self.warnings)} warning(s) in {source}")
        return "\n".join(lines)


def validate_site(
    inventory: str,
    decrypt: Decryptor | None = None,
    roles_dir: str | None = None,
    schema_dir: str = SCHEMA_DIR,
    check_files: bool = True,
    files_dir: str | None = None,
    ansible_view: AnsibleView | None = None,
    run_scripts: bool = True,
    slice_group: str = "",
    sliceable: bool = False,
) -> Report:
    """Check an inventory's site model. Nothing is contacted; only the inventory is read.

    inventory is a directory (or its YAML hosts file), read file by file so that findings name file
    and line, or the JSON of ansible-inventory --list --export as a file or a script (AWX; also a
    directory holding only that script, as ansible-runner passes it), whose findings name the group
    or host. files_dir is where the model's relative file paths resolve.
    ansible_view, what Ansible itself resolved from this inventory (its hosts and each host's model
    keys), must be what the files or the document say: the model validated is the model that runs.
    run_scripts=False reads no executable inventory script, as an Ansible without the script plugin.
    slice_group names the sliced job this run is a slice of (slices.py): the model is then read from
    files_dir, whole, and Ansible's hosts must be a share of it.
    """
    started = time.perf_counter()
    if slice_group:
        return _validate_slice(inventory, slice_group, decrypt, roles_dir, schema_dir, check_files, files_dir, ansible_view, started,
                               sliceable, run_scripts)
    role_specs = load_role_specs(roles_dir or os.path.join(COLLECTION_ROOT, "roles"))
    role_options = {role: set(options) for role, options in role_specs.items()}
    inventory = job_inventory_script(inventory) or inventory
    if is_file_inventory(inventory):
        site = load_site(inventory, decrypt=decrypt, role_options=role_options)
    else:
        document, problem = read_document(inventory, run_scripts)
        if document is None:
            site = unreadable_site(inventory, problem)
            return Report(site=site, findings=list(site.findings), sizing=m.sizing(site.model), seconds=time.perf_counter() - started)
        site = load_exported_site(document, inventory, role_options, decrypt=decrypt)
        if ansible_view is not None and sorted(ansible_view.hosts) != site.groups.get("all", []):
            site.findings.append(Finding(
                "inventory-layout", "error", ("groups",),
                f"Ansible read {len(ansible_view.hosts)} host(s) from this inventory, the document lists {len(site.groups.get('all', []))}",
                "Ansible reads the JSON of ansible-inventory --list only from an executable inventory script, as AWX gives it: "
                "#!/bin/sh + cat of the JSON, chmod +x", Location(site.hosts_file)))
            ansible_view = None
    if files_dir:
        site = dataclasses.replace(site, files_dir=files_dir)
    site = dataclasses.replace(site, role_specs={name: spec for options in role_specs.values() for name, spec in options.items()})
    findings = list(site.findings) + competing_connection_settings(site) + check_model(site, schema_dir, check_files)
    if ansible_view is not None:
        findings += ansible_differences(site, ansible_view)
        findings += resolved_settings(ansible_view, findings, site.hosts_file, site.role_specs)
        findings += shared_connection_addresses(ansible_view, site.hosts_file)
        if site.source_kind == "files":
            findings += extra_inventory_sources(ansible_view.sources, find_hosts_file(inventory)[1],
                                                ansible_view.ignore_exts, ansible_view.ignore_patterns)
    return Report(site=site, findings=sort_findings(findings), sizing=m.sizing(site.model),
                  seconds=time.perf_counter() - started)


def _validate_slice(inventory: str, slice_group: str, decrypt: Decryptor | None, roles_dir: str | None, schema_dir: str,
                    check_files: bool, files_dir: str | None, ansible_view: AnsibleView | None, started: float,
                    sliceable: bool = True, run_scripts: bool = True) -> Report:
    """One slice of a sliced job: the whole model from the project's files, Ansible's hosts a share of it."""
    if not files_dir or not os.path.isdir(files_dir) or ansible_view is None:
        site = dataclasses.replace(unreadable_site(inventory, ""), findings=[])
        findings = [files_dir_missing(inventory)]
        return Report(site=site, findings=findings, sizing=m.sizing(site.model), seconds=time.perf_counter() - started)
    report = validate_site(files_dir, decrypt=decrypt, roles_dir=roles_dir, schema_dir=schema_dir, check_files=check_files,
                           files_dir=files_dir, run_scripts=run_scripts)
    site = report.site
    findings = list(report.findings)
    problem = slice_group_problem(slice_group)
    if problem:
        findings.append(Finding("job-slice", "error", ("aipod_slice_group",), problem,
                                "set it to the id the slices share, such as \"{{ awx_workflow_job_id }}\"", Location(inventory)))
    if not sliceable:
        findings.append(Finding("job-slice", "error", ("aipod_slice_group",),
                                "this playbook cannot run as a slice of a sliced job: its plays would run on every slice's "
                                "share of the switches and ONTAP hosts",
                                "slice site.yml, compute.yml, verify.yml or acceptance.yml; run this one as a job of its own, "
                                "without aipod_slice_group", Location(inventory)))
    findings += slice_findings(site, ansible_view.hosts) + vaulted_host_keys(site)
    findings += ansible_differences(site, ansible_view, sliced=True)
    findings += resolved_settings(ansible_view, findings, site.hosts_file, site.role_specs)
    findings += shared_connection_addresses(ansible_view, site.hosts_file)
    own = [host for host in site.groups.get("all", []) if host in set(ansible_view.hosts)]
    return dataclasses.replace(
        report, findings=sort_findings(findings), seconds=time.perf_counter() - started,
        job_slice={"group": slice_group, "hosts": own, "others": other_slices(site, ansible_view.hosts)})


def check_model(site: Site, schema_dir: str = SCHEMA_DIR, check_files: bool = True) -> list[Finding]:
    """Schema findings, then the cross-layer rules on the model without the values the schema rejected.

    A value of the wrong type (a list where a name belongs) is reported once by the schema and
    removed from the copy of the model the rules read, so no rule meets it.
    """
    schema_findings, bad_paths = schema_findings_and_bad_paths(site, schema_dir)
    rules_site = dataclasses.replace(site, model=without_paths(site.model, bad_paths)) if bad_paths else site
    return _dedupe(schema_findings + run_rules(rules_site, check_files=check_files))


def without_paths(model: dict[str, Any], paths: list[tuple]) -> dict[str, Any]:
    """A copy of the model with the values at the given paths set to None."""
    cleaned = copy.deepcopy(model)
    for path in paths:
        parent = cleaned
        for key in path[:-1]:
            parent = parent[key] if isinstance(parent, (dict, list)) else None
            if parent is None:
                break
        if isinstance(parent, (dict, list)):
            try:
                parent[path[-1]] = None
            except (IndexError, KeyError, TypeError):
                pass
    return cleaned


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen = set()
    result = []
    for finding in findings:
        key = (finding.rule, finding.path, finding.message)
        if key not in seen:
            seen.add(key)
            result.append(finding)
    return result
