"""Files a site model names (its CA bundle, a kubeconfig) are never parsed as inventory."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from project_paths import REPO, SAMPLE

BIN = Path(sys.executable).parent


def graph(source: Path, config: Path) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if not key.startswith("ANSIBLE_")}
    env.update(ANSIBLE_NOCOLOR="1", ANSIBLE_CONFIG=str(config))
    return subprocess.run([str(BIN / "ansible-inventory"), "-i", str(source), "--graph"], cwd=config.parent, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def no_config(tmp_path) -> Path:
    """An empty ansible.cfg somewhere else: Ansible's defaults, as when the project's is not read."""
    (tmp_path / "ansible.cfg").write_text("[defaults]\n")
    return tmp_path / "ansible.cfg"


def test_the_sample_keeps_files_that_are_no_inventory():
    assert (SAMPLE / "files" / "ontap-ca.pem").is_file()


@pytest.mark.parametrize("config", ["the project's ansible.cfg", "no ansible.cfg"])
def test_the_hosts_file_reads_the_model_and_nothing_else(config, no_config):
    """How the docs give -i: the hosts file. group_vars beside it are read; files/ is never tried."""
    result = graph(SAMPLE / "hosts.yml", REPO / "ansible.cfg" if config != "no ansible.cfg" else no_config)
    assert result.returncode == 0, result.stderr
    assert "dgx04" in result.stdout and "WARNING" not in result.stderr, result.stderr


def test_the_directory_with_the_projects_config_leaves_files_alone():
    result = graph(SAMPLE, REPO / "ansible.cfg")
    assert result.returncode == 0 and "WARNING" not in result.stderr, result.stderr


def test_without_the_config_a_directory_would_parse_the_ca_bundle(no_config):
    """Why the docs name the hosts file: a directory alone makes Ansible try every file in it."""
    result = graph(SAMPLE, no_config)
    assert "ontap-ca.pem" in result.stderr
