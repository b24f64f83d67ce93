"""SVMs, their NFS services, export policies and export rules.

Creating an SVM does what ONTAP does for it: a root volume (``<svm>_root``, junction ``/``,
export policy ``default``), the ``default`` export policy, the SVM's built-in service policies
and REST roles; ``nfs.enabled`` creates the NFS service, a ``cifs`` block a workgroup CIFS server
(one in an Active Directory domain fails the job: the lab has no domain controller). NFS settings
are checked the way ONTAP checks them: NFS must be allowed on the SVM, pNFS and trunking need
NFSv4.1, RDMA needs NFSv4.x, transfer sizes are 4 KiB multiples.
"""
from __future__ import annotations

import copy
import ipaddress
import re
from typing import Any

from ..api import Context, Response, client_readable, list_response, record_response, validated
from ..errors import JobError, OntapError, conflict, duplicate, invalid_value, missing, not_found
from ..state import new_uuid
from . import Collection, check_enum_list, named_ref, reference, require, svm_of, svm_ref

PROTOCOLS = ("nfs", "cifs", "iscsi", "fcp", "nvme", "ndmp", "s3")
SVM_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,46}$")
SECURITY_FLAVOURS = {"any", "none", "never", "krb5", "krb5i", "krb5p", "ntlm", "sys"}
RULE_PROTOCOLS = {"any", "nfs", "nfs3", "nfs4", "cifs", "flexcache"}
SVM_SERVICE_POLICIES = {
    "default-data-files": ["data_core", "data_nfs", "data_cifs", "data_flexcache"],
    "default-data-blocks": ["data_core", "data_iscsi"],
    "default-management": ["data_core", "management_https", "management_ssh"],
    "default-data-iscsi": ["data_core", "data_iscsi"],
    "default-data-nvme-tcp": ["data_core", "data_nvme_tcp"],
}
SVM_BUILTIN_ROLES = ("vsadmin", "vsadmin-volume", "vsadmin-protocol", "vsadmin-backup", "vsadmin-readonly")


