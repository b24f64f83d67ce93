#!/usr/bin/env python3
"""Time the Trident layer against the lab's API server, in one run, and print the ratios.

    .venv/bin/python benchmarks/kubernetes_layer.py

Restarts lab/kubernetes (a fresh datastore; the binaries come from the machine's cache), then
times: the lab start, a check-mode preview on the empty cluster, the first apply, the second
(idempotent) apply and the verification. Prints seconds, the changed counts and the ratios
against the first apply. Wall-clock figures depend on the machine's load: compare the ratios.
"""
from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
BIN = pathlib.Path(sys.executable).parent
KUBE_VERSION = os.environ.get("AIPOD_LAB_KUBE_VERSION") or (REPO / "lab" / "kubernetes" / "version").read_text().strip()
RECAP = re.compile(r"^\S+\s+:\s+ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)


def timed(command: list[str]) -> tuple[float, str]:
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), PATH=f"{BIN}:{os.environ.get('PATH', '')}")
    started = time.monotonic()
    result = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
    elapsed = time.monotonic() - started
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-2000:]}")
    return elapsed, result.stdout


def changed(output: str) -> str:
    found = RECAP.findall(output)
    return found[-1][1] if found else "-"


def main() -> None:
    subprocess.run([str(REPO / "lab" / "lab"), "stop", "kubernetes"], cwd=REPO, check=True, capture_output=True)
    rows = []
    seconds, _ = timed([str(REPO / "lab" / "lab"), "start", "kubernetes"])
    rows.append(("lab start kubernetes (cached binaries)", seconds, "-"))
    playbook = [str(BIN / "ansible-playbook"), "-i", "inventories/lab"]
    for label, extra in (("check mode on the empty cluster", ["playbooks/trident.yml", "--check", "--diff"]),
                         ("first apply", ["playbooks/trident.yml"]),
                         ("second apply", ["playbooks/trident.yml"]),
                         ("verification", ["playbooks/verify_kubernetes.yml"])):
        seconds, output = timed(playbook + extra)
        rows.append((label, seconds, changed(output)))
    first = rows[2][1]
    load = os.getloadavg()[0]
    print(f"Trident layer on the lab API server (Kubernetes {KUBE_VERSION}), load average {load:.1f} on {os.cpu_count()} CPUs")
    print(f"{'step':42} {'seconds':>8} {'changed':>8} {'x first apply':>14}")
    for label, seconds, count in rows:
        print(f"{label:42} {seconds:8.1f} {count:>8} {seconds / first:14.2f}")


if __name__ == "__main__":
    main()
