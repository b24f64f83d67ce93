"""The opt-in GPU smoke test (gpu.smoke_test) against the lab's Kubernetes, as a release check: it
adds a verification run of about 100 s, and its judging is unit-tested (tests/unit/test_gpu_smoke.py).
KWOK plays the kubelets, so a Job completes without running a container and serves no log."""
from __future__ import annotations

import json

import pytest
import yaml
from kubernetes_helpers import LAB_KUBERNETES, run_playbook

pytestmark = [pytest.mark.lab, pytest.mark.slow, pytest.mark.release_check]
DGX_WORKERS = {"dgx01", "dgx02", "dgx03", "dgx04"}


def test_the_opt_in_gpu_smoke_test_runs_a_job_on_each_dgx_and_judges_only_what_it_can_read(gpu_site, gpu_cluster, tmp_path):
    """gpu.smoke_test: a Job per DGX worker runs nvidia-smi -L with one GPU. KWOK reports each Job complete
    without running a container and serves no log, so nothing proves nvidia-smi ran: each check is
    "not checked", never a pass. The Jobs are bound to their own DGX and removed afterwards."""
    installed = run_playbook(gpu_site["tmp"], "-i", str(gpu_site["inventory"] / "hosts.yml"), "playbooks/kubernetes.yml",
                             "-e", f"kubernetes_gpu_helm_binary={LAB_KUBERNETES / 'bin' / 'helm'}", check=False)
    assert installed.returncode == 0, installed.stdout[-3000:]  # the Jobs run in the operator's namespace
    path = gpu_site["inventory"] / "group_vars" / "all" / "gpu.yml"
    original = path.read_text()
    data = yaml.safe_load(original)
    data["gpu"]["smoke_test"] = {"enabled": True, "timeout": 60}
    path.write_text(yaml.safe_dump(data))
    events = LAB_KUBERNETES / "logs" / "node-events.jsonl"
    seen = len(events.read_text().splitlines())
    report = tmp_path / "kubernetes-verify.json"
    try:
        result = run_playbook(gpu_site["tmp"], "-i", str(gpu_site["inventory"] / "hosts.yml"), "playbooks/verify_kubernetes.yml",
                              "-e", f"verify_kubernetes_report={report}", "-e", "verify_kubernetes_claim_timeout=2", check=False)
    finally:
        path.write_text(original)
    assert report.exists(), result.stdout[-4000:]
    checks = {c["name"]: c for c in json.loads(report.read_text())["checks"] if c["name"].startswith("gpu_smoke:")}
    assert set(checks) == {f"gpu_smoke:{host}" for host in DGX_WORKERS}, result.stdout[-3000:]
    # This site cuts dgx01 into MIG slices with the mixed strategy: it offers no whole GPU to hold.
    sliced = checks.pop("gpu_smoke:dgx01")
    assert sliced["status"] == "not_checked" and "MIG slices (all-1g.5gb, mixed strategy)" in sliced["detail"], sliced
    for check in checks.values():
        assert check["status"] == "not_checked", check
        assert "completed but nvidia-smi's output is unknown: its log could not be read" in check["detail"], check
    bound = [json.loads(line) for line in events.read_text().splitlines()[seen:]]
    placed = {e["pod"].split("/")[1].rsplit("-", 1)[0]: e["node"] for e in bound
              if e.get("event") == "bound" and e.get("pod", "").startswith("gpu-operator/aipod-gpu-smoke-")}
    assert placed == {f"aipod-gpu-smoke-{host}": host for host in DGX_WORKERS - {"dgx01"}}, bound
    assert not gpu_cluster["batch"].list_namespaced_job("gpu-operator", label_selector="ontap-ai.pod/check=gpu-smoke").items
