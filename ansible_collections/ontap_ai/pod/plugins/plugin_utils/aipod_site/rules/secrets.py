"""Rules of secrets and files: secrets in ansible-vault, none in plain text; the files the model names exist."""
from __future__ import annotations

import os

from .. import model as m
from ..findings import Finding
from .context import Context


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
    if ctx.switches:
        needed["vault_switch_admin_password"] = ("groups", "switches")
    if any(m.as_dict(b).get("driver") == "azure-netapp-files" for b in m.as_list(m.as_dict(ctx.model.get("trident")).get("backends"))):
        needed["vault_trident_anf_client_secret"] = ("trident", "backends")
    known = set(ctx.site.secrets) | set(ctx.site.plaintext_secrets)
    for name, path in needed.items():
        if name not in known:
            ctx.error("secret", path, f"the secret {name} is missing",
                      "add it to group_vars/all/vault.yml (ansible-vault edit) ")


def files(ctx: Context) -> None:
    """Files the model points at exist (checked only when asked: the lab creates some at start)."""
    if not ctx.check_files:
        return
    ca_file = m.as_dict(ctx.model.get("ontap")).get("ca_file")
    if isinstance(ca_file, str):
        path = ctx.site.site_file(ca_file)
        if not os.path.isfile(path):
            ctx.error("file", ("ontap", "ca_file"), f"CA file {ca_file} does not exist (looked at {path})",
                      "put the CA bundle that signed the cluster's certificate there")
        else:
            with open(path, encoding="utf-8", errors="replace") as handle:
                if "-----BEGIN CERTIFICATE-----" not in handle.read():
                    ctx.error("file", ("ontap", "ca_file"), f"{ca_file} holds no PEM certificate", "give a PEM CA bundle")
