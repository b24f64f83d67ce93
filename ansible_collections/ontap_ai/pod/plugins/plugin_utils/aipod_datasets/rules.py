"""Rules of the data sets layer: names and references, sizes, versions, copies and consumers.

Each names the data set's file and line. Free space on the aggregates is the cluster's to say:
the storage layer reads it before any change (aipod_ontap.plan.space_refusals); here a size is held
against what the model knows (the FlexGroup constituent minimum, the growth limit).
"""
from __future__ import annotations

import re

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_compute.rules import normalised_path_problem
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_datasets import kubernetes as datasets_kubernetes
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_datasets import model as datasets_model
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.rule_context import Context

# A namespace name is an RFC 1123 label (Kubernetes' DNS-1123 label): what kubectl accepts.
DNS_1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")


def _entries(ctx: Context) -> list[tuple[int, dict, dict]]:
    """(index in datasets:, the entry as written, the entry as the layer sees it), derived once for all the rules."""
    return ctx.derived("datasets.entries", _derive_entries)


def _derive_entries(model: dict) -> list[tuple[int, dict, dict]]:
    derived = datasets_model.by_name(model)
    found = []
    for index, entry in enumerate(m.as_list(model.get("datasets"))):
        name = m.as_str(m.as_dict(entry).get("name"))
        if name in derived:
            found.append((index, m.as_dict(entry), derived[name]))
    return found


def dataset_references(ctx: Context) -> None:
    """A data set names a declared SVM and its aggregates, and takes a name and a junction path no
    other volume of its SVM has."""
    svms = {svm["name"]: svm for svm in ctx.svms}
    seen: dict[tuple, int] = {}
    entries = _entries(ctx)
    for index, entry, dataset in entries:
        path = ("datasets", index)
        svm = svms.get(dataset["svm"])
        if svm is None:
            ctx.error("dangling-reference", path + ("svm",), f"data set {dataset['name']}: SVM {dataset['svm']} is not declared",
                      f"use one of {', '.join(sorted(svms)) or '(none: declare one under ontap.svms)'}")
            continue
        key = (dataset["svm"], dataset["name"])
        if key in seen:
            ctx.error("dataset", path + ("name",), f"data set {dataset['name']} is declared twice in SVM {dataset['svm']}")
        seen.setdefault(key, index)
        volumes = {m.as_str(m.as_dict(fg).get("name")): m.as_str(m.as_dict(fg).get("junction_path"))
                   for fg in m.as_list(svm.get("flexgroups"))}
        if dataset["name"] in volumes:
            ctx.error("dataset", path + ("name",), f"data set {dataset['name']} has the name of a FlexGroup of SVM {dataset['svm']}",
                      "give the data set a name of its own: it is its volume's name")
        junction = dataset["junction_path"]
        problem = normalised_path_problem(junction)
        if problem:
            ctx.error("dataset", path + ("junction_path",), f"data set {dataset['name']}: junction path {junction} {problem}")
        others = [name for name, other in volumes.items() if other == junction]
        others += [d["name"] for _i, _e, d in entries if d is not dataset and d["svm"] == dataset["svm"]
                   and d["junction_path"] == junction]
        if others:
            ctx.error("dataset", path + ("junction_path",),
                      f"data set {dataset['name']}: junction path {junction} is also {', '.join(sorted(set(others)))}'s",
                      "give each volume its own junction path")
        assigned = [a for a in m.as_list(svm.get("aggregates")) if isinstance(a, str)]
        for aggr_index, aggregate in enumerate(m.as_list(entry.get("aggregates"))):
            if aggregate not in ctx.aggregates:
                ctx.error("dangling-reference", path + ("aggregates", aggr_index), f"aggregate {aggregate} is not declared on any node",
                          f"use one of {', '.join(sorted(a for a in ctx.aggregates if a))}")
            elif aggregate not in assigned:
                ctx.error("dataset", path + ("aggregates", aggr_index), f"aggregate {aggregate} is not assigned to SVM {dataset['svm']}",
                          "add it to the SVM's aggregates")


