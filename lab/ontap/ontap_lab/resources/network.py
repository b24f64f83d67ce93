"""Ethernet ports (physical, VLAN, LAG), broadcast domains, IPspaces, IP interfaces, service policies.

Cluster behaviour kept faithful where the roles depend on it:

* a port takes its broadcast domain's MTU, and a domain's MTU change reaches all its ports;
* a LAG is named by ONTAP (a0a, a0b, ... per node) and takes its member ports out of their domains;
* a VLAN is ``<base>-<tag>``, on a physical port or LAG that is not a LAG member;
* a LIF's home port must exist, not be a LAG member, and be in a broadcast domain of the LIF's
  IPspace; the LIF's domain is its home port's; names are unique per SVM, addresses per IPspace;
* RoCE (``rdma_protocols``) only on ports whose hardware offers it, never through a LAG.
"""
from __future__ import annotations

import ipaddress
import string
from typing import Any

from ..api import Context, Response
from ..errors import OntapError, conflict, duplicate, invalid_value, missing, not_found
from ..state import new_uuid
from . import Collection, check_enum_list, named_ref, reference, require, svm_of, svm_ref

LAG_MODES = {"multimode_lacp", "multimode", "singlemode"}
LAG_DISTRIBUTION = {"port", "ip", "mac", "sequential"}


def port_href(port: dict) -> str:
    return f"/api/network/ethernet/ports/{port['uuid']}"


def port_ref(port: dict) -> dict:
    return {"name": port["name"], "uuid": port["uuid"], "node": {"name": port["node"]["name"]},
            "_links": {"self": {"href": port_href(port)}}}


def domain_ref(domain: dict) -> dict:
    return {"name": domain["name"], "uuid": domain["uuid"], "ipspace": {"name": domain["ipspace"]["name"]},
            "_links": {"self": {"href": f"/api/network/ethernet/broadcast-domains/{domain['uuid']}"}}}


def find_port(context: Context, ref: Any, node_name: str | None, field: str) -> dict:
    if not isinstance(ref, dict):
        raise missing(field)
    if ref.get("uuid"):
        port = context.state.get("ports", ref["uuid"])
    else:
        node = (ref.get("node") or {}).get("name") or node_name
        port = context.state.first("ports", name=ref.get("name"), **{"node.name": node})
    if port is None:
        label = ref.get("name") or ref.get("uuid")
        raise OntapError(404, 2, f'Port "{label}" does not exist on node "{node_name}".', field)
    return port


def find_domain(context: Context, ref: Any, ipspace_default: str, field: str) -> dict:
    if not isinstance(ref, dict):
        raise missing(field)
    if ref.get("uuid"):
        domain = context.state.get("broadcast_domains", ref["uuid"])
    else:
        ipspace = (ref.get("ipspace") or {}).get("name") or ipspace_default
        domain = context.state.first("broadcast_domains", name=ref.get("name"), **{"ipspace.name": ipspace})
    if domain is None:
        raise OntapError(404, 1967102, f'Broadcast domain "{ref.get("name") or ref.get("uuid")}" does not exist.', field)
    return domain


def lifs_on_port(context: Context, port: dict) -> list[dict]:
    return [lif for lif in context.state.records("ip_interfaces")
            if (lif.get("location", {}).get("home_port") or {}).get("uuid") == port["uuid"]
            or (lif.get("location", {}).get("port") or {}).get("uuid") == port["uuid"]]


def lag_of(context: Context, port: dict) -> dict | None:
    for lag in context.state.find("ports", type="lag"):
        if any(member["uuid"] == port["uuid"] for member in lag.get("lag", {}).get("member_ports", [])):
            return lag
    return None


def join_domain(context: Context, port: dict, domain: dict | None) -> None:
    """Move a port into a domain (or out of any): it takes the domain's MTU."""
    if domain is None:
        port.pop("broadcast_domain", None)
        return
    if lag_of(context, port) is not None:
        raise conflict(f'Port "{port["node"]["name"]}:{port["name"]}" is a member of an interface group '
                       "and cannot be added to a broadcast domain.", 1967105, "broadcast_domain")
    current = (port.get("broadcast_domain") or {}).get("uuid")
    if current and current != domain["uuid"]:
        hosted = [lif for lif in lifs_on_port(context, port)]
        if hosted:
            raise conflict(f'Port "{port["node"]["name"]}:{port["name"]}" hosts LIF "{hosted[0]["name"]}" and '
                           "cannot be moved to another broadcast domain.", 1967106, "broadcast_domain")
    port["broadcast_domain"] = domain_ref(domain)
    port["mtu"] = domain["mtu"]


