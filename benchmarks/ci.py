#!/usr/bin/env python3
"""Benchmark: CI's `.ci/run` on a fresh clone, stage by stage.

Clones the repository (its committed HEAD) into a new directory, runs `.ci/run` there and prints the
stage table that scripts/test.sh writes (.cache/ci/stages.tsv) as a Markdown table, with the wall
time of the whole command. docs/benchmarks.md keeps one column per measured landing.

--cold runs with an empty HOME, so that pip's and Go's caches (under ~/.cache and ~/go) start empty,
as on a new machine; the machine's Debian packages and podman's image store stay as they are.

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


def stages(clone: Path) -> list[tuple[str, int]]:
    rows = []
    for line in (clone / ".cache" / "ci" / "stages.tsv").read_text().splitlines():
        name, seconds, *_ = line.split("\t")
        rows.append((name, int(seconds)))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cold", action="store_true", help="empty HOME: no pip or Go cache")
    parser.add_argument("--keep", action="store_true", help="keep the clone")
    parser.add_argument("--workdir", type=Path, help="where to clone (default: a new temporary directory)")
    args = parser.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="aipod-ci-"))
    clone = work / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    environment = dict(os.environ)
    if args.cold:
        home = work / "home"
        home.mkdir(parents=True, exist_ok=True)
        environment.update(HOME=str(home), GOPATH=str(home / "go"), GOCACHE=str(home / ".cache" / "go-build"))
    started = time.monotonic()
    result = subprocess.run([str(clone / ".ci" / "run")], cwd=clone, env=environment)
    wall = time.monotonic() - started
    print(f"\n.ci/run on a fresh clone ({'nothing cached' if args.cold else 'machine caches warm'}): "
          f"exit {result.returncode}, {wall:.0f} s wall\n")
    print("| stage | seconds |\n|---|---|")
    for name, seconds in stages(clone):
        print(f"| {name} | {seconds} |")
    print(f"| **wall time** | **{wall:.0f}** |")
    if not args.keep and not args.workdir:
        subprocess.run([str(clone / "lab" / "lab"), "stop"], cwd=clone, capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
