"""The Kubernetes and Trident layers against the lab's real kube-apiserver (lab/kubernetes).

The module starts the lab component through lab/lab with a fresh datastore and works on a copy
of inventories/lab whose kubeconfig path points at the lab's, so that tests can change the model.
The last tests stand in for what the lab cannot run (kubelets, Trident's controller) by writing
Node objects and status the way those components would, to show that the verification passes
and fails on what it reads.
"""
from __future__ import annotations

import base64
import json
import os
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
import yaml
from kubernetes_helpers import KUBECONFIG, REPO, lab, lab_site_copy, recap, run_playbook
from kubernetes_helpers import LAB_KUBERNETES as LAB

pytestmark = [pytest.mark.lab, pytest.mark.slow]


@pytest.fixture(scope="module")
def cluster():
    """A fresh lab API server; afterwards stopped, or - when it was running before - started fresh again.

    The tests take a GPU from a lab kubelet and write a Trident controller that the lab does not have;
    a lab API server left holding them would make the next whole-site run verify a different pod."""
    was_running = lab("status", "kubernetes").returncode == 0
    # Validation needs the ONTAP endpoint's CA (the lab inventory's ca_file) to exist.
    ontap_was_running = lab("status", "ontap").returncode == 0
    assert lab("start", "ontap").returncode == 0
    stopped = lab("stop", "kubernetes")
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    started = lab("start", "kubernetes")
    assert started.returncode == 0, started.stdout + started.stderr
    from kubernetes import client, config

    api = config.new_client_from_config(str(KUBECONFIG))
    yield {"core": client.CoreV1Api(api), "storage": client.StorageV1Api(api), "apps": client.AppsV1Api(api),
           "custom": client.CustomObjectsApi(api), "extensions": client.ApiextensionsV1Api(api),
           "version": client.VersionApi(api).get_code(), "api": api}
    stopped = lab("stop", "kubernetes")
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    if was_running:
        restarted = lab("start", "kubernetes")
        assert restarted.returncode == 0, restarted.stdout + restarted.stderr
    if not ontap_was_running:
        lab("stop", "ontap")


@pytest.fixture(scope="module")
def site(tmp_path_factory, cluster):
    """A copy of inventories/lab that adopts the lab's API server by absolute kubeconfig path. Its pod is
    not watched: these tests run the Trident layer alone, and the monitoring layer's objects (which
    verification would then miss) are test_monitoring_layer.py's."""
    root = tmp_path_factory.mktemp("site")
    inventory = lab_site_copy(root)
    monitoring = inventory / "group_vars" / "all" / "monitoring.yml"
    data = yaml.safe_load(monitoring.read_text())
    data["monitoring"]["enabled"] = False
    monitoring.write_text("---\n" + yaml.safe_dump(data, sort_keys=False))
    return {"inventory": inventory, "tmp": root}


def edit_trident(site, change) -> None:
    path = site["inventory"] / "group_vars" / "all" / "trident.yml"
    data = yaml.safe_load(path.read_text())
    change(data["trident"])
    path.write_text("---\n" + yaml.safe_dump(data, sort_keys=False))


def trident_objects(cluster) -> dict[str, str]:
    """Every object the Trident layer writes, by kind and name, with its resourceVersion.

    A list's own resourceVersion is the API server's revision of the whole store: any write
    anywhere in the cluster (a kubelet's lease, an event) moves it, so it cannot say "unchanged"."""
    versions = {f"StorageClass/{item.metadata.name}": item.metadata.resource_version
                for item in cluster["storage"].list_storage_class().items}
    versions.update({f"Secret/{item.metadata.name}": item.metadata.resource_version
                     for item in cluster["core"].list_namespaced_secret("trident").items})
    versions.update({f"CustomResourceDefinition/{item.metadata.name}": item.metadata.resource_version
                     for item in cluster["extensions"].list_custom_resource_definition().items})
    backends = cluster["custom"].list_namespaced_custom_object("trident.netapp.io", "v1", "trident",
                                                               "tridentbackendconfigs")["items"]
    versions.update({f"TridentBackendConfig/{item['metadata']['name']}": item["metadata"]["resourceVersion"]
                     for item in backends})
    if "CustomResourceDefinition/volumesnapshotclasses.snapshot.storage.k8s.io" in versions:
        classes = cluster["custom"].list_cluster_custom_object("snapshot.storage.k8s.io", "v1",
                                                               "volumesnapshotclasses")["items"]
        versions.update({f"VolumeSnapshotClass/{item['metadata']['name']}": item["metadata"]["resourceVersion"]
                         for item in classes})
    return versions


