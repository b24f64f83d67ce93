"""Air gap: every URL, registry and chart repository the bundle fetches from is a variable, and
playbooks/airgap_artifacts.yml lists what a site mirrors (docs/air-gap.md).

- No URL or registry literal in the roles' tasks, handlers, templates, files and vars or in the
  playbooks; in defaults only as the value of a variable meant to point at a mirror.
- Every role's meta/argument_specs.yml documents its defaults with the same values.
- The playbook, run against inventories/sample, lists the pinned versions (DeepOps, Kubespray,
  Trident chart and images, collections, wheels) with changed=0; pointing the variables at a mirror
  moves every source to the mirror.
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest
import yaml
from project_paths import COLLECTION, REPO, SAMPLE, SAMPLE_VAULT_PASSWORD

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_report import airgap

BIN = pathlib.Path(sys.executable).parent
LITERAL = re.compile(r"\b(?:https?|oci)://[^\s\"'`)]+|\b(?:docker\.io|registry\.k8s\.io|k8s\.gcr\.io|gcr\.io|quay\.io|ghcr\.io|nvcr\.io)/[^\s\"'`)]*")
# Literals that are not fetched: the CRDs' API-review links (an annotation Kubernetes requires for *.k8s.io groups).
ALLOWED = {("roles/trident/files/snapshot-crds.yml", "api-approved.kubernetes.io")}
# Variables whose defaults name where upstream publishes something: the knobs an air-gapped site turns.
MIRROR_VARIABLES = {"deepops_cluster_kubespray_url", "trident_image_sources"}
UPSTREAM_HOSTS = ("github.com", "netapp.github.io", "docker.io", "registry.k8s.io", "galaxy.ansible.com", "pypi.org", "PyPI")


def literals(text: str) -> list[tuple[int, str, str]]:
    """(line number, line, literal) of URL and registry literals outside comments."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("#") or stripped.startswith("{#"):
            continue
        for match in LITERAL.finditer(line):
            found.append((number, line, match.group(0)))
    return found


def test_literal_scan_finds_urls_and_registries():
    text = "a: https://example.org/x\n# b: https://example.org/y\nimage: registry.k8s.io/sig-storage/x:v1\nc: oci://r/c\n"
    assert [hit[2] for hit in literals(text)] == ["https://example.org/x", "registry.k8s.io/sig-storage/x:v1", "oci://r/c"]


def test_no_hard_coded_url_or_registry_in_tasks_templates_files_or_playbooks():
    paths = [path for pattern in ("roles/*/tasks/*", "roles/*/handlers/*", "roles/*/templates/*", "roles/*/files/*",
                                  "roles/*/vars/*", "playbooks/**/*.yml") for path in COLLECTION.glob(pattern) if path.is_file()]
    assert any("snapshot-crds.yml" in str(path) for path in paths)
    offending = []
    for path in paths:
        name = str(path.relative_to(COLLECTION))
        for number, line, literal in literals(path.read_text()):
            if not any(name == allowed_file and marker in line for allowed_file, marker in ALLOWED):
                offending.append(f"{name}:{number}: {literal}")
    assert not offending, "make these role variables (defaults/main.yml) or site-model keys:\n" + "\n".join(offending)


def test_defaults_name_upstream_locations_only_in_mirror_variables():
    offending, seen = [], set()
    for path in COLLECTION.glob("roles/*/defaults/main.yml"):
        defaults = yaml.safe_load(path.read_text()) or {}
        for variable, value in defaults.items():
            if literals(yaml.safe_dump({variable: value}, width=10_000)):
                seen.add(variable)
                if variable not in MIRROR_VARIABLES:
                    offending.append(f"{path.relative_to(COLLECTION)}: {variable}")
    assert not offending, f"upstream locations in defaults of variables not known as mirror knobs: {offending}"
    assert seen == MIRROR_VARIABLES


