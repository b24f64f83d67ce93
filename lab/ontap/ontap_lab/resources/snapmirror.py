"""SnapMirror between lab clusters: policies, relationships (on the destination) and transfers.

As ONTAP does it, for asynchronous mirrors:

* ``/api/snapmirror/policies`` lists the built-in policies (read-only here).
* ``/api/snapmirror/relationships`` is created on the destination cluster between ``svm:volume``
  paths. The destination SVM must be peered with the source SVM for ``snapmirror`` (or be it);
  the source volume must exist; the destination volume is a ``dp`` volume, made by
  ``create_destination`` when asked. ``state: snapmirrored`` in the POST, or a PATCH to it, or a
  POST of a transfer, initializes it. A transfer takes a ``snapmirror.*`` snapshot of the source
  and copies the source's snapshots (all of them for MirrorAllSnapshots, the newest for
  MirrorLatest) to the destination, whose root data then is the source's; the older
  ``snapmirror.*`` snapshot of the relationship goes on both sides. ``lag_time`` is the time since
  the exported snapshot was taken.
* PATCH ``state: paused`` quiesces, ``snapmirrored`` resumes, ``broken_off`` breaks (the
  destination volume becomes read-write); policy and schedule can change.
* ``list_destinations_only=true`` on the source lists the relationships whose source is there.

Not emulated: the transfer schedule does not run by itself (a transfer happens at initialize and
at each POST of ``transfers``), synchronous and vault policies, SVM DR, consistency groups.
"""
from __future__ import annotations

import copy
import re
import time
from typing import Any

from ..api import Context, Response, list_response
from ..errors import OntapError, conflict, invalid_value, missing, not_found
from ..state import State, new_uuid
from . import Collection, require, svm_ref
from .snapshots import root_data, snapshots_of, take_snapshot

PATH = re.compile(r"^(?P<svm>[^:/\s]+):(?P<volume>[A-Za-z_][A-Za-z0-9_]{0,202})$")
# The built-in policies: name -> (type, which source snapshots a transfer copies).
POLICIES = {"MirrorAllSnapshots": ("async", "all"), "MirrorLatest": ("async", "latest"),
            "Asynchronous": ("async", "all"), "MirrorAndVault": ("async", "labelled"),
            "Sync": ("sync", "latest"), "StrictSync": ("sync", "latest")}
SERVED_POLICIES = {"MirrorAllSnapshots", "MirrorLatest", "Asynchronous"}
SETTABLE_STATES = {"snapmirrored", "paused", "broken_off"}
TRANSFERS_PATH = re.compile(r"snapmirror/relationships/(?P<relationship>[^/]+)/transfers")


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())


def duration(seconds: float) -> str:
    """ISO 8601 duration, as ONTAP writes lag_time: PT1H2M3S."""
    seconds = max(int(seconds), 0)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"PT{hours}H{minutes}M{seconds}S"


def ensure_policies(state: State) -> list[dict]:
    if not state.records("snapmirror_policies"):
        for name, (kind, _copies) in POLICIES.items():
            uuid = new_uuid()
            state.put("snapmirror_policies", uuid, {"uuid": uuid, "name": name, "type": kind, "scope": "cluster",
                                                    "comment": "", "identity_preservation": "exclude_network_config",
                                                    "copy_all_source_snapshots": name in ("MirrorAllSnapshots", "Asynchronous")})
    return state.records("snapmirror_policies")


def _split(path: Any, field: str) -> tuple[str, str]:
    match = PATH.match(path) if isinstance(path, str) else None
    if not match:
        raise invalid_value(field, path, "svm:volume")
    return match["svm"], match["volume"]


class SnapmirrorPolicies(Collection):
    name = "snapmirror_policies"
    path = "snapmirror/policies"
    keys = ("uuid", "name")
    writable = False

    def all_records(self, context: Context) -> list[dict]:
        return ensure_policies(context.state)