def layer(site, playbook: str, *args: str, check: bool = False, env: dict | None = None):
    return run_playbook(site["tmp"], "-i", str(site["inventory"]), f"playbooks/{playbook}", *args, check=check, env=env)


def test_the_lab_serves_tls_with_its_own_ca_and_refuses_anonymous_requests(cluster):
    status = lab("status", "kubernetes")
    assert status.returncode == 0, status.stdout + status.stderr
    assert oct(KUBECONFIG.stat().st_mode & 0o777) == "0o600"
    kubeconfig = yaml.safe_load(KUBECONFIG.read_text())
    server = kubeconfig["clusters"][0]["cluster"]["server"]
    assert server.startswith("https://127.0.0.1:")
    context = ssl.create_default_context(cafile=str(LAB / "pki" / "ca.crt"))
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(server + "/version", context=context, timeout=10)
    assert refused.value.code == 401
    from kubernetes import client

    wanted = os.environ.get("AIPOD_LAB_KUBE_VERSION") or (REPO / "lab" / "kubernetes" / "version").read_text().strip()
    assert client.VersionApi(cluster["core"].api_client).get_code().git_version == f"v{wanted}"
    # The cached binaries are verified on every start; --check verifies without building.
    assert subprocess.run([str(REPO / "lab" / "kubernetes" / "build"), "--check"], capture_output=True).returncode == 0
    names = {crd.metadata.name for crd in cluster["extensions"].list_custom_resource_definition().items}
    assert {"tridentbackendconfigs.trident.netapp.io", "tridentorchestrators.trident.netapp.io"} <= names


def test_build_check_detects_a_corrupted_cache(tmp_path):
    cached = tmp_path / "v1.34.4-m2"
    (cached / "bin").mkdir(parents=True)
    (cached / "bin" / "kube-apiserver").write_text("built\n")
    subprocess.run("sha256sum bin/* > SHA256SUMS", shell=True, cwd=cached, check=True)
    env = dict(os.environ, AIPOD_KUBE_CACHE=str(tmp_path), AIPOD_LAB_KUBE_VERSION="1.34.4")
    build = str(REPO / "lab" / "kubernetes" / "build")
    assert subprocess.run([build, "--check"], env=env, capture_output=True).returncode == 0
    (cached / "bin" / "kube-apiserver").write_text("tampered\n")
    result = subprocess.run([build, "--check"], env=env, capture_output=True, text=True)
    assert result.returncode == 1 and "do not match their checksums" in result.stderr


def test_changed_mount_options_are_previewed_then_replace_the_class(site, cluster):
    # Apply and re-run idempotence on the unchanged model are the molecule scenario's; here the model changes.
    from kubernetes import client

    assert recap(layer(site, "trident.yml").stdout)["changed"] > 0
    cluster["storage"].create_storage_class(client.V1StorageClass(
        metadata=client.V1ObjectMeta(name="standard", annotations={"storageclass.kubernetes.io/is-default-class": "true"}),
        provisioner="example.com/other"))
    edit_trident(site, lambda t: t["storage_classes"][1].update(mount_options=["vers=4.1", "nconnect=8", "hard"]))

    preview = layer(site, "trident.yml", "--check", "--diff")
    assert recap(preview.stdout)["failed"] == 0
    assert "ontap-flexvol (mountOptions changed)" in preview.stdout
    assert "Other default StorageClasses to demote: standard" in preview.stdout
    assert cluster["storage"].read_storage_class("ontap-flexvol").mount_options == [
        "vers=4.1", "nconnect=16", "rsize=262144", "wsize=262144", "hard"]

    applied = layer(site, "trident.yml")
    assert recap(applied.stdout)["changed"] >= 2
    assert cluster["storage"].read_storage_class("ontap-flexvol").mount_options == ["vers=4.1", "nconnect=8", "hard"]
    defaults = [sc.metadata.name for sc in cluster["storage"].list_storage_class().items
                if (sc.metadata.annotations or {}).get("storageclass.kubernetes.io/is-default-class") == "true"]
    assert defaults == ["ontap-flexgroup"]
    again = layer(site, "trident.yml")
    assert recap(again.stdout)["changed"] == 0, again.stdout[-4000:]


