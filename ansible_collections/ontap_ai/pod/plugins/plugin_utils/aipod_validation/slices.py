"""A run that is one slice of a sliced job (AWX job slicing): its inventory holds a share of the hosts.

AWX splits a sliced job template's inventory by host name and gives each slice only its share of the
hosts, with every group and its variables (docs/execution-environment.md, *Job slicing*). The model
is therefore read from the project's inventory files, whole, in every slice; what Ansible read must
be that model restricted to the slice's hosts. The hosts of the other slices reach the run as model
data only (their groups and their model keys), so that a DGX's plan is the one a whole run computes;
no play runs on them.
"""
from __future__ import annotations

import re
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.findings import Finding, Location
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import HOST_KEYS, Site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.yamlload import VaultValue

# What names the slices of one sliced job, such as AWX's awx_workflow_job_id: it goes into the run
# lock's record, never into a path or a command.
SLICE_GROUP = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,63}")
# The group the hosts of the other slices are put in, for the model: plays leave its hosts out.
OTHER_SLICES_GROUP = "aipod_other_slices"
SLICE_HINT = ("in the sliced job template set aipod_site_files_dir to the site's inventory directory in the project "
              "(/runner/project/inventories/<site>), so that every slice reads the whole model")


def slice_group_problem(value: Any) -> str:
    """Why aipod_slice_group cannot name a sliced job ('' when it can)."""
    if isinstance(value, str) and SLICE_GROUP.fullmatch(value):
        return ""
    return "aipod_slice_group must be 1-64 letters, digits, '.', '_', ':' or '-', starting with a letter or digit"


def slice_findings(site: Site, slice_hosts: list[str]) -> list[Finding]:
    """An error per host of the slice that the model does not list: a slice runs only on the model's hosts."""
    listed = set(site.groups.get("all", []))
    return [Finding("job-slice", "error", ("hosts", host),
                    f"this slice of the job holds host '{host}', which the site model ({site.hosts_file}) does not list",
                    "import the job's inventory from the same hosts file the project holds (an inventory source "
                    "sourced from the project), and sync the project and the inventory", Location(site.hosts_file))
            for host in sorted(set(slice_hosts) - listed)]


def vaulted_host_keys(site: Site) -> list[Finding]:
    """An error per host whose dgx, switch or server key holds a vault-encrypted value: a slice hands
    the other slices' hosts to the run as plain model data, and a secret must not travel that way
    (left out, the host's plan would differ from a whole run's)."""
    findings = []
    for host in site.groups.get("all", []):
        entry = site.model.get("hosts", {}).get(host, {})
        for key in HOST_KEYS:
            if key in entry and _holds_vault(entry[key]):
                findings.append(Finding("job-slice", "error", ("hosts", host, key),
                                        f"{host}: '{key}' holds a vault-encrypted value, which a slice of a sliced job cannot "
                                        "hand to the other slices as model data",
                                        "keep secrets in vault_* variables that the model names, not inside the host's model",
                                        site.locate(("hosts", host, key))))
    return findings


def other_slices(site: Site, slice_hosts: list[str]) -> dict[str, dict[str, Any]]:
    """The model's hosts outside the slice: {host: {groups: [...], <kind key>: model}} in inventory order.

    Only model data travels; a value the model keeps vault-encrypted is refused first (vaulted_host_keys)."""
    own = set(slice_hosts)
    others: dict[str, dict[str, Any]] = {}
    for host in site.groups.get("all", []):
        if host in own:
            continue
        entry = site.model.get("hosts", {}).get(host, {})
        data: dict[str, Any] = {"groups": sorted(set(site.host_groups.get(host, set())) - {"all"})}
        for key in HOST_KEYS:
            if key in entry and not _holds_vault(entry[key]):
                data[key] = entry[key]
        others[host] = data
    return others


def _holds_vault(value: Any) -> bool:
    if isinstance(value, VaultValue):
        return True
    if isinstance(value, dict):
        return any(_holds_vault(item) for item in value.values())
    if isinstance(value, list):
        return any(_holds_vault(item) for item in value)
    return False


def files_dir_missing(inventory: str) -> Finding:
    """A slice without the project's inventory directory cannot read the whole model."""
    return Finding("job-slice", "error", ("groups",),
                   "this run is a slice of a sliced job (aipod_slice_group is set), and a slice's inventory holds only its "
                   "share of the hosts: the whole model must be read from the project's inventory files, and "
                   "aipod_site_files_dir (or AIPOD_SITE_FILES_DIR) does not name a directory",
                   SLICE_HINT, Location(inventory))
