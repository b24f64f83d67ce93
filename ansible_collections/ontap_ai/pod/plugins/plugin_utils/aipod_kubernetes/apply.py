"""What an apply would change on the cluster: StorageClasses to replace, the credentials Secrets,
which declared objects a server-side (or client-side) apply would change, and the state of the
VolumeSnapshot API.
"""
from __future__ import annotations

import base64
import json
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.trident import DEFAULT_CLASS_ANNOTATION, MANAGED_BY_LABEL
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m

# ---------------------------------------------------------------------------- cluster state
# Fields Kubernetes refuses to change on an existing StorageClass (with what an omitted field means).
IMMUTABLE_CLASS_FIELDS = {"provisioner": None, "parameters": {}, "reclaimPolicy": "Delete",
                          "mountOptions": [], "volumeBindingMode": "Immediate"}
DEFAULT_CLASS_ANNOTATIONS = (DEFAULT_CLASS_ANNOTATION, "storageclass.beta.kubernetes.io/is-default-class")


def encoded(data: dict) -> dict[str, str]:
    """A Secret's data: each value as base64 of its UTF-8 text."""
    return {key: base64.b64encode(str(value).encode("utf-8")).decode("ascii") for key, value in data.items()}


def secret_manifests(secrets: list, namespace: str, values: list) -> list[dict[str, Any]]:
    """The Opaque Secrets of the plan's credentials; values are the vault's, in the plan's order."""
    if len(m.as_list(secrets)) != len(m.as_list(values)):
        raise ValueError(f"{len(m.as_list(secrets))} Secrets but {len(m.as_list(values))} values")

    manifests = []
    for secret, value in zip(m.as_list(secrets), m.as_list(values)):
        secret = m.as_dict(secret)
        data = encoded({"username": secret.get("username", ""), "password": value}
                       if secret.get("kind") == "ontap" else
                       {"clientID": secret.get("client_id", ""), "clientSecret": value})
        manifests.append({"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
                          "metadata": {"name": secret.get("name"), "namespace": namespace, "labels": dict(MANAGED_BY_LABEL)},
                          "data": data})
    return manifests


def _is_default(storage_class: dict) -> bool:
    annotations = m.as_dict(m.as_dict(storage_class.get("metadata")).get("annotations"))
    return any(str(annotations.get(key, "")).lower() == "true" for key in DEFAULT_CLASS_ANNOTATIONS)


def _managed(item: dict) -> bool:
    labels = m.as_dict(m.as_dict(item.get("metadata")).get("labels"))
    return all(labels.get(key) == value for key, value in MANAGED_BY_LABEL.items())


def storage_class_changes(existing: list, planned: list) -> dict[str, list]:
    """Compare the cluster's StorageClasses with the planned ones.

    {replace: [{name, fields}] planned classes whose immutable fields differ (delete and create),
     foreign_defaults: [names] classes outside the plan marked default,
     stale: [names] classes the bundle created that the model no longer declares}.
    """
    current = {m.as_dict(c.get("metadata")).get("name"): c for c in m.as_list(existing) if isinstance(c, dict)}
    planned_names = {m.as_dict(c.get("metadata")).get("name") for c in m.as_list(planned) if isinstance(c, dict)}
    replace = []
    for storage_class in m.as_list(planned):
        name = m.as_dict(storage_class.get("metadata")).get("name")
        if name not in current:
            continue
        fields = [key for key, default in IMMUTABLE_CLASS_FIELDS.items()
                  if (current[name].get(key) or default) != (storage_class.get(key) or default)]
        if fields:
            replace.append({"name": name, "fields": fields})
    foreign = sorted(name for name, c in current.items() if name not in planned_names and _is_default(c))
    stale = sorted(name for name, c in current.items() if name not in planned_names and _managed(c))
    return {"replace": replace, "foreign_defaults": foreign, "stale": stale}


# ---------------------------------------------------------------------------- declarations
# The roles declare objects with server-side apply under one field manager. Applying an object
# the cluster already holds with every declared value, where the manager owns no field the
# declaration has dropped, changes nothing: a re-run can leave it out.
_IDENTITY_FIELDS = ("apiVersion", "kind")
LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration"


