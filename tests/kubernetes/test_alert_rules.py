"""The pod's alert rules as Prometheus reads them: promtool (Debian's, lab/monitoring/promtool) checks
the rules the filter derives from the sample and the lab pod, and evaluates them against series
shaped as Harvest, node_exporter and the DCGM exporter export them."""
from __future__ import annotations

import pathlib
import subprocess

import pytest
import yaml
from kubernetes_helpers import REPO, run_playbook
from project_paths import LAB, SAMPLE

pytestmark = [pytest.mark.lab]


@pytest.fixture(scope="module")
def promtool() -> str:
    fetched = subprocess.run([str(REPO / "lab" / "monitoring" / "promtool")], capture_output=True, text=True, timeout=600)
    assert fetched.returncode == 0, fetched.stderr
    return fetched.stdout.strip().splitlines()[-1]


def rules_of(inventory: pathlib.Path, tmp_path: pathlib.Path) -> pathlib.Path:
    rules = tmp_path / f"{inventory.name}-rules.yml"
    run_playbook(tmp_path, "-i", str(inventory / "hosts.yml"), "tests/kubernetes/playbooks/alert_rules.yml",
                 "-e", f"rules_file={rules}")
    return rules


@pytest.mark.parametrize("inventory", [SAMPLE, LAB], ids=["sample", "lab"])
def test_prometheus_reads_every_rule(promtool, inventory, tmp_path):
    rules = rules_of(inventory, tmp_path)
    checked = subprocess.run([promtool, "check", "rules", str(rules)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    count = sum(len(group["rules"]) for group in yaml.safe_load(rules.read_text())["groups"])
    assert f"SUCCESS: {count} rules found" in checked.stdout


def test_the_rules_page_on_the_models_objects_only(promtool, tmp_path):
    rules = rules_of(SAMPLE, tmp_path)
    lif = "aipod-a800-01_e6a-3111_1"
    cases = {
        "rule_files": [str(rules)],
        "evaluation_interval": "1m",
        "tests": [{
            "interval": "1m",
            "input_series": [
                # Harvest's volume capacity: the sample's data set is 90 % full, a volume the model lacks 99 %.
                {"series": 'volume_size_used_percent{svm="aipod-data", volume="imagenet", node="aipod-a800-01"}', "values": "90x15"},
                {"series": 'volume_size_used_percent{svm="aipod-data", volume="scratch", node="aipod-a800-01"}', "values": "99x15"},
                {"series": 'volume_size_used_percent{svm="aipod-data", volume="home", node="aipod-a800-02"}', "values": "40x15"},
                # Harvest's LIF labels: one data LIF down.
                {"series": f'lif_labels{{svm="aipod-data", lif="{lif}", status="down", is_home="true"}}', "values": "1x15"},
                # node_exporter on a DGX: a storage NIC at MTU 1500, the other at 9000.
                {"series": 'node_network_mtu_bytes{instance="dgx01", device="enp225s0f0"}', "values": "1500x15"},
                {"series": 'node_network_mtu_bytes{instance="dgx01", device="enp225s0f1"}', "values": "9000x15"},
                # The DCGM exporter: a GPU at 80 C, below the sample's 87 C.
                {"series": 'DCGM_FI_DEV_GPU_TEMP{gpu="0", Hostname="dgx01"}', "values": "80x15"},
            ],
            "alert_rule_test": [
                {"eval_time": "10m", "alertname": "AipodVolumeFull", "exp_alerts": [{
                    "exp_labels": {"severity": "critical", "svm": "aipod-data", "volume": "imagenet", "node": "aipod-a800-01"},
                    "exp_annotations": {"summary": "aipod-data:imagenet is 90% full", "runbook": "docs/monitoring.md#volume-full"}}]},
                {"eval_time": "10m", "alertname": "AipodDataLifDown", "exp_alerts": [{
                    "exp_labels": {"severity": "critical", "svm": "aipod-data", "lif": lif, "status": "down", "is_home": "true"},
                    "exp_annotations": {"summary": f"data LIF aipod-data:{lif} is down", "runbook": "docs/monitoring.md#data-lif-down"}}]},
                {"eval_time": "10m", "alertname": "AipodDataLifNotHome", "exp_alerts": []},
                {"eval_time": "10m", "alertname": "AipodStorageMtuWrong", "exp_alerts": [{
                    "exp_labels": {"severity": "critical", "instance": "dgx01", "device": "enp225s0f0"},
                    "exp_annotations": {"summary": "storage link enp225s0f0 of dgx01 has MTU 1500, the model says 9000",
                                        "runbook": "docs/monitoring.md#storage-mtu"}}]},
                {"eval_time": "10m", "alertname": "AipodGpuHot", "exp_alerts": []},
                # Not yet for long enough: the sample waits 5 minutes.
                {"eval_time": "3m", "alertname": "AipodVolumeFull", "exp_alerts": []},
            ],
        }],
    }
    test_file = tmp_path / "alerts-test.yml"
    test_file.write_text(yaml.safe_dump(cases, sort_keys=False))
    tested = subprocess.run([promtool, "test", "rules", str(test_file)], capture_output=True, text=True)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "SUCCESS" in tested.stdout
