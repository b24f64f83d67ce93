"""The DataOps Toolkit's credentials go into its keyring only where they differ, and check mode sets nothing."""
from __future__ import annotations

from ansible_collections.ontap_ai.pod.plugins.modules import dataops_keyring

SERVICE = "netapp:dataops:ontap"


class MemoryKeyring:
    def __init__(self, values: dict | None = None):
        self.values = dict(values or {})
        self.writes = 0

    def get_password(self, service, key):
        return self.values.get((service, key))

    def set_password(self, service, key, value):
        self.writes += 1
        self.values[(service, key)] = value


def test_an_empty_keyring_gets_both_and_a_second_store_writes_nothing():
    store = MemoryKeyring()
    wanted = {"username": "dataops", "password": "s3cret-Dataops"}
    assert dataops_keyring.store(store, SERVICE, wanted, check_mode=False) == ["username", "password"]
    assert store.values == {(SERVICE, "username"): "dataops", (SERVICE, "password"): "s3cret-Dataops"}
    assert dataops_keyring.store(store, SERVICE, wanted, check_mode=False) == [] and store.writes == 2


def test_a_changed_password_is_set_alone_and_check_mode_sets_nothing():
    store = MemoryKeyring({(SERVICE, "username"): "dataops", (SERVICE, "password"): "old"})
    wanted = {"username": "dataops", "password": "new-Dataops"}
    assert dataops_keyring.store(store, SERVICE, wanted, check_mode=True) == ["password"] and store.writes == 0
    assert dataops_keyring.store(store, SERVICE, wanted, check_mode=False) == ["password"]
    assert store.values[(SERVICE, "password")] == "new-Dataops"
