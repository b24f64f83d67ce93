#!/usr/bin/env python3
"""Make the collections of requirements.yml the ones Ansible loads, on every row of the support matrix.

Every row runs the same collection set: what the newest row's `ansible` package bundles, which
requirements.yml gives as lower bounds (docs/support-matrix.md). The `ansible` 12 and 13 packages
bundle older releases of some of them. A site with Galaxy access installs requirements.yml into
./collections (ansible.cfg searches it before the package); here Galaxy is unreachable, so the
collections that fall short are copied into ./collections from the newest row's `ansible` wheel,
downloaded from PyPI (it bundles exactly those versions). Run by scripts/bootstrap.sh with the
virtualenv's Python; prints what it did; exit 1 when a requirement cannot be met.
"""
from __future__ import annotations

import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

ROOT = pathlib.Path(__file__).resolve().parent.parent
TARGET = ROOT / "collections" / "ansible_collections"
WHEELS = ROOT / ".cache" / "wheels"


def requirements() -> dict[str, SpecifierSet]:
    entries = yaml.safe_load((ROOT / "requirements.yml").read_text())["collections"]
    return {entry["name"]: SpecifierSet(str(entry["version"])) for entry in entries}


def version_in(directory: pathlib.Path) -> str | None:
    manifest = directory / "MANIFEST.json"
    if not manifest.is_file():
        return None
    return json.loads(manifest.read_text())["collection_info"]["version"]


def loaded_version(name: str) -> str | None:
    """The version Ansible loads: ./collections first (ansible.cfg's collections_path), then the package."""
    namespace, collection = name.split(".")
    for base in [TARGET, *(pathlib.Path(p) / "ansible_collections" for p in sys.path if p)]:
        found = version_in(base / namespace / collection)
        if found:
            return found
    return None


def newest_row_wheel() -> pathlib.Path:
    pin = re.search(r"^ansible==(\S+)$", (ROOT / "requirements.txt").read_text(), re.M)
    assert pin, "requirements.txt pins no `ansible`"
    wheel = WHEELS / f"ansible-{pin.group(1)}-py3-none-any.whl"
    if not wheel.is_file():
        WHEELS.mkdir(parents=True, exist_ok=True)
        print(f"==> collections: downloading the ansible {pin.group(1)} wheel (its bundled collections)", flush=True)
        # The wheel needs Python >= 3.12 to install, not to be read: ask for it as for Python 3.13.
        result = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps",
                                 "--only-binary=:all:", "--python-version", "3.13", f"ansible=={pin.group(1)}", "-d", str(WHEELS)],
                                capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"error: pip could not download ansible=={pin.group(1)}:\n{result.stderr}")
    return wheel


def copy_from_wheel(wheel: pathlib.Path, names: list[str]) -> None:
    with zipfile.ZipFile(wheel) as archive, tempfile.TemporaryDirectory(dir=ROOT / ".cache") as scratch:
        for name in names:
            prefix = "ansible_collections/" + name.replace(".", "/") + "/"
            archive.extractall(scratch, [member for member in archive.namelist() if member.startswith(prefix)])
            destination = TARGET / name.replace(".", "/")
            if destination.exists():
                shutil.rmtree(destination)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(pathlib.Path(scratch) / prefix), destination)


def main() -> int:
    wanted = requirements()
    short = {name: loaded_version(name) for name, spec in wanted.items()
             if loaded_version(name) is None or Version(loaded_version(name)) not in spec}
    if short:
        wheel = newest_row_wheel()
        copy_from_wheel(wheel, sorted(short))
        for name, had in sorted(short.items()):
            print(f"==> collections: {name} {had or 'missing'} -> {loaded_version(name)} in collections/ (from {wheel.name})")
    unmet = {name: loaded_version(name) for name, spec in wanted.items()
             if loaded_version(name) is None or Version(loaded_version(name)) not in spec}
    if unmet:
        print(f"error: collections still outside requirements.yml: {unmet}", file=sys.stderr)
        return 1
    if not short:
        print("==> collections: every collection of requirements.yml is in place")
    return 0


if __name__ == "__main__":
    sys.exit(main())
