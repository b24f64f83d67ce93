"""Adding a DGX to a converged pod by inventory edit, then decommissioning it, each by one edit.

The lab pod is converged with its four DGX. A copy of its inventory gains dgx05 (host_vars with its
addresses, a port on each switch, membership of dgx and kube_node); the lab brings up that fifth
stand-in and its kubelet (lab/lab start with AIPOD_LAB_INVENTORY). The site run that follows
configures dgx05 and the two new switch ports only: dgx01-04 and the ONTAP cluster report
changed=0, no node is cordoned, dgx05's Node is Ready with its GPUs, and the run after reports
changed=0 everywhere. (The lab adopts its cluster, kubernetes.deployment: existing, so the join is the
cluster's; a DeepOps pod joins the node with Kubespray's scale.yml, tests/kubernetes/test_deepops_release.py.)

Then dgx05 goes into the group decommission: the run drains it, stops its kubelet, deletes its Node
and returns its two switch ports to the unused configuration; dgx01-04 and the ONTAP cluster report
changed=0, and so does the run after.
"""
from __future__ import annotations

import json
import re
import subprocess
import time

import pytest
from lab_support import LAB_DIR, lab, lab_hosts, lab_inventory_copy, playbook, podman, recap

pytestmark = [pytest.mark.lab, pytest.mark.release_check]
ADDED = "dgx05"
EXISTING = ["dgx01", "dgx02", "dgx03", "dgx04"]
EVENTS = LAB_DIR / "kubernetes" / "logs" / "node-events.jsonl"
KUBECTL = [str(LAB_DIR / "kubernetes" / "bin" / "kubectl"), "--kubeconfig", str(LAB_DIR / "kubernetes" / "kubeconfig")]
HOST_VARS = """\
---
dgx:
  model: DGX A100 (lab stand-in)
  mgmt_address: 172.31.250.105
  gpus:
    count: 8
    model: NVIDIA A100-SXM4-40GB
  roce: true
  storage_nics:
    - {name: eth1, network: storage-a, address: 172.31.251.15}
    - {name: eth2, network: storage-b, address: 172.31.252.15}
"""


def grow(copy) -> None:
    """The operator's edit: the host, its cabling and its groups."""
    (copy / "host_vars" / f"{ADDED}.yml").write_text(HOST_VARS)
    hosts = copy / "hosts.yml"
    hosts.write_text(hosts.read_text().replace("        dgx04:\n", f"        dgx04:\n        {ADDED}:\n"))
    for switch, nic in (("lab-sw-a", "eth1"), ("lab-sw-b", "eth2")):
        path = copy / "host_vars" / f"{switch}.yml"
        text = path.read_text()
        last = f"    - {{name: Ethernet1/4, connects_to: {{host: dgx04, nic: {nic}}}}}\n"
        assert last in text
        path.write_text(text.replace(last, last + f"    - {{name: Ethernet1/5, connects_to: {{host: {ADDED}, nic: {nic}}}}}\n"))


def event_count() -> int:
    return len(EVENTS.read_text().splitlines()) if EVENTS.exists() else 0


@pytest.fixture(scope="module")
def grown_lab():
    started = lab("start")
    assert started.returncode == 0, started.stdout + started.stderr
    # Switches without the fifth host's ports, which an earlier run of this test may have left there.
    assert lab("stop", "nxos").returncode == 0
    erased = lab("start", "nxos", env={"AIPOD_LAB_NXOS_WRITE_ERASE": "1"})
    assert erased.returncode == 0, erased.stdout + erased.stderr
    converged = playbook("playbooks/site.yml")
    assert converged.returncode in (0, 2), converged.stdout[-4000:]  # 2: verification could not make every check
    copy = lab_inventory_copy("grown")
    grow(copy)
    more = lab("start", "hosts", "kubernetes", env={"AIPOD_LAB_INVENTORY": str(copy)})
    assert more.returncode == 0, more.stdout + more.stderr
    yield copy
    lab("start", "hosts", "kubernetes")  # back to four stand-ins; dgx05's kubelet is gone
    subprocess.run([*KUBECTL, "delete", "node", ADDED, "--ignore-not-found"], capture_output=True, text=True)


