"""DeepOps' inventory and group_vars generated from the sample site: golden files, and what Ansible reads from them.

Set AIPOD_UPDATE_GOLDEN=1 to rewrite tests/golden/deepops/sample/ after an intended change.
"""
from __future__ import annotations

import json
import os
import pathlib
import subprocess

import pytest
from kubernetes_helpers import BIN, REPO, run_playbook

GOLDEN = REPO / "tests" / "golden" / "deepops" / "sample"
FILES = ("inventory", "group_vars/all/50-aipod.yml", "group_vars/k8s_cluster/50-aipod.yml", "group_vars/aipod_gpu_nodes/50-aipod.yml")


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> pathlib.Path:
    tmp = tmp_path_factory.mktemp("deepops-render")
    out = tmp / "config"
    run_playbook(tmp, "-i", "inventories/sample", "tests/kubernetes/playbooks/render_deepops.yml", "-e", f"render_dir={out}")
    return out


@pytest.mark.parametrize("name", FILES)
def test_matches_golden(rendered, name):
    produced = (rendered / name).read_text()
    golden = GOLDEN / name
    if os.environ.get("AIPOD_UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(produced)
    assert produced == golden.read_text(), f"{name} differs from {golden} (AIPOD_UPDATE_GOLDEN=1 rewrites it)"


def test_ansible_inventory_reads_the_generated_inventory(rendered, tmp_path):
    # Ansible's defaults, not the bundle's configuration: only what DeepOps' Ansible would see.
    (tmp_path / "ansible.cfg").write_text("[defaults]\n")
    result = subprocess.run([str(BIN / "ansible-inventory"), "-i", str(rendered / "inventory"), "--list"],
                            cwd=rendered, capture_output=True, text=True, check=True,
                            env=dict(os.environ, ANSIBLE_CONFIG=str(tmp_path / "ansible.cfg"),
                                     ANSIBLE_INVENTORY_UNPARSED_FAILED="true"))
    inventory = json.loads(result.stdout)
    assert inventory["kube_control_plane"]["hosts"] == ["k8s-cp01", "k8s-cp02", "k8s-cp03"]
    assert inventory["etcd"]["hosts"] == ["k8s-cp01", "k8s-cp02", "k8s-cp03"]
    assert inventory["kube_node"]["hosts"] == ["dgx01", "dgx02", "dgx03", "dgx04"]
    assert sorted(inventory["k8s_cluster"]["children"]) == ["kube_control_plane", "kube_node"]
    dgx01 = inventory["_meta"]["hostvars"]["dgx01"]
    # Connection from the bundle's inventory, ip (Kubernetes' address) from the model's in-band NIC.
    assert (dgx01["ansible_host"], dgx01["ansible_user"], dgx01["ip"]) == ("10.61.218.101", "ubuntu", "10.61.219.101")
    # group_vars beside the inventory are read too: the bundle's layer for k8s_cluster and all.
    assert dgx01["kubeconfig_localhost"] is True and dgx01["kubectl_localhost"] is False
    assert dgx01["k8s_nfs_client_provisioner"] is False
    assert dgx01["users"] == [{"username": "aipod", "name": "aipod", "uid": 2000, "group": "aipod", "home": "/home/aipod"}]
    assert dgx01["groups_to_create"] == [{"name": "aipod", "gid": 2000}]
    assert dgx01["kube_pods_subnet"] == "10.233.64.0/18"
    # The nvidia runtime as Kubespray declares runtimes, with runc's cgroup setting left for Kubespray to fill,
    # on the DGX workers only: the control plane has no NVIDIA runtime to default to.
    assert inventory["aipod_gpu_nodes"]["hosts"] == ["dgx01", "dgx02", "dgx03", "dgx04"]
    assert (dgx01["containerd_default_runtime"], dgx01["enable_cdi"]) == ("nvidia", True)
    nvidia = dgx01["containerd_additional_runtimes"][0]
    assert nvidia["options"]["SystemdCgroup"] == "{{ containerd_use_systemd_cgroup | ternary('true', 'false') }}"
    control_plane = inventory["_meta"]["hostvars"]["k8s-cp01"]
    assert "containerd_default_runtime" not in control_plane and "containerd_additional_runtimes" not in control_plane