def test_a_rerun_applies_only_the_objects_changed_by_hand(site, cluster):
    # The model as the previous test left it, converged: nothing to apply.
    converged = layer(site, "trident.yml")
    assert "Objects to apply: none, every one matches the model" in converged.stdout
    wrong = "not-the-vault-password"
    cluster["storage"].patch_storage_class("ontap-flexgroup", {"allowVolumeExpansion": False})
    cluster["core"].patch_namespaced_secret("trident-ontap-lab-data", "trident", {
        "data": {"password": base64.b64encode(wrong.encode()).decode()}})
    cluster["custom"].patch_cluster_custom_object("snapshot.storage.k8s.io", "v1", "volumesnapshotclasses",
                                                  "csi-snapclass", {"deletionPolicy": "Retain"})
    cluster["custom"].patch_namespaced_custom_object("trident.netapp.io", "v1", "trident", "tridentbackendconfigs",
                                                     "lab-flexvols", {"spec": {"managementLIF": "172.31.253.99",
                                                                               "nfsMountOptions": "vers=3"}})

    preview = layer(site, "trident.yml", "--check", "--diff")
    assert recap(preview.stdout)["failed"] == 0
    for pending in ("Secret/trident-ontap-lab-data (data.password differs)",
                    "TridentBackendConfig/lab-flexvols (spec.managementLIF differs)",
                    "VolumeSnapshotClass/csi-snapclass (deletionPolicy differs)",
                    "StorageClass/ontap-flexgroup (allowVolumeExpansion differs)"):
        assert pending in " ".join(preview.stdout.split()), preview.stdout[-4000:]
    for other in ("Secret/trident-anf", "TridentBackendConfig/lab-flexgroups", "StorageClass/ontap-flexvol"):
        assert other not in " ".join(preview.stdout.split())
    assert wrong not in preview.stdout and base64.b64encode(wrong.encode()).decode() not in preview.stdout
    assert cluster["storage"].read_storage_class("ontap-flexgroup").allow_volume_expansion is False

    applied = layer(site, "trident.yml")
    assert recap(applied.stdout)["changed"] == 4, applied.stdout[-4000:]
    assert cluster["storage"].read_storage_class("ontap-flexgroup").allow_volume_expansion is True
    secret = cluster["core"].read_namespaced_secret("trident-ontap-lab-data", "trident")
    assert base64.b64decode(secret.data["password"]).decode() != wrong
    backend = cluster["custom"].get_namespaced_custom_object("trident.netapp.io", "v1", "trident",
                                                             "tridentbackendconfigs", "lab-flexvols")
    assert backend["spec"]["managementLIF"] != "172.31.253.99"
    # A field the model does not declare is another manager's: an apply would not remove it either.
    assert backend["spec"]["nfsMountOptions"] == "vers=3"
    again = layer(site, "trident.yml")
    assert recap(again.stdout)["changed"] == 0
    assert "Objects to apply: none, every one matches the model" in again.stdout


def test_the_snapshot_api_serves_group_snapshots_v1beta2_and_one_default_class(site, cluster):
    """The bundle's CRDs serve what Trident's csi-snapshotter lists from v8.4 (trident#1114), and a
    second default snapshot class of Trident's driver loses its mark (two defaults fail snapshots)."""
    from kubernetes import client

    cluster["custom"].create_cluster_custom_object("snapshot.storage.k8s.io", "v1", "volumesnapshotclasses", {
        "apiVersion": "snapshot.storage.k8s.io/v1", "kind": "VolumeSnapshotClass", "driver": "csi.trident.netapp.io",
        "deletionPolicy": "Delete", "metadata": {"name": "trident-snapshotclass", "annotations": {
            "snapshot.storage.kubernetes.io/is-default-class": "true"}}})
    preview = layer(site, "trident.yml", "--check", "--diff")
    assert "VolumeSnapshotClass/trident-snapshotclass (marked default beside csi-snapclass)" in " ".join(preview.stdout.split())
    assert recap(layer(site, "trident.yml").stdout)["changed"] >= 1
    groups = {group.name: [v.version for v in group.versions] for group in client.ApisApi(cluster["api"]).get_api_versions().groups}
    assert groups["groupsnapshot.storage.k8s.io"] == ["v1beta2"] and "v1" in groups["snapshot.storage.k8s.io"]
    for plural in ("volumegroupsnapshotclasses", "volumegroupsnapshotcontents"):
        assert cluster["custom"].list_cluster_custom_object("groupsnapshot.storage.k8s.io", "v1beta2", plural)["items"] == []
    classes = cluster["custom"].list_cluster_custom_object("snapshot.storage.k8s.io", "v1", "volumesnapshotclasses")["items"]
    defaults = [c["metadata"]["name"] for c in classes
                if c["metadata"].get("annotations", {}).get("snapshot.storage.kubernetes.io/is-default-class") == "true"]
    assert defaults == ["csi-snapclass"]
    role = client.RbacAuthorizationV1Api(cluster["api"]).read_cluster_role("snapshot-controller-runner")
    assert {"volumegroupsnapshots", "volumegroupsnapshotcontents"} <= {r for rule in role.rules for r in rule.resources}
    again = layer(site, "trident.yml")
    assert recap(again.stdout)["changed"] == 0, again.stdout[-4000:]


