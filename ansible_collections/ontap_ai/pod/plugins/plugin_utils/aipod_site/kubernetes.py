"""Values the Kubernetes and Trident layers derive from the site model.

Built on the generic views of .model: the DeepOps inventory (who is control plane, etcd and
worker, on which address), where the cluster's kubeconfig is, the Trident plan (credential
Secrets, one TridentBackendConfig per backend, StorageClasses, the VolumeSnapshotClass) and the
networks Trident may export volumes to. The roles reach these through the filters of
plugins/filter/aipod_kubernetes.py and the validator checks the model through the same
functions, so the rule and the manifest cannot drift apart.

Like .model, every function is defensive on malformed models (the schema reports those).
"""
from __future__ import annotations

import base64
import ipaddress
import json
from typing import Any

from . import model as m

TRIDENT_PROVISIONER = "csi.trident.netapp.io"
TRIDENT_API = "trident.netapp.io/v1"
SNAPSHOT_API = "snapshot.storage.k8s.io/v1"
DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"
DEFAULT_SNAPSHOT_CLASS_ANNOTATION = "snapshot.storage.kubernetes.io/is-default-class"
MANAGED_BY_LABEL = {"app.kubernetes.io/managed-by": "aipod"}
ONTAP_DRIVERS = ("ontap-nas", "ontap-nas-flexgroup")
ANF_DRIVER = "azure-netapp-files"
DEFAULT_NAMESPACE = "trident"
DEFAULT_SNAPSHOT_CLASS = {"name": "trident-snapshotclass", "deletion_policy": "Delete"}
ONTAP_PASSWORD_VARIABLE = "vault_ontap_trident_password"
ANF_SECRET_VARIABLE = "vault_trident_anf_client_secret"
# Kubespray's defaults (kube_service_addresses, kube_pods_subnet); the bundle keeps them, so a
# site network must not overlap them or pods could not reach it.
KUBESPRAY_SERVICE_CIDR = "10.233.0.0/18"
KUBESPRAY_POD_CIDR = "10.233.64.0/18"
# model key of a backend's defaults -> Trident's key (Trident reads these values as strings)
BACKEND_DEFAULTS = {
    "space_reserve": "spaceReserve",
    "snapshot_policy": "snapshotPolicy",
    "snapshot_reserve": "snapshotReserve",
    "snapshot_dir": "snapshotDir",
    "unix_permissions": "unixPermissions",
    "export_policy": "exportPolicy",
    "security_style": "securityStyle",
}
ANF_FIELDS = {
    "subscription_id": "subscriptionID",
    "tenant_id": "tenantID",
    "location": "location",
    "service_level": "serviceLevel",
    "virtual_network": "virtualNetwork",
    "subnet": "subnet",
    "capacity_pools": "capacityPools",
}


# ---------------------------------------------------------------------------- Kubernetes hosts
def kube_hosts(model: dict) -> dict[str, list[str]]:
    """{control_plane, workers, etcd}: host names of the cluster (etcd runs on the control plane)."""
    control_plane = m.group_members(model, "kube_control_plane")
    return {"control_plane": control_plane, "workers": m.group_members(model, "kube_node"), "etcd": list(control_plane)}


def node_address(model: dict, host: str) -> str | None:
    """The address a Kubernetes node uses for cluster traffic: its in-band address."""
    body = m.as_dict(m.as_dict(model.get("hosts")).get(host))
    data = m.as_dict(body.get("dgx")) or m.as_dict(body.get("server"))
    return m.as_str(m.as_dict(data.get("inband")).get("address"))


def kube_node_cidrs(model: dict) -> list[str]:
    """Subnets of the storage networks the Kubernetes workers have NICs on (Trident's autoExportCIDRs)."""
    networks = m.networks_by_name(model)
    result = []
    for name in m.storage_networks_of_hosts(model, m.group_members(model, "kube_node")):
        subnet = m.parse_subnet(m.as_dict(networks.get(name)).get("subnet"))
        if subnet is not None and subnet.with_prefixlen not in result:
            result.append(subnet.with_prefixlen)
    return result