def test_every_default_is_documented_in_argument_specs_with_its_value():
    problems = []
    for role in sorted(path for path in (COLLECTION / "roles").iterdir() if path.is_dir()):
        specs_file = role / "meta" / "argument_specs.yml"
        if not specs_file.is_file():
            problems.append(f"{role.name}: no meta/argument_specs.yml")
            continue
        specs = yaml.safe_load(specs_file.read_text())["argument_specs"]
        defaults_file = role / "defaults" / "main.yml"
        defaults = (yaml.safe_load(defaults_file.read_text()) or {}) if defaults_file.is_file() else {}
        documented = set()
        for entry, spec in specs.items():
            for option, body in (spec.get("options") or {}).items():
                documented.add(option)
                if option in defaults and "default" in body and body["default"] != defaults[option]:
                    problems.append(f"{role.name}: {entry}.{option} default differs from defaults/main.yml")
        problems += [f"{role.name}: {name} is not documented" for name in sorted(set(defaults) - documented)]
    assert not problems, problems


# ---------------------------------------------------------------------------- pure functions
PLAN = {"version": "26.02.1", "install": {"method": "helm", "chart_repo": "https://charts.example/trident", "chart_version": "100.2602.1",
                                          "image_registry": None}}
SETTINGS = {"chart_name": "trident-operator", "operator_manifests": ["bundle.yaml"], "image_sources": {"trident": "docker.io/netapp",
            "csi": "registry.k8s.io/sig-storage"}, "csi_sidecars": ["csi-provisioner:v6.1.0"], "snapshot_api": "auto",
            "snapshot_crds_url": "", "snapshot_controller_image": "registry.k8s.io/sig-storage/snapshot-controller:v8.5.0"}


def test_trident_images_follow_the_chart_helpers():
    images = {item["name"]: item for item in airgap.trident_artifacts(PLAN, SETTINGS) if item["kind"] == "container image"}
    assert images["trident-operator"]["source"] == "docker.io/netapp/trident-operator:26.02.1"
    assert images["trident-autosupport"]["source"] == "docker.io/netapp/trident-autosupport:26.02"
    assert images["csi-provisioner"]["source"] == "registry.k8s.io/sig-storage/csi-provisioner:v6.1.0"
    mirrored = dict(PLAN, install=dict(PLAN["install"], image_registry="mirror.example/trident"))
    images = {item["name"]: item for item in airgap.trident_artifacts(mirrored, SETTINGS) if item["kind"] == "container image"}
    assert images["trident"]["source"] == "mirror.example/trident/trident:26.02.1"
    assert images["trident"]["upstream"] == "docker.io/netapp/trident:26.02.1"
    assert images["csi-provisioner"]["source"] == "mirror.example/trident/csi-provisioner:v6.1.0"


def test_preinstalled_trident_needs_no_chart_nor_trident_image():
    plan = dict(PLAN, install={"method": "preinstalled"})
    kinds = {(item["kind"], item["name"]) for item in airgap.trident_artifacts(plan, dict(SETTINGS, snapshot_api="skip"))}
    assert kinds == set()


def test_pins_and_table():
    assert airgap.pins("# c\nansible==12.3.0\nmolecule-plugins[podman]==26.10.12\nx>=1\n") == [
        {"name": "ansible", "version": "12.3.0"}, {"name": "molecule-plugins", "version": "26.10.12"}]
    wheels = airgap.toolchain_artifacts("a==1\n", "a==1\nb==2\n", {"collections": []}, "idx", "gal")
    assert [item["note"] for item in wheels] == ["requirements.txt", "constraints.txt (dependency)"]
    lines = airgap.table(wheels + airgap.trident_artifacts(PLAN, SETTINGS))
    assert any("2 packages" in line for line in lines) and any("trident-operator" in line for line in lines)
    assert airgap.markdown(wheels).count("\n") == 3


