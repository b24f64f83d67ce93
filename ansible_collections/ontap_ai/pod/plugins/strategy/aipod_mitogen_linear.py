"""Mitogen's linear strategy under the collection's name: an opt-in, never a default.

Mitogen keeps one Python interpreter per host over a single SSH connection and caches the modules
there (benchmarks/compute.py and docs/benchmarks.md measure what it saves). ansible-core deprecates
strategy plugins from outside ansible.builtin and AAP does not support them, so the plays run with
Ansible's linear strategy unless asked: -e compute_strategy=ontap_ai.pod.aipod_mitogen_linear (the
DGX plays) or -e control_node_strategy=ontap_ai.pod.aipod_mitogen_linear (the control-node plays).
SSH host-key checking, the known_hosts file and the key of the inventory apply as with ssh.
"""
from __future__ import annotations

DOCUMENTATION = """
    name: aipod_mitogen_linear
    short_description: Mitogen's linear strategy (ansible_mitogen), under the bundle's name
    description:
        - Task-by-task like C(linear), with Mitogen's connection multiplexing and in-process module execution.
    requirements:
        - mitogen (requirements.txt pins the release the bundle is tested with)
    author: ONTAP AI pod bundle contributors (!UNKNOWN)
"""

from ansible.errors import AnsibleError

try:
    from ansible_mitogen.plugins.strategy.mitogen_linear import StrategyModule
except ImportError as error:  # Mitogen is optional: say so when a play asks for it, not when Ansible lists plugins
    from ansible.plugins.strategy.linear import StrategyModule as _LinearStrategy

    _MITOGEN_MISSING = str(error)

    class StrategyModule(_LinearStrategy):  # type: ignore[no-redef]
        def __init__(self, *args, **kwargs):
            raise AnsibleError(f"strategy ontap_ai.pod.aipod_mitogen_linear needs Mitogen (pip install mitogen): {_MITOGEN_MISSING}")

__all__ = ["StrategyModule"]
