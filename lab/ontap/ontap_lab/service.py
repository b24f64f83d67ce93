"""HTTPS around the API: fault injection, the call log and the admin endpoints under ``/lab/``.

Faults (set at runtime with ``POST /lab/faults`` or ``lab/ontap/ctl faults``) apply to ``/api/``
calls only:

* ``latency_ms`` (+ ``jitter_ms``): every call waits that long first;
* ``error_rate`` with ``error_status`` (503 by default): that share of calls fails. ``error_phase``
  says when: ``before`` (nothing happened), ``after`` (the change was made, the answer is lost,
  as when a proxy or a busy node drops it) or ``mixed`` (either, half and half);
* ``restart_after`` N calls: the process restarts as a crash would (the N-th call gets no answer,
  the port is closed for ``restart_downtime_ms``, then the same process re-executes itself and
  reloads its state from disk).

Every ``/api/`` call is logged (``/lab/calls``) with its method, path, status, duration, user and
any fault; ``/lab/counters`` sums them (writes, calls per resource) since a sequence number, so
a test can say "no write happened" and a benchmark can count calls per managed object.
"""
from __future__ import annotations

import json
import os
import random
import re
import socket
import ssl
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .api import UUID, Api, Response
from .errors import OntapError

WRITE_METHODS = {"POST", "PATCH", "DELETE"}
DEFAULT_FAULTS = {"latency_ms": 0, "jitter_ms": 0, "error_rate": 0.0, "error_status": 503, "error_phase": "before",
                  "methods": [], "restart_after": 0, "restart_downtime_ms": 1500, "seed": None}


def resource_of(path: str) -> str:
    """``/api/storage/volumes/<uuid>?x=1`` -> ``storage/volumes/{id}``."""
    bare = urllib.parse.urlsplit(path).path
    bare = bare[len("/api/"):] if bare.startswith("/api/") else bare.lstrip("/")
    parts = ["{id}" if re.fullmatch(UUID, part) or part.isdigit() or "%2F" in part.upper() else part
             for part in bare.strip("/").split("/")]
    return "/".join(parts)


class Faults:
    """The fault settings, kept in a file so that they survive a restart."""

    def __init__(self, path: str):
        self.path = path
        self.lock = threading.Lock()
        self.settings = dict(DEFAULT_FAULTS)
        self.calls_since_set = 0
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as handle:
                saved = json.load(handle)
            self.settings.update(saved.get("settings", {}))
            self.calls_since_set = saved.get("calls_since_set", 0)
        self.random = random.Random(self.settings.get("seed"))

    def update(self, changes: dict[str, Any]) -> dict:
        unknown = set(changes) - set(DEFAULT_FAULTS)
        if unknown:
            raise OntapError(400, 262179, f'Unexpected argument "{sorted(unknown)[0]}".')
        merged = {**self.settings, **changes}
        if not 0 <= float(merged["error_rate"]) <= 1:
            raise OntapError(400, 262197, "error_rate must be between 0 and 1.", "error_rate")
        if merged["error_phase"] not in ("before", "after", "mixed"):
            raise OntapError(400, 262197, "error_phase is before, after or mixed.", "error_phase")
        with self.lock:
            self.settings = merged
            self.calls_since_set = 0
            self.random = random.Random(merged.get("seed"))
            self._save()
        return dict(self.settings)

    def clear(self) -> dict:
        with self.lock:
            self.settings = dict(DEFAULT_FAULTS)
            self.calls_since_set = 0
            self._save()
        return dict(self.settings)

    def _save(self) -> None:
        temporary = self.path + ".tmp"
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump({"settings": self.settings, "calls_since_set": self.calls_since_set}, handle)
        os.replace(temporary, self.path)

    def decide(self, method: str) -> dict[str, Any]:
        """What happens to this call: delay (s), error (None|'before'|'after'), restart (bool)."""
        with self.lock:
            settings = self.settings
            self.calls_since_set += 1
            restart = bool(settings["restart_after"]) and self.calls_since_set >= int(settings["restart_after"])
            if restart:
                settings["restart_after"] = 0  # one restart per request for it
            delay = (settings["latency_ms"] + self.random.uniform(0, settings["jitter_ms"])) / 1000.0
            error = None
            applies = not settings["methods"] or method in settings["methods"]
            if applies and settings["error_rate"] and self.random.random() < float(settings["error_rate"]):
                phase = settings["error_phase"]
                error = self.random.choice(("before", "after")) if phase == "mixed" else phase
            if restart or settings["error_rate"] or settings["latency_ms"]:
                self._save()
            return {"delay": delay, "error": error, "restart": restart, "status": int(settings["error_status"])}


