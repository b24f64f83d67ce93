"""A sliced AWX job on the lab: each slice's inventory built as AWX builds it, the slices run side by side.

    .venv/bin/python lab/ee/sliced_job.py [--slices 2] [--playbook playbooks/compute.yml] [--inventory DIR] [--work DIR] [--check]

AWX runs a job template with N slices as a workflow of N jobs that start together, each on its own
execution node (awx/main/models/jobs.py, create_unified_job). Each gets an inventory script that
prints the inventory with only its share of the hosts (awx/main/models/inventory.py,
get_script_data with get_sliced_hosts): the enabled hosts sorted by name, every N-th from the
slice's number - 1. Every group is kept, with its variables and children, its hosts cut to the
slice's; _meta.hostvars holds the slice's hosts only. The playbook learns no slice number; each
slice gets AWX's meta variables, among them awx_job_id (its own) and awx_workflow_job_id (the
sliced job's, the same in every slice).

Here each slice is an ansible-runner private data directory (project, inventory/hosts, env/) run
with `ansible-runner run` on this machine, as ee_check.py prepares a job (its exported inventory,
vault prompt and machine credential); the project is the repository itself. The job template's extra
variable `aipod_slice_group: "{{ awx_workflow_job_id }}"` (docs/execution-environment.md, Job
slicing) tells the bundle that it runs in a slice. The slices share a run-lock directory, as AWX's
execution nodes share a volume.

--slices 1 is the same job template without slicing: one job with every host, and no
aipod_slice_group (AWX starts no workflow for it). --inventory runs another lab inventory, such as a
larger pod from scripts/scale_site.py (the lab sized for it).

Prints one JSON document: per slice its hosts, exit status, recap, wall seconds and the CPU seconds
of its control process (ansible-runner and everything it started on this machine), and the run lock's
record. Exit 0 when every slice exits 0.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab" / "ee"))
import ee_check  # noqa: E402  (beside this file)

WORKFLOW_JOB_ID = 1842
FIRST_JOB_ID = 1843


def awx_sliced_hosts(hosts: list[str], number: int, count: int) -> list[str]:
    """AWX's share of slice `number` (1-based) of `count`: the hosts sorted by name, every count-th."""
    ordered = sorted(hosts)
    return ordered[number - 1::count] if count > 1 else ordered


def sliced_document(document: dict, number: int, count: int) -> dict:
    """The inventory script's document for one slice, from the whole inventory's export."""
    hostvars = document.get("_meta", {}).get("hostvars", {})
    every_host = set(hostvars)
    for name, group in document.items():
        if name != "_meta" and isinstance(group, dict):
            every_host.update(group.get("hosts") or [])
    share = set(awx_sliced_hosts(sorted(every_host), number, count))
    sliced: dict = {}
    for name, group in document.items():
        if name == "_meta" or not isinstance(group, dict):
            continue
        kept = dict(group)
        if "hosts" in group:
            kept["hosts"] = [host for host in group["hosts"] if host in share]
        sliced[name] = kept
    # AWX lists every host of the slice in _meta.hostvars, with {} for one without variables.
    sliced["_meta"] = {"hostvars": {host: hostvars.get(host, {}) for host in sorted(share)}}
    return sliced


def exported_inventory(inventory: Path) -> dict:
    """The inventory as AWX's inventory import stores it, its vault_* values inline-vaulted (ee_check.py)."""
    return ee_check.inline_vaulted(json.loads(ee_check.exported_inventory(inventory)))