def root_volume_name(svm_name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", svm_name) + "_root"


# ---------------------------------------------------------------------------- SVMs
class Svms(Collection):
    name = "svms"
    path = "svm/svms"
    asynchronous = True

    def in_scope(self, context: Context, record: dict) -> bool:
        return record["uuid"] == context.svm_scope

    def create(self, context: Context, body: dict) -> dict:
        if context.svm_scope:
            raise OntapError(403, 6, "SVM-scoped accounts cannot create SVMs.")
        require(body, "name")
        name = body["name"]
        if not SVM_NAME.match(name):
            raise invalid_value("name", name)
        cluster_names = {context.state.cluster.get("name")} | {node["name"] for node in context.state.records("nodes")}
        if context.state.first("svms", name=name) or name in cluster_names:
            raise duplicate(f'Duplicate SVM name "{name}": an SVM, node or cluster already has it.', 13434908, "name")
        ipspace = reference(context, "ipspaces", body.get("ipspace") or {"name": "Default"}, "IPspace", "ipspace.name")
        aggregates = self._aggregates(context, body.get("aggregates") or [])
        policy = reference(context, "snapshot_policies", body.get("snapshot_policy") or {"name": "default"},
                           "Snapshot policy", "snapshot_policy.name")
        svm: dict[str, Any] = {
            "uuid": new_uuid(), "name": name, "subtype": body.get("subtype", "default"), "state": "running",
            "language": body.get("language", "c.utf_8"), "comment": body.get("comment", ""),
            "ipspace": named_ref(ipspace, f"/api/network/ipspaces/{ipspace['uuid']}"),
            "snapshot_policy": named_ref(policy, f"/api/storage/snapshot-policies/{policy['uuid']}"),
            "aggregates": aggregates, "max_volumes": str(body.get("max_volumes", "unlimited")),
            "auto_enable_analytics": False, "auto_enable_activity_tracking": False,
        }
        for protocol in PROTOCOLS:
            settings = body.get(protocol) or {}
            enabled = bool(settings.get("enabled"))
            allowed = settings.get("allowed", protocol != "s3" or enabled)
            if enabled and not allowed:
                raise conflict(f"Cannot enable {protocol} on SVM \"{name}\" without allowing it.", 13434915, f"{protocol}.enabled")
            if enabled and protocol not in ("nfs", "cifs"):
                raise conflict(f"The lab endpoint does not emulate the {protocol} service; it can be allowed, not enabled.",
                               13434916, f"{protocol}.enabled")
            svm[protocol] = {"allowed": bool(allowed)}
            if protocol != "ndmp":
                svm[protocol]["enabled"] = False
        cifs = self._cifs_server(name, body.get("cifs") or {})
        context.state.put("svms", svm["uuid"], svm)
        self._provision(context, svm, aggregates)
        if (body.get("nfs") or {}).get("enabled"):
            # What POST /protocols/nfs/services would make, with ONTAP's defaults.
            context.state.put("nfs_services", svm["uuid"], nfs_defaults(svm))
            svm["nfs"]["enabled"] = True
        svm["cifs"].update(cifs)
        return svm

    @staticmethod
    def _cifs_server(svm_name: str, cifs: dict) -> dict:
        """The CIFS server an SVM's ``cifs`` block asks for: a workgroup server is made; one in an
        Active Directory domain fails as it would on a cluster that reaches no domain controller."""
        if not (cifs.get("enabled") or cifs.get("name") or cifs.get("ad_domain") or cifs.get("workgroup")):
            return {}
        server = str(cifs.get("name") or "")
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,14}", server):
            raise invalid_value("cifs.name", server, "a NetBIOS name of 1 to 15 characters")
        if cifs.get("ad_domain"):
            fqdn = (cifs["ad_domain"] or {}).get("fqdn", "")
            raise JobError(400, 655399, f'Failed to create the Active Directory machine account "{server.upper()}". Reason: '
                                        f'SecD Error: no server available. Details: no domain controller of "{fqdn}" is '
                                        f'reachable from SVM "{svm_name}" (the lab has no Active Directory).', "cifs.ad_domain")
        workgroup = str(cifs.get("workgroup") or "")
        if not workgroup:
            raise missing("cifs.workgroup")
        return {"enabled": cifs.get("enabled", True), "name": server.upper(), "workgroup": workgroup.upper(),
                "auth-style": "workgroup", "domain_workgroup": workgroup.upper()}

    @staticmethod
    def _aggregates(context: Context, refs: list) -> list[dict]:
        result = []
        for index, ref in enumerate(refs):
            aggregate = reference(context, "aggregates", ref, "Aggregate", f"aggregates[{index}].name")
            result.append(named_ref(aggregate, f"/api/storage/aggregates/{aggregate['uuid']}"))
        return result

    @staticmethod
    def _provision(context: Context, svm: dict, aggregates: list[dict]) -> None:
        """What ONTAP creates with every data SVM."""
        state = context.state
        policy_id = state.next_number("export_policy_id", start=12884901889)
        state.put("export_policies", str(policy_id),
                  {"id": policy_id, "name": "default", "svm": svm_ref(svm), "rules": []})
        # An AFX cluster has no aggregates: the root volume lives in the storage availability zone.
        pool = state.records("aggregates") or state.records("availability_zones")
        aggregate = aggregates[0] if aggregates else named_ref(pool[0], "")
        root_uuid = new_uuid()
        state.put("volumes", root_uuid, {
            "uuid": root_uuid, "name": root_volume_name(svm["name"]), "svm": svm_ref(svm), "style": "flexvol",
            "type": "rw", "state": "online", "is_svm_root": True, "size": 1073741824,
            "space": {"size": 1073741824, "snapshot": {"reserve_percent": 5}, "logical_space": {"enforcement": False, "reporting": False}},
            "aggregates": [{"name": aggregate["name"], "uuid": aggregate["uuid"]}],
            "nas": {"path": "/", "security_style": "unix", "unix_permissions": 755, "uid": 0, "gid": 1,
                    "export_policy": {"name": "default", "id": policy_id}},
            "guarantee": {"type": "volume"}, "snapshot_policy": {"name": "default"},
            "efficiency": {"compression": "none", "dedupe": "none", "policy": {"name": "-"}},
            "encryption": {"enabled": False}, "comment": "", "tiering": {"policy": "none"}, "snaplock": {"type": "non_snaplock"},
            "files": {"maximum": 31122}, "constituent_count": 0, "create_time": "2024-01-01T00:00:00+00:00",
        })
        ipspace_uuid = svm["ipspace"]["uuid"]
        for name, services in SVM_SERVICE_POLICIES.items():
            uuid = new_uuid()
            state.put("service_policies", uuid, {"uuid": uuid, "name": name, "scope": "svm", "svm": svm_ref(svm),
                                                 "ipspace": {"name": svm["ipspace"]["name"], "uuid": ipspace_uuid},
                                                 "services": services, "is_built_in": True})
        for role in SVM_BUILTIN_ROLES:
            key = f"{svm['uuid']}/{role}"
            state.put("roles", key, {"name": role, "owner": {"name": svm["name"], "uuid": svm["uuid"]},
                                     "scope": "svm", "builtin": True, "privileges": []})

    def modify(self, context: Context, record: dict, body: dict) -> None:
        if "name" in body and body["name"] != record["name"]:
            if context.state.first("svms", name=body["name"]):
                raise duplicate(f'Duplicate SVM name "{body["name"]}".', 13434908, "name")
            record["name"] = body["name"]
        if "aggregates" in body:
            record["aggregates"] = self._aggregates(context, body["aggregates"] or [])
        if "snapshot_policy" in body:
            policy = reference(context, "snapshot_policies", body["snapshot_policy"], "Snapshot policy", "snapshot_policy.name")
            record["snapshot_policy"] = named_ref(policy, f"/api/storage/snapshot-policies/{policy['uuid']}")
        for field in ("comment", "language", "state"):
            if field in body:
                record[field] = body[field]
        if "max_volumes" in body:
            record["max_volumes"] = str(body["max_volumes"])
        for protocol in PROTOCOLS:
            settings = body.get(protocol)
            if not isinstance(settings, dict):
                continue
            if "enabled" in settings:
                raise OntapError(400, 262196, f'Field "{protocol}.enabled" cannot be set in this operation; use the '
                                              "protocol's service API.", f"{protocol}.enabled")
            if "allowed" in settings:
                if not settings["allowed"] and record[protocol].get("enabled"):
                    raise conflict(f"Cannot disallow {protocol} on SVM \"{record['name']}\" while its service is enabled.",
                                   13434910, f"{protocol}.allowed")
                record[protocol]["allowed"] = bool(settings["allowed"])
        _refresh_svm_refs(context, record)

    def remove(self, context: Context, record: dict) -> None:
        state = context.state
        volumes = [v for v in state.find("volumes", **{"svm.uuid": record["uuid"]}) if not v.get("is_svm_root")]
        if volumes:
            raise conflict(f'SVM "{record["name"]}" still has volumes ({volumes[0]["name"]}); delete them first.', 13434911)
        if state.first("ip_interfaces", **{"svm.uuid": record["uuid"]}):
            raise conflict(f'SVM "{record["name"]}" still has LIFs; delete them first.', 13434912)
        for collection in ("volumes", "snapshots", "export_policies", "service_policies", "nfs_services", "roles", "accounts"):
            for key, item in list(state.collection(collection).items()):
                owner = item.get("svm") or item.get("owner") or {}
                if owner.get("uuid") == record["uuid"] or key == record["uuid"]:
                    state.remove(collection, key)
        state.remove("svms", record["uuid"])