# ---------------------------------------------------------------------------- the playbook
def run_airgap(tmp_path: pathlib.Path, inventory: pathlib.Path, env: dict[str, str] | None = None) -> tuple[dict, str]:
    password = tmp_path / "sample-vault-password"
    password.write_bytes(SAMPLE_VAULT_PASSWORD + b"\n")
    reports = tmp_path / "reports"
    environment = {name: value for name, value in os.environ.items() if name not in ("PIP_INDEX_URL", "ANSIBLE_GALAXY_SERVER")}
    environment.update(ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_FORCE_COLOR="0", AIPOD_REPORT_ROOT=str(reports),
                       PATH=f"{BIN}:{os.environ.get('PATH', '')}", **(env or {}))
    command = [str(BIN / "ansible-playbook"), "--vault-id", f"sample@{password}", "-i", str(inventory), "playbooks/airgap_artifacts.yml"]
    result = subprocess.run(command, cwd=REPO, env=environment, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{result.stdout[-4000:]}\n{result.stderr[-2000:]}"
    recap = re.findall(r"^localhost\s+:\s+ok=\d+\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", result.stdout, re.M)
    assert recap == [("0", "0", "0")], result.stdout[-2000:]
    report = json.loads((reports / "latest" / "report.json").read_text())
    assert (reports / "latest" / "report.md").read_text().count("| toolchain | python wheel |") == len(airgap.pins((REPO / "constraints.txt").read_text()))
    return report, result.stdout


@pytest.fixture(scope="module")
def sample_run(tmp_path_factory) -> tuple[list[dict], str]:
    report, stdout = run_airgap(tmp_path_factory.mktemp("airgap"), SAMPLE)
    return report["airgap"]["artifacts"], stdout


def by(artifacts: list[dict], kind: str) -> dict[str, dict]:
    return {item["name"]: item for item in artifacts if item["kind"] == kind}


def test_sample_lists_the_pinned_deepops_and_kubespray(sample_run):
    artifacts, _ = sample_run
    deepops = yaml.safe_load((SAMPLE / "group_vars" / "all" / "kubernetes.yml").read_text())["kubernetes"]["deepops"]
    releases = yaml.safe_load((COLLECTION / "roles" / "deepops_cluster" / "defaults" / "main.yml").read_text())["deepops_cluster_releases"]
    tarballs = by(artifacts, "release tarball")
    assert tarballs["DeepOps"]["version"] == deepops["version"] and tarballs["DeepOps"]["source"] == deepops["release_url"]
    kubespray = releases[deepops["version"]]["kubespray"]
    assert tarballs["Kubespray"]["version"] == kubespray and tarballs["Kubespray"]["source"].endswith(f"/{kubespray}.tar.gz")
    assert tarballs["Kubespray"]["variable"] == "deepops_cluster_kubespray_url"
    assert f"kubespray-{kubespray}/requirements.txt" in by(artifacts, "python requirements")


def test_sample_lists_the_trident_chart_and_images(sample_run):
    artifacts, stdout = sample_run
    trident = yaml.safe_load((SAMPLE / "group_vars" / "all" / "trident.yml").read_text())["trident"]
    chart = by(artifacts, "helm chart")["trident-operator"]
    assert (chart["source"], chart["version"]) == (trident["install"]["chart_repo"], trident["install"]["chart_version"])
    images = by(artifacts, "container image")
    version = trident["version"]
    assert images["trident"]["source"] == f"docker.io/netapp/trident:{version}"
    assert images["trident-operator"]["source"] == f"docker.io/netapp/trident-operator:{version}"
    assert {"csi-provisioner", "csi-attacher", "csi-resizer", "csi-snapshotter", "csi-node-driver-registrar", "snapshot-controller"} <= set(images)
    assert images["snapshot-controller"]["source"] == "registry.k8s.io/sig-storage/snapshot-controller:v8.5.0"
    assert f"docker.io/netapp/trident:{version}" in stdout  # the printed table


def test_sample_lists_the_collections_and_every_wheel(sample_run):
    artifacts, _ = sample_run
    collections = {name: item["version"] for name, item in by(artifacts, "ansible collection").items()}
    # the tested version: requirements.yml's lower bound
    assert collections == {entry["name"]: str(entry["version"]).split(",")[0].removeprefix(">=")
                           for entry in yaml.safe_load((REPO / "requirements.yml").read_text())["collections"]}
    assert collections["cisco.nxos"] == "11.2.0"
    wheels = {name: item["version"] for name, item in by(artifacts, "python wheel").items()}
    assert wheels == {pin["name"]: pin["version"] for pin in airgap.pins((REPO / "constraints.txt").read_text())}
    assert wheels["ansible"] == "14.5.0" and by(artifacts, "python wheel")["ansible"]["note"] == "requirements.txt"


MIRROR = "mirror.aipod.example"


def test_pointing_the_variables_at_a_mirror_moves_every_source(tmp_path):
    inventory = tmp_path / "inventories" / "sample"
    shutil.copytree(SAMPLE, inventory)
    kubernetes_file = inventory / "group_vars" / "all" / "kubernetes.yml"
    kubernetes = yaml.safe_load(kubernetes_file.read_text())
    kubernetes["kubernetes"]["deepops"]["release_url"] = f"https://{MIRROR}/deepops/26.07.tar.gz"
    kubernetes_file.write_text(yaml.safe_dump(kubernetes))
    trident_file = inventory / "group_vars" / "all" / "trident.yml"
    trident = yaml.safe_load(trident_file.read_text())
    trident["trident"]["install"].update(chart_repo=f"oci://{MIRROR}/charts", image_registry=f"{MIRROR}/trident")
    trident_file.write_text(yaml.safe_dump(trident))
    gpu_file = inventory / "group_vars" / "all" / "gpu.yml"
    gpu = yaml.safe_load(gpu_file.read_text())
    gpu["gpu"]["operator"].update(chart_repo=f"oci://{MIRROR}/charts", image_registry=f"{MIRROR}/nvcr")
    gpu_file.write_text(yaml.safe_dump(gpu))
    monitoring_file = inventory / "group_vars" / "all" / "monitoring.yml"
    monitoring = yaml.safe_load(monitoring_file.read_text())
    monitoring["monitoring"]["stack"] = {"chart_repo": f"oci://{MIRROR}/charts"}
    monitoring["monitoring"]["harvest"]["image"] = f"{MIRROR}/netapp/harvest:26.11.0"
    monitoring_file.write_text(yaml.safe_dump(monitoring))
    # Role variables in the site's inventory, as a site sets them (the validator checks them against argument_specs).
    (inventory / "group_vars" / "all" / "mirror.yml").write_text(yaml.safe_dump({
        "deepops_cluster_kubespray_url": f"https://{MIRROR}/kubespray/v2.31.0.tar.gz",
        "deepops_cluster_pip_index_url": f"https://{MIRROR}/pypi/simple",
        "deepops_cluster_galaxy_server": f"https://{MIRROR}/galaxy",
        "trident_snapshot_crds_url": f"https://{MIRROR}/snapshot-crds.yml",
    }))
    report, _ = run_airgap(tmp_path, inventory, env={"PIP_INDEX_URL": f"https://{MIRROR}/pypi/simple",
                                                     "ANSIBLE_GALAXY_SERVER": f"https://{MIRROR}/galaxy"})
    artifacts = report["airgap"]["artifacts"]
    # The EE's base image is chosen when the EE is built (--build-arg EE_BASE_IMAGE), not by the site's variables.
    fetched = [item for item in artifacts if "execution environment base" not in item["name"]
               and item["kind"] != "kubespray downloads"]  # Kubespray's own: its variables, deepops_cluster_config_vars
    assert len(fetched) > 100
    stray = [f"{item['kind']} {item['name']}: {item['source']}" for item in fetched if MIRROR not in item["source"]
             or any(host in item["source"] for host in UPSTREAM_HOSTS)]
    assert not stray, stray
    images = by(artifacts, "container image")
    assert images["snapshot-controller"]["source"] == f"{MIRROR}/trident/snapshot-controller:v8.5.0"
    assert images["trident"]["upstream"] == "docker.io/netapp/trident:26.02.1"


def test_kubespray_offline_settings_reach_deepops_group_vars(tmp_path):
    """deepops_cluster_config_vars lands in the generated group_vars/all layer, where Kubespray reads its mirror settings."""
    password = tmp_path / "sample-vault-password"
    password.write_bytes(SAMPLE_VAULT_PASSWORD + b"\n")
    settings = {"files_repo": f"https://{MIRROR}/files", "registry_host": f"{MIRROR}:5000",
                "kube_image_repo": f"{MIRROR}:5000/k8s"}
    out = tmp_path / "config"
    environment = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), AIPOD_REPORT_ROOT=str(tmp_path / "reports"))
    subprocess.run([str(BIN / "ansible-playbook"), "--vault-id", f"sample@{password}", "-i", str(SAMPLE),
                    "tests/kubernetes/playbooks/render_deepops.yml", "-e", f"render_dir={out}",
                    "-e", json.dumps({"deepops_cluster_config_vars": settings})],
                   cwd=REPO, env=environment, check=True, capture_output=True, text=True, timeout=300)
    rendered = yaml.safe_load((out / "group_vars" / "all" / "50-aipod.yml").read_text())
    assert {key: rendered[key] for key in settings} == settings
    assert rendered["ssh_server_password_login"] is False