def prepare_slice(directory: Path, document: dict, number: int, count: int, lock_dir: Path,
                  inventory: Path = ROOT / "inventories" / "lab") -> list[str]:
    """One slice's private data directory; its hosts in AWX's order."""
    shutil.rmtree(directory, ignore_errors=True)
    (directory / "inventory").mkdir(parents=True)
    (directory / "project").symlink_to(ROOT)
    sliced = sliced_document(document, number, count)
    ee_check.write_inventory_script(directory / "inventory" / "hosts", sliced)
    env = directory / "env"
    env.mkdir()
    ee_check.write_credentials(env)
    job_id = FIRST_JOB_ID + number - 1
    meta = {}
    for prefix in ("awx", "tower"):
        meta.update({f"{prefix}_job_id": job_id, f"{prefix}_job_launch_type": "workflow",
                     f"{prefix}_workflow_job_id": WORKFLOW_JOB_ID, f"{prefix}_workflow_job_name": "aipod compute (sliced)",
                     f"{prefix}_job_template_name": "aipod compute (sliced)"})
    if count == 1:  # no slicing: a plain job, outside any workflow
        meta = {name: value for name, value in meta.items() if "workflow" not in name}
        meta.update({f"{prefix}_job_launch_type": "manual" for prefix in ("awx", "tower")})
    # The job template's extra variable (docs/execution-environment.md), then AWX's meta variables.
    sliced_only = {"aipod_slice_group": "{{ awx_workflow_job_id }}"} if count > 1 else {}
    (env / "extravars").write_text(json.dumps({**sliced_only, **meta}))
    (env / "envvars").write_text(json.dumps({
        "AIPOD_SITE_FILES_DIR": str(inventory),
        "AIPOD_LAB_DIR": str(ee_check.LAB_DIR),
        "AIPOD_RUN_LOCK_DIR": str(lock_dir),
        "AIPOD_REPORT_ROOT": str(directory / "reports"),
        "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
        "ANSIBLE_INVENTORY_ENABLED": "ansible.builtin.script,ansible.builtin.yaml",
        "ANSIBLE_NOCOLOR": "1",
        "JOB_ID": str(job_id),
    }))
    return sorted(sliced["_meta"]["hostvars"])


def start_slice(directory: Path, playbook: str, check: bool) -> subprocess.Popen:
    command = [str(ee_check.VENV_BIN / "ansible-runner"), "run", str(directory), "-p", playbook, "--ident", "slice"]
    if check:
        command += ["--cmdline", f"--vault-id {ee_check.VAULT_ID}@prompt --check --diff"]
    log = open(directory / "output.log", "w")  # noqa: SIM115 - closed when the slice ends
    return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
                            env=dict(os.environ, PATH=f"{ee_check.VENV_BIN}:{os.environ['PATH']}"))


def run_slices(work: Path, count: int, playbook: str, check: bool, inventory: Path = ROOT / "inventories" / "lab") -> dict:
    document = exported_inventory(inventory)
    lock_dir = work / "locks"
    lock_dir.mkdir(parents=True, exist_ok=True)
    slices = []
    for number in range(1, count + 1):
        directory = work / f"slice{number}"
        slices.append({"number": number, "directory": directory,
                       "hosts": prepare_slice(directory, document, number, count, lock_dir, inventory)})
    started = time.monotonic()
    for entry in slices:
        entry["process"] = start_slice(entry["directory"], playbook, check)
        entry["started"] = time.monotonic()
    pending = {entry["process"].pid: entry for entry in slices}
    while pending:
        # wait4: the CPU of the slice's process tree on this machine (ansible-runner, ansible-playbook, its
        # workers and ssh), the control node's share; the DGX stand-ins' is not in it.
        pid, status, usage = os.wait4(-1, 0)
        entry = pending.pop(pid, None)
        if entry is None:
            continue
        entry["wall_seconds"] = round(time.monotonic() - entry["started"], 1)
        entry["cpu_seconds"] = round(usage.ru_utime + usage.ru_stime, 1)
        entry["rc"] = os.waitstatus_to_exitcode(status)
    output = {"slices": [], "wall_seconds": round(time.monotonic() - started, 1), "playbook": playbook}
    for entry in slices:
        text = (entry["directory"] / "output.log").read_text()
        output["slices"].append({"number": entry["number"], "hosts": entry["hosts"], "rc": entry["rc"],
                                 "wall_seconds": entry["wall_seconds"], "cpu_seconds": entry["cpu_seconds"],
                                 "recap": ee_check.recap(text), "log": str(entry["directory"] / "output.log")})
    records = sorted(lock_dir.glob("*.run.json"))
    output["lock_record"] = json.loads(records[0].read_text()) if records else None
    return output


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slices", type=int, default=2)
    parser.add_argument("--playbook", default="playbooks/compute.yml")
    parser.add_argument("--inventory", type=Path, default=ROOT / "inventories" / "lab")
    parser.add_argument("--work", type=Path, default=ROOT / ".cache" / "sliced-job")
    parser.add_argument("--check", action="store_true", help="run the slices in check mode (--check --diff)")
    args = parser.parse_args(argv)
    result = run_slices(args.work, args.slices, args.playbook, args.check, args.inventory.resolve())
    print(json.dumps(result, indent=2, default=str))
    return 0 if all(entry["rc"] == 0 for entry in result["slices"]) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
