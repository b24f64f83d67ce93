"""Aggregates, volumes (FlexVol, FlexGroup with constituents, FlexClone) and snapshot policies.

A FlexGroup is created from ``aggregates`` x ``constituents_per_aggregate`` constituents named
``<volume>__0001``..., listed with ``is_constituent=true`` (and in the expensive ``constituents``
field), sharing the FlexGroup's size evenly; growing the FlexGroup grows them, adding aggregates
adds constituents. Volume names are unique per SVM, junction paths need a mounted parent, export
and snapshot policies must exist, and thick (``guarantee.type: volume``) volumes need free space.

A FlexClone (``clone.parent_volume``) lives with its parent: same SVM, aggregates, style and size,
made from a parent snapshot (``snapshots``), reported with ``clone.*``; its parent reports
``clone.has_flexclone`` and cannot be deleted while it has clones. ``clone.split_initiated``
splits a clone off (the lab finishes the split at once). DELETE takes an online volume offline and
unmounts it first, as ONTAP's DELETE does; what ONTAP refuses is refused: the parent of clones,
the SVM root while the SVM has other volumes, a volume other volumes are mounted beneath.
"""
from __future__ import annotations

import copy
import re
import time
import urllib.parse
from typing import Any

from ..api import Context, Response, list_response, record_response, validated
from ..errors import JobError, OntapError, conflict, duplicate, invalid_value, missing, not_found
from ..state import new_uuid
from . import Collection, reference, require, svm_of, svm_ref
from .snapshots import clones_of_volume, find_snapshot, forget_snapshots, is_clone, restore, snapshots_of, take_snapshot

VOLUME_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,202}$")
COMPRESSION = {"inline", "background", "both", "none", "mixed"}
MIN_VOLUME = 20 * 1024 ** 2


AFX_CONSTITUENTS_PER_NODE = 4
# What an empty volume holds in the lab: its file system's metadata (ONTAP reports a few hundred KiB
# to a few MiB for a new volume). The lab holds no file data, so this is all of a volume's use.
EMPTY_VOLUME_USED = 2 * 1024 ** 2
# What ONTAP keeps of a volume's metadata in its aggregate, beside the volume's own use.
VOLUME_AGGREGATE_METADATA = 4 * 1024 ** 2
AUTOSIZE_MODES = ("off", "grow", "grow_shrink")