def _first_difference(declared: Any, live: Any, path: tuple, unkept: frozenset = frozenset()) -> tuple | None:
    """The path of the first declared value the live object does not hold (fields the server
    added, such as defaults and status, are not differences, nor fields named in unkept, which
    this server does not keep)."""
    if declared is None or declared == [] or declared == {}:
        # The API leaves empty fields out of the objects it returns.
        return None if live is None or live == declared else path
    if isinstance(declared, dict):
        if not isinstance(live, dict):
            return path
        for key, value in declared.items():
            if key in unkept:
                continue
            found = _first_difference(value, live.get(key), path + (key,), unkept)
            if found is not None:
                return found
        return None
    if isinstance(declared, list):
        if not isinstance(live, list) or len(live) != len(declared):
            return path
        for index, (value, held) in enumerate(zip(declared, live)):
            found = _first_difference(value, held, path + (f"[{index}]",), unkept)
            if found is not None:
                return found
        return None
    if isinstance(declared, bool) or isinstance(live, bool):
        # True == 1 in Python; not in an object.
        return None if isinstance(declared, bool) and isinstance(live, bool) and declared == live else path
    return None if declared == live else path


def _declared_paths(value: Any, path: tuple = ()) -> set[tuple]:
    """Every field path of a manifest, parents included; a list is one field (its end)."""
    paths = {path}
    if isinstance(value, dict):
        for key, child in value.items():
            paths |= _declared_paths(child, path + (key,))
    return paths


def _owned_fields(fields: Any, path: tuple = ()) -> list[tuple]:
    """The field paths of a managedFields fieldsV1 tree, ending at a list's elements (k:, v:, i:)."""
    if not isinstance(fields, dict):
        return [path]
    children = [key for key in fields if key != "."]
    if not children or any(not key.startswith("f:") for key in children):
        return [path]
    owned: list[tuple] = []
    for key in children:
        owned += _owned_fields(fields[key], path + (key[2:],))
    return owned


def _dotted(path: tuple) -> str:
    return ".".join(path).replace(".[", "[")


def _last_applied(live: dict) -> Any:
    annotations = m.as_dict(m.as_dict(live.get("metadata")).get("annotations"))
    try:
        return json.loads(annotations.get(LAST_APPLIED_ANNOTATION, ""))
    except ValueError:
        return None


def apply_pending(existing: list, declared: list, field_manager: str,
                  last_applied: bool = False, unkept: list | None = None) -> dict[str, dict[str, str]]:
    """The declared objects (of one kind) that an apply by field_manager would change.

    {kind: {name: reason}} for each object missing from existing (the cluster's objects of that
    kind, k8s_info resources), holding a value other than the declared one, or holding a field
    field_manager applied earlier and the declaration has since dropped (an apply removes it).
    With last_applied (a client-side apply), what was applied before is the object's
    last-applied-configuration annotation, and any difference from the declaration counts.
    unkept names fields the server drops from what it is sent (a server older than 1.25 drops a
    CRD's x-kubernetes-validations); their absence from the cluster's object is no difference.
    Reasons name the field, never its value: Secrets are compared too.
    """
    pending: dict[str, dict[str, str]] = {}
    live_by_key = {(m.as_dict(o.get("metadata")).get("namespace"), m.as_dict(o.get("metadata")).get("name")): o
                   for o in m.as_list(existing) if isinstance(o, dict)}
    for manifest in m.as_list(declared):
        if not isinstance(manifest, dict):
            continue
        metadata = m.as_dict(manifest.get("metadata"))
        kind, name = str(manifest.get("kind", "")), str(metadata.get("name", ""))
        live = live_by_key.get((metadata.get("namespace"), metadata.get("name")))
        if live is None:
            pending.setdefault(kind, {})[name] = "not in the cluster"
            continue
        compared = {key: value for key, value in manifest.items() if key not in _IDENTITY_FIELDS}
        difference = _first_difference(compared, live, (), frozenset(unkept or ()))
        if difference is not None:
            pending.setdefault(kind, {})[name] = f"{_dotted(difference)} differs"
            continue
        if last_applied:
            if _last_applied(live) != manifest:
                pending.setdefault(kind, {})[name] = "the last applied configuration differs"
            continue
        declared_paths = _declared_paths(compared)
        for entry in m.as_list(m.as_dict(live.get("metadata")).get("managedFields")):
            entry = m.as_dict(entry)
            if entry.get("manager") != field_manager or entry.get("operation") != "Apply":
                continue
            dropped = sorted(p for p in _owned_fields(entry.get("fieldsV1")) if p and p not in declared_paths)
            if dropped:
                pending.setdefault(kind, {})[name] = f"{_dotted(dropped[0])} is no longer declared"
                break
    return pending


