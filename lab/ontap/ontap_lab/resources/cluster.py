"""/api/cluster, its nodes, jobs and schedules."""
from __future__ import annotations

import copy
import time

from ..api import Context, Response, record_response, validated
from ..errors import OntapError
from ..seed import SCHEDULES
from . import Collection


class ClusterResource(Collection):
    """The cluster itself: a single record (the version probe every module sends reads it)."""

    name = "cluster"
    path = "cluster"
    keys = ("uuid", "name")

    def pattern(self) -> str:
        return "cluster"

    def serve(self, context: Context, groups: dict[str, str]) -> Response:
        cluster = context.state.cluster
        if context.method == "GET":
            record = copy.deepcopy(cluster)
            record["_links"] = {"self": {"href": "/api/cluster"}}
            return record_response(context, self.name, record, ())
        if context.method == "PATCH":
            body = validated(context, self.name)
            for field in ("contact", "location", "name", "timezone", "dns_domains", "name_servers", "ntp_servers"):
                if field in body:
                    cluster[field] = body[field]
            return Response(200, {})
        raise OntapError(405, 3, f"The {context.method} method is not supported on /api/cluster.")


class Nodes(Collection):
    name = "nodes"
    path = "cluster/nodes"
    writable = False


class Schedules(Collection):
    name = "schedules"
    path = "cluster/schedules"
    writable = False

    def compute(self, context: Context, record: dict) -> None:
        # States saved before schedules had ONTAP's cron shape kept a free-text description instead.
        if "description" in record:
            record.pop("description")
            record.setdefault("cron", dict(SCHEDULES.get(record["name"], {})))


class Jobs(Collection):
    """Jobs of asynchronous writes; a job is ``running`` until its finish time, then final."""

    name = "jobs"
    path = "cluster/jobs"
    keys = ("uuid",)
    writable = False

    def compute(self, context: Context, record: dict) -> None:
        finishes = record.pop("_finishes", 0)
        if time.time() < finishes:
            record["state"] = "running"
            record["message"] = "The job is running."
            record.pop("end_time", None)
            record.pop("error", None)


RESOURCES = [ClusterResource(), Nodes(), Schedules(), Jobs()]
