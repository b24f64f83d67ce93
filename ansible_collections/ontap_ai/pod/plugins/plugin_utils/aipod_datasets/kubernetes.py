"""Data sets in Kubernetes namespaces: a PVC in each consuming namespace, bound to a static NFS
PersistentVolume on the data set's own volume.

A static PV, never a provisioned one: the claim must reach the data already on the volume, and no
StorageClass may make a new empty volume for it. The PV is pre-bound to its claim (claimRef) and
kept when the claim goes (Retain), so deleting a claim never deletes data. One PV per namespace,
as a PV binds one claim.
"""
from __future__ import annotations

import re
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_datasets.model import datasets, first_data_lif
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.apply import apply_pending
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.trident import MANAGED_BY_LABEL
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m

DATASET_ANNOTATION = "aipod.netapp.io/dataset"
ACCESS_MODES = {"read_only": "ReadOnlyMany", "read_write": "ReadWriteMany"}


def kubernetes_name(dataset: str) -> str:
    """The data set's name as Kubernetes takes it: lower case, '-' for '_', no '-' at either end."""
    return re.sub(r"-+", "-", dataset.lower().replace("_", "-")).strip("-")


def claim_name(dataset: str) -> str:
    return f"dataset-{kubernetes_name(dataset)}"


def volume_name(dataset: str, namespace: str) -> str:
    return f"dataset-{namespace}-{kubernetes_name(dataset)}"


def _mount_options(model: dict, svm: str) -> list[str]:
    """The mount options of the Trident StorageClass on the data set's SVM (the default class first),
    so that a data set mounts as the pod's provisioned volumes do."""
    backends = {m.as_str(b.get("name")): m.as_str(b.get("svm"))
                for b in map(m.as_dict, m.as_list(m.as_dict(model.get("trident")).get("backends")))}
    classes = [c for c in map(m.as_dict, m.as_list(m.as_dict(model.get("trident")).get("storage_classes")))
               if backends.get(m.as_str(c.get("backend"))) == svm]
    classes.sort(key=lambda c: c.get("default") is not True)
    return [str(option) for option in m.as_list(classes[0].get("mount_options"))] if classes else []


def _requested(live_claims: list) -> dict[tuple, str]:
    return {(m.as_dict(c.get("metadata")).get("namespace"), m.as_dict(c.get("metadata")).get("name")):
            m.as_dict(m.as_dict(m.as_dict(c.get("spec")).get("resources")).get("requests")).get("storage")
            for c in map(m.as_dict, m.as_list(live_claims))}


def claims(model: dict, live_claims: list | None = None) -> dict[str, Any]:
    """What the data sets need in Kubernetes: {namespaces, volumes, claims} as manifests (to apply
    server-side), and bindings [{dataset, namespace, claim, volume, access, size}] to report and verify.

    A claim keeps the size it was made with (live_claims: the cluster's claims): Kubernetes resizes
    only a provisioned claim, and a grown data set's PV (whose capacity is the data set's size)
    still satisfies it. A data set whose SVM has no data LIF gets no PV (validation refuses that model).
    """
    requested = _requested(live_claims or [])
    namespaces: dict[str, dict] = {}
    volumes, bound, bindings = [], [], []
    for dataset in datasets(model):
        server = first_data_lif(model, dataset["svm"])
        if server is None or not dataset["size_bytes"]:
            continue
        options = _mount_options(model, dataset["svm"])
        for consumer in dataset["namespaces"]:
            namespace, access = consumer["name"], consumer["access"]
            claim, volume = claim_name(dataset["name"]), volume_name(dataset["name"], namespace)
            annotations = {DATASET_ANNOTATION: dataset["name"]}
            mode = ACCESS_MODES.get(access, "ReadOnlyMany")
            namespaces.setdefault(namespace, {"apiVersion": "v1", "kind": "Namespace",
                                              "metadata": {"name": namespace, "labels": dict(MANAGED_BY_LABEL)}})
            volume_spec: dict[str, Any] = {
                "capacity": {"storage": str(dataset["size_bytes"])},
                "accessModes": [mode],
                "persistentVolumeReclaimPolicy": "Retain",
                "claimRef": {"namespace": namespace, "name": claim},
                "nfs": {"server": server, "path": dataset["junction_path"], "readOnly": access == "read_only"},
            }
            if options:
                volume_spec["mountOptions"] = options
            volumes.append({"apiVersion": "v1", "kind": "PersistentVolume",
                            "metadata": {"name": volume, "labels": dict(MANAGED_BY_LABEL), "annotations": annotations},
                            "spec": volume_spec})
            # The claim's empty class keeps the default StorageClass off it; a PV without one has none.
            size = requested.get((namespace, claim)) or str(dataset["size_bytes"])
            bound.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                          "metadata": {"name": claim, "namespace": namespace, "labels": dict(MANAGED_BY_LABEL), "annotations": annotations},
                          "spec": {"accessModes": [mode], "storageClassName": "", "volumeName": volume,
                                   "resources": {"requests": {"storage": size}}}})
            bindings.append({"dataset": dataset["name"], "namespace": namespace, "claim": claim, "volume": volume,
                             "access": access, "size": dataset["size"]})
    manifests = [*namespaces.values(), *volumes, *bound]
    return {"namespaces": list(namespaces.values()), "volumes": volumes, "claims": bound, "bindings": bindings,
            "objects": [{"key": object_key(manifest), "manifest": manifest} for manifest in manifests]}


