"""The Galaxy mirror the execution-environment check builds from (lab/ee/galaxy_mirror.py): the artifacts it
packs install and verify with ansible-galaxy, and it answers the v3 requests ansible-galaxy sends."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from ee import galaxy_mirror

BIN = Path(sys.executable).parent


def make_collection(root: Path, namespace: str = "acme", name: str = "tools", version: str = "1.2.3",
                    listed_but_missing: bool = True, dependencies: dict | None = None) -> Path:
    """An installed collection whose FILES.json also lists a file that is not installed (as the ansible wheel's do)."""
    import hashlib

    collection = root / "ansible_collections" / namespace / name
    (collection / "plugins" / "filter").mkdir(parents=True)
    body = b"def x():\n    return 1\n"
    (collection / "plugins" / "filter" / "x.py").write_bytes(body)
    files = [{"name": ".", "ftype": "dir", "chksum_type": None, "chksum_sha256": None, "format": 1},
             {"name": "plugins", "ftype": "dir", "chksum_type": None, "chksum_sha256": None, "format": 1},
             {"name": "plugins/filter", "ftype": "dir", "chksum_type": None, "chksum_sha256": None, "format": 1},
             {"name": "plugins/filter/x.py", "ftype": "file", "chksum_type": "sha256",
              "chksum_sha256": hashlib.sha256(body).hexdigest(), "format": 1}]
    if listed_but_missing:
        files += [{"name": "tests", "ftype": "dir", "chksum_type": None, "chksum_sha256": None, "format": 1},
                  {"name": "tests/t.py", "ftype": "file", "chksum_type": "sha256", "chksum_sha256": "0" * 64, "format": 1}]
    (collection / "meta").mkdir()
    (collection / "meta" / "runtime.yml").write_text('requires_ansible: ">=2.16.0"\n')
    files.append({"name": "meta", "ftype": "dir", "chksum_type": None, "chksum_sha256": None, "format": 1})
    files.append({"name": "meta/runtime.yml", "ftype": "file", "chksum_type": "sha256",
                  "chksum_sha256": hashlib.sha256((collection / "meta" / "runtime.yml").read_bytes()).hexdigest(), "format": 1})
    files_json = json.dumps({"files": files, "format": 1}).encode()
    (collection / "FILES.json").write_bytes(files_json)
    manifest = {"collection_info": {"namespace": namespace, "name": name, "version": version,
                                    "dependencies": dependencies or {},
                                    "authors": ["a"], "readme": "README.md", "license": ["MIT"]},
                "file_manifest_file": {"name": "FILES.json", "ftype": "file", "chksum_type": "sha256",
                                       "chksum_sha256": hashlib.sha256(files_json).hexdigest(), "format": 1},
                "format": 1}
    (collection / "MANIFEST.json").write_text(json.dumps(manifest))
    return collection


def requirements(tmp_path: Path, version: str = "1.2.3") -> Path:
    path = tmp_path / "requirements.yml"
    path.write_text(f"collections:\n  - name: acme.tools\n    version: \"{version}\"\n")
    return path


def test_the_artifact_lists_only_what_is_installed(tmp_path):
    artifact = galaxy_mirror.pack(make_collection(tmp_path / "installed"))
    with tarfile.open(fileobj=__import__("io").BytesIO(artifact.data)) as tar:
        names = tar.getnames()
        files = json.loads(tar.extractfile("FILES.json").read())
    assert names[:2] == ["MANIFEST.json", "FILES.json"] and "plugins/filter/x.py" in names
    assert not any(name.startswith("tests") for name in names)
    assert [entry["name"] for entry in files["files"]] == [".", "plugins", "plugins/filter", "plugins/filter/x.py", "meta",
                                                          "meta/runtime.yml"]


def test_a_pin_the_installation_does_not_hold_is_refused(tmp_path):
    make_collection(tmp_path / "installed")
    with pytest.raises(galaxy_mirror.MirrorError, match=r"acme.tools 2.0.0 is pinned .* \(1.2.3\)"):
        galaxy_mirror.artifacts(requirements(tmp_path, "2.0.0"), [tmp_path / "installed"])
    with pytest.raises(galaxy_mirror.MirrorError, match=r"acme.tools >=1.3.0,<2.0.0 is pinned .* \(1.2.3\)"):
        galaxy_mirror.artifacts(requirements(tmp_path, ">=1.3.0,<2.0.0"), [tmp_path / "installed"])
    for unbounded in ("*", "<2.0.0"):
        with pytest.raises(galaxy_mirror.MirrorError, match="needs an exact version or a lower bound"):
            galaxy_mirror.artifacts(requirements(tmp_path, unbounded), [tmp_path / "installed"])


def test_bounds_are_served_from_the_first_copy_that_satisfies_them(tmp_path):
    make_collection(tmp_path / "installed")
    packed = galaxy_mirror.artifacts(requirements(tmp_path, ">=1.2.0,<2.0.0"), [tmp_path / "installed"])
    assert packed[("acme", "tools")].version == "1.2.3"


def test_the_v3_routes(tmp_path):
    make_collection(tmp_path / "installed")
    packed = galaxy_mirror.artifacts(requirements(tmp_path), [tmp_path / "installed"])
    status, _, body = galaxy_mirror.respond("/api/", packed)
    assert status == 200 and json.loads(body) == {"available_versions": {"v3": "v3/"}}
    status, _, body = galaxy_mirror.respond("/api/v3/collections/acme/tools/versions/?limit=100", packed)
    assert [entry["version"] for entry in json.loads(body)["data"]] == ["1.2.3"]
    status, _, body = galaxy_mirror.respond("/api/v3/collections/acme/tools/versions/1.2.3/", packed)
    detail = json.loads(body)
    assert detail["artifact"]["sha256"] == packed[("acme", "tools")].sha256
    status, content_type, data = galaxy_mirror.respond(detail["download_url"], packed)
    assert status == 200 and content_type == "application/gzip" and data == packed[("acme", "tools")].data
    assert galaxy_mirror.respond("/api/v3/collections/acme/other/", packed)[0] == 404
    assert galaxy_mirror.respond("/api/v3/collections/acme/tools/versions/9.9.9/", packed)[0] == 404


def test_ansible_galaxy_installs_and_verifies_from_it(tmp_path):
    make_collection(tmp_path / "installed")
    server = galaxy_mirror.serve(galaxy_mirror.artifacts(requirements(tmp_path), [tmp_path / "installed"]))
    host, port = server.server_address[:2]
    target = tmp_path / "target"
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=str(target), ANSIBLE_GALAXY_CACHE_DIR=str(tmp_path / "cache"),
               ANSIBLE_LOCAL_TEMP=str(tmp_path / "tmp"))
    try:
        installed = subprocess.run([str(BIN / "ansible-galaxy"), "collection", "install", "-r", str(requirements(tmp_path)),
                                    "-p", str(target), "--server", f"http://{host}:{port}/api/"],
                                   env=env, capture_output=True, text=True, timeout=120)
    finally:
        server.shutdown()
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert (target / "ansible_collections/acme/tools/plugins/filter/x.py").is_file()
    verified = subprocess.run([str(BIN / "ansible-galaxy"), "collection", "verify", "--offline", "acme.tools", "-p", str(target)],
                              env=env, capture_output=True, text=True, timeout=120)
    assert verified.returncode == 0 and "internally consistent" in verified.stdout, verified.stdout + verified.stderr


def test_dependencies_are_served_as_galaxy_resolves_them_with_requires_ansible(tmp_path):
    """community.general 13 depends on community.library_inventory_filtering_v1: a requirements file
    that names the first only still installs, as from Galaxy."""
    make_collection(tmp_path / "installed", dependencies={"acme.lib": ">=1.0.0"})
    make_collection(tmp_path / "installed", name="lib", version="1.1.5")
    packed = galaxy_mirror.artifacts(requirements(tmp_path), [tmp_path / "installed"])
    assert sorted(packed) == [("acme", "lib"), ("acme", "tools")]
    status, _, body = galaxy_mirror.respond("/api/v3/collections/acme/lib/versions/1.1.5/", packed)
    assert status == 200 and json.loads(body)["requires_ansible"] == ">=2.16.0"
    make_collection(tmp_path / "other", dependencies={"acme.lib": ">=2.0.0"})
    make_collection(tmp_path / "other", name="lib", version="1.1.5")
    with pytest.raises(galaxy_mirror.MirrorError, match=r"acme.lib >=2.0.0 is a dependency of acme.tools 1.2.3 but not installed"):
        galaxy_mirror.artifacts(requirements(tmp_path), [tmp_path / "other"])
