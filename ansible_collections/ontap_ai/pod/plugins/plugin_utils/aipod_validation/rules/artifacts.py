"""Rules of what a run downloads and executes: artifact URLs travel over TLS.

The DeepOps release, the Kubespray release, Python and Galaxy requirements, the Trident chart or
manifests, the VolumeSnapshot CRDs and Kubespray's own offline mirrors are fetched and then run
with root rights on the pod. Over plain HTTP (or FTP) anyone on the path can replace them, so such
a URL is refused unless the site says, with pod.security.allow_plain_http_artifacts, that it
mirrors them without TLS. file:// (a copy on the provisioning host) and oci:// (Helm's registries,
TLS unless told otherwise) are fine.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.findings import Finding
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.rule_context import Context
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.yamlload import VaultValue

PLAIN_SCHEMES = ("http", "ftp")
SWITCH = "allow_plain_http_artifacts"
# Model keys whose values are fetched and executed (or applied) by the run. (trident.install.image_registry
# is a registry's host[:port]/path, without a scheme: the schema holds it to that form.)
MODEL_URLS = (
    ("kubernetes", "deepops", "release_url"),
    ("trident", "install", "chart_repo"),
    ("trident", "install", "manifests_url"),
    ("gpu", "operator", "chart_repo"),
)
NOT_A_URL = re.compile(r"[\s\x00-\x1f\x7f]")
# RFC 3986: unreserved, reserved and '%'. Anything else ('"', '<', '`', '\\', '{', non-ASCII) must be
# percent-encoded, so a URL holding it raw was not written as one.
URL_CHARACTERS = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*")
# Role variables whose download is checked against a checksum variable of the same role.
CHECKSUMS = {("kubernetes", "deepops", "release_url"): "deepops_cluster_release_checksum",
             "deepops_cluster_kubespray_url": "deepops_cluster_kubespray_checksum"}
HINT = f"use https:// (or file:// for a copy on the provisioning host); for a site mirror without TLS set pod.security.{SWITCH}: true"


def plain_scheme(value: Any) -> str | None:
    """'http' for 'http://mirror/x' (any case), else None: the scheme when it carries no TLS."""
    if not isinstance(value, str) or "://" not in value:
        return None
    try:
        scheme = urlsplit(value.strip()).scheme.lower()
    except ValueError:
        return None
    return scheme if scheme in PLAIN_SCHEMES else None


def _user_part(value: str) -> tuple[bool, bool]:
    """(has a user part, is read differently by parsers) of a URL's text after its scheme.

    RFC 3986 ends the authority at the first '/', '?' or '#'. An '@' after one of them is not a user
    part to urllib either, but a '#' or '?' inside a password ('https://u:p#w@host') moves the host
    to 'u' for one reader and to 'host' for a person: any '@' before the path counts as a user part,
    and one with '?', '#' or a second '@' before it is ambiguous."""
    rest = value.split("://", 1)[1] if "://" in value else ""
    head = rest.split("/", 1)[0]
    if "@" not in head:
        return False, False
    before = head[:head.rindex("@")]
    return True, any(mark in before for mark in "?#@")


def credential_problem(value: str) -> str | None:
    """A URL that carries a credential (a token or a password in its user part), in words, never
    naming it: such a URL would be printed and stored with the inventory in plain text."""
    user, _ambiguous = _user_part(value)
    if user:
        return "carries a user part (a token or a password, not shown) in a plain-text vars file"
    return None


CREDENTIAL_HINT = ("take the credential out of the URL: serve the artifact from a mirror that needs none in its URL, or "
                   "keep the whole URL in group_vars/all/vault.yml (ansible-vault edit) and name it from here")


def url_problem(value: str) -> str | None:
    """What makes a model URL unusable whatever its scheme, in words; None when it is a URL."""
    if NOT_A_URL.search(value):
        return "is not a URL: it holds white space or control characters"
    if not URL_CHARACTERS.fullmatch(value):
        return "is not a URL: it holds characters a URL must percent-encode (quotes, '<', '>', '`', '{', '}', '\\', '^', '|' or non-ASCII)"
    if _user_part(value)[1]:
        return ("is read differently by URL parsers: '?', '#' or '@' in its user part moves its host "
                "(percent-encode them in the user part)")
    try:
        parts = urlsplit(value)
        host = parts.hostname
    except ValueError:
        return "is not a URL"
    if parts.scheme.lower() == "file":
        if parts.netloc or not parts.path.startswith("/"):
            return "is a file:// URL without an absolute path (write file:///path/on/the/provisioning/host)"
        return None
    return None if host else "names no host"


def shown(url: str) -> str:
    """The URL as a finding may show it: nothing of a user part (a token alone is a secret), whatever a
    parser would take for one; at most 120 characters."""
    text = url.strip()
    if _user_part(text)[0]:
        scheme, rest = text.split("://", 1)
        head, _sep, path = rest.partition("/")
        text = f"{scheme}://<user part not shown>@{head.rsplit('@', 1)[1]}" + (f"/{path}" if _sep else "")
    return text if len(text) <= 120 else text[:117] + "..."


def _encrypted(ctx: Context, path: tuple) -> bool:
    """The model value at path comes from an encrypted vars file (or is an inline !vault value)."""
    origin = ctx.site.origins.get(path[:1]) or ctx.site.origins.get(path)
    return bool(origin) and bool(getattr(origin[0], "encrypted", False))


def _strings(value: Any, path: tuple) -> Iterator[tuple[tuple, str]]:
    """(path, text) of every string inside an override value, skipping proxy settings (a proxy's URL
    names the proxy, not an artifact: HTTPS travels through it end to end)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            if "proxy" not in str(key).lower():
                yield from _strings(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, path + (index,))