def object_key(manifest: dict) -> str:
    """Kind/name, or Kind/namespace/name for a namespaced object: claims of one name live in many namespaces."""
    metadata = m.as_dict(manifest.get("metadata"))
    scope = f"{metadata['namespace']}/" if metadata.get("namespace") else ""
    return f"{manifest.get('kind')}/{scope}{metadata.get('name')}"


def pending(plan: dict, live: dict, field_manager: str) -> list[dict[str, Any]]:
    """The pending items of the data sets in Kubernetes: live is {namespaces, volumes, claims} as the
    cluster holds them (the bundle's PVs and claims, every namespace).

    A PV whose source moved is refused; any other declared object that is missing is created, one that
    differs (apply_pending's words) modified. A namespace that exists is the team's and is not compared.
    """
    refused = volume_refusals(m.as_list(live.get("volumes")), plan["volumes"])
    found = list(refused)
    existing = {m.as_dict(n.get("metadata")).get("name") for n in map(m.as_dict, m.as_list(live.get("namespaces")))}
    found += [aipod_pending.item(object_key(n), action="create", reason="not in the cluster")
              for n in plan["namespaces"] if n["metadata"]["name"] not in existing]
    refused_objects = {item["object"] for item in refused}
    # A PV whose claim was deleted is Released, still holding that claim's uid, and never binds the
    # claim made again in its place: its claimRef goes back to the model's (namespace and name).
    released = {m.as_dict(v.get("metadata")).get("name") for v in map(m.as_dict, m.as_list(live.get("volumes")))
                if m.as_dict(v.get("status")).get("phase") == "Released"}
    found += [aipod_pending.item(object_key(v), "claimRef", action="modify",
                                 reason="released by a deleted claim: bound again to the model's claim")
              for v in plan["volumes"] if v["metadata"]["name"] in released and object_key(v) not in refused_objects]
    live_objects = {"PersistentVolume": m.as_list(live.get("volumes")), "PersistentVolumeClaim": m.as_list(live.get("claims"))}
    for manifest in plan["volumes"] + plan["claims"]:
        key = object_key(manifest)
        # apply_pending keys its answer by name: hand it the objects of the manifest's own namespace only.
        same_scope = [o for o in map(m.as_dict, live_objects[manifest["kind"]])
                      if m.as_dict(o.get("metadata")).get("namespace") == manifest["metadata"].get("namespace")]
        why = m.as_dict(apply_pending(same_scope, [manifest], field_manager).get(manifest["kind"])).get(manifest["metadata"]["name"])
        if why and key not in refused_objects and not any(item["object"] == key for item in found):
            found.append(aipod_pending.item(key, action="create" if why == "not in the cluster" else "modify", reason=why))
    return found


def volume_refusals(live_volumes: list, declared: list) -> list[dict[str, Any]]:
    """A PV of the bundle's whose NFS source differs from the model: Kubernetes never changes a PV's
    source, so the layer refuses it and says how to move the data set's claims (pending items)."""
    live = {m.as_dict(v.get("metadata")).get("name"): m.as_dict(m.as_dict(v.get("spec")).get("nfs"))
            for v in map(m.as_dict, m.as_list(live_volumes))}
    found = []
    for volume in declared:
        name = volume["metadata"]["name"]
        have, want = live.get(name), volume["spec"]["nfs"]
        if have is None:
            continue
        for field in ("server", "path"):
            if have.get(field) != want[field]:
                found.append(aipod_pending.item(
                    f"PersistentVolume/{name}", f"nfs.{field}", have.get(field), want[field], action="refuse",
                    reason=f"nfs.{field} {have.get(field)} -> {want[field]}: a PV's source never changes: delete the claim and "
                           "then the PV (the data stays, the PV is Retain), and run again"))
    return found


def judge_claims(bindings: list, live_claims: list) -> list[dict[str, str]]:
    """One verification check per data set claim: {name, status, detail}; pass when the claim is
    Bound to the data set's own PV."""
    live = {(m.as_dict(c.get("metadata")).get("namespace"), m.as_dict(c.get("metadata")).get("name")): m.as_dict(c)
            for c in map(m.as_dict, m.as_list(live_claims))}
    checks = []
    for binding in bindings:
        name = f"dataset_claim {binding['namespace']}/{binding['claim']}"
        claim = live.get((binding["namespace"], binding["claim"]))
        if claim is None:
            checks.append({"name": name, "status": "fail", "detail": f"data set {binding['dataset']}: no claim in the namespace"})
            continue
        phase = m.as_dict(claim.get("status")).get("phase")
        volume = m.as_dict(claim.get("spec")).get("volumeName")
        ok = phase == "Bound" and volume == binding["volume"]
        checks.append({"name": name, "status": "pass" if ok else "fail",
                       "detail": f"data set {binding['dataset']} ({binding['access']}): {phase or 'no phase'} to "
                                 f"{volume or 'no volume'}" + ("" if ok else f", the model binds it to {binding['volume']}")})
    return checks
