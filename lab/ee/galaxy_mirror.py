"""A read-only Galaxy (API v3) mirror of installed collections, for building the execution environment offline.

Galaxy is unreachable here; the collections the bundle pins come from the `ansible` wheel in .venv.
An air-gapped site points `ansible-galaxy` at its own mirror (`--server`, the EE build argument
ANSIBLE_GALAXY_CLI_COLLECTION_OPTS); this module is that mirror for the release check: it packs each
pinned collection from its installed copy into a collection artifact (MANIFEST.json and FILES.json at
the top, as `ansible-galaxy collection build` makes them) and answers the v3 requests ansible-galaxy
sends while resolving and downloading (api root, collection, version list, version detail, artifact).

    python lab/ee/galaxy_mirror.py --port 8765 requirements.yml
"""
from __future__ import annotations

import argparse
import hashlib
import http.server
import io
import json
import pathlib
import tarfile
import threading
from dataclasses import dataclass
from urllib.parse import urlparse

import yaml
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

API_ROOT = "/api/"
V3 = "v3/"


class MirrorError(Exception):
    """A pinned collection is missing or not the pinned version; printed without a traceback."""


@dataclass(frozen=True)
class Artifact:
    namespace: str
    name: str
    version: str
    dependencies: dict
    data: bytes
    requires_ansible: str | None = None

    @property
    def filename(self) -> str:
        return f"{self.namespace}-{self.name}-{self.version}.tar.gz"

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def specifier(version: str) -> SpecifierSet:
    """Galaxy's version text as a specifier set: '1.2.3' is exact, '>=1.2.0,<2.0.0' bounds."""
    return SpecifierSet(version if version[:1] in "<>=!" else f"=={version}")


def pinned_collections(requirements: pathlib.Path) -> list[tuple[str, str]]:
    """(fqcn, versions) of every entry of a collections requirements file: an exact version or
    bounds such as '>=11.2.0,<12.0.0' (Galaxy's requirement syntax); '*' or no version is refused,
    so that the mirror serves a tested version."""
    document = yaml.safe_load(requirements.read_text()) or {}
    pins = []
    for entry in document.get("collections", []):
        version = str(entry.get("version", "")).strip()
        try:
            spec = specifier(version) if version and version != "*" else None
        except InvalidSpecifier:
            spec = None
        if spec is None or not any(s.operator in ("==", ">=", ">") for s in spec):
            raise MirrorError(f"{requirements}: {entry.get('name')} needs an exact version or a lower bound, not '{version}'")
        pins.append((entry["name"], version))
    return pins


def pack(collection_dir: pathlib.Path) -> Artifact:
    """The artifact of an installed collection: its files, with FILES.json and MANIFEST.json at the top.

    The `ansible` wheel installs collections without their tests/ (and a few other files) but keeps the
    upstream FILES.json; the artifact lists what is installed, and MANIFEST.json carries that list's hash,
    so `ansible-galaxy collection verify` of the result passes.
    """
    manifest = json.loads((collection_dir / "MANIFEST.json").read_text())
    files = json.loads((collection_dir / "FILES.json").read_text())
    files["files"] = [entry for entry in files["files"]
                      if entry["name"] == "." or (collection_dir / entry["name"]).is_file() == (entry["ftype"] == "file")
                      and (collection_dir / entry["name"]).exists()]
    files_json = json.dumps(files, indent=4, sort_keys=True).encode()
    manifest["file_manifest_file"]["chksum_sha256"] = hashlib.sha256(files_json).hexdigest()
    info = manifest["collection_info"]
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        for member, data in (("MANIFEST.json", json.dumps(manifest, indent=4, sort_keys=True).encode()),
                             ("FILES.json", files_json)):
            header = tarfile.TarInfo(member)
            header.size, header.mode = len(data), 0o644
            tar.addfile(header, io.BytesIO(data))
        for entry in files["files"]:
            if entry["name"] != ".":
                tar.add(collection_dir / entry["name"], arcname=entry["name"], recursive=False, filter=_normalised)
    runtime = collection_dir / "meta" / "runtime.yml"
    requires = (yaml.safe_load(runtime.read_text()) or {}).get("requires_ansible") if runtime.is_file() else None
    return Artifact(info["namespace"], info["name"], info["version"], info.get("dependencies") or {}, buffer.getvalue(),
                    str(requires) if requires else None)


def _normalised(member: tarfile.TarInfo) -> tarfile.TarInfo:
    member.uid = member.gid = 0
    member.uname = member.gname = ""
    return member


