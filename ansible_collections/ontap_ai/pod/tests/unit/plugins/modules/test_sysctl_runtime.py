"""sysctl_runtime: what changes, and what cannot be applied here and why."""
from __future__ import annotations

from ansible_collections.ontap_ai.pod.plugins.modules import sysctl_runtime

RUNNING = {"net.core.rmem_max": "212992\n", "net.ipv4.tcp_rmem": "4096\t131072\t6291456\n", "net.core.somaxconn": "4096\n"}


def test_only_differing_writable_values_change():
    changes, unavailable = sysctl_runtime.plan(
        {"net.core.rmem_max": 268435456, "net.ipv4.tcp_rmem": "4096 131072 6291456", "sunrpc.tcp_slot_table_entries": 128},
        RUNNING.get, lambda name: True)
    assert changes == {"net.core.rmem_max": {"before": "212992", "after": "268435456"}}
    assert unavailable == {"sunrpc.tcp_slot_table_entries": "not in this kernel (or not in this network namespace)"}


def test_read_only_proc_sys_is_reported_not_failed():
    changes, unavailable = sysctl_runtime.plan({"net.core.rmem_max": 268435456, "net.core.somaxconn": 4096},
                                               RUNNING.get, lambda name: False)
    assert changes == {}
    assert unavailable == {"net.core.rmem_max": "/proc/sys is read-only here"}


def test_parameter_names_map_to_proc_sys_paths():
    assert sysctl_runtime.proc_path("net.ipv4.tcp_rmem") == "/proc/sys/net/ipv4/tcp_rmem"
    assert sysctl_runtime.normalise("4096\t87380  268435456\n") == "4096 87380 268435456"
