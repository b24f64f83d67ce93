"""The whole site from the inventory as AWX gives it to a job: the lab's inventory exported with
ansible-inventory --list --export and served by an executable script, no inventory directory."""
from __future__ import annotations

import json
import os
import subprocess

import pytest
from lab_support import BIN, LAB_DIR, hand_on_converged, lab, last_report, playbook, recap, run_proves_converged
from project_paths import LAB, REPO

pytestmark = [pytest.mark.lab, pytest.mark.slow]


@pytest.fixture(scope="module")
def awx_inventory(tmp_path_factory):
    started = lab("start")
    assert started.returncode == 0, started.stdout + started.stderr
    work = tmp_path_factory.mktemp("awx")
    exported = subprocess.run([str(BIN / "ansible-inventory"), "-i", str(LAB), "--list", "--export"], cwd=REPO,
                              env=dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg")), capture_output=True, text=True,
                              timeout=120, check=True).stdout
    document = work / "export.json"
    document.write_text(exported)
    script = work / "hosts"
    script.write_text(f"#!/bin/sh\n[ \"$1\" = --list ] && exec cat '{document}'\necho '{{}}'\n")
    script.chmod(0o755)
    return script, json.loads(exported)


def test_the_export_has_no_inventory_directory_behind_it(awx_inventory):
    script, document = awx_inventory
    assert "pod" in document["all"]["vars"] and not (script.parent / "group_vars").exists()


def test_the_site_runs_from_the_awx_inventory_script(awx_inventory):
    script, _document = awx_inventory
    # The lab's own connection settings find its keys from the inventory directory, which a job does
    # not have; AIPOD_LAB_DIR names the lab. The model's files (the ONTAP CA, the kubeconfig) come
    # from the site's files directory.
    # The script inventory plugin is on, as in the execution environment AWX runs its jobs in.
    result = playbook("-i", str(script), "playbooks/site.yml",
                      env={"AIPOD_LAB_DIR": str(LAB_DIR), "AIPOD_SITE_FILES_DIR": str(LAB),
                           "ANSIBLE_INVENTORY_ENABLED": "ansible.builtin.script,ansible.builtin.yaml"})
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-5000:]
    hosts = recap(output)
    assert {"lab-ontap", "lab-sw-a", "dgx01", "localhost"} <= set(hosts), hosts
    assert not any(counts["failed"] or counts["unreachable"] for counts in hosts.values()), hosts
    assert last_report()["verification"]["exit_code"] in (0, 2), last_report()["verification"]
    assert "reaches this run in plain text through the inventory" in output
    if run_proves_converged(output):  # the same model as the lab's inventory: the lab is converged
        hand_on_converged("test_exported_inventory_run: the site run from the export changed nothing")
