# -*- coding: utf-8 -*-
"""Mitogen's linear strategy, found beside the playbooks (no ansible.cfg path into the virtualenv).

The compute play runs with it by default: Mitogen keeps one Python interpreter per host over a single
SSH connection and caches the modules there, which benchmarks/compute.py measured to cut a no-op run
over many hosts several-fold (docs/benchmarks.md, docs/compute.md). SSH host-key checking, the
known_hosts file and the key of the inventory apply as with the ssh connection. Run a play without it
with -e compute_strategy=linear.
"""
from __future__ import annotations

DOCUMENTATION = """
    name: aipod_mitogen_linear
    short_description: Mitogen's linear strategy (ansible_mitogen), under the bundle's name
    description:
        - Task-by-task like C(linear), with Mitogen's connection multiplexing and in-process module execution.
    author: ONTAP AI pod bundle contributors
"""

from ansible_mitogen.plugins.strategy.mitogen_linear import StrategyModule  # noqa: F401,E402  (re-exported)
