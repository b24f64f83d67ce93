"""Rules of secrets and files: secrets in ansible-vault, none in plain text; the files the model names
lie inside the inventory, exist and are what they should be."""
from __future__ import annotations

import os
import ssl
import stat
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_datasets import model as datasets_model
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_monitoring import deploy, harvest
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.findings import Finding
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import display_path
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.rule_context import Context
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.yamlload import Budget, YamlProblem, load_with_lines


def secrets(ctx: Context) -> None:
    """Secrets the pod needs are in ansible-vault; none sits in a plain-text file."""
    for name, location in sorted(ctx.site.plaintext_secrets.items()):
        if ctx.site.source_kind == "exported":
            # An exported inventory carries whole-file vaults decrypted; where it lives (AWX's
            # database, a JSON file) is outside the model's files, so say so without stopping the run.
            ctx.findings.append(Finding("secret", "warning", (name,), f"secret '{name}' reaches this run in plain text through the inventory",
                                        "keep it in an inline !vault value (exported as __ansible_vault) or in an AWX credential",
                                        location))
            continue
        ctx.findings.append(Finding("secret", "error", (name,), f"secret '{name}' is stored in plain text",
                                    f"move it to an encrypted file: ansible-vault encrypt {location.file}", location))
    encrypted_unread = [f for f in ctx.site.files if f.encrypted and f.data is None]
    if encrypted_unread:
        return  # without the vault password the names inside cannot be checked
    needed = {"vault_ontap_admin_password": ("ontap",)}
    if any("trident_account" in svm for svm in ctx.svms):
        needed["vault_ontap_trident_password"] = ("ontap", "svms")
    if any("dataops_account" in svm for svm in ctx.svms):
        needed["vault_ontap_dataops_password"] = ("ontap", "svms")
    if harvest.account(ctx.model):
        needed[harvest.PASSWORD_VARIABLE] = ("monitoring", "enabled")
        if deploy.stack_plan(ctx.model)["install"]:
            needed[deploy.GRAFANA_PASSWORD_VARIABLE] = ("monitoring", "enabled")
    if ctx.switches:
        needed["vault_switch_admin_password"] = ("groups", "switches")
    if harvest.switch_account(ctx.model) and harvest.switch_pollers(ctx.model):
        needed[harvest.SWITCH_PASSWORD_VARIABLE] = ("monitoring", "harvest", "switches", "enabled")
    for copy_peer in datasets_model.peers_in_use(ctx.model):
        needed[datasets_model.peer_password_variable(copy_peer)] = ("ontap", "peers")
    if any(m.as_dict(b).get("driver") == "azure-netapp-files" for b in m.as_list(m.as_dict(ctx.model.get("trident")).get("backends"))):
        needed["vault_trident_anf_client_secret"] = ("trident", "backends")
    known = set(ctx.site.secrets) | set(ctx.site.plaintext_secrets)
    for name, path in needed.items():
        if name not in known:
            ctx.error("secret", path, f"the secret {name} is missing",
                      "add it to group_vars/all/vault.yml (ansible-vault edit) ")


MAX_SITE_FILE_BYTES = 1024 * 1024  # a CA bundle or a kubeconfig is a few kB
OUTSIDE_SWITCH = "allow_files_outside_inventory"
# The files the model names: (path, what it is, whether a missing file is only a warning).
SITE_FILES = ((("ontap", "ca_file"), "CA file", False),
              (("kubernetes", "existing", "kubeconfig"), "kubeconfig", True),
              (("gpu", "operator", "chart_file"), "chart archive", True),
              (("monitoring", "stack", "chart_file"), "chart archive", True),
              (("monitoring", "harvest", "switches", "ca_file"), "CA file", False))


