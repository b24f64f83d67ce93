"""Request bodies checked against NetApp's own ``netapp_ontap`` schemas, the way ONTAP checks them,
and response records checked against the same schemas, the way NetApp's client reads them.

Clients (the netapp.ontap modules among them) send ONTAP's accepted shorthands: dotted keys
(``"svm.name": "vs1"``) and a bare name where an object is expected (``"ipspace": "Default"``,
``"service_policy": "default-data-files"``). The marshmallow schemas accept neither, so a body is
first un-flattened and normalised, then checked in three steps, each answered as ONTAP answers:

1. every key must be a field of the resource (``Unexpected argument``, code 262179) -- the
   library's nested schemas silently drop unknown keys, so this walk is ours;
2. every field must be settable by this method (``postable_fields``/``patchable_fields``:
   ``Field ... cannot be set in this operation``, code 262196);
3. the schema's own validation: types, enums, ranges (``invalid value``, code 262197).
"""
from __future__ import annotations

import functools
import importlib
import json
from typing import Any

import marshmallow
from marshmallow import fields as mfields

from .errors import OntapError, cannot_set, invalid_value, unexpected_argument

# API collection -> (module, schema class) in the netapp_ontap package.
SCHEMAS = {
    "cluster": ("resources.cluster", "ClusterSchema"),
    "nodes": ("resources.node", "NodeSchema"),
    "jobs": ("resources.job", "JobSchema"),
    "schedules": ("resources.schedule", "ScheduleSchema"),
    "aggregates": ("resources.aggregate", "AggregateSchema"),
    "ports": ("resources.port", "PortSchema"),
    "broadcast_domains": ("resources.broadcast_domain", "BroadcastDomainSchema"),
    "ipspaces": ("resources.ipspace", "IpspaceSchema"),
    "ip_interfaces": ("resources.ip_interface", "IpInterfaceSchema"),
    "service_policies": ("resources.ip_service_policy", "IpServicePolicySchema"),
    "svms": ("resources.svm", "SvmSchema"),
    "nfs_services": ("resources.nfs_service", "NfsServiceSchema"),
    "export_policies": ("resources.export_policy", "ExportPolicySchema"),
    "export_rules": ("resources.export_rule", "ExportRuleSchema"),
    "volumes": ("resources.volume", "VolumeSchema"),
    "snapshots": ("resources.snapshot", "SnapshotSchema"),
    "snapshot_policies": ("resources.snapshot_policy", "SnapshotPolicySchema"),
    "snapshot_policy_schedules": ("resources.snapshot_policy_schedule", "SnapshotPolicyScheduleSchema"),
    "qos_policies": ("resources.qos_policy", "QosPolicySchema"),
    "roles": ("resources.role", "RoleSchema"),
    "role_privileges": ("resources.role_privilege", "RolePrivilegeSchema"),
    "accounts": ("resources.account", "AccountSchema"),
    "cluster_peers": ("resources.cluster_peer", "ClusterPeerSchema"),
    "svm_peers": ("resources.svm_peer", "SvmPeerSchema"),
    "snapmirror_policies": ("resources.snapmirror_policy", "SnapmirrorPolicySchema"),
    "snapmirror_relationships": ("resources.snapmirror_relationship", "SnapmirrorRelationshipSchema"),
    "snapmirror_transfers": ("resources.snapmirror_transfer", "SnapmirrorTransferSchema"),
    "flexcaches": ("resources.flexcache", "FlexcacheSchema"),
    "flexcache_origins": ("resources.flexcache_origin", "FlexcacheOriginSchema"),
}


@functools.cache
def schema_for(collection: str) -> marshmallow.Schema:
    module_name, class_name = SCHEMAS[collection]
    module = importlib.import_module(f"netapp_ontap.{module_name}")
    return getattr(module, class_name)()


