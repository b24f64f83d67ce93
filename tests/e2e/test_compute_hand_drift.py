"""The compute layer skips a DGX that already is what the model says, and converges one drifted by hand.

A re-run reads each host once and configures only hosts that differ (filter aipod_compute_pending).
This pins that the skip is never blind: after the fstab line, a live storage network file, a kept
file's content, another's mode, the RoCE unit's enablement and the common user's shell are changed
by hand on one stand-in, check mode names
and previews the changes without making them, a real run puts every one back on that host only,
and the run after it changes nothing.
"""
from __future__ import annotations

import pytest
from lab_support import converged_by_previous_test, hand_on_converged, lab, lab_hosts, playbook, podman, recap

pytestmark = [pytest.mark.lab]
HOST = "dgx02"
LIVE_FILE = "/etc/systemd/network/60-aipod-eth1.network"
SYSCTL_CONF = "/etc/sysctl.d/90-aipod-nfs.conf"
MODPROBE_CONF = "/etc/modprobe.d/aipod-sunrpc.conf"


@pytest.fixture(scope="module")
def converged_lab():
    started = lab("start")
    assert started.returncode == 0, started.stdout + started.stderr
    proven = converged_by_previous_test()
    if not proven:
        first = playbook("playbooks/compute.yml")
        assert first.returncode == 0, first.stdout[-4000:] + first.stderr[-2000:]
    return {"container": lab_hosts()[HOST], "proven": proven}


def on_host(container: str, *command: str) -> str:
    return podman("exec", container, *command).stdout


def state(container: str) -> dict:
    return {
        "fstab": "/mnt/data " in on_host(container, "cat", "/etc/fstab"),
        "network_file": podman("exec", container, "test", "-f", LIVE_FILE, check=False).returncode == 0,
        "roce_unit": podman("exec", container, "systemctl", "is-enabled", "aipod-roce-qos.service", check=False).stdout.strip(),
        "shell": on_host(container, "getent", "passwd", "aipod").strip().rsplit(":", 1)[-1],
        "sysctl_conf_edited": "net.core.rmem_max = 1" in on_host(container, "cat", SYSCTL_CONF),
        "modprobe_conf_mode": on_host(container, "stat", "-c", "%a", MODPROBE_CONF).strip(),
    }


def test_an_unchanged_host_is_read_once_and_left_alone(converged_lab):
    run = playbook("playbooks/compute.yml")
    assert run.returncode == 0, run.stdout[-4000:]
    assert all(counts["changed"] == 0 for counts in recap(run.stdout).values())
    assert run.stdout.count("already as the model says; nothing to change") == len(lab_hosts())
    assert "Say what differs from the model" not in run.stdout


def test_a_host_drifted_by_hand_is_previewed_then_converged(converged_lab):
    container = converged_lab["container"]
    wanted = state(container)
    assert wanted == {"fstab": True, "network_file": True, "roce_unit": "enabled", "shell": "/bin/bash",
                      "sysctl_conf_edited": False, "modprobe_conf_mode": "644"}
    on_host(container, "sed", "-i", r"\# /mnt/data #d", "/etc/fstab")
    on_host(container, "rm", "-f", LIVE_FILE)
    on_host(container, "systemctl", "disable", "--quiet", "aipod-roce-qos.service")
    on_host(container, "usermod", "-s", "/bin/sh", "aipod")
    on_host(container, "sh", "-c", f"echo 'net.core.rmem_max = 1' >> {SYSCTL_CONF}")
    on_host(container, "chmod", "600", MODPROBE_CONF)
    drifted = state(container)
    assert drifted == {"fstab": False, "network_file": False, "roce_unit": "disabled", "shell": "/bin/sh",
                       "sysctl_conf_edited": True, "modprobe_conf_mode": "600"}

    preview = playbook("playbooks/compute.yml", "--check", "--diff")
    assert preview.returncode == 0, preview.stdout[-4000:]
    for difference in ("mount /mnt/data: not in /etc/fstab", f"storage network {LIVE_FILE}: missing",
                       "aipod-roce-qos.service: enabled is disabled, the model says enabled",
                       "user aipod: shell is /bin/sh, the model says /bin/bash",
                       f"file {SYSCTL_CONF}: content differs from the model", f"file {MODPROBE_CONF}: mode is 0600, the model says 0644"):
        assert difference in preview.stdout, difference
    assert recap(preview.stdout)[HOST]["changed"] > 0
    assert state(container) == drifted, "check mode changed the host"

    run = playbook("playbooks/compute.yml")
    assert run.returncode == 0, run.stdout[-4000:]
    changed = {host: counts["changed"] for host, counts in recap(run.stdout).items()}
    assert changed.pop(HOST) > 0
    assert set(changed.values()) == {0}, changed
    assert state(container) == wanted

    again = playbook("playbooks/compute.yml")
    assert again.returncode == 0, again.stdout[-4000:]
    assert all(counts["changed"] == 0 for counts in recap(again.stdout).values())
    if converged_lab["proven"]:  # the whole site was converged, and compute.yml now changes nothing again
        hand_on_converged(converged_lab["proven"])