# ---------------------------------------------------------------------------- IPspaces
class Ipspaces(Collection):
    name = "ipspaces"
    path = "network/ipspaces"

    def create(self, context: Context, body: dict) -> dict:
        require(body, "name")
        if context.state.first("ipspaces", name=body["name"]):
            raise duplicate(f'IPspace "{body["name"]}" already exists.', 1966731, "name")
        record = {"uuid": new_uuid(), "name": body["name"]}
        return context.state.put("ipspaces", record["uuid"], record)

    def modify(self, context: Context, record: dict, body: dict) -> None:
        if "name" in body and body["name"] != record["name"]:
            if context.state.first("ipspaces", name=body["name"]):
                raise duplicate(f'IPspace "{body["name"]}" already exists.', 1966731, "name")
            raise conflict("Renaming an IPspace is not supported by this lab endpoint.", 1966732, "name")

    def remove(self, context: Context, record: dict) -> None:
        if record["name"] in ("Default", "Cluster"):
            raise conflict(f'IPspace "{record["name"]}" is a system IPspace and cannot be deleted.', 1966733)
        if context.state.first("broadcast_domains", **{"ipspace.uuid": record["uuid"]}) or \
                context.state.first("svms", **{"ipspace.uuid": record["uuid"]}):
            raise conflict(f'IPspace "{record["name"]}" is in use by a broadcast domain or SVM.', 1966734)
        context.state.remove("ipspaces", record["uuid"])


# ---------------------------------------------------------------------------- broadcast domains
class BroadcastDomains(Collection):
    name = "broadcast_domains"
    path = "network/ethernet/broadcast-domains"
    keys = ("uuid", "name", "ipspace.name")

    def compute(self, context: Context, record: dict) -> None:
        record["ports"] = [port_ref(port) for port in context.state.records("ports")
                           if (port.get("broadcast_domain") or {}).get("uuid") == record["uuid"]]

    def create(self, context: Context, body: dict) -> dict:
        require(body, "name", "mtu")
        ipspace = reference(context, "ipspaces", body.get("ipspace") or {"name": "Default"}, "IPspace", "ipspace.name")
        if context.state.first("broadcast_domains", name=body["name"], **{"ipspace.uuid": ipspace["uuid"]}):
            raise duplicate(f'Broadcast domain "{body["name"]}" already exists in IPspace "{ipspace["name"]}".',
                            1967104, "name")
        _check_mtu(body["mtu"])
        record = {"uuid": new_uuid(), "name": body["name"], "mtu": int(body["mtu"]),
                  "ipspace": named_ref(ipspace, f"/api/network/ipspaces/{ipspace['uuid']}")}
        return context.state.put("broadcast_domains", record["uuid"], record)

    def modify(self, context: Context, record: dict, body: dict) -> None:
        members = [port for port in context.state.records("ports")
                   if (port.get("broadcast_domain") or {}).get("uuid") == record["uuid"]]
        if "ipspace" in body:
            ipspace = reference(context, "ipspaces", body["ipspace"], "IPspace", "ipspace.name")
            if ipspace["uuid"] != record["ipspace"]["uuid"]:
                if any(lifs_on_port(context, port) for port in members):
                    raise conflict("A broadcast domain whose ports host LIFs cannot change IPspace.", 1967107, "ipspace")
                record["ipspace"] = named_ref(ipspace, f"/api/network/ipspaces/{ipspace['uuid']}")
        if "name" in body and body["name"] != record["name"]:
            if context.state.first("broadcast_domains", name=body["name"], **{"ipspace.uuid": record["ipspace"]["uuid"]}):
                raise duplicate(f'Broadcast domain "{body["name"]}" already exists.', 1967104, "name")
            record["name"] = body["name"]
        if "mtu" in body:
            _check_mtu(body["mtu"])
            record["mtu"] = int(body["mtu"])
        for port in members:
            port["broadcast_domain"] = domain_ref(record)
            port["mtu"] = record["mtu"]

    def remove(self, context: Context, record: dict) -> None:
        if record["name"] in ("Default", "Cluster") and record["ipspace"]["name"] in ("Default", "Cluster"):
            raise conflict(f'Broadcast domain "{record["name"]}" is a system broadcast domain.', 1967108)
        if context.state.first("ports", **{"broadcast_domain.uuid": record["uuid"]}):
            raise conflict(f'Broadcast domain "{record["name"]}" still has ports; remove them first.', 1967109)
        context.state.remove("broadcast_domains", record["uuid"])


