"""The lab endpoint's service layer: HTTPS with the lab CA, fault injection, the call log, restarts."""
from __future__ import annotations

import json

import pytest
import requests
from ontap_lab.pki import ensure_pki
from ontap_lab.service import CallLog, Faults, resource_of
from ontap_lab_client import ADMIN_PASSWORD, fresh_api, https_endpoint


@pytest.fixture
def served(tmp_path):
    """The endpoint on an ephemeral loopback port, with its own CA; yields (base_url, ca_file, service)."""
    restarts: list[float] = []
    with https_endpoint(fresh_api(tmp_path), tmp_path, restart=restarts.append) as (url, ca, service):
        service.restarts = restarts
        yield url, ca, service


AUTH = ("admin", ADMIN_PASSWORD)


def test_https_is_trusted_through_the_lab_ca_only(served):
    url, ca, _ = served
    assert requests.get(f"{url}/api/cluster?fields=version", auth=AUTH, verify=ca, timeout=5).status_code == 200
    with pytest.raises(requests.exceptions.SSLError):
        requests.get(f"{url}/api/cluster", auth=AUTH, verify=True, timeout=5)


def test_ca_is_kept_and_server_certificate_follows_the_addresses(tmp_path):
    first = ensure_pki(str(tmp_path), ["127.0.10.1"], ["lab"])
    ca = open(first["ca"]).read()
    server = open(first["server"]).read()
    again = ensure_pki(str(tmp_path), ["127.0.10.1"], ["lab"])
    assert open(again["ca"]).read() == ca and open(again["server"]).read() == server
    moved = ensure_pki(str(tmp_path), ["127.0.10.9"], ["lab"])
    assert open(moved["ca"]).read() == ca and open(moved["server"]).read() != server


def test_every_api_call_is_logged_and_counted(served):
    url, ca, service = served
    mark = service.calls.last
    requests.get(f"{url}/api/network/ethernet/ports/{'0' * 8}-0000-0000-0000-{'0' * 12}", auth=AUTH, verify=ca, timeout=5)
    requests.post(f"{url}/api/network/ipspaces", json={"name": "x"}, auth=AUTH, verify=ca, timeout=5)
    counters = requests.get(f"{url}/lab/counters?since={mark}", auth=AUTH, verify=ca, timeout=5).json()
    assert counters["total"] == 2 and counters["writes"] == 1 and counters["successful_writes"] == 1
    assert counters["by_resource"] == {"GET network/ethernet/ports/{id}": 1, "POST network/ipspaces": 1}
    calls = requests.get(f"{url}/lab/calls?since={mark}", auth=AUTH, verify=ca, timeout=5).json()["calls"]
    assert [c["status"] for c in calls] == [404, 201] and calls[0]["user"] == "admin"
    # the log is a file too, and a new process reads it back
    assert CallLog(service.calls.path).last == service.calls.last


def test_admin_endpoints_need_the_cluster_admin(served):
    url, ca, _ = served
    assert requests.get(f"{url}/lab/counters", verify=ca, timeout=5).status_code == 401
    assert requests.get(f"{url}/lab/health", verify=ca, timeout=5).json()["status"] == "ok"


def test_injected_errors_before_and_after_the_change(served):
    url, ca, service = served
    requests.post(f"{url}/lab/faults", json={"error_rate": 1.0, "error_status": 503, "error_phase": "before"},
                  auth=AUTH, verify=ca, timeout=5)
    answer = requests.post(f"{url}/api/network/ipspaces", json={"name": "before"}, auth=AUTH, verify=ca, timeout=5)
    assert answer.status_code == 503 and answer.json()["error"]["code"] == "503"
    requests.post(f"{url}/lab/faults", json={"error_phase": "after"}, auth=AUTH, verify=ca, timeout=5)
    assert requests.post(f"{url}/api/network/ipspaces", json={"name": "after"}, auth=AUTH, verify=ca, timeout=5).status_code == 503
    requests.delete(f"{url}/lab/faults", auth=AUTH, verify=ca, timeout=5)
    names = {r["name"] for r in requests.get(f"{url}/api/network/ipspaces", auth=AUTH, verify=ca, timeout=5).json()["records"]}
    assert "before" not in names and "after" in names
    faults = [c["fault"] for c in service.calls.since(0) if c["fault"]]
    assert faults == ["error-before", "error-after"]


def test_error_rate_is_a_share_of_calls():
    import tempfile
    with tempfile.TemporaryDirectory() as directory:
        faults = Faults(f"{directory}/faults.json")
        faults.update({"error_rate": 0.1, "seed": 3})
        errors = sum(1 for _ in range(2000) if faults.decide("GET")["error"])
        assert 150 < errors < 250
        faults.update({"error_rate": 0.0, "latency_ms": 20})
        assert faults.decide("GET")["delay"] == pytest.approx(0.02)


def test_restart_drops_the_call_and_is_one_shot(served):
    url, ca, service = served
    requests.post(f"{url}/lab/faults", json={"restart_after": 2, "restart_downtime_ms": 10}, auth=AUTH, verify=ca, timeout=5)
    assert requests.get(f"{url}/api/cluster", auth=AUTH, verify=ca, timeout=5).status_code == 200
    with pytest.raises(requests.exceptions.ConnectionError):
        requests.get(f"{url}/api/cluster", auth=AUTH, verify=ca, timeout=5)
    assert service.restarts == [0.01]
    assert requests.get(f"{url}/api/cluster", auth=AUTH, verify=ca, timeout=5).status_code == 200
    assert json.loads(open(service.faults.path).read())["settings"]["restart_after"] == 0


def test_resource_names_hide_identifiers():
    assert resource_of("/api/storage/volumes/0c1f9c4e-5b1d-4c1e-9f0a-1b2c3d4e5f60?fields=x") == "storage/volumes/{id}"
    assert resource_of("/api/protocols/nfs/export-policies/12884901889/rules/1") == "protocols/nfs/export-policies/{id}/rules/{id}"
    assert resource_of("/api/security/roles/x/y/privileges/%2Fapi%2Fstorage") == "security/roles/x/y/privileges/{id}"
