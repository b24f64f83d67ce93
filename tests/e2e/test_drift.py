"""The drift report on the lab: a converged pod is clean; changes made by hand on a switch, the ONTAP
cluster, a DGX and the cluster's Trident objects are each named per device and object, with the
documented exit codes; nothing is changed by the report; a site run puts the model back.

The hand edits go through the real clients (cisco.nxos over SSH, netapp.ontap over REST, a shell
on the DGX, kubernetes.core against the API server), as an operator's would.
"""
from __future__ import annotations

import json
import os
import subprocess

import pytest
from lab_support import BIN, REPO, lab, last_report, ontap_ctl, playbook, recap, switch_states

from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending

pytestmark = [pytest.mark.lab, pytest.mark.release_check]

HAND_EDITS = """\
- name: Change a switch port by hand
  hosts: lab-sw-a
  gather_facts: false
  tasks:
    - name: Describe Ethernet1/3 otherwise
      cisco.nxos.nxos_config:
        lines: [description spare port]
        parents: interface Ethernet1/3

- name: Change a FlexGroup by hand
  hosts: lab-ontap
  gather_facts: false
  environment:
    REQUESTS_CA_BUNDLE: "{{ inventory_dir }}/{{ ontap.ca_file }}"
  tasks:
    - name: Give the FlexGroup data a snapshot policy the model does not
      netapp.ontap.na_ontap_volume:
        hostname: "{{ ontap.mgmt_address }}"
        http_port: "{{ ontap.https_port }}"
        username: admin
        password: "{{ vault_ontap_admin_password }}"
        validate_certs: true
        use_rest: always
        vserver: lab-data
        name: data
        snapshot_policy: default

- name: Change a DGX by hand
  hosts: dgx02
  gather_facts: false
  tasks:
    - name: Give the common user another shell
      ansible.builtin.user:
        name: aipod
        shell: /bin/sh

- name: Change a Trident object by hand
  hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - name: Turn the default StorageClass's volume expansion off
      kubernetes.core.k8s:
        kubeconfig: "{{ hostvars[groups['ontap'][0]].inventory_dir }}/{{ kubernetes.existing.kubeconfig }}"
        api_version: storage.k8s.io/v1
        kind: StorageClass
        name: ontap-flexgroup
        state: patched
        definition:
          allowVolumeExpansion: false
"""


def drift_script(*args: str) -> subprocess.CompletedProcess:
    environment = dict(os.environ, ANSIBLE_NOCOLOR="1", PATH=f"{BIN}:{os.environ.get('PATH', '')}")
    return subprocess.run([str(REPO / "scripts" / "drift.sh"), *args], cwd=REPO, env=environment, capture_output=True,
                          text=True, timeout=1800)


@pytest.fixture(scope="module")
def converged_lab():
    started = lab("start")
    assert started.returncode == 0, started.stdout + started.stderr
    site = playbook("playbooks/site.yml")
    assert site.returncode == 0, site.stdout[-4000:] + site.stderr[-2000:]


def test_a_converged_pod_has_no_drift(converged_lab):
    run = drift_script()
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    drift = last_report()["drift"]
    assert drift["status"] == "clean" and drift["differences"] == 0
    # Every device of every layer was read; Kubernetes too (the lab adopts its API server).
    assert {(d["layer"], d["device"]) for d in drift["devices"]} == {
        ("switches", "lab-sw-a"), ("switches", "lab-sw-b"), ("storage", "lab-ontap"),
        *{("compute", f"dgx0{n}") for n in range(1, 5)}, ("kubernetes", "localhost")}
    assert all(counts["changed"] == 0 for counts in recap(run.stdout).values())


def test_hand_edits_are_named_per_device_and_object_and_left_alone(converged_lab, tmp_path):
    edits = tmp_path / "hand-edits.yml"
    edits.write_text(HAND_EDITS)
    made = playbook("-i", "inventories/lab", str(edits))
    assert made.returncode == 0, made.stdout[-4000:] + made.stderr[-2000:]
    switches, ontap_before = switch_states(), ontap_ctl("export")

    run = drift_script()
    assert run.returncode == 1, run.stdout[-4000:] + run.stderr[-2000:]
    assert "drift: drifted from the site model (exit 1)" in run.stdout
    drift = last_report()["drift"]
    drifted = {(d["layer"], d["device"]): d["differences"] for d in drift["devices"] if d["status"] == "drifted"}
    assert set(drifted) == {("switches", "lab-sw-a"), ("storage", "lab-ontap"), ("compute", "dgx02"), ("kubernetes", "localhost")}
    # Every layer hands on the same item shape, and the report keeps it.
    assert all(not aipod_pending.problems(items) for items in drifted.values()), drifted
    assert {"object": "Ethernet1/3", "field": "description", "before": "spare port", "after": "dgx03 eth1", "action": "modify",
            "reason": None} in drifted[("switches", "lab-sw-a")], drifted[("switches", "lab-sw-a")]
    assert any(item["object"] == "flexgroups lab-data:data" and item["field"] == "snapshot_policy"
               for item in drifted[("storage", "lab-ontap")]), drifted[("storage", "lab-ontap")]
    assert {"object": "user aipod", "field": "shell", "before": "/bin/sh", "after": "/bin/bash", "action": "modify", "reason": None} \
        in drifted[("compute", "dgx02")], drifted[("compute", "dgx02")]
    assert [item["object"] for item in drifted[("kubernetes", "localhost")]] == ["StorageClass/ontap-flexgroup"]
    markdown = (REPO / "reports" / "latest" / "report.md").read_text()
    assert "## Drift from the site model" in markdown and "| switches | lab-sw-a | Ethernet1/3 |" in markdown
    # The report changed nothing.
    assert all(counts["changed"] == 0 for counts in recap(run.stdout).values())
    assert switch_states() == switches
    assert json.dumps(ontap_ctl("export"), sort_keys=True) == json.dumps(ontap_before, sort_keys=True)

    # ansible-playbook itself fails, which is what a scheduled AWX job alerts on.
    direct = playbook("playbooks/drift.yml")
    assert direct.returncode == 2
    assert "Fail when anything drifted or could not be read" in direct.stdout

    repaired = playbook("playbooks/site.yml")
    assert repaired.returncode == 0, repaired.stdout[-4000:]
    after = drift_script()
    assert after.returncode == 0, after.stdout[-4000:]


def test_devices_that_do_not_answer_are_not_checked_and_the_others_still_judged(converged_lab):
    """Every switch and DGX unreachable (SSH to a closed port): their plays would otherwise end the
    playbook before the result; ONTAP (REST) and Kubernetes are still compared."""
    run = drift_script("-e", "ansible_port=1")
    assert run.returncode == 2, run.stdout[-4000:] + run.stderr[-2000:]
    drift = last_report()["drift"]
    status = {(d["layer"], d["device"]): d["status"] for d in drift["devices"]}
    assert status[("storage", "lab-ontap")] == "clean" and status[("kubernetes", "localhost")] == "clean"
    unread = [d for d in drift["devices"] if d["status"] == "not_checked"]
    assert {d["device"] for d in unread} == {"lab-sw-a", "lab-sw-b", "dgx01", "dgx02", "dgx03", "dgx04"}
    assert all(d["reason"] for d in unread)
    assert "drift: could not check everything (exit 2)" in run.stdout
