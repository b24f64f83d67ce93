"""The lab's clusters that reach each other over their intercluster LIFs: one process, one lock.

ONTAP clusters peer over intercluster LIFs; the lab's clusters run in one process (the main
cluster and the peers its inventory names, lab/ontap/peers/), so that a write on one that touches
the other (a peer offer accepted, an SVM peer to accept, a SnapMirror transfer) sees both states
under one lock, and is saved on both. A cluster alone is a fabric of one.
"""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .api import Api


def intercluster_addresses(api: Api) -> list[str]:
    """The addresses of the cluster's enabled intercluster LIFs (service policy default-intercluster,
    or any whose services include intercluster_core)."""
    policies = {p["uuid"] for p in api.state.records("service_policies") if "intercluster_core" in p.get("services", [])}
    return [lif["ip"]["address"] for lif in api.state.records("ip_interfaces")
            if lif.get("enabled", True) and (lif.get("service_policy") or {}).get("uuid") in policies]


class Fabric:
    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.apis: list[Api] = []

    def join(self, api: Api) -> None:
        if api.fabric is not None and api in api.fabric.apis:
            api.fabric.apis.remove(api)
        self.apis.append(api)
        api.fabric = self
        api.lock = self.lock

    def reachable_at(self, addresses: list[str], besides: Api) -> Api | None:
        """The other cluster one of whose intercluster LIFs has one of these addresses."""
        for api in self.apis:
            if api is not besides and set(addresses) & set(intercluster_addresses(api)):
                return api
        return None

    def named(self, name: str) -> Api | None:
        return next((api for api in self.apis if api.state.cluster.get("name") == name), None)

    @staticmethod
    def save(api: Api) -> None:
        """Persist another cluster's state after a write this request made to it."""
        if api.store is not None:
            api.store.save(api.state)