class Relationships(Collection):
    name = "snapmirror_relationships"
    path = "snapmirror/relationships"
    keys = ("uuid", "source", "destination", "healthy")
    asynchronous = True
    extra_roots = ("list_destinations_only",)

    # -- reading
    def visible(self, context: Context) -> list[dict]:
        if context.flag("list_destinations_only"):
            here = context.state.cluster["uuid"]
            return [record for api in context.api.fabric.apis for record in api.state.records(self.name)
                    if record["source"]["cluster"]["uuid"] == here]
        return super().visible(context)

    def in_scope(self, context: Context, record: dict) -> bool:
        return record["destination"]["svm"]["uuid"] == context.svm_scope

    def compute(self, context: Context, record: dict) -> None:
        exported = record.pop("_exported_time", None)
        record.pop("_transfers", None)
        record.pop("_volumes", None)
        if exported is not None and record["state"] != "uninitialized":
            record["lag_time"] = duration(time.time() - exported)

    # -- writing
    def _source(self, context: Context, body: dict, destination_svm: dict) -> tuple[Any, dict, dict]:
        """The source cluster's Api, SVM and volume of a relationship's source path."""
        svm_name, volume_name = _split((body.get("source") or {}).get("path"), "source.path")
        cluster = (body.get("source") or {}).get("cluster") or {}
        cluster_name = cluster.get("name") if isinstance(cluster, dict) else str(cluster)
        peer = next((p for p in context.state.records("svm_peers") if p["svm"]["uuid"] == destination_svm["uuid"]
                     and svm_name in (p["name"], p["peer"]["svm"]["name"])
                     and (not cluster_name or p["peer"]["cluster"]["name"] == cluster_name)), None)
        if peer is not None:
            source_api = context.api.fabric.named(peer["peer"]["cluster"]["name"]) or context.api
            if peer["state"] != "peered" or "snapmirror" not in peer["applications"]:
                raise conflict(f'SVM "{destination_svm["name"]}" is not peered with "{svm_name}" for SnapMirror '
                               f'(state {peer["state"]}, applications {", ".join(peer["applications"])}).', 13303812,
                               "source.path")
            source_svm_name = peer["peer"]["svm"]["name"]
        elif svm_name == destination_svm["name"] and cluster_name in (None, "", context.state.cluster["name"]):
            source_api, source_svm_name = context.api, svm_name
        else:
            raise conflict(f'SVM "{destination_svm["name"]}" has no SVM peer "{svm_name}"'
                           f'{" on cluster " + cluster_name if cluster_name else ""}: peer the SVMs for snapmirror first.',
                           13303812, "source.path")
        source_svm = source_api.state.first("svms", name=source_svm_name)
        volume = source_api.state.first("volumes", name=volume_name, **{"svm.uuid": source_svm["uuid"]}) if source_svm else None
        if volume is None or volume.get("style") == "flexgroup_constituent":
            raise not_found(f'Volume "{volume_name}" does not exist in SVM "{source_svm_name}".', "source.path")
        return source_api, source_svm, volume

    def create(self, context: Context, body: dict) -> dict:
        from .storage import Volumes

        require(body, "source.path", "destination.path")
        svm_name, volume_name = _split(body["destination"]["path"], "destination.path")
        destination_svm = context.state.first("svms", name=svm_name)
        if destination_svm is None:
            raise not_found(f'SVM "{svm_name}" does not exist.', "destination.path")
        if context.state.first(self.name, **{"destination.path": body["destination"]["path"]}):
            raise conflict(f'Destination "{body["destination"]["path"]}" already has a SnapMirror relationship.', 13303808,
                           "destination.path")
        source_api, source_svm, source_volume = self._source(context, body, destination_svm)
        policy_name = (body.get("policy") or {}).get("name") or "MirrorAllSnapshots"
        policy = next((p for p in ensure_policies(context.state) if p["name"] == policy_name), None)
        if policy is None:
            raise not_found(f'SnapMirror policy "{policy_name}" does not exist.', "policy.name")
        if policy_name not in SERVED_POLICIES:
            raise conflict(f'SnapMirror policy "{policy_name}" is not served by this lab endpoint.', 13303850, "policy.name")
        schedule = None
        if (body.get("transfer_schedule") or {}).get("name"):
            schedule = context.state.first("schedules", name=body["transfer_schedule"]["name"])
            if schedule is None:
                raise not_found(f'Schedule "{body["transfer_schedule"]["name"]}" does not exist.', "transfer_schedule.name")
        destination = context.state.first("volumes", name=volume_name, **{"svm.uuid": destination_svm["uuid"]})
        if destination is None:
            if not (body.get("create_destination") or {}).get("enabled"):
                raise not_found(f'Volume "{volume_name}" does not exist in SVM "{svm_name}".', "destination.path")
            spec: dict[str, Any] = {"name": volume_name, "svm": {"name": svm_name}, "type": "dp",
                                    "size": source_volume["size"], "guarantee": {"type": "none"},
                                    "style": source_volume.get("style", "flexvol")}
            aggregates = [a for a in destination_svm.get("aggregates") or []]
            if spec["style"] == "flexgroup":
                spec.update(aggregates=[{"name": a["name"]} for a in aggregates] or None,
                            constituents_per_aggregate=source_volume.get("constituents_per_aggregate") or 1)
            elif aggregates:
                spec["aggregates"] = [{"name": aggregates[0]["name"]}]
            destination = Volumes().create(context, {k: v for k, v in spec.items() if v is not None})
        elif destination.get("type") != "dp":
            raise conflict(f'Volume "{svm_name}:{volume_name}" is not a data protection (DP) volume.', 13303819,
                           "destination.path")
        uuid = new_uuid()
        record = {
            "uuid": uuid,
            "source": {"path": f"{source_svm['name']}:{source_volume['name']}",
                       "svm": {"name": source_svm["name"], "uuid": source_svm["uuid"]},
                       "cluster": {"name": source_api.state.cluster["name"], "uuid": source_api.state.cluster["uuid"]}},
            "destination": {"path": body["destination"]["path"], "svm": svm_ref(destination_svm),
                            "cluster": {"name": context.state.cluster["name"], "uuid": context.state.cluster["uuid"]}},
            "policy": {"name": policy["name"], "uuid": policy["uuid"], "type": policy["type"]},
            "state": "uninitialized", "healthy": True, "group_type": "none", "unhealthy_reason": [],
            "_volumes": {"source": source_volume["uuid"], "destination": destination["uuid"]}, "_transfers": [],
        }
        if schedule is not None:
            record["transfer_schedule"] = {"name": schedule["name"], "uuid": schedule["uuid"]}
        context.state.put(self.name, uuid, record)
        if body.get("state") == "snapmirrored":
            transfer(context, record)
        elif body.get("state") not in (None, "uninitialized"):
            raise invalid_value("state", body["state"], "snapmirrored")
        return record

    def modify(self, context: Context, record: dict, body: dict) -> None:
        if (body.get("policy") or {}).get("name"):
            policy = next((p for p in ensure_policies(context.state) if p["name"] == body["policy"]["name"]), None)
            if policy is None or policy["name"] not in SERVED_POLICIES:
                raise not_found(f'SnapMirror policy "{body["policy"]["name"]}" does not exist here.', "policy.name")
            record["policy"] = {"name": policy["name"], "uuid": policy["uuid"], "type": policy["type"]}
        if "transfer_schedule" in body:
            name = (body["transfer_schedule"] or {}).get("name")
            if name:
                schedule = context.state.first("schedules", name=name)
                if schedule is None:
                    raise not_found(f'Schedule "{name}" does not exist.', "transfer_schedule.name")
                record["transfer_schedule"] = {"name": name, "uuid": schedule["uuid"]}
            else:
                record.pop("transfer_schedule", None)
        state = body.get("state")
        if state is None:
            return
        if state not in SETTABLE_STATES:
            raise invalid_value("state", state, "|".join(sorted(SETTABLE_STATES)))
        destination = context.state.get("volumes", record["_volumes"]["destination"])
        if state == "snapmirrored":
            if record["state"] == "broken_off" and destination is not None:
                destination["type"] = "dp"
            if record["state"] in ("uninitialized", "broken_off"):
                transfer(context, record)
            record["state"] = "snapmirrored"
        elif state == "paused":
            if record["state"] == "uninitialized":
                raise conflict("An uninitialized relationship cannot be quiesced.", 13303825, "state")
            record["state"] = "paused"
        elif state == "broken_off":
            if record["state"] == "uninitialized":
                raise conflict("An uninitialized relationship cannot be broken.", 13303826, "state")
            record["state"] = "broken_off"
            if destination is not None:
                destination["type"] = "rw"

    def remove(self, context: Context, record: dict) -> None:
        context.state.remove(self.name, record["uuid"])


