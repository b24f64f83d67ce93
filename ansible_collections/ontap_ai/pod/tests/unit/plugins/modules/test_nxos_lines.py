"""nxos_lines: the block it builds from parents and lines is indented as show running-config prints it."""
from __future__ import annotations

from ansible_collections.ontap_ai.pod.plugins.modules import nxos_lines


def test_lines_sit_one_level_below_their_innermost_parent():
    text = nxos_lines.block_text(["policy-map type qos aipod-in", "class aipod-roce"], ["set qos-group 3"])
    assert text == "policy-map type qos aipod-in\n  class aipod-roce\n    set qos-group 3"


def test_lines_without_parents_are_top_level():
    assert nxos_lines.block_text([], ["feature lacp", "feature vpc"]) == "feature lacp\nfeature vpc"