def test_adding_a_dgx_changes_only_it_its_switch_ports_and_its_node(grown_lab):
    offset = event_count()
    run = playbook("-i", str(grown_lab), "playbooks/site.yml", "--diff")
    assert run.returncode in (0, 2), run.stdout[-6000:]
    changed = {host: counts["changed"] for host, counts in recap(run.stdout).items()}
    assert changed[ADDED] > 0, run.stdout[-3000:]
    assert {host: changed[host] for host in EXISTING + ["lab-ontap"]} == dict.fromkeys(EXISTING + ["lab-ontap"], 0)
    assert changed["lab-sw-a"] > 0 and changed["lab-sw-b"] > 0
    sent = set(re.findall(r"interface (Ethernet1/\d+)", run.stdout))
    assert sent == {"Ethernet1/5"}, sent
    assert "No DGX has a change that interrupts I/O or pods: nothing to drain." in run.stdout
    events = [json.loads(line) for line in EVENTS.read_text().splitlines()[offset:]]
    assert [e for e in events if e["event"] in ("cordoned", "pod_finished")] == []
    node = json.loads(subprocess.run([*KUBECTL, "get", "node", ADDED, "-o", "json"], capture_output=True, text=True, check=True).stdout)
    assert node["status"]["allocatable"]["nvidia.com/gpu"] == "8"
    assert any(c["type"] == "Ready" and c["status"] == "True" for c in node["status"]["conditions"])

    again = playbook("-i", str(grown_lab), "playbooks/site.yml")
    assert again.returncode in (0, 2), again.stdout[-4000:]
    assert set(counts["changed"] for counts in recap(again.stdout).values()) == {0}


def decommission(copy) -> None:
    """The operator's one edit: dgx05 joins the group decommission."""
    hosts = copy / "hosts.yml"
    text = hosts.read_text()
    assert "    servers:\n" in text
    hosts.write_text(text.replace("    servers:\n", f"    decommission:\n      hosts:\n        {ADDED}:\n    servers:\n", 1))


def switch_port(switch: str, port: str) -> dict:
    return json.loads((LAB_DIR / "nxos" / switch / "state.json").read_text())["interfaces"].get(port, {})


def test_decommissioning_the_dgx_removes_its_node_and_frees_its_switch_ports(grown_lab):
    node = subprocess.run([*KUBECTL, "get", "node", ADDED, "-o", "name"], capture_output=True, text=True)
    assert node.returncode == 0, "dgx05 must be a node first (the test above adds it)"
    decommission(grown_lab)
    # The switch layer alone, limited to one switch, while dgx05 is still a node: its ports are held.
    held = playbook("-i", str(grown_lab), "playbooks/switches.yml", "--limit", "lab-sw-a")
    assert held.returncode == 0, held.stdout[-4000:]
    assert "Not releasing the switch ports of dgx05: still Kubernetes nodes." in " ".join(held.stdout.split())
    assert switch_port("lab-sw-a", "Ethernet1/5")["description"].startswith(ADDED)
    offset = event_count()
    run = playbook("-i", str(grown_lab), "playbooks/site.yml")
    assert run.returncode in (0, 2), run.stdout[-6000:]
    changed = {host: counts["changed"] for host, counts in recap(run.stdout).items()}
    assert {host: changed[host] for host in EXISTING + ["lab-ontap"]} == dict.fromkeys(EXISTING + ["lab-ontap"], 0)
    assert changed["lab-sw-a"] > 0 and changed["lab-sw-b"] > 0
    assert changed.get(ADDED, 0) == 0                  # never configured again: only its kubelet is stopped

    # Drained (cordoned first), the kubelet stopped, the Node deleted and not registered again.
    events = [json.loads(line) for line in EVENTS.read_text().splitlines()[offset:]]
    assert {"event": "cordoned", "node": ADDED} in [{k: e[k] for k in ("event", "node")} for e in events if "node" in e]
    assert not [e for e in events if e["event"] == "cordoned" and e.get("node") != ADDED]
    time.sleep(3)
    gone = subprocess.run([*KUBECTL, "get", "node", ADDED, "-o", "name"], capture_output=True, text=True)
    assert gone.returncode != 0 and "NotFound" in gone.stderr, gone.stdout + gone.stderr
    state = podman("exec", lab_hosts()[ADDED], "systemctl", "is-active", "kubelet.service", check=False)
    assert state.stdout.strip() == "inactive"

    # Its ports are unused: shut, VLAN 1, default MTU, no PFC, no spanning-tree port type.
    for switch in ("lab-sw-a", "lab-sw-b"):
        port = switch_port(switch, "Ethernet1/5")
        assert port["description"] == "unused" and port["shutdown"] is True, port
        assert (port["mode"], port["access_vlan"], port["mtu"], port["pfc_mode"]) == ("access", 1, 1500, "auto"), port
        assert "stp_port_type" not in port and "service_policy_qos_input" not in port and "channel_group" not in port, port
        assert switch_port(switch, "Ethernet1/4")["description"].startswith("dgx04")

    again = playbook("-i", str(grown_lab), "playbooks/site.yml")
    assert again.returncode in (0, 2), again.stdout[-4000:]
    assert set(counts["changed"] for counts in recap(again.stdout).values()) == {0}, again.stdout[-4000:]
