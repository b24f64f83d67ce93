"""A freshly installed cluster, built from the lab inventory's ``ontap`` model.

What a new ONTAP cluster has before anyone configures it: the cluster and its nodes, each
node's physical ports (the model's data ports in the ``Default`` broadcast domain at MTU 1500,
cluster ports ``e0a``/``e0b`` in ``Cluster``, ``e0M`` for management), the model's aggregates,
the ``Default`` and ``Cluster`` IPspaces, the cluster and node management LIFs, the built-in
schedules, snapshot policies, service policies, roles and the ``admin`` account. Nothing the
roles create (interface groups, VLANs, broadcast domains, SVMs, ...) is seeded.
"""
from __future__ import annotations

import hashlib
from typing import Any

from . import ontap_version
from .state import State, new_uuid

SPEED_MBPS = {"1G": 1000, "10G": 10000, "25G": 25000, "40G": 40000, "50G": 50000, "100G": 100000,
              "200G": 200000, "400G": 400000}
# Usable capacity of one data SSD of an A800-class shelf (3.84 TB drive, right-sized), in bytes.
SSD_BYTES = 3_490_000_000_000
RAID_PARITY_DISKS = 2
# ONTAP's built-in cron schedules, in the REST API's shape (weekday 0 is Sunday).
SCHEDULES = {"5min": {"minutes": list(range(0, 60, 5))}, "8hour": {"minutes": [15], "hours": [2, 10, 18]},
             "hourly": {"minutes": [5]}, "daily": {"minutes": [10], "hours": [0]},
             "weekly": {"minutes": [15], "hours": [0], "weekdays": [0]}}
CLUSTER_ROLES = ("admin", "readonly", "none", "autosupport", "backup")


def _mac(seed: str) -> str:
    digest = hashlib.sha256(seed.encode()).hexdigest()
    return "00:a0:98:" + ":".join(digest[i:i + 2] for i in (0, 2, 4))


def _ref(record: dict, href: str) -> dict:
    return {"name": record["name"], "uuid": record["uuid"], "_links": {"self": {"href": href}}}


def is_afx(ontap: dict[str, Any]) -> bool:
    """AFX, disaggregated ONTAP: a cluster without aggregates (the model's platform says so)."""
    return "AFX" in str(ontap.get("platform") or "").upper()