def dataset_objects(cluster) -> dict[str, str]:
    """The data set's namespace, PV and claim, by kind and name, with their resourceVersion."""
    found = {f"PersistentVolume/{v.metadata.name}": v.metadata.resource_version
             for v in cluster["core"].list_persistent_volume(label_selector="app.kubernetes.io/managed-by=aipod").items}
    found.update({f"PersistentVolumeClaim/{c.metadata.namespace}/{c.metadata.name}": c.metadata.resource_version
                  for c in cluster["core"].list_persistent_volume_claim_for_all_namespaces(
                      label_selector="app.kubernetes.io/managed-by=aipod").items})
    return found


def bound_claim(cluster, namespace: str, name: str, seconds: int = 60):
    deadline = time.monotonic() + seconds
    while True:
        claim = cluster["core"].read_namespaced_persistent_volume_claim(name, namespace)
        if claim.status.phase == "Bound" or time.monotonic() > deadline:
            return claim
        time.sleep(1)


def test_a_data_set_reaches_its_namespace_as_a_claim_bound_to_its_own_volume(site, cluster):
    """The lab's imagenet data set names namespace vision: the Trident layer gives it a claim that the
    real PV controller binds to a static PV on the data set's volume, never a provisioned one."""
    first = layer(site, "trident.yml")
    assert "Claims: vision/dataset-imagenet" in first.stdout
    claim = bound_claim(cluster, "vision", "dataset-imagenet")
    assert claim.status.phase == "Bound" and claim.spec.volume_name == "dataset-vision-imagenet"
    assert claim.spec.storage_class_name == "" and claim.status.access_modes == ["ReadOnlyMany"]
    volume = cluster["core"].read_persistent_volume("dataset-vision-imagenet")
    assert volume.spec.nfs.path == "/imagenet" and volume.spec.nfs.read_only is True
    assert volume.spec.persistent_volume_reclaim_policy == "Retain" and not volume.spec.storage_class_name
    converged = dataset_objects(cluster)
    again = layer(site, "trident.yml")
    assert recap(again.stdout)["changed"] == 0 and dataset_objects(cluster) == converged
    assert "Nothing differs from the model" in again.stdout

    # A claim deleted by hand comes back, and its PV (Released, holding the old claim's uid) binds it again.
    cluster["core"].delete_namespaced_persistent_volume_claim("dataset-imagenet", "vision")
    deadline = time.monotonic() + 60
    while cluster["core"].read_persistent_volume("dataset-vision-imagenet").status.phase != "Released":
        assert time.monotonic() < deadline, "the PV was not released"
        time.sleep(1)
    preview = layer(site, "trident.yml", "--check", "--diff")
    assert "PersistentVolumeClaim/vision/dataset-imagenet: not in the cluster" in preview.stdout, preview.stdout[-4000:]
    assert "PersistentVolume/dataset-vision-imagenet: released by a deleted claim" in preview.stdout
    mended = layer(site, "trident.yml")
    assert recap(mended.stdout)["changed"] >= 2, mended.stdout[-4000:]
    assert bound_claim(cluster, "vision", "dataset-imagenet").status.phase == "Bound"
    assert recap(layer(site, "trident.yml").stdout)["changed"] == 0

    # A junction path the model moves cannot move a PV: refused, nothing written.
    path = site["inventory"] / "group_vars" / "all" / "datasets.yml"
    original = path.read_text()
    path.write_text(original.replace("namespaces:", "junction_path: /vision-data\n    namespaces:"))
    before = dataset_objects(cluster)
    refused = layer(site, "trident.yml")
    assert refused.returncode != 0
    assert "PersistentVolume/dataset-vision-imagenet: left to an operator: nfs.path /imagenet -> /vision-data" in " ".join(refused.stdout.split()), \
        refused.stdout[-3000:]
    assert "delete the claim and then the PV" in " ".join(refused.stdout.split())
    assert dataset_objects(cluster) == before
    path.write_text(original)


