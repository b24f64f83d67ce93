"""Rules of the Trident layer: backends, StorageClasses and mount options, and what each backend can serve."""
from __future__ import annotations

import re

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.deepops import kube_node_cidrs
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.trident import (
    ANF_DRIVER,
    chart_version_of,
    kubernetes_support_problem,
    ontap_secret_name,
    ontap_transport_finding,
)
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.rule_context import Context

MOUNT_OPTION = re.compile(r"^[a-z_][a-z0-9_]*(=[A-Za-z0-9_.:/-]+)?$")
KUBE_VERSION = re.compile(r"^[0-9]+\.[0-9]+\.[0-9]+$")


def trident(ctx: Context) -> None:
    """Backends name a declared SVM and its LIFs; classes name a backend; one default class; bare mount options."""
    trident_model = m.as_dict(ctx.model.get("trident"))
    install = m.as_dict(trident_model.get("install"))
    if install.get("method") == "helm":
        for key in ("chart_repo", "chart_version"):
            if key not in install:
                ctx.error("trident", ("trident", "install"), f"helm install needs {key}", f"add trident.install.{key}")
        # The chart installs what the upgrade check compares: they must name the same release.
        wanted = chart_version_of(trident_model.get("version"))
        if wanted and isinstance(install.get("chart_version"), str) and install["chart_version"] != wanted:
            ctx.error("trident", ("trident", "install", "chart_version"),
                      f"chart {install['chart_version']} does not install Trident {trident_model.get('version')}",
                      f"set trident.install.chart_version to {wanted} (the trident-operator chart of that release), "
                      "or trident.version to the chart's release")
    if install.get("method") == "operator_manifests" and "manifests_url" not in install:
        ctx.error("trident", ("trident", "install"), "operator_manifests install needs manifests_url", "add trident.install.manifests_url (a mirror URL)")
    backends: dict[str, int] = {}
    for index, backend in enumerate(m.as_list(trident_model.get("backends"))):
        backend = m.as_dict(backend)
        path = ("trident", "backends", index)
        name = m.as_str(backend.get("name"))
        if name in backends:
            ctx.error("trident", path + ("name",), f"backend {name} is declared twice")
        backends.setdefault(name or "", index)
        if backend.get("driver") not in ("ontap-nas", "ontap-nas-flexgroup"):
            continue
        svm = next((s for s in ctx.svms if s["name"] == backend.get("svm")), None)
        if svm is None:
            if isinstance(backend.get("svm"), str):
                ctx.error("dangling-reference", path + ("svm",), f"SVM {backend.get('svm')} is not declared",
                          f"use one of {', '.join(s['name'] for s in ctx.svms)}")
            continue
        lifs = [lif for lif in ctx.lifs if lif["svm"] == svm["name"]]
        mgmt = m.svm_mgmt_lif(ctx.model, svm)
        for key in ("management_lif", "data_lif"):
            reference = backend.get(key)
            if not isinstance(reference, str):
                continue
            candidates = lifs + ([mgmt] if mgmt else [])
            if not any(reference in (lif["name"], lif["address"]) for lif in candidates):
                ctx.error("dangling-reference", path + (key,), f"{reference} is not a LIF of SVM {svm['name']}",
                          "name one of its LIFs (or its address)")
        if "management_lif" not in backend and mgmt is None:
            ctx.error("trident", path, f"SVM {svm['name']} has no management LIF for Trident's SVM-scoped account",
                      "add mgmt_lif to the SVM or management_lif to the backend")
        if "trident_account" not in svm:
            ctx.error("trident", path + ("svm",), f"SVM {svm['name']} has no trident_account; Trident would need cluster admin",
                      "add trident_account {username, role} to the SVM")
    defaults = []
    names: set[str] = set()
    for index, storage_class in enumerate(m.as_list(trident_model.get("storage_classes"))):
        storage_class = m.as_dict(storage_class)
        path = ("trident", "storage_classes", index)
        if storage_class.get("name") in names:
            ctx.error("trident", path + ("name",), f"StorageClass {storage_class.get('name')} is declared twice")
        names.add(m.as_str(storage_class.get("name")) or "")
        if isinstance(storage_class.get("backend"), str) and storage_class["backend"] not in backends:
            ctx.error("dangling-reference", path + ("backend",), f"backend {storage_class['backend']} is not declared",
                      f"use one of {', '.join(b for b in backends if b)}")
        if storage_class.get("default") is True:
            defaults.append(index)
        options = m.as_list(storage_class.get("mount_options"))
        for option_index, option in enumerate(options):
            if isinstance(option, str) and not MOUNT_OPTION.match(option):
                ctx.error("mount-options", path + ("mount_options", option_index),
                          f"mount option {option!r} is not a bare option (no quotes, spaces or commas)",
                          "write one option per item, e.g. vers=4.1")
        keys = [o.split("=", 1)[0] for o in options if isinstance(o, str)]
        if "vers" in keys and "nfsvers" in keys:
            ctx.error("mount-options", path + ("mount_options",), "both vers= and nfsvers= are given", "keep one (vers=)")
    if len(defaults) > 1:
        for index in defaults[1:]:
            ctx.error("trident", ("trident", "storage_classes", index, "default"),
                      f"more than one default StorageClass (also storage_classes[{defaults[0]}])", "mark exactly one class default")
    elif not defaults and m.as_list(trident_model.get("storage_classes")):
        ctx.warning("trident", ("trident", "storage_classes"), "no default StorageClass: PVCs without a class stay Pending",
                    "mark one class default: true")