# ---------------------------------------------------------------------------- shape
def unflatten(body: dict[str, Any]) -> dict[str, Any]:
    """``{"svm.name": "a", "nas": {"path": "/x"}}`` -> ``{"svm": {"name": "a"}, "nas": {"path": "/x"}}``."""
    result: dict[str, Any] = {}
    for key, value in body.items():
        if isinstance(value, dict):
            value = unflatten(value)
        elif isinstance(value, list):
            value = [unflatten(item) if isinstance(item, dict) else item for item in value]
        parts = str(key).split(".")
        target = result
        for part in parts[:-1]:
            existing = target.get(part)
            if not isinstance(existing, dict):
                existing = {}
                target[part] = existing
            target = existing
        last = parts[-1]
        if isinstance(value, dict) and isinstance(target.get(last), dict):
            target[last] = _merge(target[last], value)
        else:
            target[last] = value
    return result


def _merge(left: dict, right: dict) -> dict:
    merged = dict(left)
    for key, value in right.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _field_by_key(schema: marshmallow.Schema) -> dict[str, mfields.Field]:
    return {(field.data_key or name): field for name, field in schema.fields.items()}


def _nested(field: mfields.Field) -> tuple[marshmallow.Schema | None, bool]:
    """(nested schema, is a list) of a field, or (None, is a list)."""
    is_list = isinstance(field, mfields.List)
    inner = field.inner if is_list else field
    if isinstance(inner, mfields.Nested):
        return inner.schema, is_list
    return None, is_list


def normalise(schema: marshmallow.Schema, data: Any) -> Any:
    """Turn ONTAP's name shorthands into objects, recursively: ``"Default"`` -> ``{"name": "Default"}``."""
    if not isinstance(data, dict):
        return data
    fields = _field_by_key(schema)
    result = {}
    for key, value in data.items():
        field = fields.get(key)
        nested, is_list = _nested(field) if field is not None else (None, False)
        if nested is not None:
            named = "name" in _field_by_key(nested)
            if is_list and isinstance(value, list):
                value = [{"name": item} if isinstance(item, str) and named else normalise(nested, item) for item in value]
            elif isinstance(value, str) and named:
                value = {"name": value}
            else:
                value = normalise(nested, value)
        result[key] = value
    return result


# ---------------------------------------------------------------------------- checks
def unknown_key(schema: marshmallow.Schema, data: Any, prefix: str = "") -> str | None:
    """The dotted path of the first key that is no field of the schema (recursively), or None."""
    if not isinstance(data, dict):
        return None
    fields = _field_by_key(schema)
    for key, value in data.items():
        path = f"{prefix}{key}"
        field = fields.get(key)
        if field is None:
            return path
        nested, is_list = _nested(field)
        if nested is None:
            continue
        for item in (value if is_list and isinstance(value, list) else [value]):
            found = unknown_key(nested, item, path + ".")
            if found:
                return found
    return None


def check_known(schema: marshmallow.Schema, data: Any) -> None:
    """Every key must be a field of the schema (recursively)."""
    path = unknown_key(schema, data)
    if path:
        raise unexpected_argument(path)


def _is_model(schema: marshmallow.Schema) -> bool:
    return type(schema).__module__.startswith("netapp_ontap.models.")


def check_settable(schema: marshmallow.Schema, data: dict, method: str, prefix: str = "") -> None:
    """Every key must be settable by POST or PATCH, as the schema's postable/patchable_fields say."""
    allowed = list(schema.postable_fields if method == "POST" else schema.patchable_fields)
    fields = _field_by_key(schema)
    for key, value in data.items():
        path = f"{prefix}{key}"
        field = fields.get(key)
        nested, is_list = _nested(field) if field is not None else (None, False)
        if key in allowed:
            # A whole sub-object is settable; a nested *model* still lists its own settable fields.
            if nested is not None and _is_model(nested) and (nested.postable_fields or nested.patchable_fields):
                for item in (value if is_list and isinstance(value, list) else [value]):
                    if isinstance(item, dict):
                        check_settable(nested, item, method, path + ".")
            continue
        deeper = [entry[len(key) + 1:] for entry in allowed if entry.startswith(key + ".")]
        if not deeper or nested is None:
            raise cannot_set(path)
        for item in (value if is_list and isinstance(value, list) else [value]):
            if not isinstance(item, dict):
                raise invalid_value(path, item)
            for sub_key in item:
                if sub_key not in {entry.split(".")[0] for entry in deeper}:
                    raise cannot_set(f"{path}.{sub_key}")