def artifacts(requirements: pathlib.Path, search_paths: list[pathlib.Path]) -> dict[tuple[str, str], Artifact]:
    """The required collections and the collections they depend on (as Galaxy would resolve them),
    each packed from the first search path whose copy satisfies what asks for it."""
    packed: dict[tuple[str, str], Artifact] = {}
    wanted = [(fqcn, version, requirements.name) for fqcn, version in pinned_collections(requirements)]
    while wanted:
        fqcn, version, asked_by = wanted.pop(0)
        namespace, name = fqcn.split(".", 1)
        if (namespace, name) in packed:
            continue
        found = []
        for root in search_paths:
            manifest = root / "ansible_collections" / namespace / name / "MANIFEST.json"
            if manifest.is_file():
                found.append(json.loads(manifest.read_text())["collection_info"]["version"])
                if version == "*" or Version(found[-1]) in specifier(version):
                    artifact = pack(manifest.parent)
                    packed[(namespace, name)] = artifact
                    wanted += [(dependency, str(spec), f"{fqcn} {artifact.version}")
                               for dependency, spec in sorted(artifact.dependencies.items())]
                    break
        else:
            have = ", ".join(found) or "none installed"
            where = "pinned in" if asked_by == requirements.name else "a dependency of"
            raise MirrorError(f"{fqcn} {version} is {where} {asked_by} but not installed ({have})")
    return packed


def respond(path: str, packed: dict[tuple[str, str], Artifact]) -> tuple[int, str, bytes]:
    """(status, content type, body) for a GET of `path` (with its query) on the mirror."""
    route = urlparse(path).path
    # The API root is /api/ (the URL to pass as --server); / answers as well, as galaxy.ansible.com does.
    parts = [part for part in route.removeprefix(API_ROOT.rstrip("/")).split("/") if part]
    if not parts:
        return _json({"available_versions": {"v3": V3}})
    if parts[:1] == ["download"] and len(parts) == 2:
        for artifact in packed.values():
            if artifact.filename == parts[1]:
                return 200, "application/gzip", artifact.data
        return _json({"detail": "not found"}, 404)
    if parts[:2] != ["v3", "collections"] or len(parts) < 4:
        return _json({"detail": "not found"}, 404)
    artifact = packed.get((parts[2], parts[3]))
    if artifact is None:
        return _json({"detail": "not found"}, 404)
    href = f"{API_ROOT}v3/collections/{artifact.namespace}/{artifact.name}/"
    if len(parts) == 4:
        return _json({"href": href, "namespace": artifact.namespace, "name": artifact.name,
                      "highest_version": {"href": f"{href}versions/{artifact.version}/", "version": artifact.version},
                      "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"})
    if len(parts) == 5 and parts[4] == "versions":
        return _json({"meta": {"count": 1}, "links": {"first": None, "previous": None, "next": None, "last": None},
                      "data": [{"version": artifact.version, "href": f"{href}versions/{artifact.version}/",
                                **({"requires_ansible": artifact.requires_ansible} if artifact.requires_ansible else {})}]})
    if len(parts) == 6 and parts[4] == "versions" and parts[5] == artifact.version:
        return _json({"href": f"{href}versions/{artifact.version}/", "version": artifact.version,
                      "namespace": {"name": artifact.namespace}, "collection": {"name": artifact.name},
                      "download_url": f"{API_ROOT}download/{artifact.filename}",
                      "artifact": {"filename": artifact.filename, "sha256": artifact.sha256, "size": len(artifact.data)},
                      "metadata": {"dependencies": artifact.dependencies}, "signatures": [],
                      **({"requires_ansible": artifact.requires_ansible} if artifact.requires_ansible else {})})
    return _json({"detail": "not found"}, 404)


def _json(document: dict, status: int = 200) -> tuple[int, str, bytes]:
    return status, "application/json", json.dumps(document).encode()


def serve(packed: dict[tuple[str, str], Artifact], host: str = "127.0.0.1", port: int = 0) -> http.server.ThreadingHTTPServer:
    """Start the mirror in a thread; the server's address is server.server_address. Stop with shutdown()."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            status, content_type, body = respond(self.path, packed)
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args) -> None:  # noqa: A002 (http.server's signature)
            pass

    server = http.server.ThreadingHTTPServer((host, port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("requirements", type=pathlib.Path)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--collections", type=pathlib.Path, action="append", required=True,
                        help="a directory holding ansible_collections/ (repeatable, searched in order)")
    args = parser.parse_args()
    try:
        packed = artifacts(args.requirements, args.collections)
    except MirrorError as error:
        print(f"galaxy mirror: {error}")
        return 2
    server = serve(packed, port=args.port)
    print(f"galaxy mirror: http://{server.server_address[0]}:{server.server_address[1]}/ serves "
          + ", ".join(f"{a.namespace}.{a.name} {a.version}" for a in packed.values()), flush=True)
    threading.Event().wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
