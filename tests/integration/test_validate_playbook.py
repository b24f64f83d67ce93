"""validate.yml and site.yml through ansible-playbook: a bad site stops before anything is contacted."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from corpus import CORPUS, build_case
from project_paths import LAB, REPO, SAMPLE, SAMPLE_VAULT_PASSWORD

BIN = os.path.dirname(sys.executable)


def run(args, tmp_path, extra_env=None):
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0",
               ANSIBLE_LOCAL_TEMP=str(tmp_path / "tmp"), ANSIBLE_HOME=str(tmp_path / "home"))
    env.update(extra_env or {})
    return subprocess.run([os.path.join(BIN, args[0])] + args[1:], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture
def sample_vault_args(tmp_path):
    password_file = tmp_path / "sample-vault-password"
    password_file.write_bytes(SAMPLE_VAULT_PASSWORD)
    return ["--vault-id", f"sample@{password_file}"]


def test_site_with_a_broken_model_stops_at_validation(tmp_path):
    inventory = build_case(CORPUS / "nic-outside-subnet.yml", tmp_path)
    result = run(["ansible-playbook", "-i", str(inventory), "playbooks/site.yml"], tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "host_vars/dgx01.yml:" in result.stdout
    assert "dgx01: dgx.storage_nics[0].address" in result.stdout
    assert "Deploy the pod" not in result.stdout  # the play after validation never started
    assert "PLAY RECAP" in result.stdout and "localhost                  : ok=0" in result.stdout


def test_validate_playbook_passes_on_the_sample(tmp_path, sample_vault_args):
    result = run(["ansible-playbook", "-i", str(SAMPLE), *sample_vault_args, "playbooks/validate.yml"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ratio 6.86" in result.stdout


def test_filters_see_the_model_through_hostvars(tmp_path, sample_vault_args):
    expression = ("{{ hostvars | ontap_ai.pod.aipod_model(groups) | ontap_ai.pod.aipod_mount_plan('dgx02') | map(attribute='src') | list "
                  "| to_json }}")
    result = run(["ansible", "-i", str(SAMPLE), *sample_vault_args, "localhost", "-m", "ansible.builtin.debug",
                  "-a", f"msg={expression}"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.dumps(["100.127.111.105:/data", "100.127.112.101:/home_vol"]) in result.stdout.replace("'", '"')


@pytest.mark.lab
def test_lab_site_run_is_valid_and_says_what_it_did(tmp_path):
    # The lab inventory names the CA the lab's ONTAP endpoint generates when it starts.
    started = subprocess.run([str(REPO / "lab" / "lab"), "start", "ontap"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert started.returncode == 0, started.stdout + started.stderr
    result = run(["ansible-playbook", "-i", str(LAB), "playbooks/validate.yml"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "data_lifs: 8" in result.stdout
