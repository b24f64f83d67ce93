"""The site's own Grafana dashboards (monitoring.dashboards): loaded as ConfigMaps the Grafana sidecar
reads, with a dashboard exported for import pointed at the stack's Prometheus, and refused at their
key when they cannot be loaded."""
from __future__ import annotations

import copy
import dataclasses
import json

import pytest
from project_paths import SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.filter.aipod import aipod_site_json_files
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_monitoring import dashboards, deploy
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import check_model

SITE = load_site(str(SAMPLE), decrypt=make_decryptor(SAMPLE_VAULT_PASSWORD))
# The shape of a dashboard Grafana exports for import, as Harvest ships them (grafana/dashboards/cmode).
EXPORTED = {
    "__inputs": [{"name": "DS_PROMETHEUS", "label": "Prometheus", "type": "datasource", "pluginId": "prometheus"}],
    "__requires": [{"type": "grafana", "id": "grafana", "version": "8.1.8"}],
    "title": "ONTAP: Volume", "uid": "cdot-volume",
    "panels": [{"id": 1, "type": "timeseries", "datasource": "${DS_PROMETHEUS}",
                "targets": [{"datasource": {"type": "prometheus", "uid": "${DS_PROMETHEUS}"}, "expr": "volume_read_ops"}]}],
    "templating": {"list": [{"name": "Datasource", "type": "datasource", "query": "prometheus"}]},
}


def test_an_exported_dashboard_is_pointed_at_the_stacks_prometheus():
    ready = dashboards.provisioned(EXPORTED)
    assert "__inputs" not in ready and ready["__requires"] == EXPORTED["__requires"]
    assert ready["panels"][0]["datasource"] == "prometheus"
    assert ready["panels"][0]["targets"][0]["datasource"] == {"type": "prometheus", "uid": "prometheus"}
    assert ready["templating"] == EXPORTED["templating"]  # only the inputs' placeholders change


def test_each_file_becomes_a_labelled_config_map_named_after_it():
    files = {"volume.json": json.dumps(EXPORTED), "DCGM Exporter Dashboard.json": json.dumps({"panels": [], "title": "DCGM"})}
    maps = dashboards.file_config_maps(files, "monitoring", "grafana_dashboard", {"app.kubernetes.io/managed-by": "aipod"})
    assert [(c["metadata"]["name"], list(c["data"])) for c in maps] == [
        ("aipod-dashboard-dcgm-exporter-dashboard", ["dcgm-exporter-dashboard.json"]), ("aipod-dashboard-volume", ["volume.json"])]
    assert maps[1]["metadata"]["labels"] == {"app.kubernetes.io/managed-by": "aipod", "grafana_dashboard": "1"}
    assert json.loads(maps[1]["data"]["volume.json"])["panels"][0]["datasource"] == "prometheus"
    with pytest.raises(ValueError, match="both named volume"):
        dashboards.file_config_maps({"a/volume.json": "{\"panels\": []}", "b/Volume.json": "{\"panels\": []}"}, "m", "l", {})


def test_the_plan_declares_them_beside_the_overview():
    plan = deploy.monitoring_plan(SITE.model, "", "", {"volume.json": json.dumps(EXPORTED)})
    names = [o["metadata"]["name"] for o in plan["objects"] if o["kind"] == "ConfigMap"]
    assert "aipod-overview-dashboard" in names and "aipod-dashboard-volume" in names


@pytest.mark.parametrize(("text", "words"), [
    ("{\"panels\": [", "is not JSON (JSONDecodeError at line 1)"),
    ("[1, 2]", "is no Grafana dashboard"),
    ("{\"title\": \"x\"}", "is no Grafana dashboard"),
    ("{\"panels\": [], \"pad\": \"" + "x" * dashboards.MAX_DASHBOARD_BYTES + "\"}", "more than a ConfigMap holds"),
])
def test_a_file_that_cannot_be_loaded_is_described(text, words):
    assert words in dashboards.dashboard_problem(text)


def test_the_validator_refuses_what_cannot_be_loaded_at_its_key(tmp_path):
    inventory = tmp_path / "site"
    (inventory / "files" / "harvest").mkdir(parents=True)
    (inventory / "files" / "harvest" / "volume.json").write_text(json.dumps(EXPORTED))
    (inventory / "files" / "harvest" / "broken.json").write_text("{\"panels\": [")
    (inventory / "files" / "empty").mkdir()
    (inventory / "files" / "volume.json").write_text(json.dumps(EXPORTED))
    model = copy.deepcopy(SITE.model)
    model["monitoring"]["dashboards"] = ["files/harvest", "files/empty", "files/missing.json", "files/volume.json", "../outside.json"]
    site = dataclasses.replace(SITE, model=model, findings=[], inventory_dir=str(inventory), files_dir=None)
    found = {(f.key_path(), f.message) for f in check_model(site) if f.key_path().startswith("monitoring.dashboards")}
    messages = " | ".join(message for _, message in sorted(found))
    assert ("monitoring.dashboards[0]", "dashboard files/harvest/broken.json is not JSON (JSONDecodeError at line 1)") in found, messages
    assert ("monitoring.dashboards[1]", "dashboard directory files/empty holds no .json file") in found, messages
    assert any(key == "monitoring.dashboards[2]" and "does not exist" in message for key, message in found), messages
    assert any(key == "monitoring.dashboards[3]" and "would both be loaded as volume" in message for key, message in found), messages
    assert any(key == "monitoring.dashboards[4]" and "../outside.json" in message for key, message in found), messages


def test_a_directory_stands_for_its_json_files_in_name_order(tmp_path):
    (tmp_path / "d").mkdir()
    for name in ("b.json", "a.json", "notes.txt"):
        (tmp_path / "d" / name).write_text("{}")
    assert aipod_site_json_files(["d", "x.json"], str(tmp_path)) == [str(tmp_path / "d" / "a.json"), str(tmp_path / "d" / "b.json"),
                                                                    str(tmp_path / "x.json")]
