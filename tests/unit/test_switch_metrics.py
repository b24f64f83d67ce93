"""Switch metrics through Harvest's CiscoRest collector (monitoring.harvest.switches): the Nexus
switches get NX-API and a read-only user whose password travels hashed, Harvest gets a poller per
switch with TLS verified, and what cannot work is refused at its key."""
from __future__ import annotations

import base64
import copy
import dataclasses

import pytest
import yaml
from project_paths import SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor
from switch_test_models import cumulus_model

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_monitoring import deploy, harvest
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import model as network_model
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import nxos, nxos_users
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import check_model

SITE = load_site(str(SAMPLE), decrypt=make_decryptor(SAMPLE_VAULT_PASSWORD))
CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
SWITCH_CA = "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n"
HASH = "$5$JFHICC$u.zXRUgprAkkYLiEns8VrhsNEIOj7FzVrn67tuJdtKB"


def watched(model: dict | None = None, **switches) -> dict:
    model = copy.deepcopy(model or SITE.model)
    model["monitoring"]["harvest"] = {**model["monitoring"].get("harvest", {}),
                                      "switches": {"enabled": True, "ca_file": "files/switch-ca.pem", **switches}}
    return model


def findings(model: dict, severity: str = "error") -> list[tuple[str, str]]:
    site = dataclasses.replace(SITE, model=model, findings=[])
    return [(f.key_path(), f.message) for f in check_model(site, check_files=False) if f.severity == severity]


def test_sha256_crypt_matches_the_published_test_vectors():
    # Drepper's "Unix crypt using SHA-256 and SHA-512", the first vector (default rounds).
    assert nxos_users.sha256_crypt("Hello world!", "saltstring") == "$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5"
    # A salt is cut at 16 characters; an empty or odd one is refused.
    assert nxos_users.sha256_crypt("x", "0123456789abcdefXYZ").startswith("$5$0123456789abcdef$")
    with pytest.raises(ValueError, match="salt"):
        nxos_users.sha256_crypt("x", "bad salt")
    drawn = nxos_users.new_salt()
    assert len(drawn) == 6 and set(drawn) <= set(nxos_users.CRYPT_ALPHABET) and drawn != nxos_users.new_salt()


def test_off_unless_asked():
    plan = network_model.switch_plan(SITE.model, "n3232c-a")
    assert plan["metrics_user"] is None
    intent = nxos.intent(plan)
    assert "nxapi" not in intent["features"] and intent["users"] == []
    assert [p for p in deploy.harvest_config(SITE.model)["Pollers"]] == ["aipod-a800"]


def test_each_nexus_gets_nxapi_and_harvests_read_only_user():
    intent = nxos.intent(network_model.switch_plan(watched(), "n3232c-a"))
    assert intent["features"][-1] == "nxapi"
    assert intent["users"] == [{"name": "harvest", "role": "network-operator", "password_variable": "vault_switch_harvest_password"}]
    running = "feature lacp\nfeature vpc\nfeature lldp\nusername admin password 5 $5$x  role network-admin\n"
    compared = nxos.compare(intent, {}, running)
    assert compared["steps"]["features"] == ["nxapi"] and "users" in compared["steps"]["concerns"]
    assert [(i["object"], i["action"], i["after"]) for i in compared["pending"] if i["object"].startswith(("user", "feature"))] == [
        ("feature nxapi", "create", None), ("user harvest", "create", "network-operator")]
    converged = running + "feature nxapi\n" + f"username harvest password 5 {HASH}  role network-operator\n"
    assert nxos_users.pending_users(intent["users"], converged) == []


def test_a_site_user_of_that_name_is_refused_never_taken_over():
    wanted = [{"name": "harvest", "role": "network-operator"}]
    found = nxos_users.pending_users(wanted, f"username harvest password 5 {HASH}  role network-admin\n")
    assert [(i["action"], i["before"]) for i in found] == [("refuse", ["network-admin"])]
    assert "monitoring.harvest.switches.username" in found[0]["reason"]
    # A user with no role yet (NX-OS prints none) is given the role.
    assert [i["action"] for i in nxos_users.pending_users(wanted, "username harvest password 5 !\n")] == ["modify"]


