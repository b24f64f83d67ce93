"""Volume snapshots (``/api/storage/volumes/{volume.uuid}/snapshots``) and what hangs on them.

The lab keeps no file data; the data a snapshot keeps is what the REST API shows of a volume's
contents: its root directory's security style, permissions and owner. A FlexClone is made from a
snapshot of its parent (ONTAP takes one, ``clone_<clone>.<time>.0``, when the request names none)
and starts with that data; while the clone exists the snapshot is busy (``owners``), so neither it
nor the parent volume can be deleted. Restoring a volume to a snapshot (``PATCH`` of the volume
with ``restore_to.snapshot.name|uuid``) brings the data back and deletes the newer snapshots, as
ONTAP's SnapRestore does. Snapshot writes are asynchronous (202 with a job), as ONTAP's are.
"""
from __future__ import annotations

import re
import time
from typing import Any

from ..api import Context
from ..errors import OntapError, conflict, duplicate, invalid_value, missing, not_found
from ..state import State, new_uuid
from . import Collection, require

ROOT_DATA = ("security_style", "unix_permissions", "uid", "gid")
CLONE_OWNER = "volume clone"  # what ONTAP lists in a snapshot's owners while a FlexClone uses it
SNAPSHOT_NAME = re.compile(r"^[^/\s]{1,255}$")
VOLUME_PATH = re.compile(r"storage/volumes/(?P<volume>[^/]+)/snapshots")


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())


def root_data(volume: dict) -> dict:
    nas = volume.get("nas") or {}
    return {field: nas[field] for field in ROOT_DATA if field in nas}


def snapshots_of(state: State, volume: dict) -> list[dict]:
    """The volume's snapshots, oldest first."""
    return [snapshot for snapshot in state.records("snapshots") if snapshot["volume"]["uuid"] == volume["uuid"]]


def is_clone(volume: dict) -> bool:
    return bool((volume.get("clone") or {}).get("is_flexclone"))


def clones_of_volume(state: State, volume: dict) -> list[dict]:
    return [other for other in state.records("volumes")
            if is_clone(other) and other["clone"]["parent_volume"]["uuid"] == volume["uuid"]]


def clones_of_snapshot(state: State, snapshot: dict) -> list[dict]:
    return [other for other in state.records("volumes")
            if is_clone(other) and other["clone"]["parent_snapshot"]["uuid"] == snapshot["uuid"]]


def take_snapshot(state: State, volume: dict, name: str, **details: Any) -> dict:
    if not SNAPSHOT_NAME.match(name):
        raise invalid_value("name", name, "1 to 255 characters, no '/' or spaces")
    if volume.get("state") != "online":
        raise conflict(f'Cannot create snapshot "{name}": volume "{volume["name"]}" is {volume.get("state")}.', 1638417)
    if any(snapshot["name"] == name for snapshot in snapshots_of(state, volume)):
        raise duplicate(f'Snapshot "{name}" already exists in volume "{volume["name"]}".', 1638402, "name")
    snapshot = {"uuid": new_uuid(), "name": name, "volume": {"name": volume["name"], "uuid": volume["uuid"]},
                "svm": {"name": volume["svm"]["name"], "uuid": volume["svm"]["uuid"]}, "create_time": now(),
                "state": "valid", "comment": details.get("comment") or "", "_data": root_data(volume)}
    for field in ("snapmirror_label", "expiry_time"):
        if details.get(field):
            snapshot[field] = details[field]
    return state.put("snapshots", snapshot["uuid"], snapshot)


def find_snapshot(state: State, volume: dict, ref: Any, field: str) -> dict:
    """The volume's snapshot a ``{"name"|"uuid"}`` reference names, or ONTAP's refusal."""
    if not isinstance(ref, dict) or not (ref.get("name") or ref.get("uuid")):
        raise missing(f"{field}.name")
    for snapshot in snapshots_of(state, volume):
        if (not ref.get("uuid") or snapshot["uuid"] == ref["uuid"]) and (not ref.get("name") or snapshot["name"] == ref["name"]):
            return snapshot
    raise OntapError(404, 2, f'Snapshot "{ref.get("name") or ref.get("uuid")}" does not exist in volume "{volume["name"]}".',
                     f"{field}.name")