def kubeconfig_source(model: dict) -> dict[str, Any]:
    """Where the cluster's kubeconfig comes from: {mode, path (relative to the inventory) or None, context}.

    For a DeepOps deployment the path is None: the DeepOps role brings the kubeconfig back to the
    bundle's own cache (kubernetes_access decides where), never into the inventory.
    """
    kube = m.as_dict(model.get("kubernetes"))
    mode = m.as_str(kube.get("deployment")) or "existing"
    existing = m.as_dict(kube.get("existing"))
    if mode == "existing":
        return {"mode": mode, "path": m.as_str(existing.get("kubeconfig")), "context": m.as_str(existing.get("context"))}
    return {"mode": mode, "path": None, "context": None}


def deepops_plan(model: dict) -> dict[str, Any]:
    """What the DeepOps inventory and group_vars say, from the model.

    {hosts: [{name, ip}], control_plane, etcd, workers, user, group, version, release_url, service_cidr, pod_cidr}.
    Connection settings (ansible_host, ansible_user) are not model data: the role adds them from
    the inventory's variables.
    """
    kube = m.as_dict(model.get("kubernetes"))
    members = kube_hosts(model)
    names = []
    for host in members["control_plane"] + members["workers"]:
        if host not in names:
            names.append(host)
    user = m.as_dict(kube.get("common_user"))
    user_name = m.as_str(user.get("name"))
    group_name = m.as_str(user.get("group")) or user_name
    deepops = m.as_dict(kube.get("deepops"))
    return {
        "hosts": [{"name": host, "ip": node_address(model, host)} for host in names],
        "control_plane": members["control_plane"],
        "etcd": members["etcd"],
        "workers": members["workers"],
        "user": {"username": user_name, "name": user_name, "uid": m.as_int(user.get("uid")),
                 "group": group_name, "home": f"/home/{user_name}"} if user_name else None,
        "group": {"name": group_name, "gid": m.as_int(user.get("gid"))} if group_name else None,
        "version": m.as_str(deepops.get("version")),
        "release_url": m.as_str(deepops.get("release_url")),
        "service_cidr": KUBESPRAY_SERVICE_CIDR,
        "pod_cidr": KUBESPRAY_POD_CIDR,
    }


def overlapping_networks(model: dict, cidr: str) -> list[str]:
    """Names of site networks overlapping a CIDR (loopback-only lab networks excluded)."""
    target = ipaddress.IPv4Network(cidr)
    found = []
    for name, network in m.networks_by_name(model).items():
        subnet = m.parse_subnet(network.get("subnet"))
        if subnet is not None and not subnet.is_loopback and subnet.overlaps(target):
            found.append(name)
    return found


# ---------------------------------------------------------------------------- Trident
def _lif_address(model: dict, svm: dict, reference: str | None) -> str | None:
    """A LIF given by name or address -> its address (None when it names no LIF of the SVM)."""
    if reference is None:
        return None
    candidates = [lif for lif in m.data_lifs(model) if lif["svm"] == svm.get("name")]
    mgmt = m.svm_mgmt_lif(model, svm)
    if mgmt:
        candidates.append(mgmt)
    for lif in candidates:
        if reference in (lif["name"], lif["address"]):
            return lif["address"]
    return None


def ontap_secret_name(svm_name: str) -> str:
    return f"trident-ontap-{svm_name}".lower().replace("_", "-").replace(".", "-")


def anf_secret_name(backend_name: str) -> str:
    return f"trident-anf-{backend_name}"