def _first_error(errors: Any, prefix: str = "") -> tuple[str, str]:
    if isinstance(errors, dict):
        for key, value in errors.items():
            name = prefix if key in ("_schema",) or isinstance(key, int) else (f"{prefix}.{key}" if prefix else str(key))
            return _first_error(value, name)
    if isinstance(errors, list) and errors:
        return _first_error(errors[0], prefix)
    return prefix, str(errors)


def coerce(schema: marshmallow.Schema, data: Any) -> Any:
    """Values as ONTAP stores them: ``"true"`` -> True, ``"9000"`` -> 9000, ``"1TB"`` -> bytes (as the schema reads them)."""
    if not isinstance(data, dict):
        return data
    fields = _field_by_key(schema)
    result = {}
    for key, value in data.items():
        field = fields.get(key)
        nested, is_list = _nested(field) if field is not None else (None, False)
        if field is None or value is None:
            result[key] = value
        elif nested is not None:
            result[key] = [coerce(nested, item) for item in value] if is_list and isinstance(value, list) else coerce(nested, value)
        elif is_list and isinstance(value, list):
            result[key] = [_scalar(field.inner, item) for item in value]
        else:
            result[key] = _scalar(field, value)
    return result


def _scalar(field: mfields.Field, value: Any) -> Any:
    if isinstance(field, (mfields.Boolean, mfields.Integer, mfields.Float)) or type(field).__name__ == "Size":
        try:
            return field.deserialize(value)
        except marshmallow.ValidationError:
            return value
    return value


def validate_body(collection: str, body: Any, method: str) -> dict[str, Any]:
    """The normalised body of a POST or PATCH, or an OntapError as ONTAP would reject it."""
    if body is None:
        body = {}
    if not isinstance(body, dict):
        raise OntapError(400, 262185, "The request body must be a JSON object.")
    schema = schema_for(collection)
    data = normalise(schema, unflatten(body))
    check_known(schema, data)
    check_settable(schema, data, method)
    errors = schema.validate(data)
    if errors:
        field, message = _first_error(errors)
        raise OntapError(400, 262197, f'Invalid value for field "{field}": {message}', field)
    return coerce(schema, data)


def response_problem(collection: str, record: dict[str, Any]) -> str | None:
    """Why NetApp's client would refuse this response record, or None when it takes it.

    The client reads every record with ``Resource.from_dict``: the schema's ``load`` with unknown
    top-level keys let through, so a wrong type, enum or range fails there (``constituent_count: 0``
    on a FlexVol does). Unknown keys fail nowhere in the client; they are refused here all the same,
    as in requests, because they mean the endpoint invents fields ONTAP does not have.
    """
    # Most GETs answer records unchanged since the last one; checking each version once keeps polling cheap.
    return _response_problem(collection, json.dumps(record, sort_keys=True))


@functools.lru_cache(maxsize=4096)
def _response_problem(collection: str, serialised: str) -> str | None:
    record = json.loads(serialised)
    schema = schema_for(collection)
    try:
        schema.load(record, unknown=marshmallow.INCLUDE)
    except marshmallow.ValidationError as error:
        field, message = _first_error(error.messages)
        return f'field "{field}": {message}'
    path = unknown_key(schema, record)
    return f'field "{path}" is no field of the {collection} schema' if path else None


def gettable_roots(collection: str) -> set[str]:
    """Top-level field names a GET may select or filter on."""
    return set(_field_by_key(schema_for(collection)))