def check_not_busy(state: State, snapshot: dict, action: str) -> None:
    clones = clones_of_snapshot(state, snapshot)
    if clones:
        raise conflict(f'Failed to {action} snapshot "{snapshot["name"]}" of volume "{snapshot["volume"]["name"]}" on Vserver '
                       f'"{snapshot["svm"]["name"]}". Reason: Snapshot is in use by FlexClone volume "{clones[0]["name"]}".',
                       1638555)


def restore(state: State, volume: dict, snapshot: dict) -> None:
    """SnapRestore: the volume's data as the snapshot kept it; the newer snapshots go."""
    if volume.get("state") != "online":
        raise conflict(f'Cannot restore volume "{volume["name"]}": it is {volume.get("state")}.', 1638418)
    history = snapshots_of(state, volume)
    newer = history[history.index(snapshot) + 1:]
    for later in newer:
        check_not_busy(state, later, "delete")
    volume["nas"].update(snapshot.get("_data") or {})
    for later in newer:
        state.remove("snapshots", later["uuid"])


def forget_snapshots(state: State, volume: dict) -> None:
    for snapshot in snapshots_of(state, volume):
        state.remove("snapshots", snapshot["uuid"])


class Snapshots(Collection):
    """``/api/storage/volumes/{volume.uuid}/snapshots[/{uuid}]``."""

    name = "snapshots"
    path = "storage/volumes/{volume.uuid}/snapshots"
    asynchronous = True

    def pattern(self) -> str:
        return VOLUME_PATH.pattern + r"(?:/(?P<key>[^/]+))?"

    def volume(self, context: Context) -> dict:
        match = VOLUME_PATH.match(context.path)
        volume = context.state.get("volumes", match["volume"]) if match else None
        if volume is None or (context.svm_scope and volume["svm"]["uuid"] != context.svm_scope) \
                or volume.get("style") == "flexgroup_constituent":
            raise not_found(target="volume.uuid")
        return volume

    def href(self, record: dict) -> str:
        return f"/api/storage/volumes/{record['volume']['uuid']}/snapshots/{record['uuid']}"

    def all_records(self, context: Context) -> list[dict]:
        return snapshots_of(context.state, self.volume(context))

    def lookup(self, context: Context, key: str) -> dict:
        volume = self.volume(context)
        snapshot = context.state.get("snapshots", key)
        if snapshot is None or snapshot["volume"]["uuid"] != volume["uuid"]:
            raise not_found(target="uuid")
        return snapshot

    def compute(self, context: Context, record: dict) -> None:
        record.pop("_data", None)
        if clones_of_snapshot(context.state, record):
            record["owners"] = [CLONE_OWNER]
        volume = context.state.get("volumes", record["volume"]["uuid"])
        if volume:
            record["volume"]["name"] = volume["name"]

    def create(self, context: Context, body: dict) -> dict:
        require(body, "name")
        volume = self.volume(context)
        return take_snapshot(context.state, volume, body["name"], comment=body.get("comment"),
                             snapmirror_label=body.get("snapmirror_label"), expiry_time=body.get("expiry_time"))

    def modify(self, context: Context, record: dict, body: dict) -> None:
        volume = self.volume(context)
        if "name" in body and body["name"] != record["name"]:
            if not SNAPSHOT_NAME.match(body["name"]):
                raise invalid_value("name", body["name"])
            if any(other["name"] == body["name"] for other in snapshots_of(context.state, volume)):
                raise duplicate(f'Snapshot "{body["name"]}" already exists in volume "{volume["name"]}".', 1638402, "name")
            record["name"] = body["name"]
            for clone in clones_of_snapshot(context.state, record):
                clone["clone"]["parent_snapshot"]["name"] = body["name"]
        for field in ("comment", "snapmirror_label", "expiry_time"):
            if field in body:
                record[field] = body[field]

    def remove(self, context: Context, record: dict) -> None:
        check_not_busy(context.state, record, "delete")
        context.state.remove("snapshots", record["uuid"])


RESOURCES = [Snapshots()]
