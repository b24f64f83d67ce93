"""An in-process client of the lab's ONTAP endpoint for tests: no sockets, same requests as HTTPS."""
from __future__ import annotations

import base64
import json
import pathlib
import sys
import urllib.parse

REPO = pathlib.Path(__file__).resolve().parents[2]

sys.path.insert(0, str(REPO / "lab" / "ontap"))

from ontap_lab.api import Api  # noqa: E402
from ontap_lab.seed import seed_state, set_admin_password  # noqa: E402
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
