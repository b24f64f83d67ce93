"""What the VM scenario's tests share: the lab's SSH and ansible-playbook on the scenario's inventory."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import time

from project_paths import REPO

SCENARIO = pathlib.Path(__file__).resolve().parents[1]
LAB_DIR = pathlib.Path(os.environ.get("AIPOD_LAB_DIR", REPO / ".lab")) / "vms"
SSH_CONFIG = str(LAB_DIR / "ssh_config")
DGX = "dgx01"


def ssh(vm: str, command: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(["ssh", "-F", SSH_CONFIG, vm, command], capture_output=True, text=True, timeout=timeout)


def playbook(name: str, *extra: str, env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess, float]:
    """ansible-playbook on molecule's inventory of this scenario (its environment: config, vault)."""
    inventory = os.path.dirname(os.environ["MOLECULE_INVENTORY_FILE"])
    environment = dict(os.environ, ANSIBLE_CALLBACK_RESULT_FORMAT="json", ANSIBLE_CALLBACK_FORMAT_PRETTY="false",
                       ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0", ANSIBLE_CACHE_PLUGIN="memory", **(env or {}))
    started = time.monotonic()
    run = subprocess.run([str(pathlib.Path(sys.executable).with_name("ansible-playbook")), "-i", inventory,
                          str(SCENARIO / name), *extra], capture_output=True, text=True, env=environment, cwd=REPO,
                         timeout=1800)
    return run, time.monotonic() - started
