"""nfs_mount_probe: one bounded mount attempt per mount, classified, and a message that names the refusal."""
from __future__ import annotations

import pytest

from ansible_collections.ontap_ai.pod.plugins.modules import nfs_mount_probe as probe

MOUNT = {"path": "/mnt/data", "src": "172.31.249.102:/data",
         "options": ["vers=4.1", "proto=tcp", "nconnect=16", "rsize=262144", "wsize=262144", "hard"],
         "lif": "lab-vm-ontap-02_e1a-3119_1", "export_policy": "dgx-nodes", "svm": "lab-data", "network": "storage-guest",
         "client_address": "172.31.249.21", "client_device": "enp225s0f0.3119"}
DENIED = "mount.nfs: access denied by server while mounting 172.31.249.102:/data\n"


def test_the_attempt_keeps_the_mount_options_and_does_not_retry():
    assert probe.probe_options(MOUNT["options"]) == "vers=4.1,proto=tcp,nconnect=16,rsize=262144,wsize=262144,hard,retry=0"
    assert probe.probe_options(["vers=3", "bg", "retry=10000"]) == "vers=3,retry=0"


@pytest.mark.parametrize("returncode, output, status", [
    (0, "", "ok"),
    (32, DENIED, "refused"),
    (32, "mount.nfs: Operation not permitted", "refused"),
    (124, "", "timeout"),
    (137, "", "timeout"),
    (32, "mount.nfs: Network is unreachable", "failed"),
    (32, "mount.nfs: mounting 172.31.249.102:/nope failed, reason given by server: No such file or directory", "failed"),
])
def test_classification(returncode, output, status):
    assert probe.classify(returncode, output) == status


def test_the_attempt_is_bounded_by_timeout_and_reports_its_outcome():
    seen = []

    def run(command):
        seen.append(command)
        return 32, DENIED

    result = probe.probe(MOUNT, 45, run, "/run/aipod-nfs-probe.x")
    assert seen == [["timeout", "-k", "5", "45", "mount", "-t", "nfs", "-o",
                     "vers=4.1,proto=tcp,nconnect=16,rsize=262144,wsize=262144,hard,retry=0",
                     "172.31.249.102:/data", "/run/aipod-nfs-probe.x"]]
    assert result["status"] == "refused" and result["output"] == DENIED.strip() and result["path"] == "/mnt/data"


def test_a_refusal_names_the_export_lif_policy_and_client():
    text = probe.describe(MOUNT, {"status": "refused", "output": DENIED}, 60)
    for part in ("/mnt/data <- 172.31.249.102:/data", "LIF lab-vm-ontap-02_e1a-3119_1", "export policy dgx-nodes",
                 "SVM lab-data", "REFUSED", "client 172.31.249.21 (enp225s0f0.3119 on storage-guest)",
                 "access denied by server"):
        assert part in text, part


def test_no_answer_points_at_the_storage_network():
    text = probe.describe(MOUNT, {"status": "timeout", "output": ""}, 60)
    assert "NO ANSWER within 60 s" in text and "VLAN" in text and "172.31.249.21" in text


def test_other_failures_quote_mount():
    text = probe.describe({"path": "/mnt/x", "src": "10.0.0.1:/x"}, {"status": "failed", "output": "mount.nfs: boom\n"}, 60)
    assert text == "/mnt/x <- 10.0.0.1:/x (its export policy): mount FAILED from client its address: mount.nfs: boom"
