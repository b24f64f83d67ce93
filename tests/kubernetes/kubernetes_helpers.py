"""Running ansible-playbook from tests, with the repository's configuration and both vault ids."""
from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(sys.executable).parent
RECAP = re.compile(r"^\S+\s+:\s+ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)


def vault_ids(tmp_path: pathlib.Path) -> list[str]:
    """--vault-id arguments: the sample's documented password and the lab's file."""
    sample = tmp_path / "sample-vault-password"
    sample.write_text("aipod-sample-vault-password\n")
    return ["--vault-id", f"sample@{sample}", "--vault-id", f"lab@{REPO / 'inventories/lab/vault-password.txt'}"]


def run_playbook(tmp_path, *args, check=True, env=None) -> subprocess.CompletedProcess:
    environment = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_FORCE_COLOR="0",
                       PATH=f"{BIN}:{os.environ.get('PATH', '')}", **(env or {}))
    command = [str(BIN / "ansible-playbook"), *vault_ids(tmp_path), *args]
    result = subprocess.run(command, cwd=REPO, env=environment, capture_output=True, text=True, timeout=900)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(command)} failed ({result.returncode}):\n{result.stdout[-6000:]}\n{result.stderr[-3000:]}")
    return result


def recap(output: str) -> dict[str, int]:
    """ok/changed/failed of the last PLAY RECAP line."""
    found = RECAP.findall(output)
    assert found, f"no PLAY RECAP in:\n{output[-3000:]}"
    ok, changed, unreachable, failed = (int(x) for x in found[-1])
    return {"ok": ok, "changed": changed, "unreachable": unreachable, "failed": failed}


LAB_KUBERNETES = REPO / ".lab" / "kubernetes"
KUBECONFIG = LAB_KUBERNETES / "kubeconfig"


def lab(*args: str) -> subprocess.CompletedProcess:
    """lab/lab with these arguments, its output captured."""
    return subprocess.run([str(REPO / "lab" / "lab"), *args], cwd=REPO, capture_output=True, text=True, timeout=1800)


def lab_site_copy(root: pathlib.Path) -> pathlib.Path:
    """A copy of inventories/lab under root that adopts the lab's API server by absolute kubeconfig path."""
    inventory = root / "inventories" / "lab"
    shutil.copytree(REPO / "inventories" / "lab", inventory)
    # The lab inventory finds the lab's state (CA, keys) at ../../.lab, as from the repository.
    (root / ".lab").symlink_to(REPO / ".lab")
    path = inventory / "group_vars" / "all" / "kubernetes.yml"
    path.write_text(path.read_text().replace("../../.lab/kubernetes/kubeconfig", str(KUBECONFIG)))
    return inventory