def _string(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def backend_spec(model: dict, backend: dict, export_cidrs: list[str]) -> dict[str, Any] | None:
    """The spec of one TridentBackendConfig (credentials by Secret name, never inline)."""
    name = m.as_str(backend.get("name"))
    driver = m.as_str(backend.get("driver"))
    if not name or not driver:
        return None
    spec: dict[str, Any] = {"version": 1, "storageDriverName": driver, "backendName": name}
    if driver == ANF_DRIVER:
        azure = m.as_dict(backend.get("azure"))
        for key, trident_key in ANF_FIELDS.items():
            if key in azure:
                spec[trident_key] = azure[key]
        spec["credentials"] = {"name": anf_secret_name(name)}
        export = [c for c in m.as_list(azure.get("export_cidrs")) if m.as_str(c)]
        if export:
            spec["defaults"] = {"exportRule": ",".join(export)}
        return spec
    svm = next((s for s in m.svms(model) if s["name"] == backend.get("svm")), None)
    if svm is None:
        return None
    mgmt = m.svm_mgmt_lif(model, svm)
    management = _lif_address(model, svm, m.as_str(backend.get("management_lif"))) if "management_lif" in backend \
        else (mgmt or {}).get("address")
    if management:
        spec["managementLIF"] = management
    data = _lif_address(model, svm, m.as_str(backend.get("data_lif")))
    if data:
        spec["dataLIF"] = data
    spec["svm"] = svm["name"]
    spec["credentials"] = {"name": ontap_secret_name(svm["name"])}
    if m.as_str(backend.get("storage_prefix")) is not None:
        spec["storagePrefix"] = backend["storage_prefix"]
    if m.as_str(backend.get("limit_volume_size")):
        spec["limitVolumeSize"] = backend["limit_volume_size"]
    defaults = {trident_key: _string(m.as_dict(backend.get("defaults"))[key])
                for key, trident_key in BACKEND_DEFAULTS.items() if key in m.as_dict(backend.get("defaults"))}
    if "exportPolicy" in defaults:
        # The site names its own export policy: Trident must not manage one.
        spec["autoExportPolicy"] = False
    else:
        # Trident's default CIDR list is 0.0.0.0/0 and ::/0; limit it to the nodes' storage networks.
        spec["autoExportPolicy"] = True
        spec["autoExportCIDRs"] = list(export_cidrs)
    if defaults:
        spec["defaults"] = defaults
    return spec


def _storage_class(storage_class: dict, backends: dict[str, dict]) -> dict[str, Any] | None:
    name = m.as_str(storage_class.get("name"))
    backend = backends.get(m.as_str(storage_class.get("backend")) or "")
    if not name or backend is None:
        return None
    manifest: dict[str, Any] = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {
            "name": name,
            "labels": dict(MANAGED_BY_LABEL),
            # Written on every class, so moving the default clears the old one.
            "annotations": {DEFAULT_CLASS_ANNOTATION: "true" if storage_class.get("default") is True else "false"},
        },
        "provisioner": TRIDENT_PROVISIONER,
        "parameters": {"backendType": backend["driver"], "storagePools": f"{backend['name']}:.*"},
        "reclaimPolicy": m.as_str(storage_class.get("reclaim_policy")) or "Delete",
        "allowVolumeExpansion": storage_class.get("allow_volume_expansion", True) is True,
        "volumeBindingMode": m.as_str(storage_class.get("volume_binding_mode")) or "Immediate",
    }
    options = [o for o in m.as_list(storage_class.get("mount_options")) if m.as_str(o)]
    if options:
        manifest["mountOptions"] = options
    return manifest