def dataset_sizes(ctx: Context) -> None:
    """A FlexGroup's constituents each hold at least 100 GB, and growth never shrinks the volume."""
    for index, entry, dataset in _entries(ctx):
        path = ("datasets", index)
        size = dataset["size_bytes"]
        if size is None:
            continue
        if dataset["max_size_bytes"] is not None and dataset["max_size_bytes"] < size:
            ctx.error("dataset-size", path + ("max_size",),
                      f"data set {dataset['name']}: max_size {entry.get('max_size')} is below its size {entry.get('size')}",
                      "max_size is how far ONTAP may grow the volume: at least its size")
        constituents = dataset["constituents"]
        if dataset["style"] == "flexgroup" and constituents and size / constituents < m.MIN_CONSTITUENT_BYTES:
            ctx.error("dataset-size", path + ("size",),
                      f"data set {dataset['name']}: {entry.get('size')} over {constituents} constituents is "
                      f"{size / constituents / 1024 ** 3:.1f} GB each, below the 100 GB a FlexGroup constituent needs",
                      f"grow it to at least {constituents * 100}GB, use fewer constituents, or make it style: flexvol")


def dataset_versions(ctx: Context) -> None:
    """Versions keep at least one Snapshot copy; a data set without versions is a warning, since a
    training run can then be traced to no version of its data."""
    for index, entry, dataset in _entries(ctx):
        path = ("datasets", index)
        if "versions" not in entry:
            ctx.warning("dataset-versions", path, f"data set {dataset['name']} keeps no versions",
                        "declare versions.schedules (for example hourly: 24, daily: 7) to trace training runs to a Snapshot copy")
        elif dataset["retained_versions"] < 1:
            ctx.error("dataset-versions", path + ("versions", "schedules"),
                      f"data set {dataset['name']}: its schedules keep no version (every count is 0)",
                      "keep at least one copy on one schedule, or drop versions")


def dataset_copies(ctx: Context) -> None:
    """A SnapMirror copy and each cache are on a declared peer (and one of its SVMs) or on this
    cluster; a cache is never on its origin's own SVM."""
    peers = datasets_model.peers(ctx.model)
    local = datasets_model.local_cluster(ctx.model)
    svms = {svm["name"] for svm in ctx.svms}

    def where(path: tuple, what: str, cluster: str | None, svm: str | None) -> None:
        if cluster in (None, local):
            if svm not in svms:
                ctx.error("dangling-reference", path + ("svm",), f"{what}: SVM {svm} is not declared on this cluster",
                          f"use one of {', '.join(sorted(svms))}, or name a peer cluster")
        elif cluster not in peers:
            ctx.error("dataset-peer", path + ("cluster",), f"{what}: cluster {cluster} is not a declared peer",
                      f"declare it under ontap.peers (name, intercluster addresses, SVMs){' or use ' + ', '.join(sorted(peers)) if peers else ''}")
        elif svm not in peers[cluster]["svms"]:
            ctx.error("dataset-peer", path + ("svm",), f"{what}: SVM {svm} is not among peer {cluster}'s SVMs",
                      f"use one of {', '.join(peers[cluster]['svms'])}, or add it to the peer's svms")

    for index, _entry, dataset in _entries(ctx):
        path = ("datasets", index)
        if dataset["snapmirror"]:
            copy = dataset["snapmirror"]
            if copy["cluster"] == local:
                ctx.error("dataset-peer", path + ("protection", "snapmirror", "cluster"),
                          f"data set {dataset['name']}: its SnapMirror copy is on its own cluster {local}",
                          "protect a data set on a peer cluster, off this one")
            else:
                where(path + ("protection", "snapmirror"), f"data set {dataset['name']}'s SnapMirror copy", copy["cluster"], copy["svm"])
        for cache_index, cache in enumerate(dataset["caches"]):
            cache_path = path + ("caches", cache_index)
            if cache["cluster"] == local and cache["svm"] == dataset["svm"]:
                ctx.error("dataset-cache", cache_path + ("svm",),
                          f"data set {dataset['name']}: a cache on its own SVM {dataset['svm']} serves nothing the origin does not",
                          "put the cache on another SVM, or on a peer cluster near the compute")
                continue
            where(cache_path, f"data set {dataset['name']}'s cache", cache["cluster"], cache["svm"])


