"""Running the main job against the project's lab from tests, and reading what the lab saw."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from project_paths import REPO

BIN = Path(sys.executable).parent
LAB_DIR = REPO / ".lab"
RECAP = re.compile(r"^(\S+)\s+:\s+ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)


def lab(*args: str, env: dict | None = None, timeout: int = 1800) -> subprocess.CompletedProcess:
    return subprocess.run([str(REPO / "lab" / "lab"), *args], cwd=REPO, capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, **(env or {})))


def ontap_ctl(*args: str) -> dict:
    result = subprocess.run([str(REPO / "lab" / "ontap" / "ctl"), *args], cwd=REPO, capture_output=True, text=True,
                            timeout=120, check=True)
    return json.loads(result.stdout)


def playbook(*args: str, env: dict | None = None, timeout: int = 3600) -> subprocess.CompletedProcess:
    environment = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0",
                       PATH=f"{BIN}:{os.environ.get('PATH', '')}", **(env or {}))
    return subprocess.run([str(BIN / "ansible-playbook"), *args], cwd=REPO, env=environment, capture_output=True,
                          text=True, timeout=timeout)


def recap(output: str) -> dict[str, dict[str, int]]:
    """Per host: ok, changed, unreachable, failed of the PLAY RECAP."""
    return {host: {"ok": int(ok), "changed": int(changed), "unreachable": int(unreachable), "failed": int(failed)}
            for host, ok, changed, unreachable, failed in RECAP.findall(output)}


def switch_states() -> dict[str, str]:
    """Digest of each lab switch's running-config state."""
    return {path.parent.name: hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted((LAB_DIR / "nxos").glob("*/state.json"))}


def _podman_env() -> dict:
    description = json.loads((LAB_DIR / "hosts" / "lab.json").read_text())
    return dict(os.environ, CONTAINERS_CONF=description["containers_conf"])


def lab_hosts() -> dict[str, str]:
    """DGX stand-in name -> container."""
    description = json.loads((LAB_DIR / "hosts" / "lab.json").read_text())
    return {name: host["container"] for name, host in description["hosts"].items()}


def ssh_logins() -> dict[str, int]:
    """Accepted SSH logins so far on each DGX stand-in (from its own sshd journal)."""
    counts = {}
    for name, container in lab_hosts().items():
        result = subprocess.run(["podman", "exec", container, "journalctl", "-u", "ssh", "--no-pager", "-q", "-o", "cat"],
                                env=_podman_env(), capture_output=True, text=True, timeout=60)
        counts[name] = sum(1 for line in result.stdout.splitlines() if line.startswith("Accepted "))
    return counts


def podman(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["podman", *args], env=_podman_env(), capture_output=True, text=True, timeout=300, check=check)


def lab_inventory_copy(name: str) -> Path:
    """A fresh copy of inventories/lab at .lab/inventories/<name> for a test to edit (its lab file paths made absolute)."""
    copy = LAB_DIR / "inventories" / name
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(REPO / "inventories" / "lab", copy)
    for path in copy.rglob("*.yml"):  # the lab's files, named relative to inventories/lab
        path.write_text(path.read_text().replace("../../.lab/", f"{LAB_DIR}/"))
    return copy


def last_report() -> dict:
    return json.loads((REPO / "reports" / "latest" / "report.json").read_text())


# A lab test whose last step proved the whole lab converged (a site run on the lab's inventory that
# changed nothing and verified without a failure) hands that proof to the next lab test only, which
# then need not converge the lab again. Any lab test that starts voids an unused proof (tests/conftest.py),
# so a test that changes the lab in between can never pass a stale one on.
_PROOF = {"handed": "", "usable": ""}


def hand_on_converged(by: str) -> None:
    """Called last by a test, right after it proved the lab converged; `by` says how."""
    _PROOF["handed"] = by


def lab_test_starts() -> None:
    _PROOF["usable"], _PROOF["handed"] = _PROOF["handed"], ""


def converged_by_previous_test() -> str:
    """How the previous lab test proved the lab converged, or "" when it did not."""
    return _PROOF["usable"]


def run_proves_converged(output: str) -> bool:
    """The site run's recap has no change and no failure, and its report's verification no failure."""
    hosts = recap(output)
    verification = last_report().get("verification", {})
    return bool(hosts) and not any(c["changed"] or c["failed"] or c["unreachable"] for c in hosts.values()) \
        and verification.get("exit_code") in (0, 2) and not verification.get("counts", {}).get("fail", 0)
