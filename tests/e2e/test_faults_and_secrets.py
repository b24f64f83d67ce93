"""The main job under faults, and with every secret kept out of what it prints and writes.

1. Secrets: from a factory-fresh ONTAP endpoint (so the run sets the Trident account's password),
   the whole site at -vvv; the output and every file the run wrote hold no value of the lab vault.
2. Faults: from a factory-fresh ONTAP endpoint answering 10% of calls with errors, and one DGX
   stand-in stopped mid-run, the site ends with a failure summary naming what failed; with the
   host back and the faults cleared, a re-run converges: no duplicate objects, no FlexGroup
   deleted or shrunk, and a further run changes nothing.
"""
from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest
from corpus import lab_secret_values
from lab_support import BIN, lab, lab_hosts, last_report, ontap_ctl, podman, recap
from project_paths import REPO

pytestmark = [pytest.mark.lab, pytest.mark.slow, pytest.mark.release_check]
SKIP_DIRS = {".git", ".venv", ".lab", "collections", "__pycache__"}


@pytest.fixture(scope="module")
def running_lab():
    started = lab("start")
    assert started.returncode == 0, started.stdout + started.stderr


def factory_ontap() -> None:
    reset = lab("start", "ontap", env={"AIPOD_LAB_ONTAP_FACTORY": "1"})
    assert reset.returncode == 0, reset.stdout + reset.stderr


def run_env(tmp_path: Path) -> dict:
    temporary = tmp_path / "tmp"
    temporary.mkdir(exist_ok=True)
    return dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0",
                PATH=f"{BIN}:{os.environ.get('PATH', '')}", TMPDIR=str(temporary),
                ANSIBLE_LOCAL_TEMP=str(temporary / "ansible-local"))


def site(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "ansible-playbook"), "playbooks/site.yml", *args], cwd=REPO, env=run_env(tmp_path),
                          capture_output=True, text=True, timeout=3600)


def files_written_since(started: float, roots: list[Path]) -> list[Path]:
    written = []
    for root in roots:
        for directory, subdirectories, files in os.walk(root):
            subdirectories[:] = [d for d in subdirectories if d not in SKIP_DIRS]
            for name in files:
                path = Path(directory) / name
                try:
                    if path.is_file() and path.stat().st_mtime >= started:
                        written.append(path)
                except OSError:
                    continue
    return written


def test_no_secret_in_the_output_or_the_files_of_a_verbose_site_run(running_lab, tmp_path):
    secrets = lab_secret_values()
    assert len(secrets) >= 4 and all(len(s) >= 12 for s in secrets)
    factory_ontap()
    started = time.time() - 1
    result = site(tmp_path, "-vvv")
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-5000:]
    assert "Set the Trident account's password" in output or "trident" in output.lower()
    leaked = [index for index, secret in enumerate(secrets) if secret in output]
    assert not leaked, f"secret(s) {leaked} of the lab vault appear in the -vvv output"
    written = files_written_since(started, [REPO, tmp_path, Path.home() / ".ansible"])
    assert any(path.name == "report.json" for path in written), "the run wrote no report"
    for path in written:
        data = path.read_bytes()
        hits = [index for index, secret in enumerate(secrets) if secret.encode() in data]
        assert not hits, f"{path} holds secret(s) {hits}"


def ontap_objects() -> dict:
    exported = subprocess.run([str(REPO / "lab" / "ontap" / "ctl"), "export"], cwd=REPO, capture_output=True, text=True,
                              check=True, timeout=120)
    return json.loads(exported.stdout)


def names(records: list[dict], *fields: str) -> list[tuple]:
    def value(record: dict, field: str):
        for part in field.split("."):
            record = (record or {}).get(part) if isinstance(record, dict) else None
        return record

    return [tuple(value(record, field) for field in fields) for record in records]


def test_faults_end_in_a_clear_summary_and_a_rerun_converges(running_lab, tmp_path):
    factory_ontap()
    victim = sorted(lab_hosts())[-1]
    container = lab_hosts()[victim]
    ontap_ctl("faults", "--error-rate", "0.1", "--error-status", "503", "--error-phase", "mixed", "--seed", "11")
    try:
        process = subprocess.Popen([str(BIN / "ansible-playbook"), "playbooks/site.yml"], cwd=REPO, env=run_env(tmp_path),
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        lines: list[str] = []
        stopped = threading.Event()

        def read() -> None:
            for line in process.stdout:
                lines.append(line)
                # Mid-run: once the storage layer has finished, before the compute layer reaches the hosts.
                if line.startswith("==> layer storage:") and not stopped.is_set():
                    podman("stop", "--time", "0", container)
                    stopped.set()

        reader = threading.Thread(target=read)
        reader.start()
        process.wait(timeout=3600)
        reader.join()
    finally:
        ontap_ctl("clear-faults")
    output = "".join(lines)
    assert stopped.is_set(), output[-4000:]
    faults = ontap_ctl("counters", "--since", "0")["faults"]
    assert faults > 0, "the endpoint injected no fault"
    assert process.returncode != 0
    summary = output[output.index("==> site.yml: FAILED"):]
    assert "failures:" in summary
    assert f"{victim}:" in summary and "UNREACHABLE" in summary, summary

    before = ontap_objects()
    sizes_before = {name: size for name, size in names(before.get("volumes", []), "name", "size")}

    back = lab("start", "hosts")
    assert back.returncode == 0, back.stdout + back.stderr
    rerun = site(tmp_path)
    assert rerun.returncode == 0, rerun.stdout[-6000:]

    after = ontap_objects()
    for collection, fields in (("ip_interfaces", ("svm.name", "name")), ("volumes", ("svm.name", "name")),
                               ("export_policies", ("svm.name", "name")), ("svms", ("name",)),
                               ("broadcast_domains", ("ipspace.name", "name"))):
        keys = names(after.get(collection, []), *fields)
        assert len(keys) == len(set(keys)), f"duplicate {collection}: {sorted(keys)}"
    sizes_after = {name: size for name, size in names(after.get("volumes", []), "name", "size")}
    for name, size in sizes_before.items():
        assert name in sizes_after, f"volume {name} was deleted"
        assert sizes_after[name] >= size, f"volume {name} shrank from {size} to {sizes_after[name]}"
    assert last_report()["ok"] is True

    again = site(tmp_path)
    assert again.returncode == 0
    assert all(counts["changed"] == 0 for counts in recap(again.stdout).values()), again.stdout[-4000:]