def trident_backends(ctx: Context) -> None:
    """Each backend can serve the Kubernetes nodes: exports limited to their networks, LIFs on them, NFS versions enabled."""
    trident_model = m.as_dict(ctx.model.get("trident"))
    workers = m.group_members(ctx.model, "kube_node")
    node_networks = m.storage_networks_of_hosts(ctx.model, workers)
    cidrs = kube_node_cidrs(ctx.model)
    allow_world = m.as_dict(m.as_dict(ctx.model.get("pod")).get("security")).get("allow_world_open_exports") is True
    drivers: dict[str, str] = {}
    svm_of: dict[str, dict] = {}
    for index, backend in enumerate(m.as_list(trident_model.get("backends"))):
        backend = m.as_dict(backend)
        path = ("trident", "backends", index)
        name = m.as_str(backend.get("name")) or ""
        drivers[name] = m.as_str(backend.get("driver")) or ""
        if backend.get("driver") == ANF_DRIVER:
            export = [c for c in m.as_list(m.as_dict(backend.get("azure")).get("export_cidrs")) if isinstance(c, str)]
            if not export and not allow_world:
                ctx.error("trident", path + ("azure",), f"backend {name}: without export_cidrs Azure NetApp Files exports volumes to 0.0.0.0/0",
                          "add azure.export_cidrs (the hybrid nodes' subnets), or set pod.security.allow_world_open_exports: true")
            for cidr_index, cidr in enumerate(export):
                subnet = m.parse_subnet(cidr)
                if subnet is None:
                    ctx.error("trident", path + ("azure", "export_cidrs", cidr_index), f"{cidr!r} is not an IPv4 network",
                              "write it as a.b.c.0/len")
                elif subnet.prefixlen == 0 and not allow_world:
                    ctx.error("trident", path + ("azure", "export_cidrs", cidr_index), f"export to {cidr} opens the volumes to every address",
                              "name the hybrid nodes' subnets, or set pod.security.allow_world_open_exports: true")
            continue
        svm = next((s for s in ctx.svms if s["name"] == backend.get("svm")), None)
        if svm is None:
            continue
        svm_of[name] = svm
        defaults = m.as_dict(backend.get("defaults"))
        policies = [m.as_dict(p).get("name") for p in m.as_list(svm.get("export_policies"))]
        if "export_policy" in defaults:
            if defaults["export_policy"] not in policies:
                ctx.error("dangling-reference", path + ("defaults", "export_policy"),
                          f"export policy {defaults['export_policy']} is not declared in SVM {svm['name']}",
                          f"use one of {', '.join(str(p) for p in policies)} (or drop it: Trident then manages a policy for the node networks)")
        elif not cidrs:
            ctx.error("trident", path, f"backend {name}: no Kubernetes worker has a storage network, so autoExportCIDRs would be empty",
                      "give the kube_node hosts storage NICs, or name an export policy in the backend's defaults")
        lif_networks = {lif["network"] for lif in ctx.lifs if lif["svm"] == svm["name"] and lif["network"]}
        for host in workers:
            host_networks = m.storage_networks_of_hosts(ctx.model, [host])
            if host_networks and not lif_networks.intersection(host_networks):
                ctx.warning("trident", path + ("svm",),
                            f"{host} has no storage NIC on a network where SVM {svm['name']} has data LIFs; its pods cannot mount {name} volumes",
                            "put a data LIF of the SVM on one of the host's storage networks")
        data_lif = backend.get("data_lif")
        if isinstance(data_lif, str):
            lif = next((lif for lif in ctx.lifs if lif["svm"] == svm["name"] and data_lif in (lif["name"], lif["address"])), None)
            if lif is None and any(data_lif in (x.get("name"), x.get("address")) for x in [m.svm_mgmt_lif(ctx.model, svm) or {}]):
                ctx.error("trident", path + ("data_lif",), f"{data_lif} is the management LIF of SVM {svm['name']}, not a data LIF",
                          "name a data LIF (or drop data_lif and let Trident pick)")
            elif lif is not None and lif["network"] not in node_networks:
                ctx.warning("trident", path + ("data_lif",), f"data LIF {data_lif} is on network '{lif['network']}', where no Kubernetes worker has a NIC",
                            f"use a LIF on {', '.join(node_networks) or 'a worker storage network'}")
    for index, storage_class in enumerate(m.as_list(trident_model.get("storage_classes"))):
        storage_class = m.as_dict(storage_class)
        backend_name = m.as_str(storage_class.get("backend")) or ""
        svm = svm_of.get(backend_name)
        versions = [o.split("=", 1)[1] for o in m.as_list(storage_class.get("mount_options"))
                    if isinstance(o, str) and o.split("=", 1)[0] in ("vers", "nfsvers") and "=" in o]
        if svm is None or not versions:
            continue
        nfs = m.as_dict(svm.get("nfs"))
        enabled = {"3": nfs.get("v3") is True, "4.1": nfs.get("v41") is True}
        for version in versions:
            if version in enabled and not enabled[version]:
                ctx.error("mount-options", ("trident", "storage_classes", index, "mount_options"),
                          f"StorageClass {storage_class.get('name')} mounts with NFS {version}, "
                          f"which SVM {svm['name']} (backend {backend_name}) does not enable",
                          "enable it in the SVM's nfs settings or change the mount option")
            elif version not in enabled:
                ctx.warning("mount-options", ("trident", "storage_classes", index, "mount_options"),
                            f"StorageClass {storage_class.get('name')} asks for NFS {version}; the model enables only 3 and 4.1 on SVM {svm['name']}",
                            "use vers=3 or vers=4.1")