def test_helm_install_is_refused_before_any_change_on_an_old_server(site, cluster):
    """The gate reads the live server's version; the lab's server is made "old" by asking for a newer one."""
    edit_trident(site, lambda t: t.update(install={"method": "helm", "chart_repo": "https://charts.example.invalid",
                                                  "chart_version": "100.2602.1"}))
    version = cluster["version"]
    newer = f"{version.major}.{int(version.minor.rstrip('+')) + 1}"
    before = trident_objects(cluster)
    result = layer(site, "trident.yml", "-e", f"trident_min_kubernetes_version={newer}")
    assert result.returncode != 0
    assert (f"The cluster runs Kubernetes {version.git_version.lstrip('v')}; the Trident operator (helm) needs {newer} "
            "or newer") in result.stdout
    assert recap(result.stdout)["changed"] == 0
    assert trident_objects(cluster) == before
    edit_trident(site, lambda t: t.update(install={"method": "preinstalled"}))


def test_a_trident_version_change_the_install_method_cannot_make_is_refused_before_any_change(site, cluster):
    """The lab's Trident is preinstalled and records TridentVersion 26.02.1, as an installed Trident does."""
    recorded = cluster["custom"].list_namespaced_custom_object("trident.netapp.io", "v1", "trident", "tridentversions")
    assert [item["trident_version"] for item in recorded["items"]] == ["26.02.1"]
    before = trident_objects(cluster)
    # Preinstalled: any other release is refused, older or newer (downgrades and jumps: tests/unit/test_trident_version_step.py).
    for version, reason in (("25.10.0", "Trident 26.02.1 is installed and the model says 25.10.0, but the install method is preinstalled"),
                            ("26.06.0", "the install method is preinstalled: the bundle does not change that Trident")):
        edit_trident(site, lambda t, v=version: t.update(version=v))
        result = layer(site, "trident.yml")
        assert result.returncode != 0
        assert reason in result.stdout, result.stdout[-3000:]
        assert "Nothing has been changed on the cluster." in result.stdout
        assert recap(result.stdout)["changed"] == 0
        assert trident_objects(cluster) == before
    edit_trident(site, lambda t: t.update(version="26.02.1"))
    result = layer(site, "trident.yml", "--check")
    assert result.returncode == 0, result.stdout[-3000:]
    assert "Trident 26.02.1 is installed, as the model says" in result.stdout


def test_verification_without_trident_s_controller_reports_what_it_cannot_check(site, cluster):
    # The lab's kubelets (lab/kubernetes/nodes.py) register every kube_node DGX, Ready with its GPUs.
    # The result is written beside the run reports, wherever the run keeps them.
    reports = site["tmp"] / "reports"
    result = layer(site, "verify_kubernetes.yml", env={"AIPOD_REPORT_ROOT": str(reports)})
    assert result.returncode == 0, result.stdout[-4000:]
    report = json.loads((reports / "kubernetes-verify.json").read_text())
    assert (reports / "latest" / "report.json").exists()
    status = {c["name"]: c["status"] for c in report["checks"]}
    assert report["ok"] is True
    assert status == {"nodes_ready": "pass", "gpus_allocatable": "pass",
                      "backend_online:lab-flexgroups": "not_checked", "backend_online:lab-flexvols": "not_checked",
                      "backend_online:lab-anf": "not_checked",
                      "storage_classes": "pass", "one_default_class": "pass", "snapshot_class": "pass",
                      "dataset_claim vision/dataset-imagenet": "pass", "pvc_bind_snapshot_clone": "not_checked"}