def test_ansible_doc_renders_the_airgap_filters():
    names = [f"ontap_ai.pod.{name}" for name in ("aipod_deepops_artifacts", "aipod_trident_artifacts", "aipod_toolchain_artifacts",
                                                 "aipod_artifacts_table", "aipod_artifacts_markdown")]
    result = subprocess.run([str(BIN / "ansible-doc"), "-t", "filter", "--json", *names], cwd=REPO, capture_output=True, text=True,
                            env=dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg")), check=False)
    assert result.returncode == 0 and "WARNING" not in result.stderr, result.stderr
    docs = json.loads(result.stdout)
    assert sorted(docs) == sorted(names)
    assert all(docs[name]["doc"]["short_description"] and docs[name]["examples"] and docs[name]["return"] for name in names)


def test_sample_lists_the_gpu_operator_chart_and_its_dgx_os_images(sample_run):
    artifacts, _ = sample_run
    gpu = yaml.safe_load((SAMPLE / "group_vars" / "all" / "gpu.yml").read_text())["gpu"]
    chart = by(artifacts, "helm chart")["gpu-operator"]
    assert (chart["source"], chart["version"], chart["group"]) == (gpu["operator"]["chart_repo"], gpu["operator"]["chart_version"], "gpu")
    images = {name: item for name, item in by(artifacts, "container image").items() if item["group"] == "gpu"}
    assert images["dcgm-exporter"]["source"] == "nvcr.io/nvidia/k8s/dcgm-exporter:4.6.0-4.8.3-distroless"
    # DGX OS brings the driver, the toolkit and DCGM: their images are not mirrored.
    assert set(images) == {"gpu-operator", "gpu-operator-validator", "k8s-device-plugin", "dcgm-exporter", "k8s-mig-manager",
                           "node-feature-discovery"}


def test_a_mirror_is_each_gpu_images_source_and_an_unknown_chart_leaves_tags_open():
    plan = {"enabled": True, "chart": {"name": "gpu-operator", "version": "v26.3.3", "repo": "https://example.com/c", "file": None}}
    listed = airgap.gpu_artifacts(plan, "mirror.example.com/nvcr")
    images = {item["name"]: item for item in listed if item["kind"] == "container image"}
    assert images["k8s-mig-manager"]["source"] == "mirror.example.com/nvcr/nvidia/cloud-native/k8s-mig-manager"
    assert images["k8s-mig-manager"]["version"] == "" and "v26.3.3" in images["k8s-mig-manager"]["note"]
    assert airgap.gpu_artifacts(dict(plan, enabled=False)) == []