def seed_state(ontap: dict[str, Any], admin_user: str = "admin") -> State:
    """The state of a new cluster described by the model's ``ontap`` section."""
    state = State()
    cluster = {"name": ontap["cluster_name"], "uuid": new_uuid(), "version": ontap_version(ontap.get("version")),
               "location": "ONTAP AI pod lab", "contact": "", "timezone": {"name": "Etc/UTC"},
               "management_interfaces": [{"name": "cluster_mgmt", "ip": {"address": ontap["mgmt_address"]}}],
               "san_optimized": False, "disaggregated": is_afx(ontap)}
    state.data["cluster"] = cluster

    ipspaces = {}
    for name in ("Default", "Cluster"):
        uuid = new_uuid()
        ipspaces[name] = state.put("ipspaces", uuid, {"uuid": uuid, "name": name})
    domains = {}
    for name, mtu in (("Default", 1500), ("Cluster", 9000)):
        uuid = new_uuid()
        domains[name] = state.put("broadcast_domains", uuid, {
            "uuid": uuid, "name": name, "mtu": mtu,
            "ipspace": _ref(ipspaces[name], f"/api/network/ipspaces/{ipspaces[name]['uuid']}")})

    for uuid, name in ((new_uuid(), schedule) for schedule in SCHEDULES):
        state.put("schedules", uuid, {"uuid": uuid, "name": name, "type": "cron", "cluster": {"name": cluster["name"]},
                                      "cron": dict(SCHEDULES[name])})
    schedules = {record["name"]: record for record in state.records("schedules")}
    for name, copies, enabled in (("default", [("hourly", 6), ("daily", 2), ("weekly", 2)], True),
                                  ("default-1weekly", [("hourly", 6), ("daily", 2), ("weekly", 1)], True),
                                  ("none", [], False)):
        uuid = new_uuid()
        state.put("snapshot_policies", uuid, {
            "uuid": uuid, "name": name, "enabled": enabled, "scope": "cluster", "comment": "",
            "copies": [{"count": count, "prefix": schedule,
                        "schedule": {"name": schedule, "uuid": schedules[schedule]["uuid"]}} for schedule, count in copies]})

    nodes = ontap.get("nodes") or []
    node_records = []
    for index, node in enumerate(nodes):
        uuid = new_uuid()
        node_records.append(state.put("nodes", uuid, {
            "uuid": uuid, "name": node["name"], "model": ontap.get("platform", "AFF A800"), "state": "up",
            "serial_number": f"LAB{index + 1:09d}", "system_id": f"{537000000 + index}", "membership": "member",
            "version": ontap_version(ontap.get("version")), "uptime": 86400, "location": "lab",
            "ha": {"enabled": len(nodes) > 1, "partners": [], "auto_giveback": True},
            "management_interfaces": [{"name": f"{node['name']}_mgmt1",
                                       "ip": {"address": node.get("mgmt_address", "")}}],
        }))
    for index, node in enumerate(node_records):
        partner = node_records[index ^ 1] if len(node_records) > 1 and (index ^ 1) < len(node_records) else None
        if partner:
            node["ha"]["partners"] = [{"name": partner["name"], "uuid": partner["uuid"]}]

    for node_model, node in zip(nodes, node_records):
        node_ref = _ref(node, f"/api/cluster/nodes/{node['uuid']}")
        ports = [("e0M", "1G", "Default", False)] + [(name, "100G", "Cluster", False) for name in ("e0a", "e0b")]
        ports += [(port["name"], port.get("speed", "100G"), "Default", True) for port in node_model.get("ports") or []]
        for name, speed, domain_name, data_port in ports:
            uuid = new_uuid()
            domain = domains[domain_name]
            state.put("ports", uuid, {
                "uuid": uuid, "name": name, "node": node_ref, "type": "physical", "enabled": True, "state": "up",
                "mtu": domain["mtu"], "speed": SPEED_MBPS.get(speed, 100000), "mac_address": _mac(node["name"] + name),
                "reachability": "ok", "flowcontrol_admin": "none",
                "rdma_protocols": ["roce"] if data_port and SPEED_MBPS.get(speed, 0) >= 100000 else [],
                "broadcast_domain": {"name": domain["name"], "uuid": domain["uuid"], "ipspace": {"name": domain["ipspace"]["name"]},
                                     "_links": {"self": {"href": f"/api/network/ethernet/broadcast-domains/{domain['uuid']}"}}},
            })
        for aggregate in node_model.get("aggregates") or []:
            uuid = new_uuid()
            size = max(int(aggregate.get("disk_count", 23)) - RAID_PARITY_DISKS, 1) * SSD_BYTES
            state.put("aggregates", uuid, {
                "uuid": uuid, "name": aggregate["name"], "node": node_ref, "home_node": node_ref, "state": "online",
                "snaplock_type": "non_snaplock", "create_time": "2024-01-01T00:00:00+00:00",
                "block_storage": {"primary": {"disk_count": aggregate.get("disk_count", 23), "disk_class": "solid_state",
                                              "raid_type": "raid_dp", "disk_type": "ssd"},
                                  "mirror": {"enabled": False}, "hybrid_cache": {"enabled": False}},
                "data_encryption": {"software_encryption_enabled": False},
                "space": {"block_storage": {"size": size, "used": 0, "available": size},
                          "efficiency": {"ratio": 1.0}},
            })

    if is_afx(ontap):
        # AFX: no aggregates. The nodes share one storage availability zone, kept out of the API; the
        # endpoint places volumes in it (resources.storage).
        uuid = new_uuid()
        size = 24 * len(nodes) * SSD_BYTES
        state.put("availability_zones", uuid, {"uuid": uuid, "name": "storage_availability_zone_0",
                                               "space": {"block_storage": {"size": size, "used": 0, "available": size}}})

    _seed_lifs(state, ontap, node_records, ipspaces["Default"])
    _seed_service_policies(state, ipspaces)
    _seed_security(state, cluster, admin_user)
    return state


