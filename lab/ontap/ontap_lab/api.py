"""Request in, response out: routing, authentication, REST-role authorisation and jobs.

No sockets here, so the unit tests drive the endpoint directly; ``service`` adds HTTPS, fault
injection and the call log around ``Api.handle``.
"""
from __future__ import annotations

import base64
import dataclasses
import json
import re
import threading
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

from . import query
from .errors import JobError, OntapError, not_found
from .schemas import gettable_roots, response_problem, validate_body
from .state import NullRealiser, Realiser, State, Store, new_uuid

UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
ACCESS_METHODS = {
    "none": set(),
    "readonly": {"GET", "OPTIONS", "HEAD"},
    "read_create": {"GET", "OPTIONS", "HEAD", "POST"},
    "read_modify": {"GET", "OPTIONS", "HEAD", "PATCH"},
    "read_create_modify": {"GET", "OPTIONS", "HEAD", "POST", "PATCH"},
    "all": {"GET", "OPTIONS", "HEAD", "POST", "PATCH", "DELETE"},
}


@dataclasses.dataclass
class Response:
    status: int
    body: dict | None = None
    headers: dict[str, str] = dataclasses.field(default_factory=dict)

    def payload(self) -> bytes:
        return b"" if self.body is None else json.dumps(self.body).encode("utf-8")


@dataclasses.dataclass
class Context:
    """One request as the resources see it."""

    method: str
    path: str  # without /api/, e.g. storage/volumes/<uuid>
    params: dict[str, list[str]]
    body: Any
    user: dict
    svm_scope: str | None  # owner SVM uuid of an SVM-scoped account, else None
    api: Api

    @property
    def state(self) -> State:
        return self.api.state

    def param(self, name: str, default: str | None = None) -> str | None:
        values = self.params.get(name)
        return values[0] if values else default

    def flag(self, name: str, default: bool = False) -> bool:
        value = self.param(name)
        return default if value is None else value.lower() == "true"


class Api:
    """The ONTAP REST API of one lab cluster."""

    def __init__(self, state: State, store: Store | None = None, realiser: Realiser | None = None,
                 job_seconds: float = 0.5):
        from .resources import build_routes  # resources import Api types; avoid a cycle at import time

        self.state = state
        self.store = store
        self.realiser = realiser or NullRealiser()
        self.job_seconds = job_seconds
        self.lock = threading.RLock()
        self.routes = build_routes()
        from .fabric import Fabric

        self.fabric: Fabric | None = None
        Fabric().join(self)

    # ------------------------------------------------------------------ entry point
    def handle(self, method: str, target: str, body: bytes | None, headers: dict[str, str]) -> Response:
        method = method.upper()
        parsed = urllib.parse.urlsplit(target)
        params = urllib.parse.parse_qs(parsed.query, keep_blank_values=True)
        path = parsed.path
        if not path.startswith("/api/") and path != "/api":
            return self.error(not_found("API not found", "uri"))
        path = path[len("/api/"):].strip("/")
        with self.lock:
            try:
                user, svm_scope = self.authenticate(headers.get("authorization") or headers.get("Authorization"))
                self.authorise(method, path, user)
                payload = self._decode(body) if method in ("POST", "PATCH") else None
                context = Context(method, path, params, payload, user, svm_scope, self)
                response = self.dispatch(context)
                if method in ("POST", "PATCH", "DELETE") and self.store is not None:
                    self.store.save(self.state)
                return response
            except OntapError as error:
                return self.error(error)

    @staticmethod
    def error(error: OntapError) -> Response:
        headers = {"WWW-Authenticate": 'Basic realm="ONTAP"'} if error.status == 401 else {}
        return Response(error.status, error.body(), headers)

    @staticmethod
    def _decode(body: bytes | None) -> Any:
        if not body:
            return {}
        try:
            return json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise OntapError(400, 262185, f"Invalid JSON input: {error}") from error

    # ------------------------------------------------------------------ who may do what
    def authenticate(self, header: str | None) -> tuple[dict, str | None]:
        if not header or not header.lower().startswith("basic "):
            raise OntapError(401, 6691623, "User is not authorized.")
        try:
            name, _, password = base64.b64decode(header.split(None, 1)[1]).decode("utf-8").partition(":")
        except (ValueError, UnicodeDecodeError) as error:
            raise OntapError(401, 6691623, "User is not authorized.") from error
        for account in self.state.find("accounts", name=name):
            key = account_key(account)
            if account.get("locked") or not self.state.check_password(key, password):
                continue
            if not any(app.get("application") == "http" for app in account.get("applications", [])):
                continue
            scope = None if account.get("scope") == "cluster" else account["owner"]["uuid"]
            return account, scope
        raise OntapError(401, 6691623, "User is not authorized.")

    def authorise(self, method: str, path: str, user: dict) -> None:
        """REST-role check: the longest privilege path that covers the request decides."""
        role = user.get("role", {}).get("name")
        if user.get("scope") == "cluster" and role == "admin":
            return
        if role == "readonly" and method in ACCESS_METHODS["readonly"]:
            return
        record = self.state.first("roles", name=role, **{"owner.uuid": user["owner"]["uuid"]}) \
            or self.state.first("roles", name=role, scope="cluster")
        if record is None:
            raise OntapError(403, 6, f'User "{user["name"]}" has no role "{role}".')
        if record.get("builtin") and role in ("vsadmin", "admin"):
            return
        request_path = "/api/" + "/".join(segment for segment in path.split("/")
                                          if not re.fullmatch(UUID, segment) and not segment.isdigit())
        best, access = -1, "none"
        for privilege in record.get("privileges", []):
            candidate = privilege.get("path", "")
            if request_path == candidate or request_path.startswith(candidate.rstrip("/") + "/"):
                if len(candidate) > best:
                    best, access = len(candidate), privilege.get("access", "none")
        if method not in ACCESS_METHODS.get(access, set()):
            raise OntapError(403, 6, f'not authorized for that command: {method} /api/{path} (role "{role}")')

    # ------------------------------------------------------------------ routing
    def dispatch(self, context: Context) -> Response:
        for pattern, resource in self.routes:
            match = pattern.fullmatch(context.path)
            if match:
                return resource.serve(context, match.groupdict())
        raise not_found("API not found", "uri")

    # ------------------------------------------------------------------ jobs
    def run_job(self, context: Context, description: str, work: Callable[[], Any],
                status: int) -> Response:
        """Do an asynchronous write: apply it, and answer 202 with a job that reports its outcome.

        Requests ONTAP refuses up front (bad references, duplicates, permissions) get their error
        at once; failures of the work itself (``JobError``) are reported by the job. With
        ``return_timeout`` the job has finished by the time the answer is sent; without it the job
        stays ``running`` for ``job_seconds``, as a real cluster's would for a moment.
        """
        job_uuid = new_uuid()
        started = time.time()
        job = {"uuid": job_uuid, "description": f"{context.method} /api/{description}", "state": "success",
               "message": "success", "code": 0, "start_time": _timestamp(started)}
        try:
            result = work()
        except JobError as error:
            job.update(state="failure", message=error.message, code=int(error.code) if error.code.isdigit() else 1,
                       error={"message": error.message, "code": error.code})
            result = None
        timeout = int(context.param("return_timeout", "0") or 0)
        finishes = started if timeout > 0 else started + self.job_seconds
        job["end_time"] = _timestamp(finishes)
        job["_finishes"] = finishes
        self.state.put("jobs", job_uuid, job)
        body: dict[str, Any] = {"job": {"uuid": job_uuid, "_links": {"self": {"href": f"/api/cluster/jobs/{job_uuid}"}}}}
        if result is not None and context.flag("return_records"):
            body.update(num_records=1, records=[result])
        return Response(202, body)