def default_autosize(size: int) -> dict:
    """A volume's autosize as ONTAP creates it: off, its maximum 20 % over the size, its minimum the
    size, growing at 85 % full and shrinking at 50 % (ONTAP's grow default is 85 to 98 % by size)."""
    return {"mode": "off", "maximum": size * 6 // 5, "minimum": size, "grow_threshold": 85, "shrink_threshold": 50}


def set_autosize(volume: dict, changes: dict) -> None:
    """PATCH autosize as ONTAP checks it: a known mode, a maximum no less than the volume's size and
    above the minimum, a minimum no greater than the size, a grow threshold above the shrink one."""
    autosize = dict(volume.get("autosize") or default_autosize(volume["size"]), **changes)
    if autosize["mode"] not in AUTOSIZE_MODES:
        raise invalid_value("autosize.mode", autosize["mode"], "|".join(AUTOSIZE_MODES))
    for field in ("maximum", "minimum"):
        if not isinstance(autosize[field], int) or autosize[field] < 0:
            raise invalid_value(f"autosize.{field}", autosize[field])
    if autosize["maximum"] < volume["size"]:
        raise invalid_value("autosize.maximum", autosize["maximum"], "at least the volume's size")
    if autosize["minimum"] >= autosize["maximum"] or autosize["minimum"] > volume["size"]:
        raise invalid_value("autosize.minimum", autosize["minimum"], "below the maximum, at most the volume's size")
    for field in ("grow_threshold", "shrink_threshold"):
        if not isinstance(autosize[field], int) or not 0 <= autosize[field] <= 100:
            raise invalid_value(f"autosize.{field}", autosize[field], "0..100")
    if autosize["shrink_threshold"] >= autosize["grow_threshold"]:
        raise invalid_value("autosize.shrink_threshold", autosize["shrink_threshold"], "below the grow threshold")
    volume["autosize"] = autosize


def _constituent_name(name: str, number: int) -> str:
    return f"{name}__{number:04d}"


class Aggregates(Collection):
    name = "aggregates"
    path = "storage/aggregates"
    writable = False

    def in_scope(self, context: Context, record: dict) -> bool:
        svm = context.state.get("svms", context.svm_scope or "")
        return bool(svm) and any(a["uuid"] == record["uuid"] for a in svm.get("aggregates", []))

    def compute(self, context: Context, record: dict) -> None:
        used = 0
        for volume in context.state.records("volumes"):
            if volume.get("style") == "flexgroup":
                continue
            if any(a["uuid"] == record["uuid"] for a in volume.get("aggregates", [])):
                used += volume["space"]["size"] if (volume.get("guarantee") or {}).get("type") == "volume" else 0
        size = record["space"]["block_storage"]["size"]
        record["space"]["block_storage"].update(used=used, available=max(size - used, 0))
        record["volume-count"] = sum(1 for volume in context.state.records("volumes")
                                     if volume.get("style") != "flexgroup"
                                     and any(a["uuid"] == record["uuid"] for a in volume.get("aggregates", [])))


class Volumes(Collection):
    name = "volumes"
    path = "storage/volumes"
    asynchronous = True
    extra_roots = ("is_constituent",)

    def all_records(self, context: Context) -> list[dict]:
        constituents = context.flag("is_constituent")
        return [volume for volume in context.state.records("volumes")
                if (volume.get("style") == "flexgroup_constituent") == constituents]

    def href(self, record: dict) -> str:
        suffix = "?is_constituent=true" if record.get("style") == "flexgroup_constituent" else ""
        return f"/api/storage/volumes/{record['uuid']}{suffix}"

    def compute(self, context: Context, record: dict) -> None:
        disaggregated = bool(context.state.cluster.get("disaggregated"))
        if record.get("style") == "flexgroup":
            parts = self._constituents(context, record)
            reserve_percent = int((record["space"].get("snapshot") or {}).get("reserve_percent") or 0)
            record["constituents"] = [{"name": part["name"], "space": self._constituent_space(part["space"]["size"], reserve_percent),
                                       **({} if disaggregated else {"aggregates": dict(part["aggregates"][0])})} for part in parts]
            record["constituent_count"] = len(parts)
            # A FlexGroup's use is its constituents'.
            self._space(record, EMPTY_VOLUME_USED * len(parts), VOLUME_AGGREGATE_METADATA * len(parts))
        else:
            # Only FlexGroups have constituents; ONTAP's schema refuses a count of 0 (older states stored one).
            record.pop("constituent_count", None)
        if disaggregated:
            # No aggregates on AFX: a volume shows none (its placement is ONTAP's).
            record.pop("aggregates", None)
            record.pop("constituents_per_aggregate", None)
        if record.get("style") != "flexgroup":
            self._space(record, EMPTY_VOLUME_USED, VOLUME_AGGREGATE_METADATA)
        if record.get("style") == "flexgroup_constituent":
            return
        if record.get("style") == "flexgroup":
            record.setdefault("granular_data", False)
        clone = record.setdefault("clone", {"is_flexclone": False})
        clone["has_flexclone"] = bool(clones_of_volume(context.state, record))
        record.setdefault("flexcache_endpoint_type", "none")
        record.setdefault("autosize", default_autosize(record["size"]))
        record["snapshot_count"] = len(snapshots_of(context.state, record))

    @staticmethod
    def _space(record: dict, used: int, metadata: int) -> None:
        """The space accounting ONTAP reports for a volume of record's size and snapshot reserve that
        holds `used` bytes (its active file system) and `metadata` bytes of aggregate metadata."""
        space = record.setdefault("space", {})
        size = int(space.get("size") or record.get("size") or 0)
        snapshot = space.setdefault("snapshot", {})
        reserve = size * int(snapshot.get("reserve_percent") or 0) // 100
        afs_total = size - reserve
        available = max(afs_total - used, 0)
        thick = (record.get("guarantee") or {}).get("type") == "volume"
        footprint = size if thick else used
        snapshot.update(reserve_size=reserve, used=0, reserve_available=reserve, space_used_percent=0)
        space.update(afs_total=afs_total, used=used, used_by_afs=used, available=available, user_data=0,
                     percent_used=used * 100 // afs_total if afs_total else 0,
                     available_percent=available * 100 // afs_total if afs_total else 0,
                     metadata=metadata, footprint=used, volume_guarantee_footprint=footprint - used,
                     total_footprint=footprint + metadata, physical_used=used,
                     physical_used_percent=used * 100 // size if size else 0)

    @staticmethod
    def _constituent_space(size: int, reserve_percent: int) -> dict:
        """A FlexGroup constituent's space, in the fields ONTAP lists for constituents."""
        afs_total = size - size * reserve_percent // 100
        used = EMPTY_VOLUME_USED
        available = max(afs_total - used, 0)
        return {"size": size, "afs_total": afs_total, "used": used, "used_by_afs": used, "available": available,
                "used_percent": used * 100 // afs_total if afs_total else 0,
                "available_percent": available * 100 // afs_total if afs_total else 0,
                "metadata": VOLUME_AGGREGATE_METADATA, "footprint": used, "total_footprint": used + VOLUME_AGGREGATE_METADATA}

    @staticmethod
    def _constituents(context: Context, volume: dict) -> list[dict]:
        return [part for part in context.state.records("volumes")
                if (part.get("flexgroup") or {}).get("uuid") == volume["uuid"]]

    # -- create
    def create(self, context: Context, body: dict) -> dict:
        require(body, "name", "svm")
        svm = svm_of(context, body["svm"])
        name = body["name"]
        if not VOLUME_NAME.match(name):
            raise invalid_value("name", name, "letters, digits and underscores; not starting with a digit")
        if context.state.first("volumes", name=name, **{"svm.uuid": svm["uuid"]}):
            raise duplicate(f'Duplicate volume name "{name}" in SVM "{svm["name"]}".', 917835, "name")
        clone = body.get("clone") or {}
        if clone.get("is_flexclone") or clone.get("parent_volume"):
            return self._create_clone(context, body, svm)
        disaggregated = bool(context.state.cluster.get("disaggregated"))
        if disaggregated and body.get("aggregates"):
            raise invalid_value("aggregates", body["aggregates"][0].get("name") if isinstance(body["aggregates"][0], dict) else body["aggregates"],
                                "an AFX cluster has no aggregates: ONTAP places the volume")
        if disaggregated and "constituents_per_aggregate" in body:
            # What na_ontap_volume's auto_provision_as sends; AFX wants constituent_count, or nothing.
            raise invalid_value("constituents_per_aggregate", body["constituents_per_aggregate"],
                                "on this platform use constituent_count, and the system places the constituents")
        aggregates = [reference(context, "aggregates", ref, "Aggregate", f"aggregates[{i}].name")
                      for i, ref in enumerate(body.get("aggregates") or [])]
        multiplier = body.get("constituents_per_aggregate")
        style = body.get("style") or ("flexgroup" if multiplier or len(aggregates) > 1 or body.get("constituent_count") else "flexvol")
        if style == "flexgroup_constituent":
            raise invalid_value("style", style, "flexvol|flexgroup")
        if style == "flexvol" and (len(aggregates) > 1 or multiplier):
            raise conflict("A FlexVol volume lives on exactly one aggregate; use style flexgroup for several.", 917836, "style")
        if disaggregated:
            # AFX places a FlexGroup's constituents itself: the lab gives it AFX_CONSTITUENTS_PER_NODE per node
            # (its own choice; NetApp does not publish the rule) in the one storage availability zone.
            aggregates = context.state.records("availability_zones")[:1]
            if style == "flexgroup":
                multiplier = body.get("constituent_count") or AFX_CONSTITUENTS_PER_NODE * max(len(context.state.records("nodes")), 1)
        elif not aggregates:
            svm_aggregates = [context.state.get("aggregates", a["uuid"]) for a in svm.get("aggregates", [])]
            aggregates = [a for a in svm_aggregates if a] or context.state.records("aggregates")[:1]
            if style == "flexvol":
                aggregates = aggregates[:1]
        size = body.get("size", body.get("space", {}).get("size"))
        if size is None:
            size = MIN_VOLUME
        if not isinstance(size, int) or size < MIN_VOLUME:
            raise invalid_value("size", size, f"at least {MIN_VOLUME} bytes")
        count = len(aggregates) * (multiplier or 1) if style == "flexgroup" else 1
        nas = body.get("nas") or {}
        guarantee = (body.get("guarantee") or {}).get("type", "volume")
        self._check_space(context, aggregates, size, count, guarantee)
        volume: dict[str, Any] = {
            "uuid": new_uuid(), "name": name, "svm": svm_ref(svm), "style": style, "type": body.get("type", "rw"),
            "state": body.get("state", "online"), "is_svm_root": False, "comment": body.get("comment", ""),
            "size": size,
            "space": {"size": size, "snapshot": {"reserve_percent": (body.get("space") or {}).get("snapshot", {}).get("reserve_percent", 5)},
                      "logical_space": {"enforcement": False, "reporting": False}},
            "aggregates": [{"name": a["name"], "uuid": a["uuid"]} for a in aggregates],
            "guarantee": {"type": guarantee},
            "nas": {"security_style": nas.get("security_style", "unix"), "unix_permissions": nas.get("unix_permissions", 755),
                    "uid": nas.get("uid", 0), "gid": nas.get("gid", 1)},
            "efficiency": {"compression": "inline", "dedupe": "both", "compaction": "inline",
                           "cross_volume_dedupe": "inline", "policy": {"name": "auto"}},
            "encryption": {"enabled": False}, "tiering": {"policy": "none"}, "snaplock": {"type": "non_snaplock"},
            "files": {"maximum": max(size // 32768, 21251)}, "create_time": time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()),
            "clone": {"is_flexclone": False}, "autosize": default_autosize(size),
        }
        if body.get("autosize"):
            set_autosize(volume, body["autosize"])
        if style == "flexgroup":
            volume["constituent_count"] = count
        if multiplier:
            volume["constituents_per_aggregate"] = multiplier
        self._set_export_policy(context, volume, nas.get("export_policy") or {"name": "default"})
        self._set_snapshot_policy(context, volume, body.get("snapshot_policy") or {"name": "default"})
        if "efficiency" in body:
            self._set_efficiency(volume, body["efficiency"])
        if (body.get("qos") or {}).get("policy"):
            set_qos_policy(context, volume, body["qos"]["policy"])
        set_granular_data(context, volume, body)
        if nas.get("path"):
            self._mount(context, volume, nas["path"])
        context.state.put("volumes", volume["uuid"], volume)
        if style == "flexgroup":
            self._add_constituents(context, volume, aggregates, multiplier or 1)
        return volume

    def _create_clone(self, context: Context, body: dict, svm: dict) -> dict:
        """A FlexClone: the parent's SVM, aggregates, style, size and snapshot data; the request's name,
        junction, export policy and owner."""
        clone = body["clone"]
        parent_svm = svm_of(context, clone.get("parent_svm") or {"uuid": svm["uuid"]}, "clone.parent_svm")
        if parent_svm["uuid"] != svm["uuid"]:
            raise conflict(f'Cannot clone into SVM "{svm["name"]}" from SVM "{parent_svm["name"]}": a FlexClone volume '
                           "lives in its parent's SVM.", 917880, "clone.parent_svm")
        ref = clone.get("parent_volume")
        if not isinstance(ref, dict) or not (ref.get("name") or ref.get("uuid")):
            raise missing("clone.parent_volume.name")
        criteria = {key: ref[key] for key in ("name", "uuid") if ref.get(key)}
        parent = context.state.first("volumes", **criteria, **{"svm.uuid": svm["uuid"]})
        if parent is None or parent.get("style") == "flexgroup_constituent":
            raise OntapError(404, 2, f'Volume "{ref.get("name") or ref.get("uuid")}" does not exist in SVM "{svm["name"]}".',
                             "clone.parent_volume.name")
        if parent.get("state") != "online":
            raise conflict(f'Cannot clone volume "{parent["name"]}": it is {parent.get("state")}.', 917881, "clone.parent_volume")
        if clone.get("parent_snapshot"):
            snapshot = find_snapshot(context.state, parent, clone["parent_snapshot"], "clone.parent_snapshot")
        else:
            stamp = time.strftime("%Y-%m-%d_%H%M%S", time.gmtime())
            snapshot = take_snapshot(context.state, parent, f"clone_{body['name']}.{stamp}.0")
        nas = body.get("nas") or {}
        volume: dict[str, Any] = copy.deepcopy({key: parent[key] for key in (
            "style", "type", "size", "space", "aggregates", "guarantee", "efficiency", "encryption", "tiering", "snaplock",
            "files", "snapshot_policy", "constituents_per_aggregate") if key in parent})
        volume.update({
            "uuid": new_uuid(), "name": body["name"], "svm": svm_ref(svm), "state": "online", "is_svm_root": False,
            "comment": body.get("comment", ""), "create_time": time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()),
            "nas": {**{"security_style": "unix", "unix_permissions": 755, "uid": 0, "gid": 1}, **snapshot.get("_data", {}),
                    **{key: nas[key] for key in ("security_style", "unix_permissions", "uid", "gid") if key in nas}},
            "clone": {"is_flexclone": True, "split_initiated": False,
                      "parent_volume": {"name": parent["name"], "uuid": parent["uuid"]},
                      "parent_svm": {"name": svm["name"], "uuid": svm["uuid"]},
                      "parent_snapshot": {"name": snapshot["name"], "uuid": snapshot["uuid"]}},
        })
        self._set_export_policy(context, volume, nas.get("export_policy") or {"name": "default"})
        if body.get("snapshot_policy"):
            self._set_snapshot_policy(context, volume, body["snapshot_policy"])
        if "guarantee" in body:
            volume["guarantee"] = {"type": body["guarantee"].get("type", volume["guarantee"]["type"])}
        if nas.get("path"):
            self._mount(context, volume, nas["path"])
        context.state.put("volumes", volume["uuid"], volume)
        if volume["style"] == "flexgroup":
            aggregates = [context.state.get("aggregates", a["uuid"]) for a in volume["aggregates"]]
            per_aggregate = max(len(self._constituents(context, parent)) // max(len(aggregates), 1), 1)
            self._add_constituents(context, volume, [a for a in aggregates if a], per_aggregate)
        return volume

    @staticmethod
    def _check_space(context: Context, aggregates: list[dict], size: int, count: int, guarantee: str) -> None:
        if guarantee != "volume" or context.state.cluster.get("disaggregated"):
            return
        share = size // count
        per_aggregate = share * (count // len(aggregates))
        for aggregate in aggregates:
            rendered = Aggregates().render(context, aggregate)
            available = rendered["space"]["block_storage"]["available"]
            if per_aggregate > available:
                raise JobError(400, 917927, f'Insufficient space in aggregate "{aggregate["name"]}" for a thick volume: '
                                            f"{per_aggregate} bytes needed, {available} available.", "size")

    def _add_constituents(self, context: Context, volume: dict, aggregates: list[dict], multiplier: int) -> None:
        existing = self._constituents(context, volume)
        number = len(existing)
        for _round in range(multiplier):
            for aggregate in aggregates:
                number += 1
                part_uuid = new_uuid()
                context.state.put("volumes", part_uuid, {
                    "uuid": part_uuid, "name": _constituent_name(volume["name"], number), "svm": dict(volume["svm"]),
                    "style": "flexgroup_constituent", "type": volume["type"], "state": volume["state"],
                    "flexgroup": {"uuid": volume["uuid"], "name": volume["name"]},
                    "aggregates": [{"name": aggregate["name"], "uuid": aggregate["uuid"]}],
                    "space": {"size": 0}, "size": 0, "guarantee": dict(volume["guarantee"]),
                })
        self._spread_size(context, volume)

    def _spread_size(self, context: Context, volume: dict) -> None:
        parts = self._constituents(context, volume)
        volume["constituent_count"] = len(parts)
        for part in parts:
            part["space"]["size"] = part["size"] = volume["space"]["size"] // len(parts)

    @staticmethod
    def _set_export_policy(context: Context, volume: dict, ref: dict) -> None:
        criteria = {"svm.uuid": volume["svm"]["uuid"]}
        if ref.get("id") is not None:
            criteria["id"] = ref["id"]
        if ref.get("name"):
            criteria["name"] = ref["name"]
        policy = context.state.first("export_policies", **criteria)
        if policy is None:
            raise OntapError(404, 917927 + 1, f'Export policy "{ref.get("name") or ref.get("id")}" does not exist in SVM '
                                              f'"{volume["svm"]["name"]}".', "nas.export_policy")
        volume["nas"]["export_policy"] = {"name": policy["name"], "id": policy["id"]}

    @staticmethod
    def _set_snapshot_policy(context: Context, volume: dict, ref: dict) -> None:
        policy = None
        for candidate in context.state.records("snapshot_policies"):
            if ref.get("uuid") and candidate["uuid"] != ref["uuid"] or ref.get("name") and candidate["name"] != ref["name"]:
                continue
            if candidate.get("scope") == "cluster" or (candidate.get("svm") or {}).get("uuid") == volume["svm"]["uuid"]:
                policy = candidate
                break
        if policy is None:
            raise OntapError(404, 13107, f'Snapshot policy "{ref.get("name") or ref.get("uuid")}" does not exist.',
                             "snapshot_policy")
        volume["snapshot_policy"] = {"name": policy["name"], "uuid": policy["uuid"]}

    @staticmethod
    def _set_efficiency(volume: dict, efficiency: dict) -> None:
        compression = efficiency.get("compression")
        if compression is not None:
            if compression not in COMPRESSION:
                raise invalid_value("efficiency.compression", compression, "|".join(sorted(COMPRESSION)))
            volume["efficiency"]["compression"] = compression
        for field in ("dedupe", "compaction", "cross_volume_dedupe"):
            if field in efficiency:
                volume["efficiency"][field] = efficiency[field]
        if "policy" in efficiency:
            volume["efficiency"]["policy"] = {"name": efficiency["policy"].get("name", "auto")}

    def _mount(self, context: Context, volume: dict, path: str) -> None:
        if not path.startswith("/") or "//" in path or (len(path) > 1 and path.endswith("/")):
            raise invalid_value("nas.path", path)
        for other in context.state.find("volumes", **{"svm.uuid": volume["svm"]["uuid"]}):
            if other["uuid"] != volume["uuid"] and (other.get("nas") or {}).get("path") == path:
                raise duplicate(f'Junction path "{path}" is already used by volume "{other["name"]}".', 917536, "nas.path")
        parent = path.rsplit("/", 1)[0] or "/"
        if not any((other.get("nas") or {}).get("path") == parent
                   for other in context.state.find("volumes", **{"svm.uuid": volume["svm"]["uuid"]})):
            raise JobError(400, 917537, f'Cannot mount at "{path}": no volume is mounted at its parent "{parent}".', "nas.path")
        volume["nas"]["path"] = path

    # -- modify
    def modify(self, context: Context, record: dict, body: dict) -> None:
        if record.get("style") == "flexgroup_constituent":
            raise conflict("FlexGroup constituents are managed through their FlexGroup.", 917840)
        if "movement" in body or "encryption" in body:
            raise conflict("Volume moves and encryption conversion are not supported by this lab endpoint.", 917841)
        # SnapRestore is asked for with query parameters, not in the body (netapp_ontap sends them so).
        restore_to = {key.split(".")[-1]: context.param(key) for key in ("restore_to.snapshot.name", "restore_to.snapshot.uuid")
                      if context.param(key)}
        if restore_to:
            restore(context.state, record, find_snapshot(context.state, record, restore_to, "restore_to.snapshot"))
        if (body.get("clone") or {}).get("split_initiated"):
            if not is_clone(record):
                raise conflict(f'Volume "{record["name"]}" is not a FlexClone volume.', 917882, "clone.split_initiated")
            # The split copies the shared blocks; the lab has none to copy and ends it at once.
            record["clone"] = {"is_flexclone": False}
        if "name" in body and body["name"] != record["name"]:
            if record.get("is_svm_root"):
                raise conflict("The SVM root volume cannot be renamed here.", 917842, "name")
            if context.state.first("volumes", name=body["name"], **{"svm.uuid": record["svm"]["uuid"]}):
                raise duplicate(f'Duplicate volume name "{body["name"]}".', 917835, "name")
            record["name"] = body["name"]
            for clone in clones_of_volume(context.state, record):
                clone["clone"]["parent_volume"]["name"] = body["name"]
        new_size = body.get("size", (body.get("space") or {}).get("size"))
        if new_size is not None:
            if not isinstance(new_size, int) or new_size < MIN_VOLUME:
                raise invalid_value("size", new_size)
            record["size"] = record["space"]["size"] = new_size
            autosize = record.setdefault("autosize", default_autosize(new_size))
            # A volume grown past its autosize maximum takes the new size as its maximum.
            autosize["maximum"] = max(autosize["maximum"], new_size)
        if "autosize" in body:
            set_autosize(record, body["autosize"] or {})
        if "aggregates" in body and record.get("style") == "flexgroup":
            added = [reference(context, "aggregates", ref, "Aggregate", "aggregates.name") for ref in body["aggregates"]]
            current = {a["uuid"] for a in record["aggregates"]}
            fresh = [a for a in added if a["uuid"] not in current]
            if {a["uuid"] for a in added} < current:
                raise conflict("Constituents cannot be removed from a FlexGroup.", 917843, "aggregates")
            record["aggregates"].extend({"name": a["name"], "uuid": a["uuid"]} for a in fresh)
            if fresh:
                self._add_constituents(context, record, fresh, body.get("constituents_per_aggregate")
                                       or record.get("constituents_per_aggregate", 1))
        elif "aggregates" in body:
            raise conflict("Moving a FlexVol volume is done with movement.destination_aggregate.", 917844, "aggregates")
        nas = body.get("nas") or {}
        if "export_policy" in nas:
            self._set_export_policy(context, record, nas["export_policy"])
        for field in ("security_style", "unix_permissions", "uid", "gid"):
            if field in nas:
                record["nas"][field] = nas[field]
        if "path" in nas:
            if record.get("is_svm_root"):
                raise conflict("The SVM root volume is always mounted at /.", 917845, "nas.path")
            if nas["path"]:
                self._mount(context, record, nas["path"])
            else:
                record["nas"].pop("path", None)
        if "snapshot_policy" in body:
            self._set_snapshot_policy(context, record, body["snapshot_policy"])
        if "guarantee" in body:
            record["guarantee"] = {"type": body["guarantee"].get("type", record["guarantee"]["type"])}
        if "efficiency" in body:
            self._set_efficiency(record, body["efficiency"])
        if (body.get("qos") or {}).get("policy"):
            set_qos_policy(context, record, body["qos"]["policy"])
        set_granular_data(context, record, body)
        if "space" in body and "snapshot" in body["space"]:
            record["space"]["snapshot"].update(body["space"]["snapshot"])
        for field in ("state", "comment", "snapshot_directory_access_enabled", "access_time_enabled"):
            if field in body:
                record[field] = body[field]
        if "tiering" in body:
            record["tiering"].update(body["tiering"])
        if record.get("style") == "flexgroup":
            self._spread_size(context, record)
            for part in self._constituents(context, record):
                part["state"] = record["state"]
                part["name"] = _constituent_name(record["name"], int(part["name"].rsplit("__", 1)[1]))
                part["flexgroup"]["name"] = record["name"]

    def remove(self, context: Context, record: dict) -> None:
        state = context.state
        siblings = [v for v in state.find("volumes", **{"svm.uuid": record["svm"]["uuid"]})
                    if v["uuid"] != record["uuid"] and v.get("style") != "flexgroup_constituent"]
        if record.get("is_svm_root"):
            if siblings:
                raise conflict("Cannot delete the root volume because the SVM contains other volumes.", 917531)
            raise conflict("The SVM root volume cannot be deleted; delete the SVM.", 917846)
        if record.get("style") == "flexgroup_constituent":
            raise conflict("FlexGroup constituents cannot be deleted individually.", 917847)
        if clones_of_volume(state, record):
            raise conflict("Failed to delete volume because it has one or more clones.", 524615)
        from .flexcache import caches_of

        if caches_of(context.api, record["uuid"]):
            raise conflict(f'Volume "{record["name"]}" is the origin of FlexCache volumes: delete them first.', 66846784)
        if any(relationship["_volumes"]["source"] == record["uuid"] for api in context.api.fabric.apis
               for relationship in api.state.records("snapmirror_relationships")):
            raise conflict(f'Volume "{record["name"]}" is the source of a SnapMirror relationship: release it first.', 13303846)
        path = (record.get("nas") or {}).get("path")
        beneath = [v for v in siblings if path and ((v.get("nas") or {}).get("path") or "").startswith(path.rstrip("/") + "/")]
        if beneath:
            # Taking the volume offline, the first step of a DELETE, would cut the junctions of these.
            raise conflict(f'Volume "{record["name"]}" in SVM "{record["svm"]["name"]}" cannot be taken offline because volume '
                           f'"{beneath[0]["name"]}" is mounted beneath its junction path "{path}". Unmount it first.', 918667)
        # An online volume is taken offline, and a mounted one unmounted, before it is deleted.
        for part in self._constituents(context, record):
            state.remove("volumes", part["uuid"])
        forget_snapshots(state, record)
        state.remove("volumes", record["uuid"])
        state.remove("flexcaches", record["uuid"])  # a FlexCache goes with its volume


# ---------------------------------------------------------------------------- snapshot policies
class SnapshotPolicies(Collection):
    name = "snapshot_policies"
    path = "storage/snapshot-policies"

    def in_scope(self, context: Context, record: dict) -> bool:
        return record.get("scope") == "cluster" or (record.get("svm") or {}).get("uuid") == context.svm_scope

    def create(self, context: Context, body: dict) -> dict:
        require(body, "name")
        svm = svm_of(context, body["svm"]) if body.get("svm") else None
        scope = {"svm.uuid": svm["uuid"]} if svm else {"scope": "cluster"}
        if context.state.first("snapshot_policies", name=body["name"], **scope):
            raise duplicate(f'Snapshot policy "{body["name"]}" already exists.', 1638527, "name")
        copies = [self._copy(context, entry) for entry in body.get("copies") or []]
        if not copies and body.get("enabled", True):
            raise missing("copies")
        if sum(entry["count"] for entry in copies) > 1023:
            raise invalid_value("copies.count", sum(entry["count"] for entry in copies), "at most 1023 in total")
        record = {"uuid": new_uuid(), "name": body["name"], "enabled": body.get("enabled", True),
                  "comment": body.get("comment", ""), "scope": "svm" if svm else "cluster", "copies": copies}
        if svm:
            record["svm"] = svm_ref(svm)
        return context.state.put("snapshot_policies", record["uuid"], record)

    @staticmethod
    def _copy(context: Context, entry: dict) -> dict:
        schedule = reference(context, "schedules", entry.get("schedule"), "Schedule", "copies.schedule.name")
        count = entry.get("count")
        if not isinstance(count, int) or not 1 <= count <= 1023:
            raise invalid_value("copies.count", count, "1..1023")
        result = {"count": count, "schedule": {"name": schedule["name"], "uuid": schedule["uuid"]},
                  "prefix": entry.get("prefix") or schedule["name"]}
        if entry.get("snapmirror_label"):
            result["snapmirror_label"] = entry["snapmirror_label"]
        return result

    def modify(self, context: Context, record: dict, body: dict) -> None:
        if "copies" in body:
            raise OntapError(400, 262196, 'Field "copies" cannot be set in this operation; use the schedules API.', "copies")
        for field in ("enabled", "comment"):
            if field in body:
                record[field] = body[field]
        if "name" in body:
            record["name"] = body["name"]

    def remove(self, context: Context, record: dict) -> None:
        if record["name"] in ("default", "default-1weekly", "none") and record.get("scope") == "cluster":
            raise conflict(f'Snapshot policy "{record["name"]}" is built in.', 1638528)
        for holder in context.state.records("volumes") + context.state.records("svms"):
            if (holder.get("snapshot_policy") or {}).get("uuid") == record["uuid"]:
                raise conflict(f'Snapshot policy "{record["name"]}" is in use by "{holder["name"]}".', 1638529)
        context.state.remove("snapshot_policies", record["uuid"])


class SnapshotPolicySchedules(Collection):
    """``/api/storage/snapshot-policies/{uuid}/schedules[/{schedule.uuid}]``: the copies of a policy."""

    name = "snapshot_policy_schedules"
    path = "storage/snapshot-policies/{uuid}/schedules"
    keys = ("schedule.uuid", "schedule.name")

    def pattern(self) -> str:
        return r"storage/snapshot-policies/(?P<policy>[^/]+)/schedules(?:/(?P<key>[^/]+))?"

    def serve(self, context: Context, groups: dict[str, str]) -> Response:
        policy = context.state.get("snapshot_policies", groups["policy"])
        if policy is None:
            raise not_found(target="snapshot_policy.uuid")
        key = groups.get("key")

        def render(entry: dict) -> dict:
            rendered = copy.deepcopy(entry)
            rendered["snapshot_policy"] = {"name": policy["name"], "uuid": policy["uuid"]}
            rendered["_links"] = {"self": {"href": f"/api/storage/snapshot-policies/{policy['uuid']}/schedules/{entry['schedule']['uuid']}"}}
            return rendered

        if key is None and context.method == "GET":
            return list_response(context, self.name, [render(entry) for entry in policy["copies"]], self.keys)
        if key is None and context.method == "POST":
            body = validated(context, self.name)
            entry = SnapshotPolicies._copy(context, body)
            if any(c["schedule"]["uuid"] == entry["schedule"]["uuid"] for c in policy["copies"]):
                raise duplicate(f'Schedule "{entry["schedule"]["name"]}" is already in policy "{policy["name"]}".', 1638530)
            policy["copies"].append(entry)
            return Response(201, {})
        entry = next((c for c in policy["copies"] if c["schedule"]["uuid"] == urllib.parse.unquote(key or "")), None)
        if entry is None:
            raise not_found(target="schedule.uuid")
        if context.method == "GET":
            return record_response(context, self.name, render(entry), self.keys)
        if context.method == "PATCH":
            body = validated(context, self.name)
            for field in ("count", "prefix", "snapmirror_label"):
                if field in body:
                    entry[field] = body[field]
            return Response(200, {})
        if context.method == "DELETE":
            if len(policy["copies"]) == 1:
                raise conflict("A snapshot policy keeps at least one schedule.", 1638531)
            policy["copies"].remove(entry)
            return Response(200, {})
        raise OntapError(405, 3, f"The {context.method} method is not supported here.")


# ---------------------------------------------------------------------------- QoS policy groups
QOS_FIXED = {"max_throughput_iops": 0, "max_throughput_mbps": 0, "min_throughput_iops": 0, "min_throughput_mbps": 0,
             "capacity_shared": False}
QOS_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,127}$")


class QosPolicies(Collection):
    """``/api/storage/qos/policies``: fixed policy groups of an SVM (adaptive ones are not served).

    A limit of 0 is none; a floor above its ceiling, or a fixed group without any limit change, is
    refused as ONTAP refuses it. A group a volume uses cannot be deleted. Writes answer with a job.
    """

    name = "qos_policies"
    path = "storage/qos/policies"
    asynchronous = True

    def create(self, context: Context, body: dict) -> dict:
        require(body, "name", "svm")
        svm = svm_of(context, body["svm"])
        if not QOS_NAME.match(body["name"]):
            raise invalid_value("name", body["name"], "1 to 127 letters, digits, '_', '.' or '-'")
        if context.state.first("qos_policies", name=body["name"], **{"svm.uuid": svm["uuid"]}):
            raise duplicate(f'Policy group "{body["name"]}" already exists.', 8388609, "name")
        if "adaptive" in body:
            raise conflict("Adaptive QoS policy groups are not served by this lab endpoint.", 8388610, "adaptive")
        fixed = self._fixed(dict(QOS_FIXED), body.get("fixed") or {})
        record = {"uuid": new_uuid(), "name": body["name"], "svm": svm_ref(svm), "fixed": fixed,
                  "policy_class": "user_defined", "scope": "svm", "pgid": 1000 + len(context.state.records("qos_policies"))}
        return context.state.put("qos_policies", record["uuid"], record)

    @staticmethod
    def _fixed(current: dict, changes: dict) -> dict:
        for field, value in changes.items():
            if field not in QOS_FIXED:
                continue  # the schema check refused unknown fields already
            if field == "capacity_shared":
                current[field] = bool(value)
            elif not isinstance(value, int) or value < 0:
                raise invalid_value(f"fixed.{field}", value, "a whole number, 0 for none")
            else:
                current[field] = value
        for unit in ("iops", "mbps"):
            floor, ceiling = current[f"min_throughput_{unit}"], current[f"max_throughput_{unit}"]
            if floor and ceiling and floor > ceiling:
                raise conflict(f"The minimum throughput ({floor}) must not exceed the maximum throughput ({ceiling}).",
                               8388611, f"fixed.min_throughput_{unit}")
        return current

    def compute(self, context: Context, record: dict) -> None:
        record["object_count"] = sum(1 for volume in context.state.records("volumes")
                                     if ((volume.get("qos") or {}).get("policy") or {}).get("uuid") == record["uuid"])

    def modify(self, context: Context, record: dict, body: dict) -> None:
        if "fixed" in body:
            shared = (body["fixed"] or {}).get("capacity_shared")
            if shared is not None and bool(shared) != record["fixed"]["capacity_shared"]:
                raise conflict("The capacity_shared setting of a policy group cannot be modified.", 8388613, "fixed.capacity_shared")
            record["fixed"] = self._fixed(dict(record["fixed"]), body["fixed"])
        if "name" in body and body["name"] != record["name"]:
            if context.state.first("qos_policies", name=body["name"], **{"svm.uuid": record["svm"]["uuid"]}):
                raise duplicate(f'Policy group "{body["name"]}" already exists.', 8388609, "name")
            record["name"] = body["name"]
            for volume in context.state.records("volumes"):
                policy = (volume.get("qos") or {}).get("policy") or {}
                if policy.get("uuid") == record["uuid"]:
                    policy["name"] = body["name"]

    def remove(self, context: Context, record: dict) -> None:
        users = [v["name"] for v in context.state.records("volumes")
                 if ((v.get("qos") or {}).get("policy") or {}).get("uuid") == record["uuid"]]
        if users:
            raise conflict(f'Policy group "{record["name"]}" is in use by volume "{users[0]}".', 8388612)
        context.state.remove("qos_policies", record["uuid"])


GRANULAR_MODES = ("basic", "advanced")
ADVANCED_GRANULAR_DATA = (9, 16)  # advanced capacity balancing (GDD): ONTAP 9.16.1


def set_granular_data(context: Context, volume: dict, body: dict) -> None:
    """``granular_data`` and ``granular_data_mode`` of a FlexGroup: on is basic unless advanced is asked for
    (advanced from ONTAP 9.16.1); neither can be turned back, as ONTAP says."""
    if "granular_data" not in body and "granular_data_mode" not in body:
        return
    if volume.get("style") != "flexgroup":
        raise conflict("Granular data is supported only on FlexGroup volumes.", 917920, "granular_data")
    enabled, mode = volume.get("granular_data") is True, volume.get("granular_data_mode")
    wanted = body.get("granular_data", True if "granular_data_mode" in body else enabled)
    wanted_mode = body.get("granular_data_mode", mode or ("basic" if wanted else None))
    if wanted_mode is not None and wanted_mode not in GRANULAR_MODES:
        raise invalid_value("granular_data_mode", wanted_mode, "basic|advanced")
    if enabled and not wanted:
        raise conflict("Granular data cannot be disabled once it is enabled; restore from a snapshot taken before.", 917921,
                       "granular_data")
    if mode == "advanced" and wanted_mode == "basic":
        raise conflict("Advanced capacity balancing cannot be turned back to basic.", 917922, "granular_data_mode")
    version = context.state.cluster.get("version") or {}
    if wanted_mode == "advanced" and (version.get("generation", 9), version.get("major", 0)) < ADVANCED_GRANULAR_DATA:
        raise invalid_value("granular_data_mode", wanted_mode, "advanced needs ONTAP 9.16.1 or later on every node")
    if wanted:
        volume["granular_data"], volume["granular_data_mode"] = True, wanted_mode


def set_qos_policy(context: Context, volume: dict, ref: dict) -> None:
    """A volume's ``qos.policy`` (by name or uuid): a policy group of the volume's SVM; "none" clears it."""
    if ref.get("name") == "none":
        volume.pop("qos", None)
        return
    wanted = {key: ref[key] for key in ("name", "uuid") if ref.get(key)}
    if not wanted:
        raise missing("qos.policy.name")
    policy = context.state.first("qos_policies", **wanted, **{"svm.uuid": volume["svm"]["uuid"]})
    if policy is None:
        raise not_found(f'Policy group "{wanted.get("name") or wanted.get("uuid")}" does not exist in SVM "{volume["svm"]["name"]}".',
                        "qos.policy.name")
    volume["qos"] = {"policy": {"name": policy["name"], "uuid": policy["uuid"]}}


RESOURCES = [Aggregates(), Volumes(), SnapshotPolicies(), SnapshotPolicySchedules(), QosPolicies()]
