"""ansible-doc renders the compute layer's modules and filters (DOCUMENTATION/EXAMPLES/RETURN parse)."""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
ANSIBLE_DOC = pathlib.Path(sys.executable).parent / "ansible-doc"


@pytest.mark.parametrize("kind, names", [
    ("module", ["ontap_ai.pod.dgx_host_facts", "ontap_ai.pod.dgx_verify", "ontap_ai.pod.sysctl_runtime", "ontap_ai.pod.config_files"]),
    ("filter", [f"ontap_ai.pod.{name}" for name in ("aipod_host_storage_plan", "aipod_compute_plans", "aipod_storage_network_files",
                                                    "aipod_tuning_files", "aipod_roce_unit", "aipod_ring_settings", "aipod_compute_pending")]),
])
def test_ansible_doc_renders(kind, names):
    result = subprocess.run([str(ANSIBLE_DOC), "-t", kind, "--json", *names], cwd=REPO, capture_output=True, text=True,
                            env=dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg")), check=False)
    assert result.returncode == 0, result.stderr
    assert "ERROR" not in result.stderr and "WARNING" not in result.stderr, result.stderr
    docs = json.loads(result.stdout)
    assert sorted(docs) == sorted(names)
    for name in names:
        assert docs[name]["doc"]["short_description"], name
        assert docs[name]["examples"], name
        assert docs[name]["return"], name
