"""Data sets on a fresh lab cluster the storage layer converged.

The DataOps Toolkit on the control node: playbooks/dataops_toolkit.yml installs the real toolkits
from PyPI, configures the traditional one from the model with its least-privilege account, and a
data scientist's commands then work as that account. A second run changes nothing; no file of the
toolkit holds the cluster admin's password.

A data set that leaves the model: the storage layer names its volume and leaves it, with its data
and versions. A data set its aggregates cannot hold stops the layer before any change."""
from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess

import pytest
import yaml
from project_paths import LAB_VAULT_PASSWORD, REPO, make_decryptor

pytestmark = [pytest.mark.lab, pytest.mark.slow]
BIN = REPO / ".venv" / "bin"


def test_a_data_set_its_aggregates_cannot_hold_stops_the_layer_before_any_change(private_lab):
    """On a factory cluster (this module's first test): the aggregates' space is read before the roles
    ahead of ontap_flexgroups make the SVM, so the refusal finds nothing made, and it names the line."""
    path = private_lab.inventory / "group_vars" / "all" / "datasets.yml"
    original = path.read_text()
    data = yaml.safe_load(original)
    data["datasets"][0].update(size="200TB", max_size="300TB")  # the lab's two aggregates hold 2 x 66.7 TiB
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    try:
        rc, recap, output = private_lab.play()
    finally:
        path.write_text(original)
    assert rc != 0
    flat = " ".join(output.split())
    assert "more than its aggregates (lab_ontap_01_ssd_1, lab_ontap_02_ssd_1) hold in all (133.31 TiB)" in flat, output[-3000:]
    assert re.search(r"lower datasets\[0\]\.size \(\S*group_vars/all/datasets\.yml:[0-9]+\)", flat), flat[-2000:]
    assert recap["lab-ontap"]["changed"] == 0
    assert [svm["name"] for svm in private_lab.records("/api/svm/svms")] == []


@pytest.fixture(scope="module")
def converged(private_lab):
    rc, _recap, output = private_lab.play()
    assert rc == 0, output[-3000:]
    return private_lab


@pytest.fixture(scope="module")
def scientist(tmp_path_factory):
    """A user's home of their own; pip keeps the machine's cache (a cold one would download everything)."""
    home = tmp_path_factory.mktemp("scientist")
    cache = os.environ.get("PIP_CACHE_DIR") or str(pathlib.Path.home() / ".cache" / "pip")
    env = {key: value for key, value in os.environ.items() if not key.startswith("XDG_")}
    return {"home": home, "env": dict(env, HOME=str(home), PIP_CACHE_DIR=cache)}


def toolkit_playbook(lab, scientist, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "ansible-playbook"), "-i", str(lab.inventory / "hosts.yml"),
                           str(REPO / "playbooks" / "dataops_toolkit.yml"), *args],
                          env=dict(lab.env, HOME=scientist["env"]["HOME"], PIP_CACHE_DIR=scientist["env"]["PIP_CACHE_DIR"]),
                          cwd=REPO, capture_output=True, text=True, timeout=900)


def cli(scientist, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(scientist["home"] / ".netapp_dataops" / "venv-traditional" / "bin" / "netapp_dataops_cli.py"),
                           *args], env=scientist["env"], capture_output=True, text=True, timeout=120)


