"""config_files, the module that writes every file of a DGX: the second wall for paths. Validation
gives paths a grammar; the module still refuses any path that is not absolute and normalised, or
holds a control or invisible character, before it changes anything."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from project_paths import REPO

from ansible_collections.ontap_ai.pod.plugins.modules.config_files import path_problem

MODULE = REPO / "ansible_collections" / "ontap_ai" / "pod" / "plugins" / "modules" / "config_files.py"


@pytest.mark.parametrize(("path", "problem"), [
    ("/etc/aipod/storage-net/60-aipod-eth1.network", None),
    ("/etc/aipod/../shadow", "is not an absolute, normalised path"),
    ("/etc//aipod/x", "is not an absolute, normalised path"),
    ("/etc/aipod/./x", "is not an absolute, normalised path"),
    ("etc/aipod/x", "is not an absolute, normalised path"),
    ("/etc/aipod/x\n/etc/shadow", "holds U+000A"),
    ("/etc/aipod/x\u202e", "holds U+202E"),
    ("", "is not a path"),
])
def test_paths_that_are_not_plain_absolute_paths_are_refused(path, problem):
    assert path_problem(path) == problem


def test_the_module_refuses_before_it_changes_anything(tmp_path):
    target = tmp_path / "kept.conf"
    args = {"ANSIBLE_MODULE_ARGS": {"files": [{"dest": str(target), "content": "x\n", "mode": "0644"},
                                              {"dest": f"{tmp_path}/../escape.conf", "content": "y\n", "mode": "0644"}]}}
    run = subprocess.run([sys.executable, str(MODULE)], input=json.dumps(args), capture_output=True, text=True, cwd=REPO,
                         env={"PYTHONPATH": str(REPO)}, timeout=60)
    result = json.loads(run.stdout)
    assert result["failed"] and "refused before any change" in result["msg"] and "escape.conf" in result["msg"]
    assert not target.exists() and not (tmp_path.parent / "escape.conf").exists()
