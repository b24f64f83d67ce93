"""The endpoints: one class per collection, grouped by API area, and the route table."""
from __future__ import annotations

import copy
import re
from typing import Any

from ..api import Context, Response, client_readable, known_roots, list_response, record_response, validated
from ..errors import OntapError, invalid_value, missing, not_found


class Collection:
    """A collection ``/api/<path>`` and its records ``/api/<path>/<key>``.

    Subclasses say what they store (``name``: state collection and schema), how records are
    keyed, which fields come back without ``fields=`` (``keys``) and what POST/PATCH/DELETE do.
    Asynchronous writes (``asynchronous``) answer 202 with a job, as ONTAP's SVM and volume APIs do.
    """

    name = ""
    path = ""
    key = "uuid"
    keys: tuple[str, ...] = ("uuid", "name")
    extra_roots: tuple[str, ...] = ()
    asynchronous = False
    writable = True

    # -- routing
    def pattern(self) -> str:
        return re.escape(self.path) + r"(?:/(?P<key>[^/]+))?"

    def serve(self, context: Context, groups: dict[str, str]) -> Response:
        key = groups.get("key")
        method = context.method
        if key is None:
            if method == "GET":
                records = [self.render(context, record) for record in self.visible(context)]
                return list_response(context, self.name, records, self.keys, self.extra_roots)
            if method == "POST" and self.writable:
                return self.post(context)
            if method in ("PATCH", "DELETE") and self.writable:
                return self.by_query(context)
            raise OntapError(405, 3, f"The {method} method is not supported on /api/{self.path}.")
        record = self.lookup(context, key)
        if method == "GET":
            return record_response(context, self.name, self.render(context, record), self.keys, self.extra_roots)
        if method == "PATCH" and self.writable:
            return self.patch(context, record)
        if method == "DELETE" and self.writable:
            return self.delete(context, record)
        raise OntapError(405, 3, f"The {method} method is not supported on /api/{self.path}/{{{self.key}}}.")

    def by_query(self, context: Context) -> Response:
        """PATCH or DELETE every record a query selects (``PATCH /api/x?svm.name=vs1``), as ONTAP allows."""
        from .. import query

        roots = known_roots(self.name, self.extra_roots)
        filters = query.query_filters(context.params, roots, self.extra_roots)
        if not filters:
            raise OntapError(400, 262203, f"A {context.method} on /api/{self.path} needs a query that selects the records.")
        rendered = [(record, self.render(context, record)) for record in self.visible(context)]
        selected = [record for record, view in rendered if query.apply_filters([view], filters)]
        if not selected:
            raise not_found(f"No {self.path} record matches the query.", filters[0][0])
        body = validated(context, self.name) if context.method == "PATCH" else None
        for record in selected:
            if context.method == "PATCH":
                self.modify(context, record, body)
            else:
                self.remove(context, record)
        return Response(200, {"num_records": len(selected)})

    # -- reading
    def all_records(self, context: Context) -> list[dict]:
        return context.state.records(self.name)

    def visible(self, context: Context) -> list[dict]:
        records = self.all_records(context)
        if context.svm_scope:
            records = [record for record in records if self.in_scope(context, record)]
        return records

    def in_scope(self, context: Context, record: dict) -> bool:
        svm = record.get("svm")
        return not isinstance(svm, dict) or svm.get("uuid") == context.svm_scope

    def lookup(self, context: Context, key: str) -> dict:
        record = context.state.get(self.name, key)
        if record is None or (context.svm_scope and not self.in_scope(context, record)):
            raise not_found(target=self.key)
        return record

    def href(self, record: dict) -> str:
        return f"/api/{self.path}/{record[self.key]}"

    def render(self, context: Context, record: dict) -> dict:
        rendered = copy.deepcopy(record)
        self.compute(context, rendered)
        rendered["_links"] = {"self": {"href": self.href(record)}}
        return rendered

    def compute(self, context: Context, record: dict) -> None:
        """Add fields derived from other objects (nothing by default)."""

    # -- writing
    def post(self, context: Context) -> Response:
        body = validated(context, self.name)
        if self.asynchronous:
            return context.api.run_job(context, self.path, lambda: self._created(context, self.create(context, body)), 202)
        record = self.create(context, body)
        return self.created_response(context, record)

    def _created(self, context: Context, record: dict) -> dict:
        from ..query import select
        return client_readable(self.name, select(self.render(context, record), [], self.keys))

    def created_response(self, context: Context, record: dict) -> Response:
        headers = {"Location": self.href(record)}
        if context.flag("return_records"):
            return Response(201, {"num_records": 1, "records": [self._created(context, record)]}, headers)
        return Response(201, {}, headers)

    def patch(self, context: Context, record: dict) -> Response:
        body = validated(context, self.name)
        if self.asynchronous:
            return context.api.run_job(context, f"{self.path}/{record[self.key]}",
                                       lambda: self.modify(context, record, body), 202)
        self.modify(context, record, body)
        return Response(200, {})

    def delete(self, context: Context, record: dict) -> Response:
        if self.asynchronous:
            return context.api.run_job(context, f"{self.path}/{record[self.key]}",
                                       lambda: self.remove(context, record), 202)
        self.remove(context, record)
        return Response(200, {})

    def create(self, context: Context, body: dict) -> dict:
        raise OntapError(405, 3, f"POST is not supported on /api/{self.path}.")

    def modify(self, context: Context, record: dict, body: dict) -> None:
        raise OntapError(405, 3, f"PATCH is not supported on /api/{self.path}.")

    def remove(self, context: Context, record: dict) -> None:
        raise OntapError(405, 3, f"DELETE is not supported on /api/{self.path}.")