def dataset_copy_reach(ctx: Context) -> None:
    """A peer a data set is copied to has a management address (where the storage layer makes the copy),
    and this cluster has intercluster LIFs, on its own nodes, in declared networks, one per node at least."""
    used = set(datasets_model.peers_in_use(ctx.model))
    if not used:
        return
    for index, peer in enumerate(m.as_list(m.as_dict(ctx.model.get("ontap")).get("peers"))):
        name = m.as_str(m.as_dict(peer).get("name"))
        if name in used and not m.as_str(m.as_dict(peer).get("mgmt_address")):
            ctx.error("dataset-peer", ("ontap", "peers", index), f"peer {name}: data sets are copied or cached to it, and it has no mgmt_address",
                      "give its cluster management address (mgmt_address, and https_port when not this cluster's): the storage "
                      "layer accepts the peering and makes the copies there")
    lifs = m.as_list(m.as_dict(ctx.model.get("ontap")).get("intercluster_lifs"))
    nodes = [node["name"] for node in m.ontap_nodes(ctx.model)]
    if not lifs:
        ctx.error("dataset-peer", ("ontap",), "data sets are copied to a peer cluster, and this cluster has no intercluster_lifs",
                  f"declare one intercluster LIF per node under ontap.intercluster_lifs (node, port, address): {', '.join(nodes)}")
        return
    derived = {lif["address"]: lif for lif in m.intercluster_lifs(ctx.model)}
    for index, lif in enumerate(lifs):
        lif = m.as_dict(lif)
        if lif.get("node") not in nodes:
            ctx.error("dangling-reference", ("ontap", "intercluster_lifs", index, "node"), f"node {lif.get('node')} is not an ONTAP node",
                      f"use one of {', '.join(nodes)}")
        found = derived.get(m.as_str(lif.get("address")) or "")
        if found is not None and found["network"] is None:
            ctx.error("dataset-peer", ("ontap", "intercluster_lifs", index, "address"),
                      f"intercluster LIF address {lif.get('address')} is in no declared network (which gives its netmask)",
                      "use an address of a declared network (networks.yml), or declare its network")
    missing = [node for node in nodes if node not in {m.as_dict(lif).get("node") for lif in lifs}]
    if missing:
        ctx.error("dataset-peer", ("ontap", "intercluster_lifs"), f"node(s) {', '.join(missing)} have no intercluster LIF",
                  "declare one per node: a peering through one node fails when that node does")


def dataset_consumers(ctx: Context) -> None:
    """Namespaces are DNS-1123 labels, each once; a data set no namespace and no DGX mount uses is a warning."""
    mounted = {m.as_str(m.as_dict(mount).get("dataset")) for mount in m.as_list(m.as_dict(ctx.model.get("compute")).get("mounts"))}
    for index, entry, dataset in _entries(ctx):
        path = ("datasets", index)
        names: set[str] = set()
        for ns_index, namespace in enumerate(m.as_list(entry.get("namespaces"))):
            name = m.as_str(m.as_dict(namespace).get("name"))
            if name is None:
                continue
            if not DNS_1123_LABEL.match(name):
                ctx.error("dataset-namespace", path + ("namespaces", ns_index, "name"),
                          f"data set {dataset['name']}: namespace {name!r} is not a DNS-1123 label",
                          "use lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63")
            if name in names:
                ctx.error("dataset-namespace", path + ("namespaces", ns_index, "name"),
                          f"data set {dataset['name']}: namespace {name} is listed twice")
            names.add(name)
        if not names and dataset["name"] not in mounted:
            ctx.warning("dataset-unused", path,
                        f"data set {dataset['name']} is used by no one: no namespace gets it and no DGX mounts it, "
                        "so its export policy admits no client",
                        "list the namespaces that train on it under namespaces, or mount it under compute.mounts (dataset:)")