def _check_mtu(mtu: Any) -> None:
    if not isinstance(mtu, int) or not 68 <= mtu <= 9000:
        raise invalid_value("mtu", mtu, "68..9000")


# ---------------------------------------------------------------------------- ports
class Ports(Collection):
    name = "ports"
    path = "network/ethernet/ports"
    keys = ("uuid", "name", "node.name")

    def compute(self, context: Context, record: dict) -> None:
        record["interface_count"] = len(lifs_on_port(context, record))

    def create(self, context: Context, body: dict) -> dict:
        require(body, "type", "node")
        node = reference(context, "nodes", body["node"], "Node", "node.name")
        kind = body["type"]
        if kind == "vlan":
            record = self._vlan(context, node, body)
        elif kind == "lag":
            record = self._lag(context, node, body)
        else:
            raise invalid_value("type", kind, "vlan|lag")
        record["enabled"] = body.get("enabled", True)
        record["state"] = "up" if record["enabled"] else "down"
        context.state.put("ports", record["uuid"], record)
        if body.get("broadcast_domain"):
            join_domain(context, record, find_domain(context, body["broadcast_domain"], "Default", "broadcast_domain"))
        return record

    def _base(self, node: dict, name: str) -> dict:
        return {"uuid": new_uuid(), "name": name, "node": named_ref(node, f"/api/cluster/nodes/{node['uuid']}"),
                "mtu": 1500, "reachability": "ok", "flowcontrol_admin": "none", "rdma_protocols": []}

    def _vlan(self, context: Context, node: dict, body: dict) -> dict:
        require(body, "vlan.tag", "vlan.base_port")
        tag = body["vlan"]["tag"]
        if not isinstance(tag, int) or not 1 <= tag <= 4094:
            raise invalid_value("vlan.tag", tag, "1..4094")
        base = find_port(context, body["vlan"]["base_port"], node["name"], "vlan.base_port")
        if base["node"]["uuid"] != node["uuid"]:
            raise conflict("A VLAN's base port must be on the VLAN's node.", 1967115, "vlan.base_port")
        if base["type"] == "vlan":
            raise conflict(f'Port "{base["name"]}" is a VLAN and cannot carry VLANs.', 1967116, "vlan.base_port")
        if lag_of(context, base) is not None:
            raise conflict(f'Port "{base["name"]}" is a member of an interface group and cannot carry VLANs.',
                           1967117, "vlan.base_port")
        name = f"{base['name']}-{tag}"
        if context.state.first("ports", name=name, **{"node.uuid": node["uuid"]}):
            raise duplicate(f'VLAN port "{name}" already exists on node "{node["name"]}".', 1967118, "vlan.tag")
        record = self._base(node, name)
        record.update(type="vlan", speed=base.get("speed"), vlan={"tag": tag, "base_port": port_ref(base)},
                      rdma_protocols=list(base.get("rdma_protocols", [])) if base["type"] == "physical" else [])
        return record

    def _lag(self, context: Context, node: dict, body: dict) -> dict:
        require(body, "lag.mode", "lag.distribution_policy", "lag.member_ports")
        lag = body["lag"]
        if lag["mode"] not in LAG_MODES:
            raise invalid_value("lag.mode", lag["mode"], "|".join(sorted(LAG_MODES)))
        if lag["distribution_policy"] not in LAG_DISTRIBUTION:
            raise invalid_value("lag.distribution_policy", lag["distribution_policy"], "|".join(sorted(LAG_DISTRIBUTION)))
        members = self._members(context, node, lag["member_ports"], None)
        record = self._base(node, self._lag_name(context, node))
        record.update(type="lag", speed=members[0].get("speed") if members else None,
                      lag={"mode": lag["mode"], "distribution_policy": lag["distribution_policy"],
                           "member_ports": [port_ref(port) for port in members],
                           "active_ports": [port_ref(port) for port in members]})
        for port in members:
            port.pop("broadcast_domain", None)
        return record

    def _members(self, context: Context, node: dict, refs: list, lag: dict | None) -> list[dict]:
        if not refs:
            raise missing("lag.member_ports")
        members = []
        for ref in refs:
            port = find_port(context, ref, node["name"], "lag.member_ports")
            if port["node"]["uuid"] != node["uuid"] or port["type"] != "physical":
                raise conflict(f'Port "{port["name"]}" cannot join an interface group on node "{node["name"]}".',
                               1967119, "lag.member_ports")
            other = lag_of(context, port)
            if other is not None and (lag is None or other["uuid"] != lag["uuid"]):
                raise conflict(f'Port "{port["name"]}" is already a member of interface group "{other["name"]}".',
                               1967120, "lag.member_ports")
            if lifs_on_port(context, port):
                raise conflict(f'Port "{port["name"]}" hosts LIFs and cannot join an interface group.',
                               1967121, "lag.member_ports")
            if context.state.first("ports", type="vlan", **{"vlan.base_port.uuid": port["uuid"]}):
                raise conflict(f'Port "{port["name"]}" carries VLANs and cannot join an interface group.',
                               1967122, "lag.member_ports")
            members.append(port)
        return members

    @staticmethod
    def _lag_name(context: Context, node: dict) -> str:
        taken = {port["name"] for port in context.state.find("ports", type="lag", **{"node.uuid": node["uuid"]})}
        for number in range(10):
            for letter in string.ascii_lowercase:
                if f"a{number}{letter}" not in taken:
                    return f"a{number}{letter}"
        raise conflict("No interface group name is free on this node.", 1967123)

    def modify(self, context: Context, record: dict, body: dict) -> None:
        if "lag" in body:
            if record["type"] != "lag":
                raise conflict(f'Port "{record["name"]}" is not an interface group.', 1967124, "lag")
            refs = body["lag"].get("member_ports")
            if refs is not None:
                node = context.state.get("nodes", record["node"]["uuid"])
                members = self._members(context, node, refs, record)
                record["lag"]["member_ports"] = [port_ref(port) for port in members]
                record["lag"]["active_ports"] = [port_ref(port) for port in members]
                for port in members:
                    port.pop("broadcast_domain", None)
        if "vlan" in body:
            raise conflict("A VLAN's base port and tag cannot be changed; delete and create it.", 1967125, "vlan")
        if "broadcast_domain" in body:
            ref = body["broadcast_domain"]
            join_domain(context, record, find_domain(context, ref, "Default", "broadcast_domain") if ref else None)
        if "enabled" in body:
            record["enabled"] = bool(body["enabled"])
            record["state"] = "up" if record["enabled"] else "down"
        for field in ("flowcontrol_admin", "pfc_queues_admin"):
            if field in body:
                record[field] = body[field]

    def remove(self, context: Context, record: dict) -> None:
        if record["type"] == "physical":
            raise conflict(f'Port "{record["name"]}" is a physical port and cannot be deleted.', 1967126)
        if lifs_on_port(context, record):
            raise conflict(f'Port "{record["name"]}" hosts LIFs and cannot be deleted.', 1967127)
        if context.state.first("ports", type="vlan", **{"vlan.base_port.uuid": record["uuid"]}):
            raise conflict(f'Port "{record["name"]}" carries VLANs and cannot be deleted.', 1967128)
        context.state.remove("ports", record["uuid"])


