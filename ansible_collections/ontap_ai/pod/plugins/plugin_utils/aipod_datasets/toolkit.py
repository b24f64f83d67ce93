"""The NetApp DataOps Toolkit's configuration, from the site model.

The toolkit for traditional environments reads ~/.netapp_dataops/config.json (what its `config`
command writes) and its credentials from the OS keyring. Here is the file's content for one SVM
with a dataops_account: the account logs in through the cluster's management address (as the
storage layer checks every tool account's password), mounts from the SVM's first data LIF, and
makes new volumes as the model's data sets are made (FlexGroups, the SVM's root export policy, the
pod's common user, kubernetes.common_user).
"""
from __future__ import annotations

from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_datasets.model import first_data_lif
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m

PASSWORD_VARIABLE = "vault_ontap_dataops_password"


def toolkit_config(model: dict, svm_name: str | None = None) -> dict[str, Any] | None:
    """{svm, username, password_variable, config} for the SVM named (default: the first SVM with a
    dataops_account), or None when no SVM has one. config lacks sslCertPath, which is a file of the
    control node (the role adds the model's ontap.ca_file, resolved)."""
    ontap = m.as_dict(model.get("ontap"))
    candidates = [svm for svm in m.svms(model) if m.as_str(m.as_dict(svm.get("dataops_account")).get("username"))]
    svm = next((s for s in candidates if svm_name in (None, s["name"])), None)
    if svm is None:
        return None
    account = m.as_dict(svm.get("dataops_account"))
    port = m.as_int(ontap.get("https_port")) or 443
    address = m.as_str(ontap.get("mgmt_address")) or ""
    data_lif = first_data_lif(model, svm["name"]) or ""
    aggregates = [a for a in m.as_list(svm.get("aggregates")) if isinstance(a, str)]
    user = m.as_dict(m.as_dict(model.get("kubernetes")).get("common_user"))
    return {
        "svm": svm["name"],
        "username": m.as_str(account.get("username")),
        "password_variable": PASSWORD_VARIABLE,
        "config": {
            "connectionType": "ONTAP",
            "hostname": address if port == 443 else f"{address}:{port}",
            "svm": svm["name"],
            "dataLif": data_lif,
            "defaultVolumeType": "flexgroup",
            "defaultExportPolicy": m.as_str(svm.get("root_export_policy")) or "default",
            "defaultSnapshotPolicy": "none",
            "defaultUnixUID": str(m.as_int(user.get("uid")) or 0),
            "defaultUnixGID": str(m.as_int(user.get("gid")) or 0),
            "defaultUnixPermissions": "0775",
            "defaultAggregate": aggregates[0] if aggregates else "",
        },
    }