def dataset_exports(ctx: Context) -> None:
    """A data set's export policy is its own (no declared policy takes its name), and the SVM root
    volume's policy lets each of its consumers through: ONTAP checks it on the way to the junction."""
    svms = {svm["name"]: svm for svm in ctx.svms}
    policies = {(policy["svm"], policy["name"]): policy for policy in m.export_policies(ctx.model)}
    consumers = datasets_model.consumers(ctx.model)
    for index, _entry, dataset in _entries(ctx):
        svm = svms.get(dataset["svm"])
        if svm is None:
            continue
        own = datasets_model.export_policy_name(dataset["name"])
        if (dataset["svm"], own) in policies:
            ctx.error("dataset", ("datasets", index, "name"),
                      f"data set {dataset['name']}: SVM {dataset['svm']} declares an export policy {own}, the name of the data set's own",
                      "rename that export policy: the data set's policy admits its consumers only")
        root = policies.get((dataset["svm"], m.as_str(svm.get("root_export_policy")) or ""))
        if root is None:
            continue  # no root policy the model declares: the ONTAP rules report it
        admitted = [subnet for rule in root["rules"] for subnet in map(m.parse_subnet, rule["clients"]) if subnet]
        refused = sorted((address for address in consumers.get(dataset["name"], {})
                          if m.parse_address(address) and not any(m.parse_address(address) in subnet for subnet in admitted)),
                         key=lambda address: int(m.parse_address(address)))
        if refused:
            ctx.error("dataset-export", ("datasets", index),
                      f"data set {dataset['name']}: its consumers at {', '.join(refused)} are not admitted by SVM {dataset['svm']}'s "
                      f"root export policy {root['name']}, which ONTAP checks on the way to {dataset['junction_path']}",
                      f"add their networks to a rule of export policy {root['name']}")


# The VolumeSnapshotClass the DataOps Toolkit for Kubernetes snapshots with when -c is not given.
TOOLKIT_SNAPSHOT_CLASS = "csi-snapclass"


def dataset_snapshot_class(ctx: Context) -> None:
    """Namespaces that get data sets snapshot their claims with the DataOps Toolkit, whose default
    class is csi-snapclass: another name for the model's class is a warning."""
    if not any(dataset["namespaces"] for _i, _e, dataset in _entries(ctx)):
        return
    snapshot_class = m.as_dict(m.as_dict(ctx.model.get("trident")).get("snapshot_class"))
    name = m.as_str(snapshot_class.get("name"))
    if name and name != TOOLKIT_SNAPSHOT_CLASS:
        ctx.warning("dataset-snapshot-class", ("trident", "snapshot_class", "name"),
                    f"the snapshot class is {name}; the DataOps Toolkit for Kubernetes snapshots data set claims with "
                    f"{TOOLKIT_SNAPSHOT_CLASS} unless each command names the class (-c {name})",
                    f"name it {TOOLKIT_SNAPSHOT_CLASS} (the old class then loses its default mark)")


# A Kubernetes object's name (a DNS-1123 subdomain) holds at most 253 characters.
MAX_KUBERNETES_NAME = 253


def dataset_claim_names(ctx: Context) -> None:
    """In one namespace, no two data sets get one claim name (claim names take the data set's name in
    lower case, '-' for '_'); each PV name is one Kubernetes takes."""
    claimed: dict[tuple[str, str], str] = {}
    for index, _entry, dataset in _entries(ctx):
        for ns_index, consumer in enumerate(dataset["namespaces"]):
            path = ("datasets", index, "namespaces", ns_index, "name")
            namespace, claim = consumer["name"], datasets_kubernetes.claim_name(dataset["name"])
            other = claimed.setdefault((namespace, claim), dataset["name"])
            if other != dataset["name"]:
                ctx.error("dataset-namespace", path,
                          f"data sets {other} and {dataset['name']} would both be claim {claim} in namespace {namespace}",
                          "rename one of them: Kubernetes names are lower case, with '-' for '_'")
            volume = datasets_kubernetes.volume_name(dataset["name"], namespace)
            if len(volume) > MAX_KUBERNETES_NAME:
                ctx.error("dataset-namespace", path,
                          f"data set {dataset['name']}: its PV in namespace {namespace} would be named with {len(volume)} "
                          f"characters, more than Kubernetes' {MAX_KUBERNETES_NAME}", "shorten the data set's or the namespace's name")


RULES = (dataset_references, dataset_sizes, dataset_versions, dataset_copies, dataset_copy_reach, dataset_consumers, dataset_exports,
         dataset_claim_names, dataset_snapshot_class)