class RemovePortsCli(Collection):
    """``PATCH /api/private/cli/network/port/broadcast-domain/remove-ports`` (na_ontap_broadcast_domain)."""

    name = "broadcast_domains"
    path = "private/cli/network/port/broadcast-domain/remove-ports"

    def pattern(self) -> str:
        return "private/cli/network/port/broadcast-domain/remove-ports"

    def serve(self, context: Context, groups: dict[str, str]) -> Response:
        if context.method != "PATCH":
            raise OntapError(405, 3, "Only PATCH is supported on this command.")
        name, ipspace = context.param("broadcast-domain"), context.param("ipspace", "Default")
        domain = context.state.first("broadcast_domains", name=name, **{"ipspace.name": ipspace})
        if domain is None:
            raise not_found(f'Broadcast domain "{name}" does not exist in IPspace "{ipspace}".', "broadcast-domain")
        body = context.body if isinstance(context.body, dict) else {}
        unknown = set(body) - {"ports"}
        if unknown:
            raise OntapError(400, 262179, f'Unexpected argument "{sorted(unknown)[0]}".', sorted(unknown)[0])
        ports = body.get("ports")
        if not isinstance(ports, list) or not ports:
            raise missing("ports")
        for entry in ports:
            node, _, port_name = str(entry).partition(":")
            port = context.state.first("ports", name=port_name, **{"node.name": node})
            if port is None or (port.get("broadcast_domain") or {}).get("uuid") != domain["uuid"]:
                raise conflict(f'Port "{entry}" is not in broadcast domain "{name}".', 1967110, "ports")
            if lifs_on_port(context, port):
                raise conflict(f'Port "{entry}" hosts LIFs and cannot leave its broadcast domain.', 1967106, "ports")
            port.pop("broadcast_domain", None)
        return Response(200, {"num_records": 1, "records": [{}]})