def artifact_urls(ctx: Context) -> None:
    """Artifact URLs of the model and of the inventory's role variables use TLS, unless the site's switch allows a mirror without it."""
    allowed = m.as_dict(m.as_dict(ctx.model.get("pod")).get("security")).get(SWITCH) is True
    overrides = ctx.site.role_overrides
    plain: list[tuple[tuple | str, str]] = []  # (model path or role variable, url)
    for path in MODEL_URLS:
        parent: Any = ctx.model
        for key in path:
            parent = m.as_dict(parent).get(key)
        if isinstance(parent, str) and url_problem(parent):
            ctx.error("artifact-url", path, f"{shown(parent)!r} {url_problem(parent)}", "write the full URL of the artifact or its mirror")
            continue
        if isinstance(parent, str) and credential_problem(parent) and not _encrypted(ctx, path):
            ctx.error("secret", path, f"{shown(parent)!r} {credential_problem(parent)}", CREDENTIAL_HINT)
            continue
        scheme = plain_scheme(parent)
        if scheme is None:
            continue
        plain.append((path, parent))
        if not allowed:
            ctx.error("artifact-url", path, f"{shown(parent)} is downloaded over plain {scheme.upper()} and then run on the pod; "
                      "anyone on the path could replace it", HINT)
    for key, entries in sorted(overrides.items()):
        for vars_file, inner in entries:
            if vars_file.data is None:
                continue
            for sub, text in _strings(vars_file.data.get(inner[0]), ()):
                if "://" in text and (problem := url_problem(text) if _user_part(text)[1] else None):
                    ctx.findings.append(Finding("artifact-url", "error", inner + sub, f"{shown(text)!r} {problem}",
                                                "write the full URL of the artifact or its mirror", vars_file.locate(inner + sub)))
                    continue
                if not vars_file.encrypted and not isinstance(text, VaultValue) and credential_problem(text):
                    ctx.findings.append(Finding("secret", "error", inner + sub, f"{shown(text)!r} {credential_problem(text)}",
                                                CREDENTIAL_HINT, vars_file.locate(inner + sub)))
                    continue
                scheme = plain_scheme(text)
                if scheme is None:
                    continue
                plain.append((key, text))
                if not allowed:
                    ctx.findings.append(Finding(
                        "artifact-url", "error", inner + sub,
                        f"{shown(text)} is downloaded over plain {scheme.upper()} and then run on the pod; anyone on the path could replace it",
                        HINT, vars_file.locate(inner + sub)))
    if not allowed:
        return
    # Allowed: a release tarball fetched without TLS should at least be checked against its checksum.
    for where, url in plain:
        checksum_variable = CHECKSUMS.get(where)
        if checksum_variable is None:
            continue
        if any(isinstance(f.data, dict) and f.data.get(checksum_variable) for f, _inner in overrides.get(checksum_variable, [])):
            continue
        if isinstance(where, tuple):
            path, location = where, ctx.site.locate(where)
        else:
            path, location = (where,), overrides[where][0][0].locate((where,))
        ctx.findings.append(Finding(
            "artifact-url", "warning", path,
            f"{shown(url)} is fetched over plain HTTP (pod.security.{SWITCH}) with no checksum to check it against",
            f"set {checksum_variable}: sha256:<hex> in the inventory's group_vars/all", location))
