"""The ground floor of the site model: loading an inventory (files or an exported document) within a
budget, the schema, the values every layer derives from the model (model.py), findings and the
context every rule gets (rule_context.py). Pure Python, no Ansible needed.

It imports no other package of plugin_utils. The layers (aipod_network, aipod_ontap,
aipod_compute, aipod_kubernetes) stand on it; validation (aipod_validation) and the reports
(aipod_report) stand on them.
"""
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.findings import Finding, Location

__all__ = ["Finding", "Location"]
