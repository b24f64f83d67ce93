"""REST roles (with their privileges) and login accounts.

Accounts authenticate against salted hashes kept in the state; ONTAP's password rules apply
(at least 8 characters with a letter and a digit; none of the last 6 passwords again). Roles are
enforced by ``Api.authorise``: the longest privilege path covering a request decides its access.
"""
from __future__ import annotations

import re
import urllib.parse

from ..api import Context, Response, account_key, list_response, record_response, validated
from ..errors import OntapError, conflict, duplicate, invalid_value, missing, not_found
from . import Collection, check_enum_list, svm_of

API_AREAS = ("application", "cluster", "cloud", "name-services", "network", "protocols", "resource-tags",
             "security", "snapmirror", "storage", "support", "svm", "private/cli", "private/support")
ACCESS_LEVELS = {"none", "readonly", "read_create", "read_modify", "read_create_modify", "all"}
APPLICATIONS = {"amqp", "console", "http", "ontapi", "service_processor", "ssh"}
AUTH_METHODS = {"cert", "domain", "nsswitch", "password", "publickey", "saml", "totp"}


def check_api_path(path: str) -> None:
    text = str(path)
    if text == "DEFAULT":
        return
    if not text.startswith("/api/") or not any(text[5:] == area or text[5:].startswith(area + "/") for area in API_AREAS):
        raise OntapError(400, 5636169, f'Invalid REST API path "{text}".', "privileges.path")


def _owner(context: Context, body: dict) -> tuple[dict, str]:
    """(owner reference, scope) of a role or account: an SVM, or the cluster."""
    owner = body.get("owner")
    if owner:
        svm = svm_of(context, owner, "owner")
        return {"name": svm["name"], "uuid": svm["uuid"]}, "svm"
    if context.svm_scope:
        svm = context.state.get("svms", context.svm_scope)
        return {"name": svm["name"], "uuid": svm["uuid"]}, "svm"
    cluster = context.state.cluster
    return {"name": cluster["name"], "uuid": cluster["uuid"]}, "cluster"


class Roles(Collection):
    name = "roles"
    path = "security/roles"
    keys = ("owner.uuid", "owner.name", "name")

    def pattern(self) -> str:
        return r"security/roles(?:/(?P<owner>[^/]+)/(?P<key>[^/]+))?"

    def href(self, record: dict) -> str:
        return f"/api/security/roles/{record['owner']['uuid']}/{urllib.parse.quote(record['name'])}"

    def in_scope(self, context: Context, record: dict) -> bool:
        return record["owner"]["uuid"] == context.svm_scope

    def serve(self, context: Context, groups: dict[str, str]) -> Response:
        if groups.get("owner"):
            groups = {"key": f"{groups['owner']}/{urllib.parse.unquote(groups['key'])}"}
        return super().serve(context, groups)

    def compute(self, context: Context, record: dict) -> None:
        for privilege in record.get("privileges", []):
            privilege["_links"] = {"self": {"href": self.href(record) + "/privileges/" + urllib.parse.quote(privilege["path"], safe="")}}

    def create(self, context: Context, body: dict) -> dict:
        require_name(body)
        owner, scope = _owner(context, body)
        key = f"{owner['uuid']}/{body['name']}"
        if context.state.get("roles", key):
            raise duplicate(f'Role "{body["name"]}" already exists for "{owner["name"]}".', 5636129, "name")
        privileges = body.get("privileges") or []
        if not privileges:
            raise missing("privileges")
        record = {"name": body["name"], "owner": owner, "scope": scope, "builtin": False,
                  "privileges": [_privilege(entry) for entry in privileges]}
        return context.state.put("roles", key, record)

    def modify(self, context: Context, record: dict, body: dict) -> None:
        if record.get("builtin"):
            raise conflict(f'Built-in role "{record["name"]}" cannot be modified.', 5636130)
        if "privileges" in body:
            record["privileges"] = [_privilege(entry) for entry in body["privileges"] or []]

    def remove(self, context: Context, record: dict) -> None:
        if record.get("builtin"):
            raise conflict(f'Built-in role "{record["name"]}" cannot be deleted.', 5636131)
        for account in context.state.find("accounts", **{"owner.uuid": record["owner"]["uuid"]}):
            if account["role"]["name"] == record["name"]:
                raise conflict(f'Role "{record["name"]}" is assigned to account "{account["name"]}".', 5636132)
        context.state.remove("roles", f"{record['owner']['uuid']}/{record['name']}")


