"""NetApp Harvest's side of the model: the read-only REST account it polls the pod's ONTAP cluster with,
and, when the model asks (monitoring.harvest.switches), the read-only NX-OS account and NX-API it
polls each Nexus switch through.

Harvest's REST and RestPerf collectors read across the whole cluster (nodes, aggregates, disks,
every SVM's volumes and LIFs), so its role is cluster-scoped, unlike Trident's and the DataOps
Toolkit's SVM-scoped roles. The privileges themselves are role defaults (ontap_accounts).

Its CiscoRest collector reads NX-OS only, over NX-API (`feature nxapi`), as a user with the built-in
network-operator role (Harvest's docs, prepare-cisco-switch). Cumulus Linux switches have no Harvest
collector; docs/monitoring.md says how their own telemetry reaches Prometheus.
"""
from __future__ import annotations

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_monitoring import alerts
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m

ACCOUNT = "harvest"
ROLE = "harvest-rest-role"  # the name Harvest's docs give it (prepare-cdot-clusters)
PASSWORD_VARIABLE = "vault_ontap_harvest_password"
SWITCH_ACCOUNT = "harvest"
SWITCH_ROLE = "network-operator"  # NX-OS's built-in read-only role
SWITCH_PASSWORD_VARIABLE = "vault_switch_harvest_password"


def account(model: dict) -> dict[str, str] | None:
    """Harvest's account when the model watches the pod: {username, role, password_variable}, else None."""
    if not alerts.enabled(model):
        return None
    given = m.as_dict(m.as_dict(alerts.monitoring_section(model).get("harvest")).get("account"))
    return {"username": m.as_str(given.get("username")) or ACCOUNT, "role": m.as_str(given.get("role")) or ROLE,
            "password_variable": PASSWORD_VARIABLE}


def switches_section(model: dict) -> dict:
    return m.as_dict(m.as_dict(alerts.monitoring_section(model).get("harvest")).get("switches"))


def switch_account(model: dict) -> dict[str, str] | None:
    """Harvest's NX-OS account when the model watches the pod's switches: {username, role, password_variable}."""
    if not alerts.enabled(model) or switches_section(model).get("enabled") is not True:
        return None
    return {"username": m.as_str(switches_section(model).get("username")) or SWITCH_ACCOUNT, "role": SWITCH_ROLE,
            "password_variable": SWITCH_PASSWORD_VARIABLE}


def switch_pollers(model: dict) -> list[dict[str, str]]:
    """The Nexus switches Harvest polls, in inventory order: {name, addr}. Other platforms have no CiscoRest."""
    if not switch_account(model):
        return []
    return [{"name": name, "addr": m.as_str(data.get("mgmt_address")) or name}
            for name, data in m.hosts_of_kind(model, "switch").items() if m.as_str(data.get("platform")) == "nxos"]
