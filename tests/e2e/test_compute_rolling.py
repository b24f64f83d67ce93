"""A disruptive DGX change rolls through the pod one host at a time: drain, change, health gate, uncordon.

On the lab's API server each DGX is a Node (registered by lab/kubernetes/nodes.py, played by KWOK) running one
pod of a Deployment pinned to it, under a PodDisruptionBudget that allows one disruption. An edit of
the mounts' rsize is a change to existing mounts, so every DGX rolls. The node agent's event log
gives the order of cordons, evictions and uncordons. A kubelet made NotReady fails the health gate of
the second host: the run stops there, hosts 3-4 are untouched, and the same command resumes.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time

import pytest
from lab_support import BIN, LAB_DIR, converged_by_previous_test, lab, lab_hosts, lab_inventory_copy, last_report, playbook, podman, recap
from project_paths import REPO

pytestmark = [pytest.mark.lab, pytest.mark.release_check]
HOSTS = ["dgx01", "dgx02", "dgx03", "dgx04"]
WORKLOAD = "aipod-lab-workload"
EDITED = LAB_DIR / "inventories" / "rolling-rsize"
EVENTS = LAB_DIR / "kubernetes" / "logs" / "node-events.jsonl"
NODES = [str(BIN / "python"), str(REPO / "lab" / "kubernetes" / "nodes.py")]
KUBECTL = [str(LAB_DIR / "kubernetes" / "bin" / "kubectl"), "--kubeconfig", str(LAB_DIR / "kubernetes" / "kubeconfig")]


def events_since(offset: int) -> list[dict]:
    return [json.loads(line) for line in EVENTS.read_text().splitlines()[offset:]]


def event_count() -> int:
    return len(EVENTS.read_text().splitlines()) if EVENTS.exists() else 0


def fstab_rsize(host: str) -> set[str]:
    text = podman("exec", lab_hosts()[host], "cat", "/etc/fstab").stdout
    return {field for line in text.splitlines() if " nfs " in line for field in line.split()[3].split(",") if field.startswith("rsize=")}


def nodes() -> dict:
    listing = json.loads(subprocess.run([*KUBECTL, "get", "nodes", "-o", "json"], capture_output=True, text=True, check=True).stdout)
    return {n["metadata"]["name"]: (bool(n["spec"].get("unschedulable")), (n["metadata"].get("annotations") or {}).get("ontap-ai.pod/cordoned-by"))
            for n in listing["items"]}


def wait_for_workload(seconds: int = 90) -> None:
    """Until each DGX runs its one workload pod (a namespace left terminating by an earlier run is gone first)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        created = subprocess.run([*NODES, "workload"], capture_output=True, text=True)
        listing = subprocess.run([*KUBECTL, "get", "pods", "-n", "aipod-lab-workload", "-o", "json"], capture_output=True, text=True)
        pods = json.loads(listing.stdout or "{}").get("items", []) if listing.returncode == 0 else []
        running = sorted(p["spec"].get("nodeName") or "" for p in pods if p["status"].get("phase") == "Running")
        if created.returncode == 0 and running == HOSTS:
            return
        time.sleep(1)
    pytest.fail(f"the lab's workload did not come up: {created.stderr[-500:]} {running}")


@pytest.fixture(scope="module")
def rolling_lab():
    started = lab("start")
    assert started.returncode == 0, started.stdout + started.stderr
    # The whole site, not only compute: the module's last step runs site.yml and wants no change
    # outside the compute layer, whatever the modules before this one left in the others.
    if not converged_by_previous_test():
        first = playbook("playbooks/site.yml")
        assert first.returncode == 0, first.stdout[-4000:]
    wait_for_workload()
    lab_inventory_copy(EDITED.name)
    compute = EDITED / "group_vars" / "all" / "compute.yml"
    compute.write_text(compute.read_text().replace("rsize: 262144", "rsize: 131072"))
    yield
    subprocess.run([*NODES, "kubelet", "dgx02", "--ready"], capture_output=True, text=True)
    back = playbook("playbooks/compute.yml")
    shutil.rmtree(EDITED, ignore_errors=True)
    subprocess.run([*KUBECTL, "delete", "namespace", "aipod-lab-workload", "--wait=false"], capture_output=True, text=True)
    assert back.returncode == 0, back.stdout[-4000:]


def test_check_mode_lists_the_hosts_it_would_drain_and_why_and_drains_nothing(rolling_lab):
    offset = event_count()
    preview = playbook("-i", str(EDITED), "playbooks/compute.yml", "--check", "--diff")
    assert preview.returncode == 0, preview.stdout[-4000:]
    assert "Would roll 4 DGX, 1 at a time:" in preview.stdout
    for host in HOSTS:
        assert f"{host}: drain node {host};" in preview.stdout
        assert f"Would cordon and drain node {host}" in preview.stdout
    assert "(changes an existing mount)" in preview.stdout
    assert "Rolling change previewed for dgx01, dgx02, dgx03, dgx04" in preview.stdout
    assert [e for e in events_since(offset) if e["event"] in ("cordoned", "uncordoned", "pod_finished")] == []
    assert all(rsize == {"rsize=262144"} for rsize in map(fstab_rsize, HOSTS))