def _seed_lifs(state: State, ontap: dict, nodes: list[dict], default: dict) -> None:
    policy_uuid = new_uuid()
    state.put("service_policies", policy_uuid, {
        "uuid": policy_uuid, "name": "default-management", "scope": "cluster", "is_built_in": True,
        "ipspace": {"name": default["name"], "uuid": default["uuid"]},
        "services": ["management_core", "management_autosupport", "management_ssh", "management_https"]})
    entries = [("cluster_mgmt", nodes[0] if nodes else None, ontap["mgmt_address"])]
    entries += [(f"{node['name']}_mgmt1", node, model.get("mgmt_address"))
                for node, model in zip(nodes, ontap.get("nodes") or []) if model.get("mgmt_address")]
    for name, node, address in entries:
        if node is None:
            continue
        port = state.first("ports", name="e0M", **{"node.uuid": node["uuid"]})
        port_ref = {"name": "e0M", "uuid": port["uuid"], "node": {"name": node["name"]},
                    "_links": {"self": {"href": f"/api/network/ethernet/ports/{port['uuid']}"}}}
        node_ref = {"name": node["name"], "uuid": node["uuid"], "_links": {"self": {"href": f"/api/cluster/nodes/{node['uuid']}"}}}
        uuid = new_uuid()
        state.put("ip_interfaces", uuid, {
            "uuid": uuid, "name": name, "scope": "cluster", "enabled": True,
            "ipspace": {"name": default["name"], "uuid": default["uuid"]},
            "ip": {"address": address, "netmask": "8", "family": "ipv4"},
            "location": {"home_node": node_ref, "home_port": port_ref, "node": node_ref, "port": port_ref,
                         "is_home": True, "auto_revert": False, "failover": "broadcast_domain_only"},
            "service_policy": {"name": "default-management", "uuid": policy_uuid},
            "services": ["management_core", "management_https"], "rdma_protocols": [], "vip": False, "ddns_enabled": False})


def _seed_service_policies(state: State, ipspaces: dict) -> None:
    for name, ipspace, services in (("default-intercluster", "Default", ["intercluster_core", "management_https"]),
                                    ("default-route-announce", "Default", ["management_bgp"]),
                                    ("default-cluster", "Cluster", ["cluster_core"])):
        uuid = new_uuid()
        state.put("service_policies", uuid, {"uuid": uuid, "name": name, "scope": "cluster", "is_built_in": True,
                                             "ipspace": {"name": ipspace, "uuid": ipspaces[ipspace]["uuid"]},
                                             "services": services})


def _seed_security(state: State, cluster: dict, admin_user: str) -> None:
    owner = {"name": cluster["name"], "uuid": cluster["uuid"]}
    for role in CLUSTER_ROLES:
        state.put("roles", f"{cluster['uuid']}/{role}",
                  {"name": role, "owner": owner, "scope": "cluster", "builtin": True, "privileges": []})
    state.put("accounts", f"{cluster['uuid']}/{admin_user}", {
        "name": admin_user, "owner": owner, "scope": "cluster", "role": {"name": "admin"}, "locked": False,
        "comment": "", "password_hash_algorithm": "sha512",
        "applications": [{"application": app, "authentication_methods": ["password"], "second_authentication_method": "none",
                          "is_ldap_fastbind": False, "is_ns_switch_group": False}
                         for app in ("console", "http", "ontapi", "service_processor", "ssh")]})


def set_admin_password(state: State, admin_user: str, password: str) -> None:
    """Give the admin account the inventory's password (kept only as a salted hash)."""
    key = f"{state.cluster['uuid']}/{admin_user}"
    if not state.check_password(key, password):
        state.set_password(key, password)
