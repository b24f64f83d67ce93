"""The monitoring layer against the lab's Kubernetes: the pod's alert rules, NetApp Harvest's poller
for the lab cluster and the pod's dashboard, declared on a cluster with its own Prometheus Operator
stack (the lab loads the operator's CRDs from its Go module; inventories/lab says
monitoring.stack.install: false). The API server checks every object against the operator's real
CRD schemas; Prometheus's promtool reads the rules back from the cluster; a second run changes
nothing; a hand edit is previewed, then put back; missing CRDs stop the layer before any change.

kube-prometheus-stack itself is not installed here: its chart repository cannot be reached."""
from __future__ import annotations

import base64
import json
import subprocess

import pytest
import yaml
from kubernetes_helpers import BIN, KUBECONFIG, LAB_KUBERNETES, RECAP, REPO, lab, lab_site_copy, recap, run_playbook
from netmiko import ConnectHandler
from project_paths import LAB, LAB_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import nxos_users

pytestmark = [pytest.mark.lab, pytest.mark.slow]
KUBECTL = [str(LAB_KUBERNETES / "bin" / "kubectl"), "--kubeconfig", str(KUBECONFIG)]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A fresh lab API server (started fresh again afterwards when it was running) and a copy of inventories/lab."""
    was_running = lab("status", "kubernetes").returncode == 0
    assert lab("start", "ontap").returncode == 0  # validation reads the ONTAP endpoint's CA
    assert lab("stop", "kubernetes").returncode == 0
    started = lab("start", "kubernetes")
    assert started.returncode == 0, started.stdout + started.stderr
    root = tmp_path_factory.mktemp("site")
    yield {"inventory": lab_site_copy(root), "tmp": root}
    assert lab("stop", "kubernetes").returncode == 0
    if was_running:
        assert lab("start", "kubernetes").returncode == 0


def kubernetes_layer(site, *extra, check=True):
    return run_playbook(site["tmp"], "-i", str(site["inventory"] / "hosts.yml"), "playbooks/kubernetes.yml", *extra, check=check)


def kubectl_json(*args: str) -> dict:
    done = subprocess.run([*KUBECTL, *args, "-o", "json"], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def changed(output: str) -> int:
    """changed= summed over every host of the PLAY RECAP (the switches, then localhost)."""
    return sum(int(found[1]) for found in RECAP.findall(output))


def vault_secret(name: str) -> str:
    vault = REPO / "inventories" / "lab" / "group_vars" / "all" / "vault.yml"
    return yaml.safe_load(make_decryptor(LAB_VAULT_PASSWORD)(vault.read_text(), str(vault)))[name]


def test_the_layer_declares_rules_harvest_and_the_dashboard_and_a_second_run_changes_nothing(site, tmp_path):
    first = kubernetes_layer(site)
    assert recap(first.stdout)["changed"] > 0
    # The rules as Prometheus would read them from the cluster's PrometheusRule.
    rule = kubectl_json("-n", "monitoring", "get", "prometheusrule", "aipod-alerts")
    rules = tmp_path / "rules.yml"
    rules.write_text(yaml.safe_dump(rule["spec"]))
    promtool = subprocess.run([str(REPO / "lab" / "monitoring" / "promtool")], capture_output=True, text=True, timeout=600)
    assert promtool.returncode == 0, promtool.stderr
    checked = subprocess.run([promtool.stdout.strip().splitlines()[-1], "check", "rules", str(rules)], capture_output=True, text=True)
    assert checked.returncode == 0 and "SUCCESS" in checked.stdout, checked.stdout + checked.stderr
    # Harvest: the lab cluster over REST on its own port, TLS verified against the lab's CA, the password only in a Secret.
    config = kubectl_json("-n", "monitoring", "get", "configmap", "harvest-lab-ontap-config")
    poller = yaml.safe_load(config["data"]["harvest.yml"])["Pollers"]["lab-ontap"]
    assert (poller["addr"], poller["use_insecure_tls"], poller["ca_cert"]) == ("127.0.10.1:8443", False, "/opt/harvest/cert/ca.pem")
    ca = kubectl_json("-n", "monitoring", "get", "configmap", "harvest-lab-ontap-ca")["data"]["ca.pem"]
    assert ca == (REPO / ".lab" / "ontap" / "pki" / "ca.pem").read_text()
    secret = kubectl_json("-n", "monitoring", "get", "secret", "harvest-lab-ontap-credentials")
    credentials = yaml.safe_load(base64.b64decode(secret["data"]["credentials.yml"]))
    assert credentials["Pollers"]["lab-ontap"] == {"username": "harvest", "password": vault_secret("vault_ontap_harvest_password")}
    assert vault_secret("vault_ontap_harvest_password") not in first.stdout
    pods = kubectl_json("-n", "monitoring", "get", "pods", "-l", "app.kubernetes.io/name=harvest")["items"]
    assert [p["status"]["phase"] for p in pods] == ["Running"], pods
    monitor = kubectl_json("-n", "monitoring", "get", "servicemonitor", "harvest-lab-ontap")
    assert monitor["spec"]["endpoints"] == [{"port": "metrics", "interval": "30s"}]
    board = json.loads(kubectl_json("-n", "monitoring", "get", "configmap", "aipod-overview-dashboard")["data"]["aipod-overview.json"])
    assert board["uid"] == "aipod-overview" and len(board["panels"]) == 6

    second = kubernetes_layer(site)
    assert recap(second.stdout)["changed"] == 0, second.stdout[-3000:]

    # Verification sees the rules loaded and the poller's pod available (KWOK reports it Ready; nothing runs in it).
    report = tmp_path / "kubernetes-verify.json"
    run_playbook(site["tmp"], "-i", str(site["inventory"] / "hosts.yml"), "playbooks/verify_kubernetes.yml",
                 "-e", f"verify_kubernetes_report={report}", "-e", "verify_kubernetes_claim_timeout=2", check=False)
    checks = {c["name"]: c for c in json.loads(report.read_text())["checks"]}
    assert checks["monitoring_rules"]["status"] == "pass", checks["monitoring_rules"]
    assert checks["harvest_pollers"] == {"name": "harvest_pollers", "status": "pass",
                                         "detail": "1 Harvest poller(s) available: harvest-lab-ontap"}


def test_a_hand_edit_is_previewed_then_put_back(site):
    subprocess.run([*KUBECTL, "-n", "monitoring", "patch", "configmap", "harvest-lab-ontap-config", "--type=merge",
                    "-p", json.dumps({"data": {"harvest.yml": "Pollers: {}\n"}})], check=True, capture_output=True)
    preview = kubernetes_layer(site, "--check", "--diff")
    assert "ConfigMap/harvest-lab-ontap-config: data.harvest.yml differs" in preview.stdout, preview.stdout[-3000:]
    assert kubectl_json("-n", "monitoring", "get", "configmap", "harvest-lab-ontap-config")["data"]["harvest.yml"] == "Pollers: {}\n"
    kubernetes_layer(site)
    config = kubectl_json("-n", "monitoring", "get", "configmap", "harvest-lab-ontap-config")
    assert "lab-ontap" in yaml.safe_load(config["data"]["harvest.yml"])["Pollers"]


def test_the_sites_own_dashboards_are_loaded_pointed_at_the_stacks_prometheus(site):
    """monitoring.dashboards names a directory of dashboards exported for import (as Harvest ships its
    cmode set): each is declared as a ConfigMap the Grafana sidecar loads, its ${DS_PROMETHEUS}
    input filled, and a second run changes nothing."""
    inventory = site["inventory"]
    folder = inventory / "files" / "dashboards" / "harvest"
    folder.mkdir(parents=True)
    exported = {"__inputs": [{"name": "DS_PROMETHEUS", "type": "datasource", "pluginId": "prometheus"}],
                "title": "ONTAP: Volume", "uid": "cdot-volume",
                "panels": [{"id": 1, "type": "timeseries", "datasource": "${DS_PROMETHEUS}",
                            "targets": [{"expr": "volume_read_ops", "datasource": {"type": "prometheus", "uid": "${DS_PROMETHEUS}"}}]}]}
    (folder / "volume.json").write_text(json.dumps(exported))
    monitoring = inventory / "group_vars" / "all" / "monitoring.yml"
    original = monitoring.read_text()
    data = yaml.safe_load(original)
    data["monitoring"]["dashboards"] = ["files/dashboards/harvest"]
    monitoring.write_text(yaml.safe_dump(data))
    try:
        assert recap(kubernetes_layer(site).stdout)["changed"] > 0
        config = kubectl_json("-n", "monitoring", "get", "configmap", "aipod-dashboard-volume")
        assert config["metadata"]["labels"]["grafana_dashboard"] == "1"
        board = json.loads(config["data"]["volume.json"])
        assert "__inputs" not in board and board["panels"][0]["datasource"] == "prometheus"
        assert board["panels"][0]["targets"][0]["datasource"] == {"type": "prometheus", "uid": "prometheus"}
        assert recap(kubernetes_layer(site).stdout)["changed"] == 0
    finally:
        monitoring.write_text(original)


def test_switch_metrics_give_each_nexus_nxapi_a_read_only_user_and_a_harvest_poller(site):
    """monitoring.harvest.switches on: the switch layer turns on NX-API and makes Harvest's user with
    NX-OS's network-operator role on both lab switches through cisco.nxos (its password sent as a
    SHA-256-crypt hash of the vault's value), then changes nothing; the Kubernetes layer declares a
    CiscoRest poller per switch with its own Secret. The lab switches get their factory users back."""
    inventory = site["inventory"]
    monitoring = inventory / "group_vars" / "all" / "monitoring.yml"
    data = yaml.safe_load(monitoring.read_text())
    ca_file = yaml.safe_load((inventory / "group_vars" / "all" / "ontap.yml").read_text())["ontap"]["ca_file"]
    data["monitoring"]["harvest"]["switches"] = {"enabled": True, "ca_file": ca_file}  # the lab's CA stands for the switches'
    original = monitoring.read_text()
    monitoring.write_text(yaml.safe_dump(data))
    secret = inventory / "group_vars" / "all" / "vault_switch_harvest.yml"
    password = "harvest sw: 'pw' $5$ ; no username admin"  # spaces, quotes and a CLI command: only its hash reaches NX-OS
    secret.write_text(yaml.safe_dump({"vault_switch_harvest_password": password}))
    encrypted = subprocess.run([str(BIN / "ansible-vault"), "encrypt", "--vault-id", f"lab@{LAB / 'vault-password.txt'}",
                                "--encrypt-vault-id", "lab", str(secret)], capture_output=True, text=True)
    assert encrypted.returncode == 0, encrypted.stderr
    try:
        first = run_playbook(site["tmp"], "-i", str(inventory / "hosts.yml"), "playbooks/switches.yml")
        assert changed(first.stdout) > 0
        assert password not in first.stdout
        for switch in ("lab-sw-a", "lab-sw-b"):
            state = json.loads((REPO / ".lab" / "nxos" / switch / "state.json").read_text())
            assert "nxapi" in state["features"]
            user = state["users"]["harvest"]
            assert user["roles"] == ["network-operator"]
            salt = user["password"].split("$")[2]
            assert user["password"] == nxos_users.sha256_crypt(password, salt)
            assert user["password"] not in first.stdout  # nxos_user masks the hash it sends
        second = run_playbook(site["tmp"], "-i", str(inventory / "hosts.yml"), "playbooks/switches.yml")
        assert changed(second.stdout) == 0, second.stdout[-3000:]

        kubernetes_layer(site)
        config = yaml.safe_load(kubectl_json("-n", "monitoring", "get", "configmap", "harvest-lab-ontap-config")["data"]["harvest.yml"])
        assert {name: (p["addr"], p["collectors"], p["ca_cert"]) for name, p in config["Pollers"].items() if name != "lab-ontap"} == {
            "lab-sw-a": ("127.0.20.1", ["CiscoRest"], "/opt/harvest/cert/switch-ca.pem"),
            "lab-sw-b": ("127.0.20.2", ["CiscoRest"], "/opt/harvest/cert/switch-ca.pem")}
        stored = kubectl_json("-n", "monitoring", "get", "secret", "harvest-lab-ontap-switch-credentials")
        credentials = yaml.safe_load(base64.b64decode(stored["data"]["credentials.yml"]))
        assert credentials["Pollers"]["lab-sw-b"] == {"username": "harvest", "password": password}
        deployments = {d["metadata"]["name"] for d in kubectl_json("-n", "monitoring", "get", "deployments")["items"]}
        assert {"harvest-lab-ontap", "harvest-lab-sw-a", "harvest-lab-sw-b"} <= deployments
        assert recap(kubernetes_layer(site).stdout)["changed"] == 0
    finally:
        monitoring.write_text(original)
        secret.unlink()
        for address in ("127.0.20.1", "127.0.20.2"):
            with ConnectHandler(device_type="cisco_nxos", host=address, port=2222, username="admin",
                                password=vault_secret("vault_switch_admin_password")) as switch:
                switch.send_config_set(["no username harvest", "no feature nxapi"])


def test_without_the_prometheus_operators_crds_the_layer_stops_before_any_change(site):
    subprocess.run([*KUBECTL, "delete", "crd", "servicemonitors.monitoring.coreos.com"], check=True, capture_output=True)
    before = kubectl_json("-n", "monitoring", "get", "configmap,secret,deployment")
    result = kubernetes_layer(site, check=False)
    assert result.returncode != 0
    assert "monitoring.stack.install is false" in " ".join(result.stdout.split()), result.stdout[-3000:]
    after = kubectl_json("-n", "monitoring", "get", "configmap,secret,deployment")
    assert [i["metadata"]["resourceVersion"] for i in after["items"]] == [i["metadata"]["resourceVersion"] for i in before["items"]]
