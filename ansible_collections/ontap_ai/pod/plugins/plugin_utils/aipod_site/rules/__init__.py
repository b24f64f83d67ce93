"""Level 2 of site validation: rules that span layers (switches, ONTAP, hosts, Kubernetes, Trident).

Each rule is a function of a Context that reports findings through ctx.error / ctx.warning with a
model path; the Context turns the path into a file and line. Rules read the model only through
the defensive helpers of .model, so a malformed model (already reported by the schema) never
makes them raise. RULES lists them in the order their findings are most useful to read.

One module per layer holds that layer's rules (inventory, networks, ontap, hosts, switches,
kubernetes, trident, secrets, sizing); context holds the Context they share. A new rule runs only
once it is listed in RULES. The rules are importable from here by name: `rules.kubernetes`,
`rules.trident`, `rules.secrets` and `rules.sizing` are those rule functions, not the modules of
the same name (import a module as `from ...aipod_site.rules.kubernetes import ...`).
"""
from __future__ import annotations

from ..findings import Finding
from ..inventory import Site
from .context import Context, Rule, host_path
from .hosts import compute_mounts, host_nics
from .inventory import host_kinds, unique_names
from .kubernetes import kubernetes, kubernetes_networks
from .networks import addresses_in_subnets, networks_sane, unique_addresses
from .ontap import data_lifs, export_policies, flexgroups, ontap_ports_and_groups, svm_settings
from .secrets import files, secrets
from .sizing import sizing
from .switches import switch_ports, vpc_pairs
from .trident import trident, trident_backends

RULES: list[Rule] = [
    # inventory
    host_kinds,
    unique_names,
    # networks
    networks_sane,
    unique_addresses,
    addresses_in_subnets,
    # ONTAP
    ontap_ports_and_groups,
    svm_settings,
    data_lifs,
    flexgroups,
    export_policies,
    # hosts
    host_nics,
    compute_mounts,
    # switches
    switch_ports,
    vpc_pairs,
    # Kubernetes and Trident
    kubernetes,
    trident,
    kubernetes_networks,
    trident_backends,
    # secrets and files
    secrets,
    files,
    # sizing
    sizing,
]


def run_rules(site: Site, check_files: bool = True, rules: list[Rule] | None = None) -> list[Finding]:
    ctx = Context(site, check_files=check_files)
    for function in rules or RULES:
        function(ctx)
    return ctx.findings


__all__ = [
    "RULES",
    "Context",
    "Rule",
    "addresses_in_subnets",
    "compute_mounts",
    "data_lifs",
    "export_policies",
    "files",
    "flexgroups",
    "host_kinds",
    "host_nics",
    "host_path",
    "kubernetes",
    "kubernetes_networks",
    "networks_sane",
    "ontap_ports_and_groups",
    "run_rules",
    "secrets",
    "sizing",
    "svm_settings",
    "switch_ports",
    "trident",
    "trident_backends",
    "unique_addresses",
    "unique_names",
    "vpc_pairs",
]