class CallLog:
    """Every API call, in memory and appended to a JSON-lines file (kept across restarts)."""

    def __init__(self, path: str):
        self.path = path
        self.lock = threading.Lock()
        self.entries: list[dict] = []
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as handle:
                for line in handle:
                    line = line.strip()
                    if line:
                        try:
                            self.entries.append(json.loads(line))
                        except json.JSONDecodeError:
                            continue  # a line cut short by a crash
        self.handle = open(path, "a", encoding="utf-8")  # noqa: SIM115  (open for the process' lifetime)

    @property
    def last(self) -> int:
        return self.entries[-1]["seq"] if self.entries else 0

    def add(self, entry: dict) -> dict:
        with self.lock:
            entry["seq"] = self.last + 1
            self.entries.append(entry)
            self.handle.write(json.dumps(entry) + "\n")
            self.handle.flush()
        return entry

    def since(self, seq: int) -> list[dict]:
        with self.lock:
            return [entry for entry in self.entries if entry["seq"] > seq]

    def counters(self, seq: int) -> dict[str, Any]:
        entries = self.since(seq)
        by_method: dict[str, int] = {}
        by_resource: dict[str, int] = {}
        by_status: dict[str, int] = {}
        for entry in entries:
            by_method[entry["method"]] = by_method.get(entry["method"], 0) + 1
            key = f"{entry['method']} {entry['resource']}"
            by_resource[key] = by_resource.get(key, 0) + 1
            by_status[str(entry["status"])] = by_status.get(str(entry["status"]), 0) + 1
        writes = sum(count for method, count in by_method.items() if method in WRITE_METHODS)
        successful_writes = sum(1 for entry in entries if entry["method"] in WRITE_METHODS and entry["status"] < 400)
        return {"since": seq, "last": self.last, "total": len(entries), "writes": writes,
                "successful_writes": successful_writes, "faults": sum(1 for entry in entries if entry.get("fault")),
                "by_method": by_method, "by_status": by_status, "by_resource": by_resource}