def _refresh_svm_refs(context: Context, svm: dict) -> None:
    """Keep the SVM name inside references current after a rename."""
    for collection in ("volumes", "snapshots", "export_policies", "service_policies", "nfs_services", "ip_interfaces"):
        for item in context.state.records(collection):
            if (item.get("svm") or {}).get("uuid") == svm["uuid"]:
                item["svm"]["name"] = svm["name"]
            parent_svm = (item.get("clone") or {}).get("parent_svm") or {}
            if parent_svm.get("uuid") == svm["uuid"]:
                parent_svm["name"] = svm["name"]


# ---------------------------------------------------------------------------- NFS
def nfs_defaults(svm: dict) -> dict:
    return {
        "svm": svm_ref(svm), "enabled": True, "state": "online",
        "protocol": {
            "v3_enabled": True, "v40_enabled": False, "v41_enabled": False, "v42_enabled": False,
            "v4_id_domain": "defaultv4iddomain.com", "v3_64bit_identifiers_enabled": False,
            "v4_64bit_identifiers_enabled": True, "v4_lease_seconds": 30, "v4_grace_seconds": 45, "v4_fsid_change": True,
            "v3_features": {"mount_root_only": True, "ejukebox_enabled": True, "connection_drop": True,
                            "fsid_change": True, "hide_snapshot_enabled": False},
            "v40_features": {"acl_enabled": False, "read_delegation_enabled": False, "write_delegation_enabled": False,
                             "acl_preserve": True, "referrals_enabled": False},
            "v41_features": {"acl_enabled": False, "read_delegation_enabled": False, "write_delegation_enabled": False,
                             "pnfs_enabled": False, "trunking_enabled": False, "referrals_enabled": False,
                             "implementation_domain": "netapp.com", "implementation_name": "NetApp Release 9.14.1"},
            "v42_features": {"xattrs_enabled": False, "seclabel_enabled": False},
        },
        "transport": {"tcp_enabled": True, "udp_enabled": True, "tcp_max_transfer_size": 65536, "rdma_enabled": False},
        "vstorage_enabled": False, "showmount_enabled": True, "rquota_enabled": False,
        "root": {"ignore_nt_acl": False, "skip_write_permission_check": False},
        "security": {"chown_mode": "restricted", "nt_acl_display_permission": False, "ntfs_unix_security": "use_export_policy",
                     "permitted_encryption_types": ["des", "des3", "aes_128", "aes_256"], "rpcsec_context_idle": 0},
        "windows": {"map_unknown_uid_to_default_user": True, "v3_ms_dos_client_enabled": False},
    }


