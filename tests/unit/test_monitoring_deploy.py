"""What the monitoring layer declares (aipod_monitoring/deploy.py, dashboards.py): kube-prometheus-stack's
values, NetApp Harvest's poller, the Secrets filled from the vault, the pod's dashboard, and the
pending items against a cluster."""
from __future__ import annotations

import base64
import copy
import json

import yaml
from project_paths import SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes import gpu
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_monitoring import alerts, dashboards, deploy
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site

SITE = load_site(str(SAMPLE), decrypt=make_decryptor(SAMPLE_VAULT_PASSWORD))
CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"


def plan(model: dict | None = None) -> dict:
    return deploy.monitoring_plan(model or SITE.model, CA)


def by_key(objects: list) -> dict:
    return {f"{o['kind']}/{o['metadata']['name']}": o for o in objects}


def test_the_sample_declares_rules_harvest_and_its_dashboard_in_one_namespace():
    declared = plan()
    assert declared["enabled"] and declared["namespace"] == "monitoring"
    assert sorted(by_key(declared["objects"])) == [
        "ConfigMap/aipod-overview-dashboard", "ConfigMap/harvest-aipod-a800-ca", "ConfigMap/harvest-aipod-a800-config",
        "Deployment/harvest-aipod-a800", "PrometheusRule/aipod-alerts", "Service/harvest-aipod-a800",
        "ServiceMonitor/harvest-aipod-a800"]
    assert {o["metadata"]["namespace"] for o in declared["objects"]} == {"monitoring"}
    assert all(o["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "aipod" for o in declared["objects"])
    assert [g["name"] for g in by_key(declared["objects"])["PrometheusRule/aipod-alerts"]["spec"]["groups"]] == [
        "aipod-storage", "aipod-dgx", "aipod-kubernetes"]
    assert {k["kind"]: k["crd"] for k in declared["kinds"]}["ServiceMonitor"] == "servicemonitors.monitoring.coreos.com"


def test_the_stack_keeps_the_models_retention_and_volume_and_picks_up_every_monitor():
    stack = plan()["stack"]
    assert (stack["install"], stack["chart"]["name"], stack["chart"]["version"]) == (True, "kube-prometheus-stack", "87.5.1")
    spec = stack["values"]["prometheus"]["prometheusSpec"]
    assert (spec["retention"], spec["scrapeInterval"]) == ("15d", "30s")
    assert spec["storageSpec"]["volumeClaimTemplate"]["spec"]["storageClassName"] == "ontap-flexgroup"
    assert spec["storageSpec"]["volumeClaimTemplate"]["spec"]["resources"]["requests"]["storage"] == "200Gi"
    assert not any(spec[key] for key in ("serviceMonitorSelectorNilUsesHelmValues", "podMonitorSelectorNilUsesHelmValues",
                                         "ruleSelectorNilUsesHelmValues"))
    grafana = stack["values"]["grafana"]
    assert grafana["admin"]["existingSecret"] == "aipod-grafana-admin" and "adminPassword" not in grafana
    assert grafana["sidecar"]["dashboards"]["label"] == "grafana_dashboard"


def test_harvest_polls_over_rest_with_tls_verified_and_no_password_in_its_config():
    objects = by_key(plan()["objects"])
    config = yaml.safe_load(objects["ConfigMap/harvest-aipod-a800-config"]["data"]["harvest.yml"])
    poller = config["Pollers"]["aipod-a800"]
    assert poller["addr"] == "10.61.218.20" and poller["collectors"] == ["Rest", "RestPerf", "Ems"]
    assert poller["use_insecure_tls"] is False and poller["ca_cert"] == "/opt/harvest/cert/ca.pem"
    assert "password" not in json.dumps(config) and poller["credentials_file"] == "/opt/harvest/secrets/credentials.yml"
    assert objects["ConfigMap/harvest-aipod-a800-ca"]["data"]["ca.pem"] == CA
    container = objects["Deployment/harvest-aipod-a800"]["spec"]["template"]["spec"]["containers"][0]
    assert container["args"] == ["--poller", "aipod-a800", "--promPort", "12990", "--config", "/opt/harvest.yml"]
    assert container["image"] == "ghcr.io/netapp/harvest:26.11.0"
    assert objects["ServiceMonitor/harvest-aipod-a800"]["spec"]["endpoints"][0]["port"] == "metrics"


def test_a_cluster_on_another_port_is_polled_there():
    model = copy.deepcopy(SITE.model)
    model["ontap"]["https_port"] = 8443
    config = yaml.safe_load(by_key(plan(model)["objects"])["ConfigMap/harvest-aipod-a800-config"]["data"]["harvest.yml"])
    assert config["Pollers"]["aipod-a800"]["addr"] == "10.61.218.20:8443"


def test_secrets_carry_the_vault_values_as_data_whatever_they_hold():
    declared = plan()
    assert [(s["name"], s["variable"]) for s in declared["secrets"]] == [
        ("harvest-aipod-a800-credentials", "vault_ontap_harvest_password"), ("aipod-grafana-admin", "vault_grafana_admin_password")]
    hostile = "p: w\n  Pollers: {x: 1}\n{{ lookup('pipe', 'id') }}"
    harvest, grafana = deploy.secret_manifests(declared, [hostile, "grafana-pw"])
    credentials = yaml.safe_load(base64.b64decode(harvest["data"]["credentials.yml"]))
    assert credentials == {"Pollers": {"aipod-a800": {"username": "harvest", "password": hostile}}}
    assert base64.b64decode(grafana["data"]["admin-password"]).decode() == "grafana-pw"


def test_a_new_cluster_needs_the_release_and_every_object_and_a_matching_one_nothing():
    declared = plan()
    secrets = deploy.secret_manifests(declared, ["harvest-pw1", "grafana-pw1"])
    fresh = deploy.pending(declared, {}, secrets, None, [], "aipod")
    assert [i["object"] for i in fresh][0] == "helm release monitoring/kube-prometheus-stack"
    assert len(fresh) == 1 + len(declared["objects"]) + 2 and {i["action"] for i in fresh} == {"create"}
    existing: dict = {}
    for manifest in declared["objects"] + secrets:
        existing.setdefault(manifest["kind"], []).append(copy.deepcopy(manifest))
    release = {"status": "deployed", "chart": "kube-prometheus-stack-87.5.1", "values": declared["stack"]["values"]}
    assert deploy.pending(declared, existing, secrets, release, [], "aipod") == []
    changed = deploy.secret_manifests(declared, ["harvest-pw2", "grafana-pw1"])
    assert [(i["object"], i["reason"]) for i in deploy.pending(declared, existing, changed, release, [], "aipod")] == [
        ("Secret/harvest-aipod-a800-credentials", "data.credentials.yml differs")]


def test_without_the_stack_the_sites_prometheus_operator_crds_must_be_there():
    model = copy.deepcopy(SITE.model)
    model["monitoring"]["stack"] = {"install": False}
    declared = plan(model)
    assert [s["kind"] for s in declared["secrets"]] == ["harvest"]
    [refusal, *creates] = deploy.pending(declared, {}, [], None, [], "aipod")
    assert refusal["action"] == "refuse" and "monitoring.stack.install is false" in refusal["reason"]
    assert not any(i["object"].startswith("helm release") for i in creates)
    present = deploy.pending(declared, {}, [], None, list(deploy.MONITORING_CRDS), "aipod")
    assert {i["action"] for i in present} == {"create"}


def test_nothing_when_the_model_does_not_watch_the_pod():
    model = copy.deepcopy(SITE.model)
    model["monitoring"]["enabled"] = False
    declared = plan(model)
    assert (declared["enabled"], declared["objects"], declared["secrets"]) == (False, [], [])
    assert deploy.pending(declared, {}, [], None, [], "aipod") == []


def test_the_dashboard_parses_and_shows_what_the_alerts_watch_with_model_names_escaped():
    model = copy.deepcopy(SITE.model)
    model["ontap"]["svms"][0]["name"] = 'x"}) or vector(1) #'
    [config_map] = dashboards.config_maps(model, "monitoring", "grafana_dashboard", {"app.kubernetes.io/managed-by": "aipod"})
    assert config_map["metadata"]["labels"]["grafana_dashboard"] == "1"
    board = json.loads(config_map["data"]["aipod-overview.json"])
    assert board["uid"] == "aipod-overview" and len(board["panels"]) == 6
    expressions = [panel["targets"][0]["expr"] for panel in board["panels"]]
    # The alert's own selector, escaped once as a regex and once as a PromQL string.
    full = next(r for g in alerts.alert_rules(model)["groups"] for r in g["rules"] if r["alert"] == "AipodVolumeFull")
    assert full["expr"].startswith(expressions[0] + " > ") and 'svm=~"x\\"\\\\}' in expressions[0]
    assert len({(p["gridPos"]["x"], p["gridPos"]["y"]) for p in board["panels"]}) == 6


def test_the_gpu_operator_declares_the_dcgm_monitor_only_when_the_pod_is_watched():
    values = gpu.operator_values(SITE.model)
    assert values["dcgmExporter"]["serviceMonitor"] == {"enabled": True, "honorLabels": True, "interval": "30s"}
    model = copy.deepcopy(SITE.model)
    model["monitoring"]["enabled"] = False
    assert "serviceMonitor" not in gpu.operator_values(model)["dcgmExporter"]


def test_an_air_gapped_site_mirrors_the_chart_and_harvests_image():
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_report import airgap

    listed = [(a["kind"], a["name"], a["version"]) for a in airgap.monitoring_artifacts(plan())]
    assert listed == [("helm chart", "kube-prometheus-stack", "87.5.1"), ("container image", "harvest", "26.11.0")]


def test_a_new_configuration_or_ca_rolls_the_poller():
    def checksum(model: dict, ca: str) -> str:
        deployment = by_key(deploy.monitoring_plan(model, ca)["objects"])["Deployment/harvest-aipod-a800"]
        return deployment["spec"]["template"]["metadata"]["annotations"]["ontap-ai.pod/config-checksum"]

    moved = copy.deepcopy(SITE.model)
    moved["ontap"]["mgmt_address"] = "10.61.218.30"
    assert len({checksum(SITE.model, CA), checksum(moved, CA), checksum(SITE.model, CA + "\n")}) == 3
    assert checksum(SITE.model, CA) == checksum(copy.deepcopy(SITE.model), CA)


def test_the_cluster_pollers_pod_template_keeps_its_volume_order():
    """Server-side apply compares lists by position: another order would restart the poller for nothing."""
    deployment = by_key(plan()["objects"])["Deployment/harvest-aipod-a800"]["spec"]["template"]["spec"]
    assert [v["name"] for v in deployment["volumes"]] == ["config", "credentials", "ca"]
    assert [v["name"] for v in deployment["containers"][0]["volumeMounts"]] == ["config", "credentials", "ca"]