def test_the_toolkit_is_installed_configured_and_works_as_its_own_account(converged, scientist):
    first = toolkit_playbook(converged, scientist)
    assert first.returncode == 0, first.stdout[-4000:] + first.stderr[-2000:]
    assert "The DataOps Toolkit works on SVM lab-data as dataops: it lists the 1 data set(s) of the SVM" in " ".join(first.stdout.split())
    toolkit = scientist["home"] / ".netapp_dataops"
    assert (toolkit / "venv-k8s" / "bin" / "netapp_dataops_k8s_cli.py").exists()
    config = json.loads((toolkit / "config.json").read_text())
    assert config["svm"] == "lab-data" and config["hostname"] == f"127.0.10.1:{converged.port}"
    assert config["sslCertPath"].endswith(".lab/ontap/pki/ca.pem") and "password" not in config
    assert oct((toolkit / "config.json").stat().st_mode & 0o777) == "0o600"

    # As a data scientist would: a version of the data set, listed, then restored.
    created = cli(scientist, "create", "snapshot", "--volume=imagenet", "--name=before-training")
    assert created.returncode == 0, created.stdout + created.stderr
    listed = cli(scientist, "list", "snapshots", "--volume=imagenet")
    # The toolkit prints its tables through its logger, on standard error.
    assert listed.returncode == 0 and "before-training" in listed.stdout + listed.stderr, listed.stdout + listed.stderr
    # An experiment's own copy of that version, made in an instant (a FlexClone volume).
    cloned = cli(scientist, "clone", "volume", "--name=imagenet_exp1", "--source-volume=imagenet",
                 "--source-snapshot=before-training")
    assert cloned.returncode == 0, cloned.stdout + cloned.stderr
    assert any(v["name"] == "imagenet_exp1" and (v.get("clone") or {}).get("is_flexclone")
               for v in converged.records("/api/storage/volumes?fields=clone"))
    restored = cli(scientist, "restore", "snapshot", "--volume=imagenet", "--name=before-training", "--force")
    assert restored.returncode == 0, restored.stdout + restored.stderr
    # The least-privilege role refuses what the toolkit has no business doing.
    from ontap_lab.cli import LabClient

    vault = converged.inventory / "group_vars" / "all" / "vault.yml"
    secrets = yaml.safe_load(make_decryptor(LAB_VAULT_PASSWORD)(vault.read_text(), str(vault)))
    dataops = LabClient(converged.client().settings, "dataops", secrets["vault_ontap_dataops_password"])
    assert dataops.request("GET", "/api/storage/volumes")[0] == 200
    assert dataops.request("POST", "/api/svm/svms", {"name": "not-for-dataops"})[0] == 403
    admin_password = secrets["vault_ontap_admin_password"]
    for path in toolkit.rglob("*"):
        if path.is_file() and "venv-" not in str(path):
            assert admin_password not in path.read_text(errors="replace"), path

    again = toolkit_playbook(converged, scientist)
    assert again.returncode == 0 and "changed=0" in again.stdout, again.stdout[-3000:]
    preview = toolkit_playbook(converged, scientist, "--check")
    assert preview.returncode == 0 and "changed=0" in preview.stdout, preview.stdout[-3000:]


def test_a_data_set_that_leaves_the_model_is_reported_and_kept(converged):
    path = converged.inventory / "group_vars" / "all" / "datasets.yml"
    original = path.read_text()
    path.write_text("---\ndatasets: []\n")
    try:
        mark = converged.client().request("GET", "/lab/mark")[1]["last"]
        rc, recap, output = converged.play()
        assert rc == 0 and recap["lab-ontap"]["changed"] == 0, output[-3000:]
        assert ("Data set volume(s) no longer in the site model, left with their data and versions: lab-data:imagenet"
                in " ".join(output.split())), output[-3000:]
        assert converged.client().request("GET", f"/lab/counters?since={mark}")[1]["writes"] == 0
        volumes = {v["name"]: v for v in converged.records("/api/storage/volumes?fields=comment,snapshot_policy")}
        assert volumes["imagenet"]["comment"] == "aipod data set imagenet"
        assert "dataset_imagenet" in {p["name"] for p in converged.records("/api/storage/snapshot-policies")}
    finally:
        path.write_text(original)
    rc, recap, output = converged.play()
    assert rc == 0 and recap["lab-ontap"]["changed"] == 0 and "no longer in the site model" not in output, output[-3000:]


def test_harvest_reads_the_whole_cluster_and_writes_nothing(converged):
    """Harvest's account (monitoring.harvest.account): the cluster-scoped read-only role its docs give."""
    from ontap_lab.cli import LabClient

    vault = converged.inventory / "group_vars" / "all" / "vault.yml"
    secrets = yaml.safe_load(make_decryptor(LAB_VAULT_PASSWORD)(vault.read_text(), str(vault)))
    harvest = LabClient(converged.client().settings, "harvest", secrets["vault_ontap_harvest_password"])
    # What its REST collectors poll: across the cluster, not one SVM.
    for path in ("/api/cluster", "/api/cluster/nodes", "/api/storage/aggregates", "/api/storage/volumes",
                 "/api/network/ip/interfaces", "/api/svm/svms", "/api/snapmirror/relationships"):
        status, body = harvest.request("GET", path)
        assert status == 200, (path, body)
    names = {v["name"] for v in harvest.request("GET", "/api/storage/volumes?fields=name")[1]["records"]}
    assert {"data", "home", "imagenet"} <= names
    assert harvest.request("POST", "/api/svm/svms", {"name": "not-for-harvest"})[0] == 403
    volume = converged.records("/api/storage/volumes?name=imagenet&fields=uuid")[0]
    assert harvest.request("PATCH", f"/api/storage/volumes/{volume['uuid']}", {"comment": "x"})[0] == 403
    assert harvest.request("GET", "/api/name-services/dns")[0] == 403  # a path its role does not list
