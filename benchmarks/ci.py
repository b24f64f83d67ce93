#!/usr/bin/env python3
"""Benchmark: CI's `.ci/run` on a fresh clone, stage by stage.

Clones the repository (its committed HEAD) into a new directory, runs `.ci/run` there and prints the
stage table that scripts/test.sh writes (.cache/ci/stages.tsv) as a Markdown table, with the wall
time of the whole command. docs/benchmarks.md keeps one column per measured landing.

--cold points every cache the suite fills at empty directories of its own, as on a new machine:
pip's and Go's (module and build caches), the machine-level caches of the Debian 13 root
(AIPOD_TOOLCHAIN_CACHE) and of the lab's Kubernetes binaries (AIPOD_KUBE_CACHE), and podman's
image store (CONTAINERS_STORAGE_CONF: a store of its own, so the lab's images are built again).
HOME stays: with HOME away from the password database's home directory, ansible-core's async jobs
on a local connection are written to one place and looked for in the other ("could not find
job"), and libssh reads another known_hosts than the lab writes. The machine's Debian packages stay
as they are. Stop any other lab first: the lab's networks and addresses are the machine's.

    python3 benchmarks/ci.py [--cold] [--keep] [--workdir DIR]
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def stages(clone: Path) -> tuple[list[tuple[str, int, int]], int | None]:
    """The stage rows (name, seconds, CPU seconds) and the machine's busy CPU seconds over the run."""
    rows, machine_busy = [], None
    for line in (clone / ".cache" / "ci" / "stages.tsv").read_text().splitlines():
        name, seconds, third = line.split("\t")
        if name == "machine busy CPU s":
            machine_busy = int(third)
        elif name != "total":
            rows.append((name, int(seconds), int(third)))
    return rows, machine_busy


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cold", action="store_true", help="empty caches: pip, Go, the toolchain root, the lab's Kubernetes, podman's images")
    parser.add_argument("--keep", action="store_true", help="keep the clone")
    parser.add_argument("--workdir", type=Path, help="where to clone (default: a new temporary directory)")
    args = parser.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="aipod-ci-"))
    clone = work / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    environment = dict(os.environ)
    if args.cold:
        caches = work / "caches"
        environment.update(
            PIP_CACHE_DIR=str(caches / "pip"), GOPATH=str(caches / "go"), GOMODCACHE=str(caches / "go" / "pkg" / "mod"),
            GOCACHE=str(caches / "go-build"), AIPOD_TOOLCHAIN_CACHE=str(caches / "aipod-toolchain"),
            AIPOD_KUBE_CACHE=str(caches / "aipod-lab-kubernetes"))
        for name in ("pip", "go", "go-build", "aipod-toolchain", "aipod-lab-kubernetes", "containers"):
            (caches / name).mkdir(parents=True, exist_ok=True)
        storage = caches / "containers" / "storage.conf"
        storage.write_text(f'[storage]\ndriver = "overlay"\ngraphroot = "{caches / "containers" / "storage"}"\n'
                           f'runroot = "{caches / "containers" / "run"}"\n')
        environment["CONTAINERS_STORAGE_CONF"] = str(storage)
    started = time.monotonic()
    result = subprocess.run([str(clone / ".ci" / "run")], cwd=clone, env=environment)
    wall = time.monotonic() - started
    print(f"\n.ci/run on a fresh clone ({'nothing cached' if args.cold else 'machine caches warm'}): "
          f"exit {result.returncode}, {wall:.0f} s wall\n")
    rows, machine_busy = stages(clone)
    print("| stage | seconds | CPU s |\n|---|---:|---:|")
    for name, seconds, cpu in rows:
        print(f"| {name} | {seconds} | {cpu} |")
    print(f"| **wall time** | **{wall:.0f}** | |")
    if machine_busy is not None:
        print(f"\nThe machine was busy {machine_busy} CPU s of {os.cpu_count() * wall:.0f} ({os.cpu_count()} cores).")
    if not args.keep and not args.workdir:
        subprocess.run([str(clone / "lab" / "lab"), "stop"], cwd=clone, capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
