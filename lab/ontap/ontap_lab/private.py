"""A private copy of the lab's ONTAP endpoint, for tests and benchmarks that need a fresh cluster.

It has its own state directory, inventory copy and port: the copy keeps the layout
<root>/inventories/lab + <root>/.lab, so the inventory's relative ca_file
(../../.lab/ontap/pki/ca.pem) points at this lab's CA, and its own port leaves a running main lab
alone. It is started and stopped through lab/lab like every lab component.
"""
from __future__ import annotations

import os
import pathlib
import re
import shutil
import socket
import subprocess

from .cli import REPO as _REPO
from .cli import LabClient, settings_from_env

REPO = pathlib.Path(_REPO)

RECAP = re.compile(r"^(?P<host>\S+)\s*:\s*ok=(?P<ok>\d+)\s+changed=(?P<changed>\d+)\s+unreachable=(?P<unreachable>\d+)"
                   r"\s+failed=(?P<failed>\d+)", re.M)


def free_port(host: str) -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


class PrivateLab:
    def __init__(self, root: pathlib.Path, base_inventory: pathlib.Path | None = None):
        self.root = root
        self.inventory = root / "inventories" / "lab"
        shutil.copytree(base_inventory or REPO / "inventories" / "lab", self.inventory)
        ontap_vars = self.inventory / "group_vars" / "all" / "ontap.yml"
        text = ontap_vars.read_text()
        self.port = free_port("127.0.10.1")
        ontap_vars.write_text(re.sub(r"https_port: \d+", f"https_port: {self.port}", text, count=1))
        self.env = dict(os.environ, AIPOD_LAB_DIR=str(root / ".lab"), AIPOD_LAB_INVENTORY=str(self.inventory),
                        ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0",
                        PATH=f"{REPO / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")

    def lab(self, verb: str) -> None:
        """lab/lab start|stop ontap, confirmed by lab/lab status (lab/lab start exits 1 when the
        component started is not the last of its list, so its exit code alone proves nothing)."""
        done = subprocess.run([str(REPO / "lab" / "lab"), verb, "ontap"], env=self.env, cwd=REPO,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
        status = subprocess.run([str(REPO / "lab" / "lab"), "status", "ontap"], env=self.env, cwd=REPO,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
        wanted = 0 if verb == "start" else 1
        assert status.returncode == wanted, f"lab/lab {verb} ontap: {done.stdout}\n{status.stdout}"

    def client(self) -> LabClient:
        return LabClient(settings_from_env(str(self.inventory), str(self.root / ".lab")))

    def records(self, path: str) -> list[dict]:
        """The records of a collection GET (``/api/...``) on this lab, as admin."""
        status, body = self.client().request("GET", path)
        if status != 200:
            raise AssertionError(f"GET {path} answered {status}: {body}")
        return body["records"]

    def play(self, *args: str, log: pathlib.Path | None = None) -> tuple[int, dict[str, dict[str, int]], str]:
        """Run playbooks/storage.yml against this lab: (rc, recap per host, output)."""
        done = subprocess.run([str(REPO / ".venv" / "bin" / "ansible-playbook"), "-i", str(self.inventory / "hosts.yml"),
                               str(REPO / "playbooks" / "storage.yml"), *args], env=self.env, cwd=REPO,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
        if log is not None:
            log.write_text(done.stdout)
        recap = {m["host"]: {k: int(m[k]) for k in ("ok", "changed", "unreachable", "failed")} for m in RECAP.finditer(done.stdout)}
        return done.returncode, recap, done.stdout
