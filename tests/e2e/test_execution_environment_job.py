"""The execution environment, built offline from execution-environment.yml, runs the site as an AWX job does
(lab/ee/ee_check.py, also scripts/ee-check.sh): ansible-runner transmit | worker in the image | process,
the exported inventory behind an inventory script, the vault password answered at its prompt, and
ansible-navigator with the repository's ansible-navigator.yml validating in the same image."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from project_paths import REPO

pytestmark = [pytest.mark.lab, pytest.mark.slow, pytest.mark.release_check]


def test_the_site_runs_as_an_awx_job_in_the_image_built_here():
    result = subprocess.run([sys.executable, str(REPO / "lab" / "ee" / "ee_check.py"), "--keep"], cwd=REPO,
                            capture_output=True, text=True, timeout=2400, env=dict(os.environ))
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-5000:]
    assert "ee-check: passed" in output
    job = REPO / ".cache" / "ee-check" / "job"
    log = (REPO / ".cache" / "ee-check" / "job.log").read_text()
    # AWX's shapes, as the job saw them: the vault prompt answered from env/passwords, the machine
    # credential in an agent, the inventory from the script, and the report written to the job's volume.
    assert "Vault password (lab):" in log and "Identity added" in log
    reports = sorted((job.parent / "job-reports").glob("*-site/report.json"))
    verification = json.loads(reports[-1].read_text())["verification"] if reports else {}
    assert verification.get("exit_code") in (0, 2) and not verification.get("failures"), verification
    events = list((job / "artifacts" / "job" / "job_events").glob("*.json"))
    assert events, "ansible-runner process wrote no job events"
    image = subprocess.run(["podman", "image", "inspect", "--format", "{{index .Labels \"ansible-execution-environment\"}}",
                            "localhost/aipod-ee:latest"], capture_output=True, text=True,
                           env=dict(os.environ, CONTAINERS_CONF=str(REPO / ".lab" / "podman" / "containers.conf")))
    assert image.stdout.strip() == "true", image.stderr
