"""What an air-gapped site mirrors: the artefacts the bundle fetches, from the model and the roles' variables.

playbooks/airgap_artifacts.yml collects them through the filters of plugins/filter/aipod_airgap.py:
each role's ``artifacts`` entry point hands its own settings (deepops_cluster: the DeepOps release,
the Kubespray tarball and its Python requirements; trident: the chart or manifests and the images
the operator deploys), and the playbook adds the control node's toolchain (requirements.yml,
requirements.txt/constraints.txt). Pure functions: nothing here reads a file or the network.

Every artefact is a dict with the same keys, so the table, the JSON and the Markdown of the run
report are one list:

- ``group``: kubernetes | trident | toolchain
- ``kind``: release tarball | python requirements | galaxy requirements | kubespray downloads |
  helm chart | operator manifests | manifest | container image | ansible collection | python wheel
- ``name``, ``version``
- ``source``: where the bundle (or the cluster, for images) fetches it from with the current settings
- ``upstream``: where it is published, for images (what to copy into the mirror); else ""
- ``variable``: the variable that points it at a mirror
- ``note``: when it is needed, or how to get what the bundle cannot know without a download
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

FIELDS = ("group", "kind", "name", "version", "source", "upstream", "variable", "note")
PIN = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*==\s*([^\s;#]+)")


def artifact(group: str, kind: str, name: str, version: str, source: str, variable: str,
             note: str = "", upstream: str = "") -> dict[str, str]:
    return {"group": group, "kind": kind, "name": name, "version": version, "source": source,
            "upstream": upstream, "variable": variable, "note": note}


def pins(text: str) -> list[dict[str, str]]:
    """Exact pins (name==version) of a pip requirements or constraints text, in file order; other lines skipped."""
    found = []
    for line in text.splitlines():
        match = PIN.match(line)
        if match:
            found.append({"name": match.group(1), "version": match.group(3)})
    return found


def _join(base: str, path: str) -> str:
    return base.rstrip("/") + "/" + path.lstrip("/")


def deepops_artifacts(plan: Mapping[str, Any], settings: Mapping[str, Any]) -> list[dict[str, str]]:
    """The DeepOps release, its Kubespray, their Python and Galaxy requirements, and Kubespray's own downloads.

    settings: kubespray_version, kubespray_url, pip_index_url, extra_python_packages,
    galaxy_requirements, galaxy_server, kubespray_requirements_txt (the text of an unpacked
    Kubespray's requirements.txt on this host, "" when none is there yet).
    """
    version = str(plan.get("version") or "")
    kubespray = str(settings.get("kubespray_version") or "")
    pip_index = str(settings.get("pip_index_url") or "") or "pip's configured index (PyPI by default)"
    out = [
        artifact("kubernetes", "release tarball", "DeepOps", version, str(plan.get("release_url") or ""),
                 "kubernetes.deepops.release_url (site model)",
                 "" if plan.get("release_url") else "no release_url in the model: the kubernetes layer cannot download DeepOps"),
        artifact("kubernetes", "release tarball", "Kubespray", kubespray, str(settings.get("kubespray_url") or ""),
                 "deepops_cluster_kubespray_url", f"the Kubespray DeepOps {version} pins as its submodule"),
    ]
    requirements = pins(str(settings.get("kubespray_requirements_txt") or ""))
    if requirements:
        for pin in requirements:
            out.append(artifact("kubernetes", "python requirements", pin["name"], pin["version"], pip_index,
                                "deepops_cluster_pip_index_url", f"Kubespray {kubespray} requirements.txt (DeepOps' virtualenv)"))
    else:
        out.append(artifact("kubernetes", "python requirements", f"kubespray-{kubespray}/requirements.txt", "pinned in the tarball",
                            pip_index, "deepops_cluster_pip_index_url",
                            "DeepOps' virtualenv; pip download -r the requirements.txt inside the Kubespray tarball"))
    for name in settings.get("extra_python_packages") or []:
        out.append(artifact("kubernetes", "python requirements", str(name), "unpinned (newest)", pip_index,
                            "deepops_cluster_pip_index_url", "DeepOps' virtualenv (deepops_cluster_extra_python_packages)"))
    if settings.get("galaxy_requirements"):
        out.append(artifact("kubernetes", "galaxy requirements", f"deepops-{version}/roles/requirements.yml", "pinned in the tarball",
                            str(settings.get("galaxy_server") or "") or "Ansible Galaxy (ansible-galaxy's default server)",
                            "deepops_cluster_galaxy_server", "collections and roles DeepOps lists"))
    out.append(artifact("kubernetes", "kubespray downloads", "Kubernetes binaries, etcd, containerd, CNI and their images",
                        f"as Kubespray {kubespray} pins them", "Kubespray's download URLs and registries",
                        "deepops_cluster_config_vars",
                        "Kubespray's offline settings (files_repo, registry_host, *_image_repo, ...); "
                        "its contrib/offline/generate_list.sh lists them; docs/air-gap.md"))
    return out


def trident_images(plan: Mapping[str, Any], sources: Mapping[str, str], sidecars: Iterable[str]) -> list[dict[str, str]]:
    """The images the Trident operator chart and the operator deploy, as its helpers name them.

    Without trident.install.image_registry: <sources.trident>/trident-operator:<version>,
    <sources.trident>/trident:<version>, <sources.trident>/trident-autosupport:<major.minor> and
    <sources.csi>/<sidecar>. With it, every one is <image_registry>/<image name>:<tag> (the chart's
    imageRegistry value; the operator puts the CSI sidecars there too).
    """
    version = str(plan.get("version") or "")
    install = plan.get("install") or {}
    registry = str(install.get("image_registry") or "")
    minor = ".".join(version.split(".")[:2])
    images = [("trident-operator", version, sources["trident"]), ("trident", version, sources["trident"]),
              ("trident-autosupport", minor, sources["trident"])]
    for sidecar in sidecars:
        name, _colon, tag = str(sidecar).partition(":")
        images.append((name, tag, sources["csi"]))
    out = []
    for name, tag, upstream_registry in images:
        upstream = f"{upstream_registry}/{name}:{tag}"
        source = f"{registry}/{name}:{tag}" if registry else upstream
        note = ""
        if name == "trident-operator" and install.get("method") == "operator_manifests":
            note = "named by bundle.yaml of install.manifests_url: edit the mirrored manifest to name the mirror"
        out.append(artifact("trident", "container image", name, tag, source, "trident.install.image_registry (site model)",
                            note, upstream=upstream))
    return out


def trident_artifacts(plan: Mapping[str, Any], settings: Mapping[str, Any]) -> list[dict[str, str]]:
    """The operator chart (or manifests), Trident's images, and the VolumeSnapshot CRDs and controller.

    settings: chart_name, operator_manifests, image_sources, csi_sidecars (this release's list),
    snapshot_api (auto|install|skip), snapshot_crds_url, snapshot_controller_image.
    """
    install = plan.get("install") or {}
    method = install.get("method") or "preinstalled"
    version = str(plan.get("version") or "")
    out: list[dict[str, str]] = []
    if method == "helm":
        out.append(artifact("trident", "helm chart", str(settings.get("chart_name") or ""), str(install.get("chart_version") or ""),
                            str(install.get("chart_repo") or ""), "trident.install.chart_repo (site model)",
                            f"Trident {version}; helm pull --repo <repo> <chart> --version <version>"))
    elif method == "operator_manifests":
        base = str(install.get("manifests_url") or "")
        for manifest in settings.get("operator_manifests") or []:
            out.append(artifact("trident", "operator manifests", str(manifest), version, _join(base, str(manifest)),
                                "trident.install.manifests_url (site model)", f"Trident {version} deploy/ directory"))
    if method in ("helm", "operator_manifests"):
        out += trident_images(plan, settings["image_sources"], settings.get("csi_sidecars") or [])
    if settings.get("snapshot_api") != "skip":
        when = ("installed only when the cluster lacks the VolumeSnapshot CRDs" if settings.get("snapshot_api") == "auto"
                else "always installed (trident_snapshot_api: install)")
        crds_url = str(settings.get("snapshot_crds_url") or "")
        out.append(artifact("trident", "manifest", "VolumeSnapshot CRDs", "snapshot.storage.k8s.io/v1",
                            crds_url or "bundled: roles/trident/files/snapshot-crds.yml", "trident_snapshot_crds_url",
                            when + ("" if crds_url else "; nothing to mirror")))
        image = str(settings.get("snapshot_controller_image") or "")
        name, _colon, tag = image.rpartition("/")[2].partition(":")
        out.append(artifact("trident", "container image", name, tag, image,
                            "trident_snapshot_controller_image", when + "; by default under trident.install.image_registry",
                            upstream=f"{settings['image_sources']['csi']}/{name}:{tag}"))
    return out


# The GPU Operator's images a DGX OS node runs (driver, toolkit and DCGM are the host's), with their
# path under nvcr.io, and the tags chart v26.7.0's values.yaml gives them.
GPU_OPERATOR_IMAGES = (
    ("gpu-operator", "nvidia", "v26.7.0"),
    ("gpu-operator-validator", "nvidia/cloud-native", "v26.7.0"),
    ("k8s-device-plugin", "nvidia", "v0.20.0"),
    ("dcgm-exporter", "nvidia/k8s", "4.6.0-4.8.3-distroless"),
    ("k8s-mig-manager", "nvidia/cloud-native", "v0.15.0"),
)


def gpu_artifacts(plan: Mapping[str, Any], registry: str = "") -> list[dict[str, str]]:
    """The GPU Operator's chart and the images it runs on DGX OS nodes; nothing when the bundle does not install it."""
    if not plan.get("enabled"):
        return []
    chart = plan.get("chart") or {}
    version = str(chart.get("version") or "")
    if chart.get("file"):
        source, note = str(chart["file"]), "a copy beside the inventory: nothing to fetch"
    else:
        source, note = str(chart.get("repo") or ""), "helm pull --repo <repo> gpu-operator --version <version>"
    out = [artifact("gpu", "helm chart", str(chart.get("name") or "gpu-operator"), version, source,
                    "gpu.operator.chart_repo or chart_file (site model)", note)]
    tags_known = version == "v26.7.0"
    nfd = "registry.k8s.io/nfd/node-feature-discovery"
    out.append(artifact("gpu", "container image", "node-feature-discovery", "",
                        f"{registry.rstrip('/')}/nfd/node-feature-discovery" if registry else nfd,
                        "gpu.operator.image_registry (site model)",
                        f"node feature discovery, the chart's subchart: the tag chart {version}'s values.yaml gives it",
                        upstream=nfd))
    for name, path, tag in GPU_OPERATOR_IMAGES:
        upstream = f"nvcr.io/{path}/{name}:{tag}" if tags_known else f"nvcr.io/{path}/{name}"
        mirrored = f"{registry.rstrip('/')}/{path}/{name}" + (f":{tag}" if tags_known else "") if registry else upstream
        out.append(artifact("gpu", "container image", name, tag if tags_known else "", mirrored,
                            "gpu.operator.image_registry (site model)",
                            "" if tags_known else f"the tag chart {version}'s values.yaml gives it", upstream=upstream))
    return out


def gpu_smoke_artifacts(smoke: Mapping[str, Any]) -> list[dict[str, str]]:
    """The GPU smoke test's image, when the model opts in to the test."""
    if not smoke.get("enabled"):
        return []
    image = str(smoke.get("image") or "")
    if "@" in image:
        name, tag = image.split("@", 1)
    elif ":" in image.rsplit("/", 1)[-1]:
        name, tag = image.rsplit(":", 1)
    else:
        name, tag = image, ""
    return [artifact("gpu", "container image", name.rsplit("/", 1)[-1], tag, image,
                     "gpu.smoke_test.image or gpu.operator.image_registry (site model)",
                     "the GPU smoke test's nvidia-smi pod (verification)")]


def monitoring_artifacts(plan: Mapping[str, Any]) -> list[dict[str, str]]:
    """kube-prometheus-stack's chart (when the bundle installs it) and NetApp Harvest's image."""
    if not plan.get("enabled"):
        return []
    out = []
    stack = plan.get("stack") or {}
    chart = stack.get("chart") or {}
    if stack.get("install"):
        source, note = ((str(chart["file"]), "a copy beside the inventory: nothing to fetch") if chart.get("file") else
                        (str(chart.get("repo") or ""), "helm pull --repo <repo> kube-prometheus-stack --version <version>; "
                         "its images (Prometheus, Alertmanager, Grafana, the operator) are the chart version's"))
        out.append(artifact("monitoring", "helm chart", str(chart.get("name") or ""), str(chart.get("version") or ""), source,
                            "monitoring.stack.chart_repo or chart_file (site model)", note))
    for manifest in plan.get("objects") or []:
        if manifest.get("kind") != "Deployment":
            continue
        for container in manifest["spec"]["template"]["spec"]["containers"]:
            image = str(container["image"])
            if "@" in image:
                name, tag = image.split("@", 1)
            else:
                name, tag = image.rsplit(":", 1) if ":" in image.rsplit("/", 1)[-1] else (image, "")
            out.append(artifact("monitoring", "container image", name.rsplit("/", 1)[-1], tag, image,
                                "monitoring.harvest.image (site model)", "NetApp Harvest's poller"))
    return out


def toolchain_artifacts(requirements_txt: str, constraints_txt: str, requirements_yml: Mapping[str, Any],
                        pip_index: str, galaxy_server: str, ee_definition: Mapping[str, Any] | None = None) -> list[dict[str, str]]:
    """The control node's toolchain: every wheel constraints.txt freezes (requirements.txt's closure), the collections,
    and the base image of the execution environment (execution-environment.yml) for sites that build it."""
    direct = {pin["name"].lower().replace("_", "-") for pin in pins(requirements_txt)}
    out = []
    base = str(((ee_definition or {}).get("images") or {}).get("base_image", {}).get("name") or "")
    if base:
        name, _colon, tag = base.rpartition("/")[2].partition(":")
        out.append(artifact("toolchain", "container image", f"{name} (execution environment base)", tag or "latest", base,
                            "ansible-builder build --build-arg EE_BASE_IMAGE=<mirror>/...",
                            "only to build the AWX/AAP execution environment (docs/execution-environment.md)", upstream=base))
    for entry in requirements_yml.get("collections") or []:
        # requirements.yml bounds each collection from below by the version every row is tested with: mirror that one.
        required = str(entry.get("version"))
        tested = re.search(r">=\s*([0-9][^,\s]*)", required)
        out.append(artifact("toolchain", "ansible collection", str(entry.get("name")), tested.group(1) if tested else required,
                            galaxy_server, "ansible-galaxy --server / ANSIBLE_GALAXY_SERVER",
                            f"requirements.yml ({required}); the tested version, bundled in the pinned ansible wheel"))
    for pin in pins(constraints_txt):
        top = pin["name"].lower().replace("_", "-") in direct
        out.append(artifact("toolchain", "python wheel", pin["name"], pin["version"], pip_index,
                            "pip --index-url / PIP_INDEX_URL", "requirements.txt" if top else "constraints.txt (dependency)"))
    return out


def table(artifacts: Iterable[Mapping[str, Any]], widths: tuple[int, ...] = (10, 20, 34, 20)) -> list[str]:
    """A readable table: one line per artefact, except exactly pinned Python packages, counted on one line per group."""
    rows = [("group", "kind", "name", "version", "from (mirror variable)")]
    counted: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for item in artifacts:
        if item["kind"] in ("python wheel", "python requirements") and str(item["version"])[:1].isdigit():
            counted.setdefault((item["group"], item["kind"]), []).append(item)
            continue
        rows.append((item["group"], item["kind"], item["name"], item["version"], f"{item['source']} ({item['variable']})"))
    for (group, kind), items in counted.items():
        rows.append((group, kind, f"{len(items)} packages", "exact pins (JSON)", f"{items[0]['source']} ({items[0]['variable']})"))
    lines = []
    for row in rows:
        cells = [str(cell).ljust(width) for cell, width in zip(row[:4], widths)]
        lines.append(" ".join(cells) + " " + str(row[4]))
    return lines


def markdown(artifacts: Iterable[Mapping[str, Any]]) -> str:
    """The artefact list as a Markdown table (every artefact, wheels included)."""
    out = ["| group | kind | name | version | from | upstream | mirror variable | note |", "|---|---|---|---|---|---|---|---|"]
    for item in artifacts:
        cells = [str(item.get(field, "")).replace("|", "/") for field in FIELDS]
        out.append("| " + " | ".join(f"`{cell}`" if field in ("source", "upstream") and cell else cell
                                     for field, cell in zip(FIELDS, cells)) + " |")
    return "\n".join(out)