def files(ctx: Context) -> None:
    """Files the model names lie inside the inventory (or the site's files directory) unless the site's
    switch allows others; they exist and are what they should be (checked only when asked: the lab
    creates some at start). A file that is not what it should be is described, never quoted."""
    allow_outside = m.as_dict(m.as_dict(ctx.model.get("pod")).get("security")).get(OUTSIDE_SWITCH) is True
    base = display_path(ctx.site.files_dir or ctx.site.inventory_dir)
    for path, what, missing_is_warning in SITE_FILES:
        parent: Any = ctx.model
        for key in path:
            parent = m.as_dict(parent).get(key)
        if not isinstance(parent, str) or (path[0] == "kubernetes" and
                                           m.as_dict(ctx.model.get("kubernetes")).get("deployment") != "existing"):
            continue
        value = parent
        outside = ctx.site.site_file_outside(value)
        if outside and not allow_outside:
            ctx.error("file", path, f"{what} {value} {outside}; the site's files are inside {base}, and the validator reads no other",
                      f"put it under {base} (e.g. files/) and name it relative to it, "
                      f"or set pod.security.{OUTSIDE_SWITCH}: true")
            continue
        if not ctx.check_files:
            continue
        target = ctx.site.site_file(value)
        problem = _file_problem(target, what)
        if problem == "missing":
            if missing_is_warning:
                ctx.warning("file", path, f"{what} {value} does not exist (yet) (looked at {target})",
                            f"the {'GPU' if path[0] == 'gpu' else 'Kubernetes'} layer will fail until it exists")
            else:
                ctx.error("file", path, f"{what} {value} does not exist (looked at {target})",
                          _CA_HINTS.get(path, "put the CA bundle that signed the cluster's certificate there"))
        elif problem:
            ctx.error("file", path, f"{what} {value} {problem}", _CA_HINTS.get(path) or _FILE_HINTS[what])
        elif what == "CA file" and _holds_private_key(target):
            ctx.warning("file", path, f"{what} {value} also holds a private key",
                        "keep only the CA certificates in it; a private key does not belong in the inventory")


# The switches' CA is not the cluster's: say which certificates it must have signed.
_CA_HINTS = {("monitoring", "harvest", "switches", "ca_file"):
             "give the PEM bundle of the CA that signed each Nexus switch's NX-API certificate (nxapi certificate)"}
_FILE_HINTS = {"CA file": "give the PEM bundle of the CA that signed the cluster's certificate",
               "chart archive": "give the chart as helm pull or helm package writes it (a .tgz)",
               "kubeconfig": "give the cluster's kubeconfig (kubectl config view --raw --minify)"}


def _starts_with(target: str, magic: bytes) -> bool:
    try:
        with open(target, "rb") as handle:
            return handle.read(len(magic)) == magic
    except OSError:
        return False


def _file_problem(target: str, what: str) -> str | None:
    """'missing', or what is wrong with the file in words (never its content), or None."""
    if "\x00" in target:
        return "is not a path (it holds a NUL character)"
    try:
        status = os.stat(target)
    except OSError:
        return "missing"
    if not stat.S_ISREG(status.st_mode):
        return "is not a regular file"
    if what == "chart archive":
        # Helm reads it; the validator only checks that it is a gzip archive, as helm package writes it.
        return None if _starts_with(target, b"\x1f\x8b") else "is not a gzip archive (a .tgz chart)"
    if status.st_size > MAX_SITE_FILE_BYTES:
        return f"is {status.st_size:,} bytes, more than a {what} holds ({MAX_SITE_FILE_BYTES:,} at most); not read"
    if what == "CA file":
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        try:
            context.load_verify_locations(cafile=target)
        except (ssl.SSLError, OSError, ValueError):
            if _holds(target, b"-----BEGIN CERTIFICATE-----"):
                return "holds a PEM block that OpenSSL cannot read as a certificate or key"
            return "holds no PEM certificate" + (" (it holds a private key)" if _holds_private_key(target) else "")
        return None if context.cert_store_stats().get("x509") else "holds no PEM certificate"
    try:
        with open(target, encoding="utf-8") as handle:
            data, _lines, _duplicates = load_with_lines(handle.read(), Budget(file_bytes=MAX_SITE_FILE_BYTES))
    except (OSError, UnicodeDecodeError, YamlProblem):
        return "is not a YAML kubeconfig"
    if not isinstance(data, dict) or not isinstance(data.get("clusters"), list):
        return "is not a kubeconfig (no clusters list)"
    return None


def _holds_private_key(target: str) -> bool:
    return _holds(target, b"PRIVATE KEY-----")


def _holds(target: str, marker: bytes) -> bool:
    try:
        with open(target, "rb") as handle:
            return marker in handle.read(MAX_SITE_FILE_BYTES)
    except OSError:
        return False
