"""An in-process client of the lab's ONTAP endpoint for tests: no sockets, same requests as HTTPS."""
from __future__ import annotations

import base64
import contextlib
import json
import pathlib
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator

REPO = pathlib.Path(__file__).resolve().parents[2]

sys.path.insert(0, str(REPO / "lab" / "ontap"))

from ontap_lab.api import Api  # noqa: E402
from ontap_lab.pki import ensure_pki  # noqa: E402
from ontap_lab.seed import seed_state, set_admin_password  # noqa: E402
from ontap_lab.service import CallLog, Faults, Service  # noqa: E402
from ontap_lab.state import Store  # noqa: E402

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site  # noqa: E402

ADMIN_PASSWORD = "lab-admin-pass1"
LAB_MODEL = load_site(str(REPO / "inventories" / "lab")).model


class Client:
    """Calls Api.handle the way the HTTPS service does, with basic auth."""

    def __init__(self, api: Api, user: str = "admin", password: str = ADMIN_PASSWORD):
        self.api = api
        self.user = user
        self.password = password

    def as_user(self, user: str, password: str) -> Client:
        return Client(self.api, user, password)

    def call(self, method: str, path: str, body=None, params: dict | None = None, auth: bool = True):
        target = path if path.startswith("/api/") else "/api/" + path
        if params:
            target += ("&" if "?" in target else "?") + urllib.parse.urlencode(params, doseq=True)
        headers = {}
        if auth:
            token = base64.b64encode(f"{self.user}:{self.password}".encode()).decode()
            headers["Authorization"] = f"Basic {token}"
        payload = json.dumps(body).encode() if body is not None else None
        response = self.api.handle(method, target, payload, headers)
        return response.status, response.body

    def get(self, path, **params):
        return self.call("GET", path, params=params or None)

    def post(self, path, body, **params):
        return self.call("POST", path, body, params=params or None)

    def patch(self, path, body, **params):
        return self.call("PATCH", path, body, params=params or None)

    def delete(self, path, **params):
        return self.call("DELETE", path, params=params or None)

    def records(self, path, **params) -> list[dict]:
        status, body = self.get(path, **params)
        assert status == 200, body
        return body["records"]

    def one(self, path, **params) -> dict:
        found = self.records(path, **params)
        assert len(found) == 1, found
        return found[0]


def fresh_api(tmp_path=None, job_seconds: float = 0.0) -> Api:
    """A freshly seeded lab cluster (the lab inventory's nodes, ports and aggregates)."""
    state = seed_state(LAB_MODEL["ontap"])
    set_admin_password(state, "admin", ADMIN_PASSWORD)
    store = Store(str(tmp_path / "state.json")) if tmp_path is not None else None
    return Api(state, store, job_seconds=job_seconds)


@contextlib.contextmanager
def https_endpoint(api: Api, directory: pathlib.Path, restart: Callable[[float], None] | None = None,
                   host: str = "127.0.0.1") -> Iterator[tuple[str, str, Service]]:
    """The endpoint served as lab/lab serves it (HTTPS with its own CA, fault injection, call log), in a
    thread on an ephemeral port of a loopback address, for clients that need a socket: yields (base URL,
    CA file, service)."""
    pki = ensure_pki(str(directory / "pki"), [host], ["localhost"])
    service = Service(api, Faults(str(directory / "faults.json")), CallLog(str(directory / "calls.jsonl")), "admin",
                      reseed=lambda: None, restart=restart or (lambda downtime: None))
    thread = threading.Thread(target=service.serve, args=(host, 0, pki["server"], pki["server-key"]), daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while service.server is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert service.server is not None, "the endpoint did not start serving"
    try:
        yield f"https://{host}:{service.server.server_address[1]}", pki["ca"], service
    finally:
        service.server.shutdown()
        service.server.server_close()
        service.calls.handle.close()