def transfer(context: Context, record: dict) -> dict:
    """One transfer (initialize or update) from the source to the destination volume."""
    source_api = context.api.fabric.named(record["source"]["cluster"]["name"]) or context.api
    source = source_api.state.get("volumes", record["_volumes"]["source"])
    destination = context.state.get("volumes", record["_volumes"]["destination"])
    if source is None or destination is None:
        record.update(healthy=False, unhealthy_reason=[{"code": "13303812", "message": "A volume of the relationship is gone."}])
        raise conflict("The source or destination volume of the relationship no longer exists.", 13303812)
    if record["state"] == "paused":
        raise conflict("The relationship is quiesced: resume it (state snapmirrored) before a transfer.", 13303827)
    kind = "initialize" if record["state"] == "uninitialized" else "update"
    number = len(record["_transfers"]) + 1
    exported = take_snapshot(source_api.state, source,
                             f"snapmirror.{record['uuid']}_{number}.{time.strftime('%Y-%m-%d_%H%M%S', time.gmtime())}")
    copies = POLICIES[record["policy"]["name"]][1]
    present = {snapshot["name"] for snapshot in snapshots_of(context.state, destination)}
    wanted = snapshots_of(source_api.state, source) if copies == "all" else [exported]
    for snapshot in wanted:
        if snapshot["name"] not in present:
            copied = take_snapshot(context.state, destination, snapshot["name"],
                                   snapmirror_label=snapshot.get("snapmirror_label"), comment=snapshot.get("comment"))
            copied["create_time"] = snapshot["create_time"]
            copied["_data"] = copy.deepcopy(snapshot.get("_data") or {})
    prefix = f"snapmirror.{record['uuid']}_"
    for state, volume in ((source_api.state, source), (context.state, destination)):
        for snapshot in snapshots_of(state, volume):
            if snapshot["name"].startswith(prefix) and snapshot["name"] != exported["name"]:
                state.remove("snapshots", snapshot["uuid"])
    destination["nas"].update(root_data(source))
    destination["size"] = destination["space"]["size"] = max(destination["size"], source["size"])
    done = {"uuid": new_uuid(), "state": "success", "bytes_transferred": 0, "end_time": _now(), "snapshot": exported["name"]}
    record["_transfers"] = (record["_transfers"] + [done])[-5:]
    record.update(state="snapmirrored", exported_snapshot=exported["name"], _exported_time=time.time(),
                  last_transfer_type=kind, healthy=True, unhealthy_reason=[],
                  transfer={"uuid": done["uuid"], "state": "success", "type": kind, "bytes_transferred": 0,
                            "end_time": done["end_time"]})
    if source_api is not context.api:
        context.api.fabric.save(source_api)
    return done