def _stand_in_for_kubelets_and_trident(cluster) -> None:
    """A GPU lost on dgx02 (the lab kubelet's knob), and what Trident's controller would write: backend status, the controller."""
    from kubernetes import client

    subprocess.run([sys.executable, str(REPO / "lab" / "kubernetes" / "nodes.py"), "kubelet", "dgx02", "--gpus", "7"],
                   check=True, capture_output=True)
    deadline = time.monotonic() + 30
    while (cluster["core"].read_node("dgx02").status.allocatable or {}).get("nvidia.com/gpu") != "7":
        assert time.monotonic() < deadline, "the lab kubelet of dgx02 did not report 7 GPUs"
        time.sleep(0.5)
    for backend in ("lab-flexgroups", "lab-flexvols", "lab-anf"):
        cluster["custom"].patch_namespaced_custom_object_status(
            "trident.netapp.io", "v1", "trident", "tridentbackendconfigs", backend,
            {"status": {"phase": "Bound", "lastOperationStatus": "Success", "message": "stand-in"}})
        cluster["custom"].create_namespaced_custom_object(
            "trident.netapp.io", "v1", "trident", "tridentbackends",
            {"apiVersion": "trident.netapp.io/v1", "kind": "TridentBackend", "metadata": {"name": f"tbe-{backend}"},
             "backendName": backend, "state": "online"})
    cluster["apps"].create_namespaced_deployment("trident", client.V1Deployment(
        metadata=client.V1ObjectMeta(name="trident-controller"),
        spec=client.V1DeploymentSpec(
            selector=client.V1LabelSelector(match_labels={"app": "controller.csi.trident.netapp.io"}),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels={"app": "controller.csi.trident.netapp.io"}),
                spec=client.V1PodSpec(containers=[client.V1Container(name="trident-main", image="stand-in")])))))


def test_verification_fails_on_missing_gpus_and_a_pvc_that_never_binds(site, cluster):
    _stand_in_for_kubelets_and_trident(cluster)
    report_path = site["tmp"] / "nodes.json"
    result = layer(site, "verify_kubernetes.yml", "-e", f"verify_kubernetes_report={report_path}",
                   "-e", "verify_kubernetes_pvc_timeout=10")
    assert result.returncode != 0
    assert report_path.exists(), result.stdout[-4000:]
    report = json.loads(report_path.read_text())
    checks = {c["name"]: c for c in report["checks"]}
    assert report["ok"] is False
    assert checks["nodes_ready"]["status"] == "pass"
    assert checks["gpus_allocatable"] == {"name": "gpus_allocatable", "status": "fail", "detail": "dgx02 offers 7 of its 8 GPUs"}
    assert checks["backend_online:lab-flexgroups"]["status"] == "pass"
    # Schedulable nodes and online backends: the PVC workflow runs, and with no provisioner its PVC never binds.
    assert checks["pvc_bind_snapshot_clone"]["status"] == "fail"
    assert "bind" in checks["pvc_bind_snapshot_clone"]["detail"]
    assert [f["name"] for f in report["failures"]] == ["gpus_allocatable", "pvc_bind_snapshot_clone"]
    assert checks["pvc_cleanup"]["status"] == "pass"
    leftovers = [ns.metadata.name for ns in cluster["core"].list_namespace().items if ns.metadata.name.startswith("aipod-verify-")]
    assert leftovers == []


def helm_release_secret(revision: int, status: str) -> dict:
    """A Helm 3 release record as helm's secret driver stores it: JSON, gzip, base64, in a labelled Secret."""
    import gzip

    release = {"name": "trident-operator", "namespace": "trident", "version": revision, "manifest": "",
               "info": {"status": status, "first_deployed": "2026-11-25T10:00:00Z", "last_deployed": "2026-11-25T10:00:00Z",
                        "description": status},
               "chart": {"metadata": {"name": "trident-operator", "version": "100.2602.1", "appVersion": "26.02.1",
                                      "apiVersion": "v2"}}}
    encoded = base64.b64encode(gzip.compress(json.dumps(release).encode())).decode()
    return {"apiVersion": "v1", "kind": "Secret", "type": "helm.sh/release.v1",
            "metadata": {"name": f"sh.helm.release.v1.trident-operator.v{revision}", "namespace": "trident",
                         "labels": {"name": "trident-operator", "owner": "helm", "status": status, "version": str(revision)}},
            "data": {"release": base64.b64encode(encoded.encode()).decode()}}


def helm_history(helm: str) -> list[dict]:
    result = subprocess.run([helm, "history", "trident-operator", "-n", "trident", "-o", "json", "--kubeconfig", str(KUBECONFIG)],
                            capture_output=True, text=True, timeout=120)
    return json.loads(result.stdout) if result.returncode == 0 else []