def trident_plan(model: dict) -> dict[str, Any]:
    """Everything the Trident role declares, derived from the model.

    {version, namespace, install, export_cidrs, secrets[{name, kind, svm|backend, username, secret_variable}],
     backends[{name, driver, manifest}], storage_classes[manifest], default_class, snapshot_class(manifest)}.
    Secrets carry the name of the vault variable holding the secret, never the secret itself.
    """
    trident = m.as_dict(model.get("trident"))
    namespace = m.as_str(trident.get("namespace")) or DEFAULT_NAMESPACE
    export_cidrs = kube_node_cidrs(model)
    secrets: list[dict] = []
    backends: list[dict] = []
    by_name: dict[str, dict] = {}
    svms = {svm["name"]: svm for svm in m.svms(model)}
    for backend in m.as_list(trident.get("backends")):
        backend = m.as_dict(backend)
        spec = backend_spec(model, backend, export_cidrs)
        if spec is None:
            continue
        name = spec["backendName"]
        if spec["storageDriverName"] == ANF_DRIVER:
            azure = m.as_dict(backend.get("azure"))
            secrets.append({"name": anf_secret_name(name), "kind": "azure", "backend": name,
                            "client_id": m.as_str(azure.get("client_id")), "secret_variable": ANF_SECRET_VARIABLE})
        else:
            svm = svms[spec["svm"]]
            secret = ontap_secret_name(svm["name"])
            if not any(s["name"] == secret for s in secrets):
                secrets.append({"name": secret, "kind": "ontap", "svm": svm["name"],
                                "username": m.as_str(m.as_dict(svm.get("trident_account")).get("username")),
                                "secret_variable": ONTAP_PASSWORD_VARIABLE})
        entry = {"name": name, "driver": spec["storageDriverName"], "manifest": {
            "apiVersion": TRIDENT_API,
            "kind": "TridentBackendConfig",
            "metadata": {"name": name, "namespace": namespace, "labels": dict(MANAGED_BY_LABEL)},
            "spec": spec,
        }}
        backends.append(entry)
        by_name.setdefault(name, entry)
    classes = []
    default_class = None
    for storage_class in m.as_list(trident.get("storage_classes")):
        manifest = _storage_class(m.as_dict(storage_class), by_name)
        if manifest is None:
            continue
        classes.append(manifest)
        if m.as_dict(storage_class).get("default") is True and default_class is None:
            default_class = manifest["metadata"]["name"]
    snapshot = m.as_dict(trident.get("snapshot_class")) or DEFAULT_SNAPSHOT_CLASS
    snapshot_class = {
        "apiVersion": SNAPSHOT_API,
        "kind": "VolumeSnapshotClass",
        "metadata": {"name": m.as_str(snapshot.get("name")) or DEFAULT_SNAPSHOT_CLASS["name"],
                     "labels": dict(MANAGED_BY_LABEL),
                     "annotations": {DEFAULT_SNAPSHOT_CLASS_ANNOTATION: "true"}},
        "driver": TRIDENT_PROVISIONER,
        "deletionPolicy": m.as_str(snapshot.get("deletion_policy")) or DEFAULT_SNAPSHOT_CLASS["deletion_policy"],
    }
    install = m.as_dict(trident.get("install"))
    return {
        "version": m.as_str(trident.get("version")),
        "namespace": namespace,
        "install": {"method": m.as_str(install.get("method")) or "preinstalled",
                    "chart_repo": m.as_str(install.get("chart_repo")),
                    "chart_version": m.as_str(install.get("chart_version")),
                    "manifests_url": m.as_str(install.get("manifests_url")),
                    "image_registry": m.as_str(install.get("image_registry"))},
        "export_cidrs": export_cidrs,
        "secrets": secrets,
        "backends": backends,
        "storage_classes": classes,
        "default_class": default_class,
        "snapshot_class": snapshot_class,
    }


# ---------------------------------------------------------------------------- cluster state
# Fields Kubernetes refuses to change on an existing StorageClass (with what an omitted field means).
IMMUTABLE_CLASS_FIELDS = {"provisioner": None, "parameters": {}, "reclaimPolicy": "Delete",
                          "mountOptions": [], "volumeBindingMode": "Immediate"}
DEFAULT_CLASS_ANNOTATIONS = (DEFAULT_CLASS_ANNOTATION, "storageclass.beta.kubernetes.io/is-default-class")


def secret_manifests(secrets: list, namespace: str, values: list) -> list[dict[str, Any]]:
    """The Opaque Secrets of the plan's credentials; values are the vault's, in the plan's order."""
    if len(m.as_list(secrets)) != len(m.as_list(values)):
        raise ValueError(f"{len(m.as_list(secrets))} Secrets but {len(m.as_list(values))} values")

    def encode(text: Any) -> str:
        return base64.b64encode(str(text).encode("utf-8")).decode("ascii")

    manifests = []
    for secret, value in zip(m.as_list(secrets), m.as_list(values)):
        secret = m.as_dict(secret)
        data = ({"username": encode(secret.get("username", "")), "password": encode(value)}
                if secret.get("kind") == "ontap" else
                {"clientID": encode(secret.get("client_id", "")), "clientSecret": encode(value)})
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