# ---------------------------------------------------------------------------- IP interfaces
class IpInterfaces(Collection):
    name = "ip_interfaces"
    path = "network/ip/interfaces"

    def compute(self, context: Context, record: dict) -> None:
        home = context.state.get("ports", record["location"]["home_port"]["uuid"])
        if home and home.get("broadcast_domain"):
            record["location"]["broadcast_domain"] = {key: home["broadcast_domain"][key] for key in ("name", "uuid", "_links")}
        record["state"] = "up" if record.get("enabled") and home and home.get("enabled", True) else "down"

    def create(self, context: Context, body: dict) -> dict:
        require(body, "name", "ip.address", "ip.netmask")
        scope_svm = svm_of(context, body["svm"]) if body.get("svm") else None
        if scope_svm is None:
            if context.svm_scope:
                raise OntapError(403, 6, "SVM-scoped accounts cannot create cluster interfaces.")
            ipspace = reference(context, "ipspaces", body.get("ipspace") or {"name": "Default"}, "IPspace", "ipspace.name")
        else:
            ipspace = context.state.get("ipspaces", scope_svm["ipspace"]["uuid"])
        name = body["name"]
        if self._same_name(context, name, scope_svm, ipspace):
            raise duplicate(f'Duplicate LIF name "{name}" in {"SVM " + scope_svm["name"] if scope_svm else "the cluster"}.',
                            1376963, "name")
        address, netmask = _address(body["ip"])
        self._unique_address(context, address, ipspace, None)
        port = self._home_port(context, body.get("location") or {}, ipspace)
        policy = self._service_policy(context, body.get("service_policy"), scope_svm, ipspace)
        record: dict[str, Any] = {
            "uuid": new_uuid(), "name": name, "scope": "svm" if scope_svm else "cluster",
            "ipspace": named_ref(ipspace, f"/api/network/ipspaces/{ipspace['uuid']}"),
            "enabled": body.get("enabled", True),
            "ip": {"address": address, "netmask": str(netmask), "family": "ipv4"},
            "location": {"home_node": dict(port["node"]), "home_port": port_ref(port),
                         "node": dict(port["node"]), "port": port_ref(port), "is_home": True,
                         "auto_revert": bool((body.get("location") or {}).get("auto_revert", False)),
                         "failover": (body.get("location") or {}).get("failover", "broadcast_domain_only")},
            "service_policy": {"name": policy["name"], "uuid": policy["uuid"]},
            "services": list(policy.get("services", [])),
            "rdma_protocols": [], "vip": False, "ddns_enabled": False,
        }
        if scope_svm:
            record["svm"] = svm_ref(scope_svm)
        self._rdma(context, record, port, body.get("rdma_protocols", []))
        context.state.put("ip_interfaces", record["uuid"], record)
        context.api.realiser.lif_changed(None, self.render(context, record))
        return record

    @staticmethod
    def _same_name(context: Context, name: str, svm: dict | None, ipspace: dict) -> bool:
        if svm:
            return context.state.first("ip_interfaces", name=name, **{"svm.uuid": svm["uuid"]}) is not None
        return context.state.first("ip_interfaces", name=name, scope="cluster", **{"ipspace.uuid": ipspace["uuid"]}) is not None

    @staticmethod
    def _unique_address(context: Context, address: str, ipspace: dict, own: str | None) -> None:
        for lif in context.state.find("ip_interfaces", **{"ipspace.uuid": ipspace["uuid"]}):
            if lif["ip"]["address"] == address and lif["uuid"] != own:
                raise duplicate(f'Duplicate IP address {address}: it is in use by LIF "{lif["name"]}".', 1376978, "ip.address")

    def _home_port(self, context: Context, location: dict, ipspace: dict) -> dict:
        if location.get("home_port"):
            node = (location.get("home_node") or {}).get("name")
            port = find_port(context, location["home_port"], (location["home_port"].get("node") or {}).get("name") or node,
                             "location.home_port")
        elif location.get("broadcast_domain") or location.get("home_node"):
            port = self._pick_port(context, location, ipspace)
        else:
            raise missing("location.home_port")
        if lag_of(context, port) is not None:
            raise conflict(f'Port "{port["node"]["name"]}:{port["name"]}" is an interface group member and cannot host LIFs.',
                           1376979, "location.home_port")
        domain = port.get("broadcast_domain")
        if not domain:
            raise conflict(f'Port "{port["node"]["name"]}:{port["name"]}" is not in a broadcast domain; a LIF\'s home port '
                           "must be in a broadcast domain of the LIF's IPspace.", 1376980, "location.home_port")
        if domain["ipspace"]["name"] != ipspace["name"]:
            raise conflict(f'Port "{port["node"]["name"]}:{port["name"]}" is in broadcast domain "{domain["name"]}" of IPspace '
                           f'"{domain["ipspace"]["name"]}", not of the LIF\'s IPspace "{ipspace["name"]}".', 1376981,
                           "location.home_port")
        wanted = location.get("broadcast_domain")
        if wanted and wanted.get("name") and wanted["name"] != domain["name"]:
            raise conflict(f'Home port "{port["name"]}" is not in broadcast domain "{wanted["name"]}".', 1376982,
                           "location.broadcast_domain")
        return port

    @staticmethod
    def _pick_port(context: Context, location: dict, ipspace: dict) -> dict:
        node = (location.get("home_node") or {}).get("name")
        wanted = (location.get("broadcast_domain") or {}).get("name")
        for port in context.state.records("ports"):
            domain = port.get("broadcast_domain")
            if not domain or domain["ipspace"]["name"] != ipspace["name"] or lag_of(context, port) is not None:
                continue
            if (node is None or port["node"]["name"] == node) and (wanted is None or domain["name"] == wanted):
                return port
        raise conflict("No eligible home port found for the LIF in that node or broadcast domain.", 1376983, "location")

    @staticmethod
    def _service_policy(context: Context, ref: Any, svm: dict | None, ipspace: dict) -> dict:
        name = (ref or {}).get("name") if isinstance(ref, dict) else None
        uuid = (ref or {}).get("uuid") if isinstance(ref, dict) else None
        name = name or (None if uuid else ("default-data-files" if svm else "default-management"))
        for policy in context.state.records("service_policies"):
            if uuid and policy["uuid"] != uuid or name and policy["name"] != name:
                continue
            if svm and (policy.get("svm") or {}).get("uuid") == svm["uuid"]:
                return policy
            if not svm and policy.get("scope") == "cluster" and policy["ipspace"]["uuid"] == ipspace["uuid"]:
                return policy
        raise OntapError(404, 1376984, f'Service policy "{name or uuid}" does not exist '
                                       f'{"in SVM " + svm["name"] if svm else "in IPspace " + ipspace["name"]}.', "service_policy")

    @staticmethod
    def _rdma(context: Context, record: dict, port: dict, protocols: list) -> None:
        check_enum_list(protocols, {"roce"}, "rdma_protocols")
        if protocols:
            base = port
            if port["type"] == "vlan":
                base = context.state.get("ports", port["vlan"]["base_port"]["uuid"]) or port
            if base["type"] == "lag":
                raise conflict("RDMA is not supported on LIFs hosted on interface groups.", 1377000, "rdma_protocols")
            if "roce" not in base.get("rdma_protocols", []):
                raise conflict(f'Port "{base["name"]}" does not support RoCE.', 1377001, "rdma_protocols")
        record["rdma_protocols"] = list(protocols)

    def modify(self, context: Context, record: dict, body: dict) -> None:
        before = self.render(context, record)
        ipspace = context.state.get("ipspaces", record["ipspace"]["uuid"])
        svm = context.state.get("svms", record["svm"]["uuid"]) if record.get("svm") else None
        if "name" in body and body["name"] != record["name"]:
            if self._same_name(context, body["name"], svm, ipspace):
                raise duplicate(f'Duplicate LIF name "{body["name"]}".', 1376963, "name")
            record["name"] = body["name"]
        if "ip" in body:
            address, netmask = _address({**record["ip"], **body["ip"]})
            self._unique_address(context, address, ipspace, record["uuid"])
            record["ip"].update(address=address, netmask=str(netmask))
        location = body.get("location") or {}
        if location.get("home_port") or location.get("home_node"):
            merged = {"home_port": location.get("home_port") or
                      ({"name": record["location"]["home_port"]["name"]} if location.get("home_node") else None),
                      "home_node": location.get("home_node") or record["location"]["home_node"]}
            port = self._home_port(context, merged, ipspace)
            record["location"].update(home_node=dict(port["node"]), home_port=port_ref(port))
        if location.get("port") or location.get("node"):
            target = location.get("port") or {"name": record["location"]["port"]["name"]}
            port = find_port(context, target, (location.get("node") or {}).get("name") or record["location"]["node"]["name"],
                             "location.port")
            home_domain = context.state.get("ports", record["location"]["home_port"]["uuid"]).get("broadcast_domain") or {}
            if (port.get("broadcast_domain") or {}).get("uuid") != home_domain.get("uuid"):
                raise conflict("A LIF can only move to a port of its home port's broadcast domain.", 1376985, "location.port")
            record["location"].update(node=dict(port["node"]), port=port_ref(port))
        for field in ("auto_revert", "failover"):
            if field in location:
                record["location"][field] = location[field]
        if record["location"].get("auto_revert") or location.get("home_port") or location.get("home_node"):
            # Auto-revert (and a new home) brings the LIF home, as on a healthy cluster.
            if record["location"].get("auto_revert"):
                record["location"].update(node=dict(record["location"]["home_node"]),
                                          port=dict(record["location"]["home_port"]))
        record["location"]["is_home"] = record["location"]["port"]["uuid"] == record["location"]["home_port"]["uuid"]
        if "service_policy" in body:
            policy = self._service_policy(context, body["service_policy"], svm, ipspace)
            record["service_policy"] = {"name": policy["name"], "uuid": policy["uuid"]}
            record["services"] = list(policy.get("services", []))
        if "enabled" in body:
            record["enabled"] = bool(body["enabled"])
        if "rdma_protocols" in body:
            home = context.state.get("ports", record["location"]["home_port"]["uuid"])
            self._rdma(context, record, home, body["rdma_protocols"] or [])
        context.api.realiser.lif_changed(before, self.render(context, record))

    def remove(self, context: Context, record: dict) -> None:
        before = self.render(context, record)
        context.state.remove("ip_interfaces", record["uuid"])
        context.api.realiser.lif_changed(before, None)


def _address(ip: dict) -> tuple[str, int]:
    try:
        address = ipaddress.IPv4Address(str(ip.get("address")))
    except ValueError as error:
        raise invalid_value("ip.address", ip.get("address")) from error
    netmask = str(ip.get("netmask"))
    try:
        length = int(netmask) if netmask.isdigit() else ipaddress.IPv4Network(f"0.0.0.0/{netmask}").prefixlen
    except ValueError as error:
        raise invalid_value("ip.netmask", netmask) from error
    if not 1 <= length <= 32:
        raise invalid_value("ip.netmask", netmask, "1..32")
    return str(address), length


class ServicePolicies(Collection):
    name = "service_policies"
    path = "network/ip/service-policies"
    writable = False

    def in_scope(self, context: Context, record: dict) -> bool:
        return (record.get("svm") or {}).get("uuid") == context.svm_scope


RESOURCES = [Ipspaces(), BroadcastDomains(), Ports(), RemovePortsCli(), IpInterfaces(), ServicePolicies()]