def test_harvest_polls_each_nexus_over_nxapi_with_tls_verified_and_its_own_credentials():
    model = watched()
    declared = deploy.monitoring_plan(model, CA, SWITCH_CA)
    config = deploy.harvest_config(model)["Pollers"]
    assert list(config) == ["aipod-a800", "n3232c-a", "n3232c-b"]
    switch = config["n3232c-a"]
    assert switch["collectors"] == ["CiscoRest"] and switch["use_insecure_tls"] is False
    assert switch["ca_cert"] == "/opt/harvest/cert/switch-ca.pem"
    assert switch["credentials_file"] == "/opt/harvest/switch-secrets/credentials.yml"
    assert switch["addr"] == model["hosts"]["n3232c-a"]["switch"]["mgmt_address"]
    objects = {f"{o['kind']}/{o['metadata']['name']}": o for o in declared["objects"]}
    assert objects["ConfigMap/harvest-aipod-a800-ca"]["data"] == {"ca.pem": CA, "switch-ca.pem": SWITCH_CA}
    poller = objects["Deployment/harvest-n3232c-a"]["spec"]["template"]["spec"]
    assert poller["containers"][0]["args"][:2] == ["--poller", "n3232c-a"]
    # A switch poller mounts the switches' credentials only; the cluster's poller the cluster's only.
    assert [v["secret"]["secretName"] for v in poller["volumes"] if "secret" in v] == ["harvest-aipod-a800-switch-credentials"]
    cluster = objects["Deployment/harvest-aipod-a800"]["spec"]["template"]["spec"]
    assert [v["secret"]["secretName"] for v in cluster["volumes"] if "secret" in v] == ["harvest-aipod-a800-credentials"]
    assert {"Service/harvest-n3232c-b", "ServiceMonitor/harvest-n3232c-b"} <= set(objects)
    secrets = declared["secrets"]
    assert [(s["name"], s["variable"], s["pollers"]) for s in secrets[:2]] == [
        ("harvest-aipod-a800-credentials", "vault_ontap_harvest_password", ["aipod-a800"]),
        ("harvest-aipod-a800-switch-credentials", "vault_switch_harvest_password", ["n3232c-a", "n3232c-b"])]
    hostile = "a b\n  Pollers: {x: 1}"
    manifests = deploy.secret_manifests(declared, ["ontap-pw", hostile, "grafana-pw"])
    credentials = yaml.safe_load(base64.b64decode(manifests[1]["data"]["credentials.yml"]))
    assert credentials == {"Pollers": {"n3232c-a": {"username": "harvest", "password": hostile},
                                       "n3232c-b": {"username": "harvest", "password": hostile}}}


def test_a_switch_ca_change_rolls_every_poller():
    first = deploy.monitoring_plan(watched(), CA, SWITCH_CA)["objects"]
    second = deploy.monitoring_plan(watched(), CA, SWITCH_CA.replace("MIIC", "MIID"))["objects"]

    def checksums(objects):
        return [o["spec"]["template"]["metadata"]["annotations"][deploy.CONFIG_CHECKSUM] for o in objects if o["kind"] == "Deployment"]

    assert all(a != b for a, b in zip(checksums(first), checksums(second)))


def test_what_cannot_work_is_refused_at_its_key():
    model = watched()
    del model["monitoring"]["harvest"]["switches"]["ca_file"]
    assert any(key == "monitoring.harvest.switches.enabled" and "without a CA" in message for key, message in findings(model))
    assert any(key == "monitoring.harvest.switches.username" and "NX-OS's own account" in message
               for key, message in findings(watched(username="admin")))
    site = dataclasses.replace(SITE, model=watched(), findings=[],
                               secrets=[s for s in SITE.secrets if s != harvest.SWITCH_PASSWORD_VARIABLE])
    missing = [(f.key_path(), f.message) for f in check_model(site, check_files=False) if f.severity == "error"]
    assert ("monitoring.harvest.switches.enabled", "the secret vault_switch_harvest_password is missing") in missing


def test_cumulus_switches_are_not_polled_and_the_model_is_told():
    model = watched(cumulus_model())
    assert harvest.switch_pollers(model) == []
    assert network_model.switch_plan(model, "n3232c-a")["metrics_user"] is None
    assert any("CiscoRest collector polls none" in message for _, message in findings(model, "warning"))


def test_the_switch_password_is_needed_only_when_a_nexus_is_polled():
    def missing(model: dict, secrets: list) -> bool:
        site = dataclasses.replace(SITE, model=model, findings=[], secrets=secrets)
        return any(f.message == "the secret vault_switch_harvest_password is missing" for f in check_model(site, check_files=False))

    with_secret = [*SITE.secrets, harvest.SWITCH_PASSWORD_VARIABLE]
    assert missing(watched(), list(SITE.secrets)) and not missing(watched(), with_secret)
    assert not missing(watched(cumulus_model()), list(SITE.secrets))  # nothing to poll
    unwatched = watched()
    unwatched["monitoring"]["enabled"] = False
    assert not missing(unwatched, list(SITE.secrets))


def test_the_switch_ca_is_checked_as_a_file_with_its_own_hint(tmp_path):
    model = watched()
    site = dataclasses.replace(SITE, model=model, findings=[], inventory_dir=str(tmp_path), files_dir=None,
                               secrets=[*SITE.secrets, harvest.SWITCH_PASSWORD_VARIABLE])
    found = [f for f in check_model(site) if f.key_path() == "monitoring.harvest.switches.ca_file"]
    assert found and "does not exist" in found[0].message and "NX-API certificate" in found[0].hint