def snapshot_api_state(crds: list) -> dict[str, Any]:
    """What the cluster's VolumeSnapshot CRDs are: {count, managed (all three are the bundle's), serves_v1}."""
    names = ("volumesnapshotclasses", "volumesnapshots", "volumesnapshotcontents")
    found = [c for c in m.as_list(crds) if isinstance(c, dict)
             and m.as_dict(c.get("metadata")).get("name", "").split(".")[0] in names]
    serves_v1 = bool(found) and all(
        any(m.as_dict(v).get("name") == "v1" and m.as_dict(v).get("served") is True
            for v in m.as_list(m.as_dict(c.get("spec")).get("versions")))
        for c in found)
    return {"count": len(found), "managed": len(found) == len(names) and all(_managed(c) for c in found),
            "serves_v1": serves_v1}


# ---------------------------------------------------------------------------- verification
# Each judge returns checks {name, status: pass|fail|not_checked, detail}: not_checked says
# plainly why something could not be looked at, rather than passing it.
def _check(name: str, status: str, detail: str) -> dict[str, str]:
    return {"name": name, "status": status, "detail": detail}


def _condition(item: dict, kind: str) -> str | None:
    for condition in m.as_list(m.as_dict(item.get("status")).get("conditions")):
        if m.as_dict(condition).get("type") == kind:
            return m.as_str(condition.get("status"))
    return None


def schedulable_nodes(nodes: list) -> list[str]:
    """Names of nodes that are Ready and not cordoned."""
    return sorted(m.as_dict(n.get("metadata")).get("name") for n in m.as_list(nodes)
                  if isinstance(n, dict) and _condition(n, "Ready") == "True"
                  and m.as_dict(n.get("spec")).get("unschedulable") is not True)


def judge_nodes(model: dict, nodes: list) -> list[dict]:
    """Every cluster host of the model is a Ready node; every DGX worker offers all its GPUs."""
    hosts = kube_hosts(model)
    wanted = []
    for host in hosts["control_plane"] + hosts["workers"]:
        if host not in wanted:
            wanted.append(host)
    by_name = {m.as_dict(n.get("metadata")).get("name"): n for n in m.as_list(nodes) if isinstance(n, dict)}
    if not by_name:
        if kubeconfig_source(model)["mode"] == "deepops":
            return [_check("nodes_ready", "fail", "DeepOps deployed this cluster but it has no nodes"),
                    _check("gpus_allocatable", "fail", "no nodes, so no GPUs")]
        return [_check("nodes_ready", "not_checked",
                       "the API server has no Node objects (no kubelet has registered), so readiness cannot be checked"),
                _check("gpus_allocatable", "not_checked", "no nodes to read allocatable GPUs from")]
    missing = [h for h in wanted if h not in by_name]
    not_ready = [h for h in wanted if h in by_name and _condition(by_name[h], "Ready") != "True"]
    ready = len(wanted) - len(missing) - len(not_ready)
    detail = f"{ready}/{len(wanted)} Ready"
    if missing:
        detail += f"; not in the cluster: {', '.join(missing)}"
    if not_ready:
        detail += f"; not Ready: {', '.join(not_ready)}"
    checks = [_check("nodes_ready", "fail" if missing or not_ready else "pass", detail)]
    dgx = m.hosts_of_kind(model, "dgx")
    problems = []
    counted = 0
    for host in hosts["workers"]:
        if host not in dgx or host not in by_name:
            continue
        want = m.as_int(m.as_dict(dgx[host].get("gpus")).get("count")) or 0
        allocatable = m.as_dict(m.as_dict(by_name[host].get("status")).get("allocatable"))
        try:
            have = int(str(allocatable.get("nvidia.com/gpu", "0")))
        except ValueError:
            have = 0
        counted += have
        if have != want:
            problems.append(f"{host} offers {have} of its {want} GPUs")
    checks.append(_check("gpus_allocatable", "fail" if problems else "pass",
                         "; ".join(problems) or f"{counted} GPUs allocatable (nvidia.com/gpu) on the DGX workers"))
    return checks