class NfsServices(Collection):
    name = "nfs_services"
    path = "protocols/nfs/services"
    key = "svm.uuid"
    keys = ("svm.uuid", "svm.name")

    def pattern(self) -> str:
        return r"protocols/nfs/services(?:/(?P<key>[^/]+))?"

    def href(self, record: dict) -> str:
        return f"/api/protocols/nfs/services/{record['svm']['uuid']}"

    def lookup(self, context: Context, key: str) -> dict:
        record = context.state.get("nfs_services", key)
        if record is None or (context.svm_scope and key != context.svm_scope):
            raise not_found(target="svm.uuid")
        return record

    def create(self, context: Context, body: dict) -> dict:
        svm = svm_of(context, body.get("svm"))
        if context.state.get("nfs_services", svm["uuid"]):
            raise duplicate(f'An NFS service already exists for SVM "{svm["name"]}".', 3276916, "svm")
        if not svm["nfs"]["allowed"]:
            raise conflict(f'NFS is not allowed on SVM "{svm["name"]}"; allow it on the SVM first.', 3276917, "svm")
        record = nfs_defaults(svm)
        _apply_nfs(record, body)
        svm["nfs"]["enabled"] = record["enabled"]
        return context.state.put("nfs_services", svm["uuid"], record)

    def modify(self, context: Context, record: dict, body: dict) -> None:
        body = {key: value for key, value in body.items() if key != "svm"}
        candidate = copy.deepcopy(record)
        _apply_nfs(candidate, body)
        record.clear()
        record.update(candidate)
        svm = context.state.get("svms", record["svm"]["uuid"])
        if svm:
            svm["nfs"]["enabled"] = record["enabled"]

    def remove(self, context: Context, record: dict) -> None:
        svm = context.state.get("svms", record["svm"]["uuid"])
        if svm:
            svm["nfs"]["enabled"] = False
        context.state.remove("nfs_services", record["svm"]["uuid"])


def _deep_update(target: dict, changes: dict) -> None:
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _deep_update(target[key], value)
        else:
            target[key] = value