# ---------------------------------------------------------------------------- shared lookups
def reference(context: Context, collection: str, ref: Any, what: str, field: str,
              **scope: Any) -> dict:
    """The record a ``{"name": ..}`` / ``{"uuid": ..}`` reference points at, or ONTAP's error."""
    if not isinstance(ref, dict) or not (ref.get("uuid") or ref.get("name")):
        raise missing(field)
    criteria = dict(scope)
    if ref.get("uuid"):
        criteria["uuid"] = ref["uuid"]
    if ref.get("name"):
        criteria["name"] = ref["name"]
    record = context.state.first(collection, **criteria)
    if record is None:
        label = ref.get("name") or ref.get("uuid")
        raise OntapError(404 if collection != "aggregates" else 400, 2,
                         f'{what} "{label}" does not exist.', field)
    return record


def svm_of(context: Context, ref: Any, field: str = "svm") -> dict:
    svm = reference(context, "svms", ref, "SVM", f"{field}.name")
    if context.svm_scope and svm["uuid"] != context.svm_scope:
        raise OntapError(403, 6, f'not authorized for SVM "{svm["name"]}".', field)
    return svm


def svm_ref(svm: dict) -> dict:
    return {"name": svm["name"], "uuid": svm["uuid"], "_links": {"self": {"href": f"/api/svm/svms/{svm['uuid']}"}}}


def named_ref(record: dict, href: str) -> dict:
    return {"name": record["name"], "uuid": record["uuid"], "_links": {"self": {"href": href}}}


def require(body: dict, *fields: str) -> None:
    for field in fields:
        value: Any = body
        for part in field.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if value is None or value == "":
            raise missing(field)


def check_enum_list(values: Any, allowed: set[str], field: str) -> None:
    for value in values or []:
        if value not in allowed:
            raise invalid_value(field, value, "|".join(sorted(allowed)))


def build_routes() -> list[tuple[re.Pattern, Any]]:
    from . import cluster, flexcache, network, peering, security, snapmirror, snapshots, storage, svm

    resources: list[Any] = []
    for module in (cluster, network, svm, storage, snapshots, security, peering, snapmirror, flexcache):
        resources.extend(module.RESOURCES)
    # Longer paths first so that a sub-collection wins over its parent's key pattern.
    resources.sort(key=lambda resource: -len(resource.path))
    return [(re.compile(resource.pattern()), resource) for resource in resources]