def pending_items(to_apply: dict, version_step: dict | None = None, namespace: str = "") -> list[dict[str, Any]]:
    """The layer's pending items from apply_pending's {kind: {name: why}} and the release step.

    An object not in the cluster is created; any other is modified, with apply_pending's words as
    the reason (they name the field, never a value). A release other than the model's is an item
    of TridentVersion/<namespace>: modify for an upgrade or install, refuse when the step refuses.
    """
    found = [aipod_pending.item(f"{kind}/{name}", action="create" if why == "not in the cluster" else "modify", reason=str(why))
             for kind, objects in sorted(m.as_dict(to_apply).items()) for name, why in sorted(m.as_dict(objects).items())]
    step = m.as_dict(version_step)
    if step.get("action") not in (None, "none"):
        found.append(aipod_pending.item(f"TridentVersion/{namespace}", "version",
                                        action="refuse" if step["action"] == "refuse" else "modify", reason=str(step.get("reason"))))
    return found


SNAPSHOT_CLASS_DEFAULT = "snapshot.storage.kubernetes.io/is-default-class"


def snapshot_class_defaults(existing: list, planned: dict) -> list[str]:
    """Other VolumeSnapshotClasses of the planned class's driver marked default: snapshots without a
    class take their driver's default, and fail when it has two."""
    name = m.as_dict(planned.get("metadata")).get("name")
    return sorted(m.as_dict(c.get("metadata")).get("name") for c in m.as_list(existing) if isinstance(c, dict)
                  and c.get("driver") == planned.get("driver") and m.as_dict(c.get("metadata")).get("name") != name
                  and m.as_dict(m.as_dict(c.get("metadata")).get("annotations")).get(SNAPSHOT_CLASS_DEFAULT) == "true")


SNAPSHOT_CRDS = ("volumesnapshotclasses", "volumesnapshots", "volumesnapshotcontents")
GROUP_SNAPSHOT_CRDS = ("volumegroupsnapshotclasses", "volumegroupsnapshots", "volumegroupsnapshotcontents")
# The group snapshot version csi-snapshotter and the snapshot controller read from v8.4 (Trident 26.02 on).
GROUP_SNAPSHOT_VERSION = "v1beta2"


def _serving(crds: list[dict], version: str) -> bool:
    return bool(crds) and all(any(m.as_dict(v).get("name") == version and m.as_dict(v).get("served") is True
                                  for v in m.as_list(m.as_dict(c.get("spec")).get("versions"))) for c in crds)


def snapshot_api_state(crds: list) -> dict[str, Any]:
    """What the cluster's snapshot CRDs are, from the CRDs of snapshot.storage.k8s.io and
    groupsnapshot.storage.k8s.io: {count (VolumeSnapshot CRDs, of 3), managed (all three are the
    bundle's), serves_v1, group_count (VolumeGroupSnapshot CRDs, of 3), serves_group (all three
    serve v1beta2)}."""
    def named(names: tuple[str, ...], group: str) -> list[dict]:
        return [c for c in m.as_list(crds) if isinstance(c, dict)
                and m.as_dict(c.get("metadata")).get("name", "") in {f"{name}.{group}" for name in names}]

    found = named(SNAPSHOT_CRDS, "snapshot.storage.k8s.io")
    groups = named(GROUP_SNAPSHOT_CRDS, "groupsnapshot.storage.k8s.io")
    return {"count": len(found), "managed": len(found) == len(SNAPSHOT_CRDS) and all(_managed(c) for c in found),
            "serves_v1": _serving(found, "v1"), "group_count": len(groups),
            "serves_group": len(groups) == len(GROUP_SNAPSHOT_CRDS) and _serving(groups, GROUP_SNAPSHOT_VERSION)}