def account_key(account: dict) -> str:
    return f"{account['owner']['uuid']}/{account['name']}"


def _timestamp(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(seconds))


def known_roots(collection: str, extra: tuple[str, ...] = ()) -> set[str]:
    return gettable_roots(collection) | set(extra)


def validated(context: Context, collection: str) -> dict:
    return validate_body(collection, context.body, context.method)


def list_response(context: Context, collection: str, records: list[dict], keys: tuple[str, ...],
                  extra_roots: tuple[str, ...] = ()) -> Response:
    """A collection GET: filters, order, paging and field selection. ``extra_roots`` are query
    parameters the endpoint consumes itself (e.g. volumes' ``is_constituent``), not fields."""
    roots = known_roots(collection, extra_roots)
    selected = query.parse_fields(context.params.get("fields", []))
    query.check_fields(selected, known_roots(collection))
    records = query.apply_filters(records, query.query_filters(context.params, roots, extra_roots))
    records = query.order(records, context.params)
    total = len(records)
    chunk, following = query.page(records, context.params, "/api/" + context.path)
    body: dict[str, Any] = {"num_records": len(chunk)}
    if context.flag("return_records", default=True):
        body["records"] = [client_readable(collection, query.select(record, selected, keys)) for record in chunk]
    links: dict[str, Any] = {"self": {"href": "/api/" + context.path}}
    if following:
        links["next"] = {"href": following}
    body["_links"] = links
    if total != len(chunk):
        body["total_records"] = total
    return Response(200, body)


def record_response(context: Context, collection: str, record: dict, keys: tuple[str, ...],
                    extra_roots: tuple[str, ...] = ()) -> Response:
    selected = query.parse_fields(context.params.get("fields", []))
    query.check_fields(selected, known_roots(collection))
    if not selected:
        selected = ["*"]
    return Response(200, client_readable(collection, query.select(record, selected, keys)))


def client_readable(collection: str, record: dict) -> dict:
    """The record, when NetApp's own client would read it; otherwise the endpoint's bug, answered
    as a 500 so that no test passes on a record a real client refuses."""
    problem = response_problem(collection, record)
    if problem:
        raise OntapError(500, 1, f"Lab endpoint bug: NetApp's netapp_ontap client refuses this {collection} record: {problem}.")
    return record
