"""Data sets as the layers use them: every default filled in, sizes in bytes, names resolved.

Pure functions of the site model, defensive on malformed input (the schema reports that), like
aipod_site.model, on whose views they stand.
"""
from __future__ import annotations

from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m

DEFAULT_SNAPMIRROR_POLICY = "MirrorAllSnapshots"
# The comment a data set's volume carries: how the storage layer knows a volume it made for a data
# set once the data set has left the model (it reports such a volume, and never deletes it).
DATASET_COMMENT_PREFIX = "aipod data set "


def dataset_comment(dataset: str) -> str:
    return f"{DATASET_COMMENT_PREFIX}{dataset}"


def dataset_of_comment(comment: object) -> str | None:
    """The data set a volume's comment names, or None for a volume that is no data set's."""
    if isinstance(comment, str) and comment.startswith(DATASET_COMMENT_PREFIX):
        return comment[len(DATASET_COMMENT_PREFIX):] or None
    return None


def snapshot_policy_name(dataset: str) -> str:
    """The Snapshot policy that holds a data set's versions: one per data set, named after it."""
    return m.dataset_object_name(dataset)


def export_policy_name(dataset: str) -> str:
    """The export policy that admits a data set's consumers only: one per data set, named after it."""
    return m.dataset_object_name(dataset)


def first_data_lif(model: dict, svm: str) -> str | None:
    """The address of the SVM's first data LIF: where clients of its data sets mount from."""
    return next((lif["address"] for lif in m.data_lifs(model) if lif["svm"] == svm and lif.get("address")), None)


def local_cluster(model: dict) -> str | None:
    return m.as_str(m.as_dict(model.get("ontap")).get("cluster_name"))


def peer_password_variable(peer: str) -> str:
    """The vault variable of a peer cluster's admin password: vault_ontap_peer_password_<name, '_' for '-'>."""
    return "vault_ontap_peer_password_" + "".join(c if c.isalnum() else "_" for c in peer)


def peers(model: dict) -> dict[str, dict]:
    """ontap.peers by name: {name: {name, addresses, svms, mgmt_address, https_port, admin_user,
    password_variable}}; https_port and admin_user default to this cluster's."""
    ontap = m.as_dict(model.get("ontap"))
    found = {}
    for peer in m.as_list(ontap.get("peers")):
        peer = m.as_dict(peer)
        name = m.as_str(peer.get("name"))
        if name:
            found[name] = {"name": name, "addresses": [a for a in m.as_list(peer.get("addresses")) if isinstance(a, str)],
                           "svms": [s for s in m.as_list(peer.get("svms")) if isinstance(s, str)],
                           "mgmt_address": m.as_str(peer.get("mgmt_address")),
                           "https_port": m.as_int(peer.get("https_port")) or m.as_int(ontap.get("https_port")) or 443,
                           "admin_user": m.as_str(peer.get("admin_user")) or "admin",
                           "password_variable": peer_password_variable(name)}
    return found


def caches(model: dict) -> list[dict]:
    """Each data set's FlexCache volumes: {dataset, origin_svm, origin_volume, cluster, peer (None on
    this cluster), svm, volume, junction_path, size_bytes, prepopulate}; a cache is named
    <data set>_cache and mounted at /<data set>_cache in its SVM."""
    known = peers(model)
    local = local_cluster(model)
    found = []
    for dataset in datasets(model):
        for cache in dataset["caches"]:
            if not cache["svm"] or (cache["cluster"] != local and cache["cluster"] not in known):
                continue
            found.append({"dataset": dataset["name"], "origin_svm": dataset["svm"], "origin_volume": dataset["name"],
                          "cluster": cache["cluster"], "peer": None if cache["cluster"] == local else cache["cluster"],
                          "svm": cache["svm"], "volume": f"{dataset['name']}_cache", "junction_path": f"/{dataset['name']}_cache",
                          "size_bytes": cache["size_bytes"], "prepopulate": cache["prepopulate"]})
    return found


def svm_peerings(model: dict) -> list[tuple[str, str | None, str]]:
    """The SVM peerings the copies and caches need: (data set's SVM, peer cluster or None for this
    one, the other SVM), sorted."""
    found = {(copy["source_svm"], copy["peer"], copy["svm"]) for copy in copies(model)}
    found |= {(cache["origin_svm"], cache["peer"], cache["svm"]) for cache in caches(model) if cache["svm"] != cache["origin_svm"]
              or cache["peer"]}
    return sorted(found, key=lambda entry: (entry[0], entry[1] or "", entry[2]))


def peers_in_use(model: dict) -> list[str]:
    """The peer clusters the data sets' copies and caches go to, sorted."""
    return sorted({copy["peer"] for copy in copies(model)} | {cache["peer"] for cache in caches(model) if cache["peer"]})