class Transfers(Collection):
    """``/api/snapmirror/relationships/{uuid}/transfers``: a POST starts one (the lab ends it at once)."""

    name = "snapmirror_transfers"
    path = "snapmirror/relationships/{relationship.uuid}/transfers"
    keys = ("uuid", "state")

    def pattern(self) -> str:
        return TRANSFERS_PATH.pattern + r"(?:/(?P<key>[^/]+))?"

    def relationship(self, context: Context) -> dict:
        match = TRANSFERS_PATH.match(context.path)
        record = context.state.get("snapmirror_relationships", match["relationship"]) if match else None
        if record is None:
            raise not_found(target="relationship.uuid")
        return record

    def all_records(self, context: Context) -> list[dict]:
        relationship = self.relationship(context)
        return [dict(entry, relationship={"uuid": relationship["uuid"], "destination": {"path": relationship["destination"]["path"]}})
                for entry in relationship["_transfers"]]

    def lookup(self, context: Context, key: str) -> dict:
        found = next((entry for entry in self.all_records(context) if entry["uuid"] == key), None)
        if found is None:
            raise not_found(target="uuid")
        return found

    def href(self, record: dict) -> str:
        return f"/api/snapmirror/relationships/{record['relationship']['uuid']}/transfers/{record['uuid']}"

    def create(self, context: Context, body: dict) -> dict:
        relationship = self.relationship(context)
        if relationship["state"] == "broken_off":
            raise conflict("The relationship is broken off: resync it (state snapmirrored) first.", 13303828)
        done = transfer(context, relationship)
        return dict(done, relationship={"uuid": relationship["uuid"], "destination": {"path": relationship["destination"]["path"]}})

    def serve(self, context: Context, groups: dict[str, str]) -> Response:
        if groups.get("key") is None and context.method == "GET":
            records = [self.render(context, record) for record in self.all_records(context)]
            return list_response(context, self.name, records, self.keys)
        if context.method in ("PATCH", "DELETE"):
            raise OntapError(405, 3, "A lab transfer ends at once: there is nothing to abort.")
        if context.method == "POST" and groups.get("key") is None:
            if context.body not in (None, {}) and not isinstance(context.body, dict):
                raise missing("body")
            return self.post(context)
        return super().serve(context, groups)


RESOURCES = [SnapmirrorPolicies(), Relationships(), Transfers()]
