"""The VM lab for tests: started through lab/lab (from its snapshots when they fit), reached over SSH.

tests/vms/conftest.py imports the fixture for the tests beside it.

The session starts `lab/lab start vms` once and stops the VMs at the end if it started them
(the next start restores the snapshot, so every session begins from the same booted state).
"""
from __future__ import annotations

import dataclasses
import json
import os
import shlex
import subprocess
import sys
import time

import pytest
from project_paths import REPO

sys.path.insert(0, str(REPO / "lab" / "vms"))

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site  # noqa: E402

VM_INVENTORY = REPO / "inventories" / "lab-vm"
LAB_DIR = os.environ.get("AIPOD_LAB_DIR", str(REPO / ".lab"))
START_TIMEOUT = 3600  # a cold start builds the image and boots every VM (minutes under TCG)


@dataclasses.dataclass
class VmLab:
    state: dict
    model: dict

    @property
    def ssh_config(self) -> str:
        return self.state["ssh_config"]

    def vm(self, name: str) -> dict:
        return next(vm for vm in self.state["vms"] if vm["name"] == name)

    def run(self, vm: str, command: str, timeout: float = 120) -> subprocess.CompletedProcess:
        return subprocess.run(["ssh", "-F", self.ssh_config, vm, command], capture_output=True, text=True,
                              timeout=timeout)

    def check(self, vm: str, command: str, timeout: float = 120) -> str:
        result = self.run(vm, command, timeout)
        assert result.returncode == 0, f"{vm}: {command}\n{result.stdout}\n{result.stderr}"
        return result.stdout

    def put(self, vm: str, path: str, text: str, mode: str = "0600") -> None:
        self.check(vm, f"install -D -m {mode} /dev/stdin {shlex.quote(path)} <<'EOF'\n{text}EOF")

    def wait_for(self, vm: str, command: str, predicate, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        output = ""
        while time.monotonic() < deadline:
            output = self.check(vm, command)
            if predicate(output):
                return output
            time.sleep(1)
        return output


def _lab(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = dict(os.environ, AIPOD_VMS_INVENTORY=str(VM_INVENTORY))
    return subprocess.run([str(REPO / "lab" / "lab"), *args, "vms"], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="session")
def vm_lab():
    was_running = _lab("status").returncode == 0
    started = _lab("start", timeout=START_TIMEOUT)
    assert started.returncode == 0, f"lab/lab start vms failed:\n{started.stdout}\n{started.stderr}"
    state = json.load(open(os.path.join(LAB_DIR, "vms", "lab.json")))
    yield VmLab(state=state, model=load_site(str(VM_INVENTORY)).model)
    if not was_running:
        stopped = _lab("stop")
        assert stopped.returncode == 0, stopped.stdout + stopped.stderr
