"""NetApp Harvest's side of the model: the read-only REST account it polls the pod's ONTAP cluster with.

Harvest's REST and RestPerf collectors read across the whole cluster (nodes, aggregates, disks,
every SVM's volumes and LIFs), so its role is cluster-scoped, unlike Trident's and the DataOps
Toolkit's SVM-scoped roles. The privileges themselves are role defaults (ontap_accounts).
"""
from __future__ import annotations

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_monitoring import alerts
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m

ACCOUNT = "harvest"
ROLE = "harvest-rest-role"  # the name Harvest's docs give it (prepare-cdot-clusters)
PASSWORD_VARIABLE = "vault_ontap_harvest_password"


def account(model: dict) -> dict[str, str] | None:
    """Harvest's account when the model watches the pod: {username, role, password_variable}, else None."""
    if not alerts.enabled(model):
        return None
    given = m.as_dict(m.as_dict(alerts.monitoring_section(model).get("harvest")).get("account"))
    return {"username": m.as_str(given.get("username")) or ACCOUNT, "role": m.as_str(given.get("role")) or ROLE,
            "password_variable": PASSWORD_VARIABLE}
