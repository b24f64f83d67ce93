"""What the monitoring layer puts on the cluster, from the model's `monitoring` section.

- kube-prometheus-stack through Helm (pinned): Prometheus with the model's retention, scrape interval
  and volume on a Trident StorageClass, picking up every ServiceMonitor, PodMonitor and PrometheusRule
  (not only its own release's), and Grafana with its admin password from a Secret the bundle writes
  from the vault, loading every ConfigMap labelled grafana_dashboard as a dashboard;
- NetApp Harvest, one poller per ONTAP cluster: its harvest.yml (REST, RestPerf and Ems collectors,
  TLS verified against the model's CA), its credentials as a Secret, a Deployment, a Service and a
  ServiceMonitor;
- the pod's alert rules as a PrometheusRule (alerts.py);
- the bundle's dashboards as ConfigMaps (dashboards.py).

Secrets carry no value here: the plan names each and the vault variable that fills it.
"""
from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import yaml

from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes import apply, helm
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.trident import MANAGED_BY_LABEL
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_monitoring import alerts, dashboards, harvest
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m

NAMESPACE = "monitoring"
STACK_RELEASE = "kube-prometheus-stack"
STACK_CHART_REPO = "https://prometheus-community.github.io/helm-charts"
STACK_CHART_VERSION = "87.5.1"  # DeepOps 26.07's pin (Prometheus v3.13.0, Grafana 13.1.0)
GRAFANA_SECRET = "aipod-grafana-admin"
GRAFANA_PASSWORD_VARIABLE = "vault_grafana_admin_password"
HARVEST_IMAGE = "ghcr.io/netapp/harvest:26.11.0"
HARVEST_PORT = 12990
HARVEST_COLLECTORS = ["Rest", "RestPerf", "Ems"]
DASHBOARD_LABEL = "grafana_dashboard"
HARVEST_CERT_DIR = "/opt/harvest/cert"
HARVEST_SECRETS_DIR = "/opt/harvest/secrets"
HARVEST_SWITCH_SECRETS_DIR = "/opt/harvest/switch-secrets"
SWITCH_CA_KEY = "switch-ca.pem"
CONFIG_CHECKSUM = "ontap-ai.pod/config-checksum"
# The Prometheus Operator's CRDs of the kinds the layer declares: read (and declared) only where they exist.
CRD_OF_KIND = {"PrometheusRule": "prometheusrules.monitoring.coreos.com", "ServiceMonitor": "servicemonitors.monitoring.coreos.com"}
MONITORING_CRDS = tuple(CRD_OF_KIND.values())


def _yaml(data: Any) -> str:
    """YAML text of plain data: Ansible hands the model's strings over as str subclasses, which PyYAML's safe dumper refuses."""
    return yaml.safe_dump(json.loads(json.dumps(data)), sort_keys=False, default_flow_style=False)


def _app(cluster: str) -> str:
    """The poller's object names: harvest-<cluster>, as a DNS-1123 label."""
    return ("harvest-" + re.sub(r"[^a-z0-9-]+", "-", cluster.lower())).strip("-")[:50].rstrip("-")


def _metadata(name: str, namespace: str, **labels: str) -> dict[str, Any]:
    return {"name": name, "namespace": namespace, "labels": {**MANAGED_BY_LABEL, **labels}}


def _quantity(size: Any) -> str | None:
    """A model size (ONTAP's binary units) as a Kubernetes quantity in Gi."""
    size_in_bytes = m.size_bytes(size)
    return f"{max(1, size_in_bytes // 1024**3)}Gi" if size_in_bytes else None


def stack_values(model: dict) -> dict[str, Any]:
    """kube-prometheus-stack's values from the model."""
    section = alerts.monitoring_section(model)
    storage = m.as_dict(section.get("storage"))
    spec: dict[str, Any] = {
        "retention": m.as_str(section.get("retention")) or "15d",
        "scrapeInterval": m.as_str(section.get("scrape_interval")) or "30s",
        # Without these, the release picks up only objects labelled release=<its name> (gpu-operator#305):
        # the DCGM exporter's ServiceMonitor, Harvest's and the pod's rules would be ignored.
        "serviceMonitorSelectorNilUsesHelmValues": False,
        "podMonitorSelectorNilUsesHelmValues": False,
        "ruleSelectorNilUsesHelmValues": False,
    }
    storage_class, size = m.as_str(storage.get("class")), _quantity(storage.get("size"))
    if storage_class:
        spec["storageSpec"] = {"volumeClaimTemplate": {"spec": {
            "storageClassName": storage_class, "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": size or "50Gi"}}}}}
    return {
        "prometheus": {"prometheusSpec": spec},
        "grafana": {
            "admin": {"existingSecret": GRAFANA_SECRET, "userKey": "admin-user", "passwordKey": "admin-password"},
            "sidecar": {"dashboards": {"enabled": True, "label": DASHBOARD_LABEL, "labelValue": "1", "searchNamespace": "ALL"}},
        },
    }


