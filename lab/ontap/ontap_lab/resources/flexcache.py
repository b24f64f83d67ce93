"""FlexCache between lab clusters: caches (``/api/storage/flexcache/flexcaches``, on the cache's
cluster) and origins (``/api/storage/flexcache/origins``, on the origin's).

As ONTAP does it: a cache is a FlexGroup of its own SVM (its volume shows
``flexcache_endpoint_type: cache``) in front of an origin volume, of this cluster or of a peer; its
SVM must be peered with the origin's for ``flexcache`` (unless it is the origin's own SVM). The
origin volume shows ``flexcache_endpoint_type: origin`` and lists its caches; it cannot be deleted
while it has one. Creating a cache is asynchronous (a job). ``prepopulate`` (at creation, or a
PATCH) reads directories of the origin into the cache: the lab's volumes hold no files, so only the
root, ``/``, exists to prepopulate, and any other path fails as a path that does not exist does.
"""
from __future__ import annotations

import time
from typing import Any

from ..api import Context
from ..errors import JobError, conflict, invalid_value, not_found
from . import Collection, require, svm_of, svm_ref


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())


def _prepopulate(paths: Any) -> list[str]:
    if not isinstance(paths, list) or not paths:
        raise invalid_value("prepopulate.dir_paths", paths, "a list of directories")
    for path in paths:
        if not isinstance(path, str) or not path.startswith("/"):
            raise invalid_value("prepopulate.dir_paths", path, "an absolute path in the origin volume")
        if path.rstrip("/") != "":
            raise JobError(400, 66846763, f'Failed to prepopulate the FlexCache volume: directory "{path}" does not exist in the '
                                          "origin volume.")
    return list(paths)


