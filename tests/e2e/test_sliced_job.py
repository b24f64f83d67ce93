"""A sliced AWX job on the lab (lab/ee/sliced_job.py): each slice's inventory as AWX builds it, the slices
side by side with ansible-runner, sharing the site's run lock; the whole model in every slice, the
shared layers left to the job that runs before the sliced one (docs/execution-environment.md)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from lab_support import BIN, lab, playbook, recap
from project_paths import LAB, REPO

sys.path.insert(0, str(REPO / "lab" / "ee"))
import sliced_job  # noqa: E402

pytestmark = [pytest.mark.lab, pytest.mark.slow]
SHARED_PLAYS = ("Configure the switches", "Storage - configure the ONTAP cluster from the site model", "Kubernetes cluster",
                "Trident", "Verify - switches", "Verify - storage", "Verify - Kubernetes and Trident")


@pytest.fixture(scope="module")
def started_lab():
    started = lab("start")
    assert started.returncode == 0, started.stdout + started.stderr


def run_sliced(work, playbook_name, slices=2):
    result = subprocess.run([sys.executable, str(REPO / "lab" / "ee" / "sliced_job.py"), "--slices", str(slices),
                             "--playbook", playbook_name, "--work", str(work)], cwd=REPO, capture_output=True, text=True,
                            timeout=1800, env=dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}"))
    try:
        return result.returncode, json.loads(result.stdout)
    except ValueError:
        pytest.fail(result.stdout[-3000:] + result.stderr[-3000:])


def logs(outcome):
    return [open(entry["log"]).read() for entry in outcome["slices"]]


def test_the_slices_run_side_by_side_each_on_its_own_dgx(started_lab, tmp_path):
    dgx = json.loads(subprocess.run([str(BIN / "ansible-inventory"), "-i", str(LAB), "--list"], cwd=REPO, capture_output=True,
                                    text=True, check=True, env=dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"))).stdout)
    everyone = sorted(dgx["_meta"]["hostvars"])
    rc, first = run_sliced(tmp_path / "first", "playbooks/compute.yml")
    assert rc == 0, [text[-3000:] for text in logs(first)]
    rc, outcome = run_sliced(tmp_path / "again", "playbooks/compute.yml")
    assert rc == 0, [text[-3000:] for text in logs(outcome)]
    for entry, text in zip(outcome["slices"], logs(outcome)):
        # AWX's share: the hosts sorted by name, every second one.
        assert entry["hosts"] == everyone[entry["number"] - 1::2]
        own_dgx = {host for host in entry["hosts"] if host.startswith("dgx")}
        assert set(entry["recap"]) == own_dgx | {"localhost"}, entry["recap"]
        assert not any(counts["changed"] or counts["failed"] for counts in entry["recap"].values()), entry["recap"]
        # The whole model was read: the other slices' hosts joined as model data.
        others = set(everyone) - set(entry["hosts"])
        assert all(f"(item={host})" in text for host in others), text[-3000:]
    # Both slices held the site's lock at once, as members of one sliced job, and both reached their end.
    record = outcome["lock_record"]
    assert record["slice_group"] == str(sliced_job.WORKFLOW_JOB_ID) and len(record["members"]) == 2, record
    assert record["finished"] and record["outcome"] == "ok" and all(member["outcome"] == "ok" for member in record["members"])
    # What the slices converged is what a whole run plans: an unsliced run changes nothing.
    whole = playbook("-i", str(LAB / "hosts.yml"), "playbooks/compute.yml",
                     env={"ANSIBLE_VAULT_IDENTITY_LIST": f"lab@{LAB / 'vault-password.txt'}"})
    hosts = recap(whole.stdout)
    assert whole.returncode == 0 and hosts and not any(c["changed"] or c["failed"] for c in hosts.values()), whole.stdout[-3000:]


def test_a_sliced_site_run_skips_the_shared_layers_and_verifies_its_own_dgx(started_lab, tmp_path):
    rc, outcome = run_sliced(tmp_path, "playbooks/site.yml")
    assert rc == 0, [text[-3000:] for text in logs(outcome)]
    for entry, text in zip(outcome["slices"], logs(outcome)):
        for play in SHARED_PLAYS:
            header = text.index(f"PLAY [{play}]")
            section = text[header + 1:].split("PLAY [", 1)[0]
            assert "skipping: no hosts matched" in section and "TASK [" not in section, section
        assert "PLAY [Verify - DGX nodes]" in text and set(entry["recap"]) <= set(entry["hosts"]) | {"localhost"}
        reports = sorted((sliced_job_dir(entry) / "reports").glob("*-site/report.json"))
        verification = json.loads(reports[-1].read_text())["verification"]
        assert verification["exit_code"] in (0, 2) and not verification.get("failures"), verification
        checked = {check.get("host") for check in verification.get("checks", []) if check.get("host")}
        assert checked and checked <= set(entry["hosts"]) | {"localhost"}, checked


def sliced_job_dir(entry):
    return REPO / os.path.dirname(entry["log"])


def test_a_slice_holding_a_host_the_model_lacks_changes_nothing(started_lab, tmp_path):
    document = sliced_job.exported_inventory(LAB)
    document["dgx"]["hosts"].append("dgx99")
    document["_meta"]["hostvars"]["dgx99"] = dict(document["_meta"]["hostvars"]["dgx01"])
    directory = tmp_path / "slice1"
    sliced_job.prepare_slice(directory, document, 1, 2, tmp_path / "locks")
    process = sliced_job.start_slice(directory, "playbooks/compute.yml", check=False)
    assert process.wait(timeout=600) != 0
    text = (directory / "output.log").read_text()
    assert "host 'dgx99', which the site model" in text, text[-3000:]
    assert "PLAY [Compute - configure the DGX nodes from the site model]" not in text
    assert not list((tmp_path / "locks").glob("*.run.json"))
