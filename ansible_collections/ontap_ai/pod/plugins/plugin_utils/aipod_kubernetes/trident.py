"""The Trident plan: credential Secrets, one TridentBackendConfig per backend, StorageClasses and
the VolumeSnapshotClass, derived from the site model (credentials by Secret name, never inline).
Defensive on malformed models, like ..model.
"""
from __future__ import annotations

import re
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.deepops import kube_node_cidrs, minor_version
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m

TRIDENT_PROVISIONER = "csi.trident.netapp.io"
TRIDENT_API = "trident.netapp.io/v1"
SNAPSHOT_API = "snapshot.storage.k8s.io/v1"
DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"
DEFAULT_SNAPSHOT_CLASS_ANNOTATION = "snapshot.storage.kubernetes.io/is-default-class"
MANAGED_BY_LABEL = {"app.kubernetes.io/managed-by": "aipod"}
ONTAP_DRIVERS = ("ontap-nas", "ontap-nas-flexgroup")
ANF_DRIVER = "azure-netapp-files"
DEFAULT_NAMESPACE = "trident"
# csi-snapclass: the class the DataOps Toolkit for Kubernetes snapshots with when -c is not given (and DeepOps' name).
DEFAULT_SNAPSHOT_CLASS = {"name": "csi-snapclass", "deletion_policy": "Delete"}
ONTAP_PASSWORD_VARIABLE = "vault_ontap_trident_password"
ANF_SECRET_VARIABLE = "vault_trident_anf_client_secret"
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
    if isinstance(backend.get("use_rest"), bool):
        spec["useREST"] = backend["use_rest"]
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
    support = kubernetes_support(trident.get("version"))
    if support and support["max"]:
        newest = minor_version(support["max"])
        support["below"] = f"{newest[0]}.{newest[1] + 1}"   # the first minor release it does not support
    return {
        "version": m.as_str(trident.get("version")),
        "kubernetes_support": support,
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


# Trident's releases, quarterly until 23.10 and three a year since; a direct upgrade
# may cross at most UPGRADE_WINDOW of them (NetApp's upgrade documentation). Releases after the
# last one listed count by their month, at one release per RELEASE_MONTHS.
RELEASES = tuple(f"{year}.{month:02d}" for year in range(19, 23) for month in (1, 4, 7, 10)) + (
    "23.01", "23.04", "23.07", "23.10", "24.02", "24.06", "24.10", "25.02", "25.06", "25.10", "26.02", "26.06", "26.10")
UPGRADE_WINDOW = 4
RELEASE_MONTHS = 4
# Coming from these releases or older, 26.10.0's node pods force-detach volumes in use: go to 26.10.1.
AVOID = {"26.10.0": ("25.10", "26.10.1")}


def _release(version: str) -> tuple[int, int, int] | None:
    # A build other than a stable one reports e.g. 26.10.0-rc.1+abc: its release is 26.10.0.
    parts = re.split(r"[-+]", str(version).strip().lstrip("v"), maxsplit=1)[0].split(".")
    if len(parts) < 2 or not all(part.isdigit() for part in parts[:3]):
        return None
    major, minor = int(parts[0]), int(parts[1])
    patch = int(parts[2]) if len(parts) > 2 else 0
    return major, minor, patch


def _releases_between(older: tuple[int, int, int], newer: tuple[int, int, int]) -> int:
    old, new = f"{older[0]:02d}.{older[1]:02d}", f"{newer[0]:02d}.{newer[1]:02d}"
    if old in RELEASES and new in RELEASES:
        return RELEASES.index(new) - RELEASES.index(old)
    months = (newer[0] - older[0]) * 12 + (newer[1] - older[1])
    return -(-months // RELEASE_MONTHS)


def _refuse(reason: str) -> dict[str, Any]:
    return {"action": "refuse", "reason": reason}


def version_step(installed: str | None, wanted: str, method: str) -> dict[str, Any]:
    """What a change of trident.version means for the cluster, before anything is changed.

    installed: the cluster's TridentVersion (trident_version), None when Trident is not installed.
    Returns {action: install | none | upgrade | refuse, reason}. An upgrade goes the way Trident was
    installed (helm upgrade of the operator chart, the operator manifests of the new release); a
    preinstalled Trident is never changed by the bundle, so any other version there is refused.
    """
    want = _release(wanted)
    if want is None:
        return {"action": "refuse", "reason": f"trident.version {wanted!r} is not a Trident release number (YY.MM.patch)"}
    if not installed:
        if method == "preinstalled":
            return {"action": "none", "reason": "install method preinstalled: the cluster's Trident is checked, not installed"}
        return {"action": "install", "reason": f"Trident {wanted} is not installed yet"}
    have = _release(installed)
    if have is None:
        return {"action": "refuse", "reason": f"the cluster's TridentVersion reports {installed!r}, which is not a release number"}
    if have == want:
        return {"action": "none", "reason": f"Trident {installed} is installed, as the model says"}
    if method == "preinstalled":
        return _refuse(f"Trident {installed} is installed and the model says {wanted}, but the install method is "
                       "preinstalled: the bundle does not change that Trident. Set trident.version to the installed "
                       "release, or upgrade it the way it was installed and then run again.")
    if want < have:
        return _refuse(f"Trident {installed} is installed and the model says {wanted}: Trident does not support downgrades. "
                       "Set trident.version back to the installed release, or restore the cluster from a backup taken "
                       "before the upgrade.")
    avoid = AVOID.get(f"{want[0]:02d}.{want[1]:02d}.{want[2]}")
    if avoid and have[:2] <= _release(avoid[0])[:2]:
        return _refuse(f"coming from {installed}, upgrade to {avoid[1]}, not {wanted} (its node pods force-detach "
                       "volumes in use)")
    crossed = _releases_between(have, want)
    if crossed > UPGRADE_WINDOW:
        return _refuse(f"Trident {installed} -> {wanted} crosses {crossed} releases; a direct upgrade crosses at most "
                       f"{UPGRADE_WINDOW}. Upgrade in steps (set trident.version to a release within the window first).")
    how = {"helm": "helm upgrade of the operator chart", "operator_manifests": "the operator manifests of the new release"}
    return {"action": "upgrade", "reason": f"Trident {installed} -> {wanted} through {how.get(method, method)}"}


# Kubernetes releases each Trident release supports, (oldest, newest); None where NetApp names no
# bound. Sources (docs/support-matrix.md): NetApp's Trident requirements page of each release; 26.02
# needs 1.34 in practice, its snapshotter asking for VolumeGroupSnapshot v1beta2 (NetApp/trident#1114).
KUBERNETES_SUPPORT: dict[str, tuple[str | None, str | None]] = {
    "25.10": (None, "1.34"), "26.02": ("1.34", "1.35"), "26.06": ("1.27", "1.36")}


def kubernetes_support(trident_version: Any) -> dict[str, Any] | None:
    """The Kubernetes range of a Trident release, {release, min, max} (min or max None: no bound), or
    None when the release is not in KUBERNETES_SUPPORT."""
    release = _release(str(trident_version)) if isinstance(trident_version, str) else None
    if release is None:
        return None
    name = f"{release[0]:02d}.{release[1]:02d}"
    if name not in KUBERNETES_SUPPORT:
        return None
    oldest, newest = KUBERNETES_SUPPORT[name]
    return {"release": name, "min": oldest, "max": newest}


def kubernetes_support_problem(trident_version: Any, kubernetes_version: Any) -> str | None:
    """Why Trident trident_version does not support Kubernetes kubernetes_version, or None."""
    support = kubernetes_support(trident_version)
    have = minor_version(kubernetes_version)
    if support is None or have is None:
        return None
    if support["min"] and have < minor_version(support["min"]):
        return (f"Trident {trident_version} needs Kubernetes {support['min']} or newer; the cluster is "
                f"{str(kubernetes_version).lstrip('v')}")
    if support["max"] and have > minor_version(support["max"]):
        return (f"Trident {trident_version} supports Kubernetes up to {support['max']}; the cluster is "
                f"{str(kubernetes_version).lstrip('v')}")
    return None


# ONTAP releases that decide how Trident's ONTAP NAS drivers talk to the cluster (Trident's
# ontap_common.go): REST is possible from 9.12.1, and the default from 9.15.1.
ONTAP_REST_POSSIBLE = (9, 12, 1)
ONTAP_REST_DEFAULT = (9, 15, 1)


def _ontap_release(version: Any) -> tuple[int, int, int] | None:
    parts = str(version or "").split(".")
    if len(parts) != 3 or not all(part.isdigit() for part in parts):
        return None
    return int(parts[0]), int(parts[1]), int(parts[2])


def ontap_transport_finding(ontap_version: Any, use_rest: Any, platform: Any = None) -> dict[str, str] | None:
    """What Trident's REST/ZAPI choice means for one backend: {severity, message, fix}, or None.

    ontap_version: the model's ontap.version (None: not given, nothing to check); use_rest: the
    backend's use_rest (None when not set); platform: ontap.platform (AFX is REST-only).
    """
    afx = m.ontap_disaggregated({"ontap": {"platform": platform}})
    if afx and use_rest is not True:
        return {"severity": "error", "message": "AFX answers REST only, and Trident needs useREST to use it",
                "fix": "set use_rest: true on the backend"}
    release = _ontap_release(ontap_version)
    if release is None:
        return None
    if release < ONTAP_REST_POSSIBLE and use_rest is True:
        return {"severity": "error", "message": f"ONTAP {ontap_version} has no REST API Trident can use (9.12.1 or newer)",
                "fix": "remove use_rest (Trident uses ZAPI), or upgrade ONTAP to 9.12.1 or newer"}
    if ONTAP_REST_POSSIBLE <= release < ONTAP_REST_DEFAULT and use_rest is not True:
        return {"severity": "warning",
                "message": f"on ONTAP {ontap_version} Trident talks ZAPI, which ONTAP is retiring, unless the backend says useREST",
                "fix": "set use_rest: true on the backend (REST is Trident's default from ONTAP 9.15.1)"}
    return None


def chart_version_of(version: Any) -> str | None:
    """The trident-operator chart version of a Trident release: 26.02.1 -> 100.2602.1 (None when not a release)."""
    release = _release(str(version)) if isinstance(version, str) else None
    return f"100.{release[0]:02d}{release[1]:02d}.{release[2]}" if release else None