def test_a_mount_option_edit_rolls_through_the_dgx_one_at_a_time(rolling_lab):
    offset = event_count()
    run = playbook("-i", str(EDITED), "playbooks/compute.yml")
    assert run.returncode == 0, run.stdout[-6000:]
    assert "Rolling change done: dgx01, dgx02, dgx03, dgx04 in 4 batch(es)" in run.stdout
    assert all(rsize == {"rsize=131072"} for rsize in map(fstab_rsize, HOSTS))
    # Node events, and the events of the workload's pods (other pods, such as the snapshot controller,
    # may move to any schedulable node).
    events = [e for e in events_since(offset) if "pod" not in e or e["pod"].startswith(f"{WORKLOAD}/")]
    when = {}
    for index, event in enumerate(events):
        when.setdefault((event["event"], event.get("node")), index)
    previous_uncordon = -1
    for host in HOSTS:
        cordon, finished, uncordon = (when[("cordoned", host)], when[("pod_finished", host)], when[("uncordoned", host)])
        # This host's turn comes after the previous host is back, its pod leaves only after the cordon,
        # and its replacement is bound only after the uncordon.
        assert previous_uncordon < cordon < finished < uncordon, (host, events)
        assert when[("bound", host)] > uncordon, (host, events)
        previous_uncordon = uncordon
    assert {host: nodes()[host] for host in HOSTS} == {host: (False, None) for host in HOSTS}
    assert last_report()["rolling"]["changed"] == HOSTS

    again = playbook("-i", str(EDITED), "playbooks/compute.yml")
    assert again.returncode == 0, again.stdout[-4000:]
    assert all(counts["changed"] == 0 for counts in recap(again.stdout).values())
    assert "No DGX has a change that interrupts I/O or pods: nothing to drain." in again.stdout


def test_a_failed_health_gate_stops_the_run_with_the_later_hosts_untouched_and_the_same_command_resumes(rolling_lab):
    subprocess.run([*NODES, "kubelet", "dgx02", "--not-ready"], check=True, capture_output=True, text=True)
    offset = event_count()
    stopped = playbook("playbooks/compute.yml", "-e", "dgx_rolling_ready_timeout=10")  # back to the lab's rsize
    assert stopped.returncode != 0
    assert "Rolling change stopped at dgx02: health gate failed" in stopped.stdout
    assert "Changed: dgx01\nFailed: dgx02\nLeft untouched: dgx03, dgx04" in stopped.stdout
    assert "dgx02 stays cordoned (annotation ontap-ai.pod/cordoned-by) and rolls first, then dgx03, dgx04 roll in turn." in stopped.stdout
    assert (fstab_rsize("dgx01"), fstab_rsize("dgx03"), fstab_rsize("dgx04")) == ({"rsize=262144"}, {"rsize=131072"}, {"rsize=131072"})
    touched = {event.get("node") for event in events_since(offset) if event["event"] in ("cordoned", "pod_finished")}
    assert touched == {"dgx01", "dgx02"}
    assert nodes()["dgx02"] == (True, "compute-rolling-change")
    assert last_report()["rolling"]["left"] == ["dgx03", "dgx04"]

    subprocess.run([*NODES, "kubelet", "dgx02", "--ready"], check=True, capture_output=True, text=True)
    resumed = playbook("playbooks/compute.yml")
    assert resumed.returncode == 0, resumed.stdout[-4000:]
    assert "dgx02: drain node dgx02;\n            its node was left cordoned by a rolling run that stopped" in resumed.stdout
    assert "Rolling change done: dgx02, dgx03, dgx04 in 3 batch(es)" in resumed.stdout
    assert {host: nodes()[host] for host in HOSTS} == {host: (False, None) for host in HOSTS}
    assert all(rsize == {"rsize=262144"} for rsize in map(fstab_rsize, HOSTS))


def test_a_run_killed_after_a_drain_leaves_the_node_to_the_next_run_which_uncordons_it(rolling_lab):
    """The cordon's armed window (docs/interrupted-runs.md): killed with SIGKILL once the first node is drained."""
    environment = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
                       PATH=f"{BIN}:{os.environ.get('PATH', '')}")
    process = subprocess.Popen([str(BIN / "ansible-playbook"), "-i", str(EDITED), "playbooks/compute.yml"], cwd=REPO,
                               env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    lines = []
    for line in process.stdout:
        lines.append(line)
        if "dgx_rolling : Note the change stage" in line:
            os.killpg(process.pid, signal.SIGKILL)
            break
    process.wait(timeout=120)
    process.stdout.close()
    assert any("dgx_rolling : Note the change stage" in line for line in lines), "".join(lines)[-4000:]
    assert nodes()["dgx01"] == (True, "compute-rolling-change")

    resumed = playbook("-i", str(EDITED), "playbooks/compute.yml")
    assert resumed.returncode == 0, resumed.stdout[-4000:]
    assert "may have left a storage-network rollback armed" in resumed.stdout + resumed.stderr
    assert [(e["host"], e["item"]) for e in last_report()["resolved"]] == [("dgx01", "cordoned Kubernetes node")]
    assert {host: nodes()[host] for host in HOSTS} == {host: (False, None) for host in HOSTS}
    assert all(rsize == {"rsize=131072"} for rsize in map(fstab_rsize, HOSTS))

    again = playbook("-i", str(EDITED), "playbooks/site.yml")
    assert again.returncode == 0, again.stdout[-4000:]
    assert all(counts["changed"] == 0 for counts in recap(again.stdout).values())
    verification = last_report()["verification"]
    # The lab runs no Trident controller: those checks are "not checked" (exit 2), none may fail.
    assert verification["exit_code"] in (0, 2) and verification["counts"].get("fail", 0) == 0, verification["counts"]