def _only_these_trident_backends(cluster, names: list[str]) -> None:
    """Earlier tests leave TridentBackend objects behind; each case states the ones it needs."""
    custom = cluster["custom"]
    for backend in custom.list_namespaced_custom_object("trident.netapp.io", "v1", "trident", "tridentbackends")["items"]:
        custom.delete_namespaced_custom_object("trident.netapp.io", "v1", "trident", "tridentbackends",
                                               backend["metadata"]["name"])
    for name in names:
        custom.create_namespaced_custom_object(
            "trident.netapp.io", "v1", "trident", "tridentbackends",
            {"apiVersion": "trident.netapp.io/v1", "kind": "TridentBackend", "metadata": {"name": name},
             "backendName": name, "state": "online"})


@pytest.mark.parametrize("records, backends, outcome", [
    ([(1, "superseded"), (2, "deployed"), (3, "pending-upgrade")], ["tbe-in-use"], "rolled back to 2"),
    ([(1, "pending-install")], [], "removed"),
    ([(1, "pending-install")], ["tbe-in-use"], "refused"),
])
def test_a_helm_release_a_stopped_run_left_pending_is_resolved_and_said(site, cluster, records, backends, outcome):
    """Issue 23: `helm upgrade --install --wait` killed leaves the release pending, and helm refuses
    every later operation; the trident role resolves it before it changes anything, and never
    removes a first install that backends already use."""
    helm = LAB / "bin" / "helm"  # lab/kubernetes/up puts its kubectl and helm there
    assert helm.exists(), "the lab's helm was not built"
    core = cluster["core"]
    try:
        core.create_namespace({"metadata": {"name": "trident"}})
    except Exception:  # noqa: BLE001 - it exists already
        pass
    _only_these_trident_backends(cluster, backends)
    for secret in core.list_namespaced_secret("trident", label_selector="owner=helm").items:
        core.delete_namespaced_secret(secret.metadata.name, "trident")
    for revision, status in records:
        core.create_namespaced_secret("trident", helm_release_secret(revision, status))
    assert helm_history(str(helm))[-1]["status"].startswith("pending-")

    if outcome == "refused":
        for check in (["--check"], []):
            refused = run_playbook(site["tmp"], "-i", "localhost,", "tests/kubernetes/playbooks/helm_pending.yml", *check,
                                   "-e", f"kubeconfig={KUBECONFIG}", "-e", f"helm_binary={helm}", check=False)
            assert refused.returncode == 2, refused.stdout[-3000:]
            assert "1 Trident backend(s) exist" in refused.stdout and "helm uninstall trident-operator" in refused.stdout
            assert helm_history(str(helm))[-1]["status"] == "pending-install"
        _only_these_trident_backends(cluster, [])
        for secret in core.list_namespaced_secret("trident", label_selector="owner=helm").items:
            core.delete_namespaced_secret(secret.metadata.name, "trident")
        return

    preview = run_playbook(site["tmp"], "-i", "localhost,", "tests/kubernetes/playbooks/helm_pending.yml", "--check",
                           "-e", f"kubeconfig={KUBECONFIG}", "-e", f"helm_binary={helm}")
    assert "would " in preview.stdout and helm_history(str(helm))[-1]["status"].startswith("pending-")

    result = run_playbook(site["tmp"], "-i", "localhost,", "tests/kubernetes/playbooks/helm_pending.yml",
                          "-e", f"kubeconfig={KUBECONFIG}", "-e", f"helm_binary={helm}")
    history = helm_history(str(helm))
    if outcome == "removed":
        assert history == [] and "remove it (it never deployed)" in result.stdout
    else:
        assert history[-1]["status"] == "deployed" and "Rollback to 2" in history[-1]["description"]
        assert "roll it back to revision 2" in result.stdout
    again = run_playbook(site["tmp"], "-i", "localhost,", "tests/kubernetes/playbooks/helm_pending.yml",
                         "-e", f"kubeconfig={KUBECONFIG}", "-e", f"helm_binary={helm}")
    assert recap(again.stdout)["changed"] == 0
    for secret in core.list_namespaced_secret("trident", label_selector="owner=helm").items:
        core.delete_namespaced_secret(secret.metadata.name, "trident")
    _only_these_trident_backends(cluster, [])