def copies(model: dict) -> list[dict]:
    """Each data set's SnapMirror copy on a peer cluster: {dataset, source_path, peer, svm, volume,
    destination_path, policy, schedule}; the copy is a volume of the data set's name in the peer's SVM."""
    known = peers(model)
    found = []
    for dataset in datasets(model):
        copy = dataset["snapmirror"]
        if copy and copy["cluster"] in known and copy["svm"]:
            found.append({"dataset": dataset["name"], "source_svm": dataset["svm"],
                          "source_path": f"{dataset['svm']}:{dataset['name']}", "peer": copy["cluster"],
                          "svm": copy["svm"], "volume": dataset["name"], "destination_path": f"{copy['svm']}:{dataset['name']}",
                          "policy": copy["policy"], "schedule": copy["schedule"]})
    return found


def datasets(model: dict) -> list[dict]:
    """Every data set, each: {name, svm, style, size, size_bytes, max_size_bytes, aggregates,
    constituents_per_aggregate, constituents, junction_path, snapshot_policy, schedules,
    retained_versions, reserve_percent, owner, namespaces: [{name, access}], snapmirror, caches}.
    A data set's aggregates are the SVM's unless it lists its own; on AFX ONTAP places it (none)."""
    svm_aggregates = {svm["name"]: [a for a in m.as_list(svm.get("aggregates")) if isinstance(a, str)] for svm in m.svms(model)}
    placed_by_ontap = m.ontap_disaggregated(model)
    result = []
    for entry in m.as_list(model.get("datasets")):
        entry = m.as_dict(entry)
        name, svm = m.as_str(entry.get("name")), m.as_str(entry.get("svm"))
        if not name or not svm:
            continue
        style = m.as_str(entry.get("style")) or "flexgroup"
        aggregates = [] if placed_by_ontap else (
            [a for a in m.as_list(entry.get("aggregates")) if isinstance(a, str)] or svm_aggregates.get(svm, []))
        per_aggregate = m.as_int(entry.get("constituents_per_aggregate")) if style == "flexgroup" and not placed_by_ontap else None
        versions = m.as_dict(entry.get("versions"))
        schedules = [{"schedule": m.as_str(s.get("schedule")), "count": m.as_int(s.get("count")) or 0,
                      "snapmirror_label": m.as_str(s.get("snapmirror_label"))}
                     for s in map(m.as_dict, m.as_list(versions.get("schedules")))]
        snapmirror = m.as_dict(m.as_dict(entry.get("protection")).get("snapmirror"))
        result.append({
            "name": name, "svm": svm, "style": style,
            "size": m.as_str(entry.get("size")), "size_bytes": m.size_bytes(entry.get("size")),
            "max_size_bytes": m.size_bytes(entry.get("max_size")),
            "aggregates": aggregates, "constituents_per_aggregate": per_aggregate,
            "constituents": len(aggregates) * per_aggregate if per_aggregate else (1 if style == "flexvol" else None),
            "junction_path": m.dataset_volumes({"datasets": [entry]})[name]["junction_path"],
            "snapshot_policy": snapshot_policy_name(name) if schedules else None,
            "schedules": schedules,
            "retained_versions": sum(s["count"] for s in schedules),
            "reserve_percent": m.as_int(versions.get("reserve_percent")),
            "owner": {key: m.as_dict(entry.get("owner")).get(key) for key in ("uid", "gid", "mode")},
            "namespaces": [{"name": m.as_str(n.get("name")), "access": m.as_str(n.get("access")) or "read_only"}
                           for n in map(m.as_dict, m.as_list(entry.get("namespaces"))) if m.as_str(n.get("name"))],
            "snapmirror": ({"cluster": m.as_str(snapmirror.get("cluster")), "svm": m.as_str(snapmirror.get("svm")),
                            "policy": m.as_str(snapmirror.get("policy")) or DEFAULT_SNAPMIRROR_POLICY,
                            "schedule": m.as_str(snapmirror.get("schedule"))} if snapmirror else None),
            "caches": [{"cluster": m.as_str(c.get("cluster")) or local_cluster(model), "svm": m.as_str(c.get("svm")),
                        "size_bytes": m.size_bytes(c.get("size")),
                        "prepopulate": [p for p in m.as_list(c.get("prepopulate")) if isinstance(p, str)]}
                       for c in map(m.as_dict, m.as_list(entry.get("caches")))],
        })
    return result