def _apply_nfs(record: dict, body: dict) -> None:
    changes = {key: value for key, value in body.items() if key != "svm"}
    _deep_update(record, changes)
    protocol, transport = record["protocol"], record["transport"]
    v41 = protocol.get("v41_enabled")
    if protocol["v41_features"].get("pnfs_enabled") and not v41:
        raise conflict("pNFS requires NFSv4.1 to be enabled.", 3276970, "protocol.v41_features.pnfs_enabled")
    if protocol["v41_features"].get("trunking_enabled") and not v41:
        raise conflict("NFSv4.1 trunking requires NFSv4.1 to be enabled.", 3276971, "protocol.v41_features.trunking_enabled")
    if transport.get("rdma_enabled") and not (v41 or protocol.get("v40_enabled")):
        raise conflict("NFS over RDMA requires NFSv4.0 or NFSv4.1 to be enabled.", 3276972, "transport.rdma_enabled")
    size = transport.get("tcp_max_transfer_size")
    if not isinstance(size, int) or size % 4096 or not 8192 <= size <= 1048576:
        raise invalid_value("transport.tcp_max_transfer_size", size, "8192..1048576, a multiple of 4096")


# ---------------------------------------------------------------------------- export policies and rules
class ExportPolicies(Collection):
    name = "export_policies"
    path = "protocols/nfs/export-policies"
    key = "id"
    keys = ("id", "name", "svm.name", "svm.uuid")

    def href(self, record: dict) -> str:
        return f"/api/protocols/nfs/export-policies/{record['id']}"

    def create(self, context: Context, body: dict) -> dict:
        require(body, "name")
        svm = svm_of(context, body.get("svm"))
        if context.state.first("export_policies", name=body["name"], **{"svm.uuid": svm["uuid"]}):
            raise duplicate(f'Export policy "{body["name"]}" already exists in SVM "{svm["name"]}".', 1703954, "name")
        policy_id = context.state.next_number("export_policy_id", start=12884901889)
        record = {"id": policy_id, "name": body["name"], "svm": svm_ref(svm), "rules": []}
        for rule in body.get("rules") or []:
            record["rules"].append(_new_rule(record, rule))
        return context.state.put("export_policies", str(policy_id), record)

    def modify(self, context: Context, record: dict, body: dict) -> None:
        if "name" in body and body["name"] != record["name"]:
            if record["name"] == "default":
                raise conflict('The "default" export policy cannot be renamed.', 1703955, "name")
            if context.state.first("export_policies", name=body["name"], **{"svm.uuid": record["svm"]["uuid"]}):
                raise duplicate(f'Export policy "{body["name"]}" already exists.', 1703954, "name")
            old = record["name"]
            record["name"] = body["name"]
            for volume in context.state.find("volumes", **{"svm.uuid": record["svm"]["uuid"]}):
                if (volume.get("nas", {}).get("export_policy") or {}).get("name") == old:
                    volume["nas"]["export_policy"]["name"] = body["name"]
        if "rules" in body:
            record["rules"] = []
            for rule in body["rules"] or []:
                record["rules"].append(_new_rule(record, rule))

    def remove(self, context: Context, record: dict) -> None:
        if record["name"] == "default":
            raise conflict('The "default" export policy cannot be deleted.', 1703956)
        for volume in context.state.find("volumes", **{"svm.uuid": record["svm"]["uuid"]}):
            if (volume.get("nas", {}).get("export_policy") or {}).get("name") == record["name"]:
                raise conflict(f'Export policy "{record["name"]}" is in use by volume "{volume["name"]}".', 1703957)
        context.state.remove("export_policies", str(record["id"]))


def _check_client(match: str) -> None:
    text = str(match).strip()
    if not text:
        raise invalid_value("clients.match", match)
    if text[0].isdigit() and "/" in text:
        try:
            ipaddress.ip_network(text, strict=False)
        except ValueError as error:
            raise invalid_value("clients.match", match) from error
    elif text[0].isdigit() and text.replace(".", "").isdigit():
        try:
            ipaddress.ip_address(text)
        except ValueError as error:
            raise invalid_value("clients.match", match) from error