class Service:
    """One endpoint process: the API, its faults and log, served over HTTPS."""

    def __init__(self, api: Api, faults: Faults, calls: CallLog, admin_user: str,
                 reseed: Callable[[], None], restart: Callable[[float], None]):
        self.api = api
        self.faults = faults
        self.calls = calls
        self.admin_user = admin_user
        self.reseed = reseed
        self.restart = restart
        self.started = time.time()
        self.server: ThreadingHTTPServer | None = None

    # -- /api/
    def api_call(self, method: str, target: str, body: bytes | None, headers: dict[str, str]) -> Response | None:
        """The answer to an API call, or None when the connection must drop (a crash)."""
        began = time.time()
        fault = self.faults.decide(method)
        user = _user_of(headers)
        if fault["restart"]:
            self.calls.add({"time": began, "method": method, "path": target, "resource": resource_of(target),
                            "status": 0, "ms": 0, "user": user, "fault": "restart"})
            self.restart(self.faults.settings["restart_downtime_ms"] / 1000.0)
            return None
        if fault["delay"]:
            time.sleep(fault["delay"])
        label = "latency" if fault["delay"] else None
        if fault["error"] == "before":
            response = _injected(fault["status"])
            label = "error-before"
        else:
            response = self.api.handle(method, target, body, headers)
            if fault["error"] == "after":
                response = _injected(fault["status"])
                label = "error-after"
        self.calls.add({"time": began, "method": method, "path": target, "resource": resource_of(target),
                        "status": response.status, "ms": round((time.time() - began) * 1000, 2), "user": user,
                        "fault": label})
        return response

    # -- /lab/
    def admin_call(self, method: str, target: str, body: bytes | None, headers: dict[str, str]) -> Response:
        parsed = urllib.parse.urlsplit(target)
        params = urllib.parse.parse_qs(parsed.query)
        route = parsed.path.rstrip("/")
        if route == "/lab/health":
            return Response(200, {"status": "ok", "pid": os.getpid(), "started": self.started,
                                  "cluster": self.api.state.cluster.get("name"), "last_call": self.calls.last})
        try:
            user, _scope = self.api.authenticate(headers.get("authorization") or headers.get("Authorization"))
            if user.get("scope") != "cluster" or user.get("role", {}).get("name") != "admin":
                raise OntapError(403, 6, "The lab's admin endpoints need the cluster admin account.")
            payload = json.loads(body.decode("utf-8")) if body else {}
            since = int((params.get("since") or ["0"])[0])
            if route == "/lab/calls" and method == "GET":
                return Response(200, {"last": self.calls.last, "calls": self.calls.since(since)})
            if route == "/lab/counters" and method == "GET":
                return Response(200, self.calls.counters(since))
            if route == "/lab/mark" and method in ("GET", "POST"):
                return Response(200, {"last": self.calls.last})
            if route == "/lab/faults" and method == "GET":
                return Response(200, dict(self.faults.settings))
            if route == "/lab/faults" and method in ("POST", "PATCH"):
                return Response(200, self.faults.update(payload))
            if route == "/lab/faults" and method == "DELETE":
                return Response(200, self.faults.clear())
            if route == "/lab/reset" and method == "POST":
                with self.api.lock:
                    self.reseed()
                self.faults.clear()
                return Response(200, {"reset": True, "last": self.calls.last})
            if route == "/lab/state" and method == "GET":
                with self.api.lock:
                    return Response(200, {"objects": {name: len(items) for name, items in self.api.state.data["objects"].items()}})
            if route == "/lab/export" and method == "GET":
                # The objects only: no password hashes, no jobs (tests keep a converged cluster as a golden file).
                with self.api.lock:
                    data = self.api.state.snapshot()
                data["passwords"] = {}
                data["objects"].pop("jobs", None)
                return Response(200, data)
            if route == "/lab/restart" and method == "POST":
                downtime = float(payload.get("downtime_ms", 1500)) / 1000.0
                threading.Timer(0.2, self.restart, args=(downtime,)).start()
                return Response(202, {"restarting": True, "downtime_ms": downtime * 1000})
            raise OntapError(404, 4, f"No lab endpoint {method} {route}.")
        except OntapError as error:
            return Api.error(error)
        except (ValueError, json.JSONDecodeError) as error:
            return Api.error(OntapError(400, 262185, f"Invalid input: {error}"))

    # -- serving
    def serve(self, host: str, port: int, certfile: str, keyfile: str) -> None:
        service = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            server_version = "ONTAP-lab"
            sys_version = ""

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {key: value for key, value in self.headers.items()}
                if self.path.startswith("/lab/"):
                    response: Response | None = service.admin_call(self.command, self.path, body, headers)
                else:
                    response = service.api_call(self.command, self.path, body, headers)
                if response is None:
                    self.close_connection = True
                    try:
                        self.connection.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                    return
                payload = response.payload()
                self.send_response(response.status)
                self.send_header("Content-Type", "application/hal+json" if payload else "text/plain")
                self.send_header("Content-Length", str(len(payload)))
                for key, value in response.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                if payload and self.command != "HEAD":
                    self.wfile.write(payload)

            do_GET = do_POST = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = _handle

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  (the base class' name)
                return  # the call log records every request; no request lines (or bodies) on stderr

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(certfile, keyfile)

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            allow_reuse_address = True

            def get_request(self):  # type: ignore[override]
                connection, address = self.socket.accept()
                return context.wrap_socket(connection, server_side=True, do_handshake_on_connect=False), address

            def handle_error(self, request, client_address):  # type: ignore[override]
                error = sys.exc_info()[1]
                if isinstance(error, (ssl.SSLError, ConnectionError, TimeoutError)):
                    return  # a client that hung up or did not trust us; nothing to report
                super().handle_error(request, client_address)

        self.server = Server((host, port), Handler)
        self.server.serve_forever(poll_interval=0.2)


def _injected(status: int) -> Response:
    reason = {503: "Service Unavailable", 502: "Bad Gateway", 500: "Internal Server Error", 504: "Gateway Timeout"}
    return Response(status, {"error": {"message": f"{reason.get(status, 'Error')} (injected by the lab)", "code": str(status)}})


def _user_of(headers: dict[str, str]) -> str | None:
    import base64
    header = headers.get("authorization") or headers.get("Authorization") or ""
    if not header.lower().startswith("basic "):
        return None
    try:
        return base64.b64decode(header.split(None, 1)[1]).decode("utf-8").partition(":")[0]
    except (ValueError, UnicodeDecodeError):
        return None