def stack_plan(model: dict) -> dict[str, Any]:
    stack = m.as_dict(alerts.monitoring_section(model).get("stack"))
    install = stack.get("install")
    return {
        "install": install if isinstance(install, bool) else True,
        "release": STACK_RELEASE,
        "chart": {"repo": m.as_str(stack.get("chart_repo")) or STACK_CHART_REPO, "name": STACK_RELEASE,
                  "version": m.as_str(stack.get("chart_version")) or STACK_CHART_VERSION,
                  "file": m.as_str(stack.get("chart_file"))},
        "values": stack_values(model),
    }


def _harvest_endpoint(model: dict) -> tuple[str, str]:
    """(poller name, addr) of the pod's ONTAP cluster; addr carries the port when it is not 443."""
    ontap = m.as_dict(model.get("ontap"))
    name = m.as_str(ontap.get("cluster_name")) or "ontap"
    address = m.as_str(ontap.get("mgmt_address")) or ""
    port = ontap.get("https_port")
    return name, (f"{address}:{port}" if isinstance(port, int) and port != 443 else address)


def harvest_config(model: dict) -> dict[str, Any]:
    """harvest.yml: a poller for the pod's cluster (REST collectors) and one per Nexus switch the model
    has Harvest watch (CiscoRest over NX-API); TLS verified, no secret in it."""
    name, addr = _harvest_endpoint(model)
    ontap = m.as_dict(model.get("ontap"))
    datacenter = m.as_str(m.as_dict(model.get("pod")).get("name")) or name
    poller: dict[str, Any] = {
        "datacenter": datacenter,
        "addr": addr,
        "collectors": list(HARVEST_COLLECTORS),
        "exporters": ["prometheus"],
        "use_insecure_tls": False,
        "credentials_file": f"{HARVEST_SECRETS_DIR}/credentials.yml",
    }
    if m.as_str(ontap.get("ca_file")):
        poller["ca_cert"] = f"{HARVEST_CERT_DIR}/ca.pem"
    pollers = {name: poller}
    for switch in harvest.switch_pollers(model):
        # The switches' NX-API certificates are checked against the CA the model names for them.
        pollers[switch["name"]] = {"datacenter": datacenter, "addr": switch["addr"], "collectors": ["CiscoRest"],
                                   "exporters": ["prometheus"], "use_insecure_tls": False,
                                   "credentials_file": f"{HARVEST_SWITCH_SECRETS_DIR}/credentials.yml",
                                   "ca_cert": f"{HARVEST_CERT_DIR}/{SWITCH_CA_KEY}"}
    return {"Exporters": {"prometheus": {"exporter": "Prometheus", "local_http_addr": "0.0.0.0"}},  # noqa: S104 - scraped from Prometheus's pod
            "Pollers": pollers}


def _poller_objects(model: dict, namespace: str, app: str, poller: str, mounts: list, volumes: list,
                    checksum: str) -> list[dict[str, Any]]:
    """One poller's Deployment (one poller per container, as Harvest's own chart runs them), Service and ServiceMonitor."""
    labels = {"app.kubernetes.io/name": "harvest", "app.kubernetes.io/instance": app}
    image = m.as_str(m.as_dict(m.as_dict(alerts.monitoring_section(model).get("harvest"))).get("image")) or HARVEST_IMAGE
    deployment = {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": _metadata(app, namespace, **labels),
        "spec": {"replicas": 1, "selector": {"matchLabels": labels}, "template": {
            "metadata": {"labels": labels, "annotations": {CONFIG_CHECKSUM: checksum}},
            "spec": {
                "securityContext": {"runAsNonRoot": True, "runAsUser": 65534, "seccompProfile": {"type": "RuntimeDefault"}},
                "containers": [{
                    "name": "poller", "image": image,
                    "args": ["--poller", poller, "--promPort", str(HARVEST_PORT), "--config", "/opt/harvest.yml"],
                    "ports": [{"name": "metrics", "containerPort": HARVEST_PORT}],
                    "volumeMounts": mounts,
                    "securityContext": {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": False,
                                        "capabilities": {"drop": ["ALL"]}},
                }],
                "volumes": volumes,
            }}}}
    service = {"apiVersion": "v1", "kind": "Service", "metadata": _metadata(app, namespace, **labels),
               "spec": {"selector": labels, "ports": [{"name": "metrics", "port": HARVEST_PORT, "targetPort": "metrics"}]}}
    monitor = {"apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor", "metadata": _metadata(app, namespace, **labels),
               "spec": {"selector": {"matchLabels": labels}, "endpoints": [{"port": "metrics", "interval":
                        m.as_str(alerts.monitoring_section(model).get("scrape_interval")) or "30s"}]}}
    return [deployment, service, monitor]