def _new_rule(policy: dict, body: dict, index: int | None = None) -> dict:
    clients = body.get("clients") or []
    if not clients:
        raise missing("clients")
    for client in clients:
        _check_client((client or {}).get("match", ""))
    for field in ("ro_rule", "rw_rule", "superuser"):
        check_enum_list(body.get(field), SECURITY_FLAVOURS, field)
    check_enum_list(body.get("protocols"), RULE_PROTOCOLS, "protocols")
    if not body.get("ro_rule"):
        raise missing("ro_rule")
    used = [rule["index"] for rule in policy.get("rules", [])]
    return {
        "index": index or body.get("index") or (max(used) + 1 if used else 1),
        "clients": [{"match": client["match"]} for client in clients],
        "protocols": list(body.get("protocols") or ["any"]),
        "ro_rule": list(body["ro_rule"]),
        "rw_rule": list(body.get("rw_rule") or ["none"]),
        "superuser": list(body.get("superuser") or ["none"]),
        "anonymous_user": str(body.get("anonymous_user", "65534")),
        "allow_suid": body.get("allow_suid", True),
        "allow_device_creation": body.get("allow_device_creation", True),
        "chown_mode": body.get("chown_mode", "restricted"),
        "ntfs_unix_security": body.get("ntfs_unix_security", "fail"),
    }


def _render_rule(policy: dict, rule: dict) -> dict:
    rendered = copy.deepcopy(rule)
    rendered["policy"] = {"id": policy["id"], "name": policy["name"]}
    rendered["svm"] = {"name": policy["svm"]["name"], "uuid": policy["svm"]["uuid"]}
    rendered["_links"] = {"self": {"href": f"/api/protocols/nfs/export-policies/{policy['id']}/rules/{rule['index']}"}}
    return rendered


class ExportRules(Collection):
    """``/api/protocols/nfs/export-policies/{policy.id}/rules[/{index}]``; rules live in their policy."""

    name = "export_rules"
    path = "protocols/nfs/export-policies/{id}/rules"
    key = "index"
    keys = ("index",)

    def pattern(self) -> str:
        return r"protocols/nfs/export-policies/(?P<policy>[^/]+)/rules(?:/(?P<key>[^/]+))?"

    def _policy(self, context: Context, groups: dict[str, str]) -> dict:
        policy = context.state.get("export_policies", groups["policy"])
        if policy is None or (context.svm_scope and policy["svm"]["uuid"] != context.svm_scope):
            raise not_found(target="policy.id")
        return policy

    def serve(self, context: Context, groups: dict[str, str]) -> Response:
        policy = self._policy(context, groups)
        key = groups.get("key")
        if key is None:
            if context.method == "GET":
                records = [_render_rule(policy, rule) for rule in policy["rules"]]
                return list_response(context, self.name, records, self.keys)
            if context.method == "POST":
                body = validated(context, self.name)
                if body.get("index") and any(rule["index"] == body["index"] for rule in policy["rules"]):
                    for rule in policy["rules"]:
                        if rule["index"] >= body["index"]:
                            rule["index"] += 1
                rule = _new_rule(policy, body)
                policy["rules"].append(rule)
                policy["rules"].sort(key=lambda item: item["index"])
                headers = {"Location": f"/api/protocols/nfs/export-policies/{policy['id']}/rules/{rule['index']}"}
                if context.flag("return_records"):
                    return Response(201, {"num_records": 1, "records": [client_readable(self.name, _render_rule(policy, rule))]},
                                    headers)
                return Response(201, {}, headers)
            raise OntapError(405, 3, f"The {context.method} method is not supported here.")
        rule = next((rule for rule in policy["rules"] if str(rule["index"]) == key), None)
        if rule is None:
            raise not_found(target="index")
        if context.method == "GET":
            return record_response(context, self.name, _render_rule(policy, rule), self.keys)
        if context.method == "PATCH":
            body = validated(context, self.name)
            merged = {**rule, **body}
            updated = _new_rule(policy, merged, index=rule["index"])
            new_index = context.param("new_index")
            if new_index:
                target = int(new_index)
                for other in policy["rules"]:
                    if other is not rule and other["index"] >= target:
                        other["index"] += 1
                updated["index"] = target
            rule.clear()
            rule.update(updated)
            policy["rules"].sort(key=lambda item: item["index"])
            return Response(200, {})
        if context.method == "DELETE":
            policy["rules"].remove(rule)
            return Response(200, {})
        raise OntapError(405, 3, f"The {context.method} method is not supported here.")


RESOURCES = [Svms(), NfsServices(), ExportPolicies(), ExportRules()]
