"""Level 2 of site validation: every layer's rules and the rules across layers, in one list.

Each rule is a function of a Context (aipod_site.rule_context) that reports findings through
ctx.error / ctx.warning with a model path; the Context turns the path into a file and line. Rules
read the model only through the defensive helpers of aipod_site.model, so a malformed model
(already reported by the schema) never makes them raise. RULES lists them in the order their
findings are most useful to read.

Each layer's package holds its own rules (aipod_network.rules, aipod_ontap.rules,
aipod_compute.rules, aipod_kubernetes.rules, .trident_rules and .gpu_rules, aipod_datasets.rules,
aipod_monitoring.rules); the modules
here hold the rules across layers (inventory, text, networks, limits, secrets, artifacts,
role_variables, sizing). A new rule runs only once it is listed in RULES, named through its module.
"""
from __future__ import annotations

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_compute import rules as hosts
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_datasets import rules as datasets
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes import gpu_rules as gpu
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes import rules as kubernetes
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes import trident_rules as trident
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_monitoring import rules as monitoring
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import rules as switches
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_ontap import rules as ontap
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as site_model
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.findings import Finding
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import Site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.rule_context import Context, Rule, host_path
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.rules import (
    artifacts,
    inventory,
    limits,
    networks,
    role_variables,
    secrets,
    sizing,
    text,
)

RULES: list[Rule] = [
    # inventory
    inventory.host_kinds,
    inventory.unique_names,
    # text: no hidden characters, names every sink takes
    text.no_hidden_characters,
    text.no_hidden_characters_in_settings,
    text.settings_are_literal,
    text.host_names,
    text.normalised_paths,
    # networks
    networks.networks_sane,
    networks.unique_addresses,
    networks.addresses_in_subnets,
    # device limits
    limits.vlan_limits,
    limits.ontap_mtu_limit,
    # ONTAP
    ontap.ontap_ports_and_groups,
    ontap.ha_pairs,
    ontap.svm_settings,
    ontap.data_lifs,
    ontap.aggregates_or_placement,
    ontap.flexgroups,
    ontap.qos_policies,
    ontap.export_policies,
    # hosts
    hosts.host_nics,
    hosts.linux_device_names,
    hosts.dgx_gpus,
    hosts.compute_mounts,
    # switches
    switches.switch_ports,
    switches.nxos_descriptions,
    switches.vpc_pairs,
    switches.switch_fabric,
    switches.storage_bonds,
    switches.storage_nic_cabling,
    # Kubernetes and Trident
    kubernetes.kubernetes,
    trident.trident,
    kubernetes.kubernetes_networks,
    trident.trident_backends,
    trident.trident_secret_names,
    trident.trident_versions,
    # GPUs
    *gpu.RULES,
    # data sets
    *datasets.RULES,
    # monitoring
    *monitoring.RULES,
    # secrets, files and downloads
    secrets.secrets,
    secrets.files,
    artifacts.artifact_urls,
    # role variables whose values reach files and devices
    role_variables.role_variable_values,
    # sizing
    sizing.sizing,
]


def run_rules(site: Site, check_files: bool = True, rules: list[Rule] | None = None) -> list[Finding]:
    ctx = Context(site, check_files=check_files)
    # The switch rules read the fabric (pairs, uplinks) for every port, and many rules the hosts' NICs
    # and the broadcast domains: each is derived once for the run.
    with switches.network_model.fabric_scope(ctx.model), site_model.derived_scope(ctx.model):
        for function in rules or RULES:
            function(ctx)
    return ctx.findings


__all__ = [
    "RULES",
    "Context",
    "artifacts",
    "datasets",
    "gpu",
    "Rule",
    "host_path",
    "hosts",
    "inventory",
    "kubernetes",
    "monitoring",
    "networks",
    "ontap",
    "role_variables",
    "run_rules",
    "secrets",
    "sizing",
    "switches",
    "trident",
]