def volumes(model: dict) -> list[dict]:
    """Each data set as the storage layer writes its volume, in the shape of aipod_site.model's
    flexgroups (plus style, snapshot_reserve, user_id, group_id, autosize_maximum and dataset): the data set's own
    Snapshot policy and export policy, its owner as the volume root's uid, gid and mode."""
    placed_by_ontap = m.ontap_disaggregated(model)
    result = []
    for dataset in datasets(model):
        owner = dataset["owner"]
        result.append({
            "svm": dataset["svm"], "name": dataset["name"], "dataset": dataset["name"], "style": dataset["style"],
            "size": dataset["size"], "size_bytes": dataset["size_bytes"], "aggregates": dataset["aggregates"],
            "constituents_per_aggregate": dataset["constituents_per_aggregate"], "constituents": dataset["constituents"],
            "junction_path": dataset["junction_path"], "export_policy": export_policy_name(dataset["name"]),
            "snapshot_policy": dataset["snapshot_policy"] or "none", "security_style": "unix",
            "thin_provisioning": None, "efficiency": None,
            "unix_permissions": m.as_str(owner.get("mode")), "user_id": m.as_int(owner.get("uid")),
            "group_id": m.as_int(owner.get("gid")), "snapshot_reserve": dataset["reserve_percent"],
            "qos_policy": None, "granular_data": None, "placed_by_ontap": placed_by_ontap,
            "comment": dataset_comment(dataset["name"]),
            # Growth: ONTAP grows the volume as it fills, up to max_size (autosize mode grow).
            "autosize_maximum": dataset["max_size_bytes"],
        })
    return result


def consumers(model: dict) -> dict[str, dict[str, str]]:
    """Who mounts each data set, from where: data set -> {client address: access}.

    A DGX mounting it (compute.mounts naming it) reads and writes from the address its mount plan
    uses; when a namespace gets it, every Kubernetes node may mount it for a pod, from each of its
    addresses on a network of the data set's LIFs, read-write when any namespace writes to it.
    """
    by_name = {dataset["name"]: dataset for dataset in datasets(model)}
    found: dict[str, dict[str, str]] = {name: {} for name in by_name}

    def admit(dataset: str, address: str | None, access: str) -> None:
        if address and dataset in found:
            current = found[dataset].get(address)
            found[dataset][address] = "read_write" if "read_write" in (current, access) else access

    named = any(m.as_dict(mount).get("dataset") for mount in m.as_list(m.as_dict(model.get("compute")).get("mounts")))
    for host, mounts in (m.mount_plans(model) if named else {}).items():
        interfaces = m.host_interfaces(model, host)
        for mount in mounts:
            if mount.get("dataset"):
                admit(mount["dataset"], m.as_dict(interfaces.get(mount.get("nic") or "")).get("address"), "read_write")
    kube_nodes = m.group_members(model, "kube_node")
    lif_networks: dict[str, set[str]] = {}
    for lif in m.data_lifs(model):
        lif_networks.setdefault(lif["svm"], set()).add(lif["network"])
    for dataset in by_name.values():
        if not dataset["namespaces"]:
            continue
        access = "read_write" if any(n["access"] == "read_write" for n in dataset["namespaces"]) else "read_only"
        for host in kube_nodes:
            for nic in m.host_interfaces(model, host).values():
                if nic["kind"] in ("storage", "inband") and nic["network"] in lif_networks.get(dataset["svm"], set()):
                    admit(dataset["name"], nic["address"], access)
    return found


def export_policies(model: dict) -> list[dict]:
    """Each data set's export policy, in the shape of aipod_site.model's export_policies: a rule
    for the addresses that write (if any), then one for those that only read, each address a host
    match of its own. A data set no one consumes gets a policy without rules: no client mounts it."""
    result = []
    every = consumers(model)
    for dataset in datasets(model):
        clients = every.get(dataset["name"], {})
        rules = []
        for access in ("read_write", "read_only"):
            addresses = sorted((a for a, given in clients.items() if given == access and m.parse_address(a)),
                               key=lambda a: int(m.parse_address(a)))
            if addresses:
                rules.append({"index": len(rules) + 1, "clients": addresses, "ro": None,
                              "rw": None if access == "read_write" else ["never"], "superuser": None, "protocols": None})
        result.append({"svm": dataset["svm"], "name": export_policy_name(dataset["name"]), "root": False,
                       "rules": rules, "dataset": dataset["name"]})
    return result


def snapshot_policies(model: dict) -> list[dict]:
    """The Snapshot policy of each data set with versions, in the shape of ontap.snapshot_policies."""
    return [{"name": dataset["snapshot_policy"], "svm": dataset["svm"],
             "schedules": [{"schedule": s["schedule"], "count": s["count"], "snapmirror_label": s["snapmirror_label"]}
                           for s in dataset["schedules"]]}
            for dataset in datasets(model) if dataset["snapshot_policy"]]


def by_name(model: dict) -> dict[str, dict[str, Any]]:
    return {dataset["name"]: dataset for dataset in datasets(model)}