def trident_versions(ctx: Context) -> None:
    """Releases that must work together (docs/support-matrix.md, "Versions that work together"):
    Trident and the Kubernetes release DeepOps deploys, Kubespray's kube_version form, and how
    Trident talks to the ONTAP release of the model. The Trident upgrade path and the Kubernetes
    release of an adopted cluster are checked by the trident role before it changes anything."""
    kube = m.as_dict(ctx.model.get("kubernetes"))
    deepops = m.as_dict(kube.get("deepops"))
    kube_version = deepops.get("kube_version")
    if kube.get("deployment") == "deepops" and isinstance(kube_version, str):
        path = ("kubernetes", "deepops", "kube_version")
        if kube_version.startswith("v"):
            ctx.error("versions", path, f"kube_version {kube_version!r} has a leading v, which Kubespray no longer takes "
                      "(since 2.28 it is a key of its checksum tables)", f"write {kube_version[1:]!r}")
        elif not KUBE_VERSION.match(kube_version):
            ctx.error("versions", path, f"kube_version {kube_version!r} is not a Kubernetes release (major.minor.patch)",
                      "write it as Kubespray lists it, e.g. 1.35.2")
        else:
            trident_version = m.as_dict(ctx.model.get("trident")).get("version")
            problem = kubernetes_support_problem(trident_version, kube_version)
            if problem:
                ctx.error("versions", ("trident", "version"), problem + " (kubernetes.deepops.kube_version)",
                          "pick a Trident release that supports this Kubernetes, or another kube_version")
    ontap = m.as_dict(ctx.model.get("ontap"))
    for index, backend in enumerate(m.as_list(m.as_dict(ctx.model.get("trident")).get("backends"))):
        backend = m.as_dict(backend)
        if backend.get("driver") not in ("ontap-nas", "ontap-nas-flexgroup"):
            continue
        finding = ontap_transport_finding(ontap.get("version"), backend.get("use_rest"), ontap.get("platform"))
        if finding:
            report = ctx.error if finding["severity"] == "error" else ctx.warning
            report("versions", ("trident", "backends", index, "use_rest"), f"backend {backend.get('name')}: {finding['message']}",
                   finding["fix"])


# A Kubernetes Secret's name: a DNS-1123 subdomain.
KUBERNETES_NAME = re.compile(r"[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")


def secret_name_problems(svm_names: list[str]) -> list[tuple[int, str]]:
    """(index, problem) for each SVM whose Trident Secret name is no Kubernetes name, or is the name of
    an earlier SVM's Secret (the mapping folds case, '_' and '.' into '-')."""
    problems: list[tuple[int, str]] = []
    first_of: dict[str, str] = {}
    for index, name in enumerate(svm_names):
        secret = ontap_secret_name(name)
        if not KUBERNETES_NAME.fullmatch(secret):
            problems.append((index, f"SVM {name} would get the Kubernetes Secret name {secret!r}, which Kubernetes refuses "
                                    "(lowercase letters, digits, '-' and '.', starting and ending with a letter or digit)"))
        elif secret in first_of and first_of[secret] != name:
            problems.append((index, f"SVMs {first_of[secret]} and {name} map to one Kubernetes Secret, {secret}: one Trident "
                                    "backend would log in with the other SVM's account"))
        first_of.setdefault(secret, name)
    return problems


def trident_secret_names(ctx: Context) -> None:
    """Each SVM's Trident Secret has a name of its own that Kubernetes takes (secret_name_problems)."""
    listed = m.as_list(m.as_dict(ctx.model.get("ontap")).get("svms"))
    named = [(index, name) for index, svm in enumerate(listed) if (name := m.as_str(m.as_dict(svm).get("name")))]
    for position, problem in secret_name_problems([name for _index, name in named]):
        ctx.error("kubernetes-name", ("ontap", "svms", named[position][0], "name"), problem,
                  "rename the SVM: end it with a letter or digit, and make it differ from the others in more than "
                  "case, '-', '_' and '.'")