class Flexcaches(Collection):
    name = "flexcaches"
    path = "storage/flexcache/flexcaches"
    keys = ("uuid", "name", "svm")
    asynchronous = True

    def compute(self, context: Context, record: dict) -> None:
        record.pop("_prepopulated", None)
        volume = context.state.get("volumes", record["uuid"])
        if volume is not None:
            record.update(size=volume["size"], path=(volume.get("nas") or {}).get("path"),
                          constituent_count=volume.get("constituent_count"))
        for origin in record["origins"]:
            api = context.api.fabric.named(origin["cluster"]["name"])
            present = api is not None and api.state.get("volumes", origin["volume"]["uuid"]) is not None
            origin["state"] = "online" if present else "offline"

    def create(self, context: Context, body: dict) -> dict:
        from .storage import Volumes

        require(body, "name", "svm", "origins")
        svm = svm_of(context, body["svm"])
        if len(body["origins"]) != 1:
            raise invalid_value("origins", len(body["origins"]), "exactly one origin")
        origin = body["origins"][0]
        origin_svm_name = (origin.get("svm") or {}).get("name")
        origin_volume_name = (origin.get("volume") or {}).get("name")
        if not origin_svm_name or not origin_volume_name:
            raise invalid_value("origins", origin, "svm.name and volume.name")
        if origin_svm_name == svm["name"]:
            origin_api, origin_svm = context.api, svm
        else:
            peer = next((p for p in context.state.records("svm_peers") if p["svm"]["uuid"] == svm["uuid"]
                         and origin_svm_name in (p["name"], p["peer"]["svm"]["name"])), None)
            if peer is None or peer["state"] != "peered" or "flexcache" not in peer["applications"]:
                raise conflict(f'SVM "{svm["name"]}" is not peered with "{origin_svm_name}" for FlexCache: peer the SVMs '
                               "with application flexcache first.", 66846780, "origins.svm.name")
            origin_api = context.api.fabric.named(peer["peer"]["cluster"]["name"]) or context.api
            origin_svm = origin_api.state.first("svms", name=peer["peer"]["svm"]["name"])
        origin_volume = origin_api.state.first("volumes", name=origin_volume_name, **{"svm.uuid": origin_svm["uuid"]}) \
            if origin_svm else None
        if origin_volume is None or origin_volume.get("style") == "flexgroup_constituent":
            raise not_found(f'Origin volume "{origin_volume_name}" does not exist in SVM "{origin_svm_name}".', "origins.volume.name")
        if origin_volume.get("type") == "dp":
            raise conflict(f'Volume "{origin_volume_name}" is a data protection volume: it cannot be a FlexCache origin.',
                           66846781, "origins.volume.name")
        dir_paths = _prepopulate((body.get("prepopulate") or {}).get("dir_paths")) if body.get("prepopulate") else []
        spec: dict[str, Any] = {"name": body["name"], "svm": {"name": svm["name"]}, "style": "flexgroup",
                                "size": body.get("size") or origin_volume["size"],
                                "guarantee": {"type": (body.get("guarantee") or {}).get("type", "none")},
                                "constituents_per_aggregate": body.get("constituents_per_aggregate") or 1}
        aggregates = body.get("aggregates") or [{"name": a["name"]} for a in svm.get("aggregates") or []]
        if aggregates:
            spec["aggregates"] = [{"name": a.get("name")} for a in aggregates]
        if body.get("path"):
            spec["nas"] = {"path": body["path"]}
        volume = Volumes().create(context, spec)
        volume["flexcache_endpoint_type"] = "cache"
        origin_volume["flexcache_endpoint_type"] = "origin"
        record = {"uuid": volume["uuid"], "name": volume["name"], "svm": svm_ref(svm),
                  "aggregates": [{"name": a["name"], "uuid": a["uuid"]} for a in volume["aggregates"]],
                  "constituents_per_aggregate": spec["constituents_per_aggregate"], "guarantee": dict(spec["guarantee"]),
                  "origins": [{"cluster": {"name": origin_api.state.cluster["name"], "uuid": origin_api.state.cluster["uuid"]},
                               "svm": {"name": origin_svm["name"], "uuid": origin_svm["uuid"]},
                               "volume": {"name": origin_volume["name"], "uuid": origin_volume["uuid"]},
                               "create_time": _now(), "state": "online"}],
                  "_prepopulated": dir_paths}
        context.state.put(self.name, record["uuid"], record)
        if origin_api is not context.api:
            context.api.fabric.save(origin_api)
        return record

    def modify(self, context: Context, record: dict, body: dict) -> None:
        if "prepopulate" in body:
            record["_prepopulated"] = record.get("_prepopulated", []) + _prepopulate((body["prepopulate"] or {}).get("dir_paths"))

    def remove(self, context: Context, record: dict) -> None:
        volume = context.state.get("volumes", record["uuid"])
        if volume is not None and (volume.get("nas") or {}).get("path"):
            raise conflict(f'FlexCache volume "{record["name"]}" is mounted: unmount it and take it offline first.', 66846790)
        if volume is not None:
            context.state.remove("volumes", volume["uuid"])
        context.state.remove(self.name, record["uuid"])
        origin = record["origins"][0]
        api = context.api.fabric.named(origin["cluster"]["name"])
        if api is not None and not caches_of(api, origin["volume"]["uuid"]):
            volume = api.state.get("volumes", origin["volume"]["uuid"])
            if volume is not None:
                volume["flexcache_endpoint_type"] = "none"
                context.api.fabric.save(api)


def caches_of(origin_api: Any, volume_uuid: str) -> list[tuple[Any, dict]]:
    """Every cache in the fabric whose origin is this volume: (its cluster's Api, its record)."""
    return [(api, record) for api in origin_api.fabric.apis for record in api.state.records("flexcaches")
            if record["origins"][0]["volume"]["uuid"] == volume_uuid]


class Origins(Collection):
    """``/api/storage/flexcache/origins``: the origin volumes of this cluster, each with its caches."""

    name = "flexcache_origins"
    path = "storage/flexcache/origins"
    keys = ("uuid", "name", "svm")
    writable = False

    def all_records(self, context: Context) -> list[dict]:
        found = []
        for volume in context.state.records("volumes"):
            caches = caches_of(context.api, volume["uuid"])
            if caches:
                found.append({"uuid": volume["uuid"], "name": volume["name"],
                              "svm": {"name": volume["svm"]["name"], "uuid": volume["svm"]["uuid"]},
                              "flexcaches": [{"cluster": {"name": api.state.cluster["name"], "uuid": api.state.cluster["uuid"]},
                                              "svm": {"name": record["svm"]["name"], "uuid": record["svm"]["uuid"]},
                                              "volume": {"name": record["name"], "uuid": record["uuid"]},
                                              "create_time": record["origins"][0]["create_time"], "state": "online"}
                                             for api, record in caches]})
        return found

    def lookup(self, context: Context, key: str) -> dict:
        found = next((record for record in self.all_records(context) if record["uuid"] == key), None)
        if found is None:
            raise not_found(target="uuid")
        return found


RESOURCES = [Flexcaches(), Origins()]