def require_name(body: dict) -> None:
    if not body.get("name"):
        raise missing("name")
    if not re.match(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$", body["name"]):
        raise invalid_value("name", body["name"])


def _privilege(entry: dict) -> dict:
    if not entry.get("path"):
        raise missing("privileges.path")
    check_api_path(entry["path"])
    access = entry.get("access", "all")
    check_enum_list([access], ACCESS_LEVELS, "privileges.access")
    result = {"path": entry["path"], "access": access}
    if entry.get("query"):
        result["query"] = entry["query"]
    return result


class RolePrivileges(Collection):
    """``/api/security/roles/{owner.uuid}/{name}/privileges[/{path}]``."""

    name = "role_privileges"
    path = "security/roles/{owner.uuid}/{name}/privileges"
    keys = ("path", "access")

    def pattern(self) -> str:
        return r"security/roles/(?P<owner>[^/]+)/(?P<role>[^/]+)/privileges(?:/(?P<key>[^/]+))?"

    def serve(self, context: Context, groups: dict[str, str]) -> Response:
        role = context.state.get("roles", f"{groups['owner']}/{urllib.parse.unquote(groups['role'])}")
        if role is None or (context.svm_scope and role["owner"]["uuid"] != context.svm_scope):
            raise not_found(target="name")
        base = Roles().href(role) + "/privileges/"

        def render(entry: dict) -> dict:
            return {**entry, "_links": {"self": {"href": base + urllib.parse.quote(entry["path"], safe="")}}}

        key = groups.get("key")
        if key is None and context.method == "GET":
            return list_response(context, self.name, [render(entry) for entry in role["privileges"]], self.keys)
        if role.get("builtin") and context.method != "GET":
            raise conflict(f'Built-in role "{role["name"]}" cannot be modified.', 5636130)
        if key is None and context.method == "POST":
            entry = _privilege(validated(context, self.name))
            if any(existing["path"] == entry["path"] for existing in role["privileges"]):
                raise duplicate(f'Role "{role["name"]}" already has a privilege for "{entry["path"]}".', 5636133, "path")
            role["privileges"].append(entry)
            return Response(201, {})
        path = urllib.parse.unquote(key or "")
        entry = next((item for item in role["privileges"] if item["path"] == path), None)
        if entry is None:
            raise not_found(target="path")
        if context.method == "GET":
            return record_response(context, self.name, render(entry), self.keys)
        if context.method == "PATCH":
            body = validated(context, self.name)
            if "access" in body:
                check_enum_list([body["access"]], ACCESS_LEVELS, "access")
                entry["access"] = body["access"]
            if "query" in body:
                entry["query"] = body["query"]
            return Response(200, {})
        if context.method == "DELETE":
            role["privileges"].remove(entry)
            return Response(200, {})
        raise OntapError(405, 3, f"The {context.method} method is not supported here.")


def check_password(password: object) -> str:
    if not isinstance(password, str) or len(password) < 8:
        raise OntapError(400, 7077897, "The password must be at least 8 characters long.", "password")
    if not re.search(r"[A-Za-z]", password) or not re.search(r"[0-9]", password):
        raise OntapError(400, 7077898, "The password must contain at least one letter and one digit.", "password")
    return password


class Accounts(Collection):
    name = "accounts"
    path = "security/accounts"
    keys = ("owner.uuid", "owner.name", "name")

    def pattern(self) -> str:
        return r"security/accounts(?:/(?P<owner>[^/]+)/(?P<key>[^/]+))?"

    def href(self, record: dict) -> str:
        return f"/api/security/accounts/{record['owner']['uuid']}/{urllib.parse.quote(record['name'])}"

    def in_scope(self, context: Context, record: dict) -> bool:
        return record["owner"]["uuid"] == context.svm_scope

    def serve(self, context: Context, groups: dict[str, str]) -> Response:
        if groups.get("owner"):
            groups = {"key": f"{groups['owner']}/{urllib.parse.unquote(groups['key'])}"}
        return super().serve(context, groups)

    def _role(self, context: Context, owner: dict, scope: str, name: str | None) -> dict:
        if not name:
            raise missing("role.name")
        role = context.state.get("roles", f"{owner['uuid']}/{name}")
        if role is None and scope == "cluster":
            role = context.state.first("roles", name=name, scope="cluster")
        if role is None:
            raise OntapError(404, 5636201, f'Role "{name}" does not exist for "{owner["name"]}".', "role.name")
        return role

    @staticmethod
    def _applications(entries: list, scope: str) -> list[dict]:
        if not entries:
            raise missing("applications")
        result = []
        for entry in entries:
            application = entry.get("application")
            check_enum_list([application], APPLICATIONS, "applications.application")
            if scope == "svm" and application in ("console", "service_processor"):
                raise invalid_value("applications.application", application, "not for an SVM account")
            methods = entry.get("authentication_methods") or []
            check_enum_list(methods, AUTH_METHODS, "applications.authentication_methods")
            result.append({"application": application, "authentication_methods": list(methods),
                           "second_authentication_method": entry.get("second_authentication_method") or "none",
                           "is_ldap_fastbind": False, "is_ns_switch_group": False})
        return result

    def create(self, context: Context, body: dict) -> dict:
        require_name(body)
        owner, scope = _owner(context, body)
        key = f"{owner['uuid']}/{body['name']}"
        if context.state.get("accounts", key):
            raise duplicate(f'Account "{body["name"]}" already exists for "{owner["name"]}".', 5636202, "name")
        role = self._role(context, owner, scope, (body.get("role") or {}).get("name"))
        applications = self._applications(body.get("applications") or [], scope)
        uses_password = any("password" in app["authentication_methods"] for app in applications)
        if uses_password and not body.get("password"):
            raise missing("password")
        record = {"name": body["name"], "owner": owner, "scope": scope, "role": {"name": role["name"]},
                  "applications": applications, "locked": bool(body.get("locked", False)),
                  "comment": body.get("comment", ""), "password_hash_algorithm": "sha512"}
        if body.get("password"):
            context.state.set_password(key, check_password(body["password"]))
        return context.state.put("accounts", key, record)

    def modify(self, context: Context, record: dict, body: dict) -> None:
        key = account_key(record)
        if "password" in body:
            password = check_password(body["password"])
            if context.state.password_was_used(key, password):
                raise OntapError(400, 7077918, "New password must be different than last 6 passwords.", "password")
            context.state.set_password(key, password)
        if "role" in body:
            role = self._role(context, record["owner"], record["scope"], (body["role"] or {}).get("name"))
            record["role"] = {"name": role["name"]}
        if "applications" in body:
            record["applications"] = self._applications(body["applications"] or [], record["scope"])
        for field in ("locked", "comment"):
            if field in body:
                record[field] = body[field]

    def remove(self, context: Context, record: dict) -> None:
        if record["name"] == "admin" and record["scope"] == "cluster":
            raise conflict('The cluster "admin" account cannot be deleted.', 5636203)
        key = account_key(record)
        context.state.remove("accounts", key)
        context.state.forget_password(key)


RESOURCES = [Roles(), RolePrivileges(), Accounts()]
