"""Validation runs whatever --limit and --tags select, checks the whole model, and a broken model stops a
limited run before any host is contacted (the sample's hosts are unreachable documentation addresses,
so any contact would show as UNREACHABLE)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
import yaml
from project_paths import REPO, SAMPLE, SAMPLE_VAULT_PASSWORD

BIN = sys.executable.rsplit("/", 1)[0]


@pytest.fixture(scope="module")
def password(tmp_path_factory):
    path = tmp_path_factory.mktemp("vault") / "sample-vault-password"
    path.write_bytes(SAMPLE_VAULT_PASSWORD + b"\n")
    return path


@pytest.fixture(scope="module")
def broken_sample(tmp_path_factory):
    """The sample with dgx02's first storage address equal to dgx01's: an error on a host the runs below do not select."""
    inventory = tmp_path_factory.mktemp("broken") / "sample"
    shutil.copytree(SAMPLE, inventory)
    first = yaml.safe_load((inventory / "host_vars" / "dgx01.yml").read_text())
    second_path = inventory / "host_vars" / "dgx02.yml"
    second = yaml.safe_load(second_path.read_text())
    second["dgx"]["storage_nics"][0]["address"] = first["dgx"]["storage_nics"][0]["address"]
    second_path.write_text("---\n" + yaml.safe_dump(second, sort_keys=False))
    return inventory


def playbook(password, inventory, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1")
    return subprocess.run([f"{BIN}/ansible-playbook", "-i", str(inventory), "--vault-id", f"sample@{password}", *args],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("layer", ["compute", "switches", "storage", "trident", "site"])
def test_a_limited_run_lists_the_validation_play_with_the_limited_host(password, layer):
    result = playbook(password, SAMPLE, f"playbooks/{layer}.yml", "--limit", "dgx03", "--list-hosts")
    assert result.returncode == 0, result.stdout + result.stderr
    validation = result.stdout.split("Validate the site model", 1)[1].split("play #", 1)[0]
    assert "hosts (1):" in validation and "dgx03" in validation, result.stdout


@pytest.mark.parametrize("selection", [["--limit", "dgx03"], ["--limit", "dgx03", "--tags", "compute"],
                                       ["--tags", "compute"], ["--limit", "dgx03:dgx04", "--tags", "mounts"]])
def test_a_broken_model_stops_a_limited_run_before_any_host_is_contacted(password, broken_sample, selection):
    result = playbook(password, broken_sample, "playbooks/compute.yml", *selection)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-3000:]
    assert "duplicate" in output and "dgx02" in output, output[-3000:]
    assert "UNREACHABLE" not in output and "TASK [ontap_ai.pod.dgx_node" not in output, output[-3000:]