def harvest_objects(model: dict, namespace: str, ca_pem: str, switch_ca_pem: str = "") -> list[dict[str, Any]]:
    """The pollers' ConfigMaps (harvest.yml, the CAs) and each poller's Deployment, Service and
    ServiceMonitor; their Secrets are in secrets(). A switch poller mounts the switches' credentials
    only, the cluster's poller the cluster's only."""
    name = _harvest_endpoint(model)[0]
    app = _app(name)
    labels = {"app.kubernetes.io/name": "harvest", "app.kubernetes.io/instance": app}
    ontap = m.as_dict(model.get("ontap"))
    switches = harvest.switch_pollers(model)
    config_data = {"harvest.yml": _yaml(harvest_config(model))}
    ca_data = {}
    if m.as_str(ontap.get("ca_file")):
        ca_data["ca.pem"] = ca_pem
    if switches:
        ca_data[SWITCH_CA_KEY] = switch_ca_pem
    config_mount = {"name": "config", "mountPath": "/opt/harvest.yml", "subPath": "harvest.yml", "readOnly": True}
    ca_volumes = [{"name": "ca", "configMap": {"name": f"{app}-ca"}}] if ca_data else []
    ca_mounts = [{"name": "ca", "mountPath": HARVEST_CERT_DIR, "readOnly": True}] if ca_data else []

    def mounted(secret: str, directory: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """A poller's mounts and volumes, in the order earlier releases declared them (config, credentials, CA):
        another order is a change of the pod template, which would restart the poller for nothing."""
        return ([config_mount, {"name": "credentials", "mountPath": directory, "readOnly": True}] + ca_mounts,
                [{"name": "config", "configMap": {"name": f"{app}-config"}},
                 {"name": "credentials", "secret": {"secretName": secret}}] + ca_volumes)

    # Harvest reads harvest.yml and its CAs at start (and a subPath mount never updates): a change of
    # either rolls the pollers, through this annotation of their pod template.
    checksum = hashlib.sha256((config_data["harvest.yml"] + "\0" + "\0".join(ca_data.values())).encode("utf-8")).hexdigest()
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": _metadata(f"{app}-config", namespace, **labels), "data": config_data}
    objects = [config]
    if ca_data:
        objects.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": _metadata(f"{app}-ca", namespace, **labels), "data": ca_data})
    objects += _poller_objects(model, namespace, app, name, *mounted(f"{app}-credentials", HARVEST_SECRETS_DIR), checksum)
    for switch in switches:
        objects += _poller_objects(model, namespace, _app(switch["name"]), switch["name"],
                                   *mounted(f"{app}-switch-credentials", HARVEST_SWITCH_SECRETS_DIR), checksum)
    return objects


def secrets(model: dict, namespace: str, install_stack: bool) -> list[dict[str, str]]:
    """The Secrets the layer writes, each with the vault variable that fills it: {name, namespace, kind, variable, username}."""
    found = []
    account = harvest.account(model)
    if account:
        name = _harvest_endpoint(model)[0]
        found.append({"name": f"{_app(name)}-credentials", "namespace": namespace, "kind": "harvest",
                      "variable": account["password_variable"], "username": account["username"], "pollers": [name]})
        switch_account = harvest.switch_account(model)
        switches = [switch["name"] for switch in harvest.switch_pollers(model)]
        if switch_account and switches:
            found.append({"name": f"{_app(name)}-switch-credentials", "namespace": namespace, "kind": "harvest",
                          "variable": switch_account["password_variable"], "username": switch_account["username"],
                          "pollers": switches})
    if install_stack:
        found.append({"name": GRAFANA_SECRET, "namespace": namespace, "kind": "grafana", "variable": GRAFANA_PASSWORD_VARIABLE,
                      "username": "admin", "pollers": []})
    return found


def monitoring_plan(model: dict, ca_pem: str = "", switch_ca_pem: str = "",
                    dashboard_files: dict[str, str] | None = None) -> dict[str, Any]:
    """{enabled, namespace, stack, objects, secrets, ca_file}; ca_pem is the text of ontap.ca_file, which Harvest
    verifies the cluster's certificate against, and switch_ca_pem that of monitoring.harvest.switches.ca_file,
    for the switches' NX-API certificates; dashboard_files the site's dashboards (monitoring.dashboards),
    {file name: its text}."""
    section = alerts.monitoring_section(model)
    namespace = m.as_str(section.get("namespace")) or NAMESPACE
    stack = stack_plan(model)
    enabled = alerts.enabled(model)
    rules = {"apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRule",
             "metadata": _metadata("aipod-alerts", namespace), "spec": alerts.alert_rules(model) if enabled else {}}
    objects = ([rules] + harvest_objects(model, namespace, ca_pem, switch_ca_pem) + dashboards.config_maps(model, namespace, DASHBOARD_LABEL, MANAGED_BY_LABEL)
               + dashboards.file_config_maps(dashboard_files or {}, namespace, DASHBOARD_LABEL, MANAGED_BY_LABEL)
               if enabled else [])
    kinds = [{"kind": kind, "api_version": version, "crd": CRD_OF_KIND.get(kind)}
             for kind, version in dict.fromkeys((o["kind"], o["apiVersion"]) for o in objects + [
                 {"kind": "Secret", "apiVersion": "v1"}] if enabled)]
    return {"enabled": enabled, "namespace": namespace, "stack": stack, "objects": objects, "kinds": kinds,
            "secrets": secrets(model, namespace, stack["install"]) if enabled else [],
            "ca_file": m.as_str(m.as_dict(model.get("ontap")).get("ca_file"))}


def secret_manifests(plan: dict, values: list) -> list[dict[str, Any]]:
    """The plan's Secrets with the vault's values (in the plan's order): Harvest's credentials file, Grafana's admin."""
    declared = m.as_list(plan.get("secrets"))
    if len(declared) != len(m.as_list(values)):
        raise ValueError(f"{len(declared)} Secrets but {len(m.as_list(values))} values")
    manifests = []
    for secret, value in zip(declared, m.as_list(values)):
        if secret["kind"] == "harvest":
            # Harvest's credentials_file has harvest.yml's shape; the password is YAML data, never YAML text.
            data = {"credentials.yml": _yaml({"Pollers": {poller: {"username": secret["username"], "password": str(value)}
                                                          for poller in secret["pollers"]}})}
        else:
            data = {"admin-user": secret["username"], "admin-password": str(value)}
        manifests.append({"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
                          "metadata": _metadata(secret["name"], secret["namespace"]), "data": apply.encoded(data)})
    return manifests


def pending(plan: dict, existing: dict, secrets: list, release: dict | None, crds: list,
            field_manager: str) -> list[dict[str, Any]]:
    """The monitoring layer's pending items: the stack's release, each declared object an apply would
    change (existing: the cluster's objects by kind), and each Secret; without the stack, the
    Prometheus Operator's CRDs the objects need must be the site's."""
    if not plan.get("enabled"):
        return []
    stack = m.as_dict(plan.get("stack"))
    found: list[dict[str, Any]] = []
    if stack.get("install"):
        found.extend(helm.release_pending({**stack, "namespace": plan.get("namespace")}, release))
    else:
        missing = [crd for crd in MONITORING_CRDS if crd not in m.as_list(crds)]
        if missing:
            found.append(aipod_pending.item(f"CustomResourceDefinition/{missing[0]}", None, None, None, "refuse",
                                            f"the Prometheus Operator's CRDs ({', '.join(missing)}) are not on the cluster, and "
                                            "monitoring.stack.install is false: install the site's Prometheus Operator stack "
                                            "first, or let the bundle install kube-prometheus-stack (monitoring.stack.install: true)"))
    declared = list(m.as_list(plan.get("objects"))) + list(m.as_list(secrets))
    kinds = sorted({str(o.get("kind")) for o in declared if isinstance(o, dict)})
    to_apply: dict[str, dict[str, str]] = {}
    for kind in kinds:
        mine = [o for o in declared if isinstance(o, dict) and o.get("kind") == kind]
        to_apply.update(apply.apply_pending(m.as_list(m.as_dict(existing).get(kind)), mine, field_manager))
    found.extend(apply.pending_items(to_apply))
    return found