def judge_backends(plan: dict, configs: list, backends: list, controller_running: bool) -> list[dict]:
    """Every planned TridentBackendConfig exists, is Bound with a successful last operation, and its backend is online."""
    by_name = {m.as_dict(c.get("metadata")).get("name"): c for c in m.as_list(configs) if isinstance(c, dict)}
    states = {m.as_str(b.get("backendName")): m.as_str(b.get("state")) for b in m.as_list(backends) if isinstance(b, dict)}
    checks = []
    for backend in plan.get("backends", []):
        name = backend["name"]
        config = by_name.get(name)
        check_name = f"backend_online:{name}"
        if config is None:
            checks.append(_check(check_name, "fail", f"TridentBackendConfig {name} is not in namespace {plan.get('namespace')}"))
            continue
        status = m.as_dict(config.get("status"))
        if not status:
            if controller_running:
                checks.append(_check(check_name, "fail", f"Trident's controller runs but has reported no status for {name}"))
            else:
                checks.append(_check(check_name, "not_checked",
                                     f"no Trident controller runs in namespace {plan.get('namespace')}, so nothing has "
                                     f"reported the status of {name}; its spec is declared"))
            continue
        phase, last = m.as_str(status.get("phase")), m.as_str(status.get("lastOperationStatus"))
        state = states.get(name)
        ok = phase == "Bound" and last == "Success" and state == "online"
        detail = f"phase {phase}, last operation {last}, backend state {state or 'unknown'}"
        if not ok and m.as_str(status.get("message")):
            detail += f": {status['message']}"
        checks.append(_check(check_name, "pass" if ok else "fail", detail))
    return checks


def judge_classes(plan: dict, classes: list, snapshot_classes: list) -> list[dict]:
    """The planned StorageClasses exist as planned; exactly one default, the planned one; the snapshot class exists."""
    by_name = {m.as_dict(c.get("metadata")).get("name"): c for c in m.as_list(classes) if isinstance(c, dict)}
    problems = []
    for planned in plan.get("storage_classes", []):
        name = planned["metadata"]["name"]
        found = by_name.get(name)
        if found is None:
            problems.append(f"{name} is missing")
            continue
        for key in ("provisioner", "parameters", "mountOptions", "reclaimPolicy", "volumeBindingMode"):
            if (found.get(key) or IMMUTABLE_CLASS_FIELDS.get(key)) != (planned.get(key) or IMMUTABLE_CLASS_FIELDS.get(key)):
                problems.append(f"{name} has {key} {found.get(key)!r}, the model says {planned.get(key)!r}")
    checks = [_check("storage_classes", "fail" if problems else "pass",
                     "; ".join(problems) or f"{len(plan.get('storage_classes', []))} StorageClasses as the model declares")]
    defaults = sorted(name for name, c in by_name.items() if _is_default(c))
    want = plan.get("default_class")
    if want is None:
        status = "pass" if len(defaults) <= 1 else "fail"
        detail = f"the model names no default; the cluster marks {', '.join(defaults) or 'none'}"
    else:
        status = "pass" if defaults == [want] else "fail"
        detail = f"default: {', '.join(defaults) or 'none'} (the model says {want})"
    checks.append(_check("one_default_class", status, detail))
    snapshot = plan.get("snapshot_class", {})
    wanted = m.as_dict(snapshot.get("metadata")).get("name")
    found = next((c for c in m.as_list(snapshot_classes) if m.as_dict(m.as_dict(c).get("metadata")).get("name") == wanted), None)
    if found is None:
        checks.append(_check("snapshot_class", "fail", f"VolumeSnapshotClass {wanted} is missing"))
    elif found.get("driver") != TRIDENT_PROVISIONER:
        checks.append(_check("snapshot_class", "fail", f"VolumeSnapshotClass {wanted} uses driver {found.get('driver')}"))
    else:
        checks.append(_check("snapshot_class", "pass", f"VolumeSnapshotClass {wanted} for {TRIDENT_PROVISIONER}"))
    return checks


def verification_result(checks: list) -> dict[str, Any]:
    """The layer's JSON result: ok (no check failed), the checks, the failures and what could not be checked."""
    checks = [c for c in m.as_list(checks) if isinstance(c, dict)]
    failures = [c for c in checks if c.get("status") == "fail"]
    return {"layer": "kubernetes", "ok": not failures, "checks": checks, "failures": failures,
            "not_checked": [c for c in checks if c.get("status") == "not_checked"],
            "counts": {status: sum(1 for c in checks if c.get("status") == status) for status in ("pass", "fail", "not_checked")}}
