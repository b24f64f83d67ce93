"""Decrypt with the vault secrets of the running ansible-playbook, for validation.

The command line loads the secrets (--vault-id, --ask-vault-pass, vault_identity_list, AWX's vault
credential) once and keeps them in ansible.parsing.vault.VaultSecretsContext. Validation decrypts
with exactly those, so what it accepts is what the run can read, and it never asks again.
"""
from __future__ import annotations

from collections.abc import Callable

from ansible.module_utils.common.text.converters import to_text
from ansible.parsing.vault import VaultLib, VaultSecretsContext


def run_decryptor() -> Callable[[str, str], str] | None:
    """decrypt(ciphertext, filename) -> plaintext with this run's secrets; raises when none of them fits.

    With no secret given at all every decryption fails, which is what the run itself would do.
    None outside a command that loaded vault secrets: then nothing is known to decrypt with.
    """
    context = VaultSecretsContext.current(optional=True)
    if context is None:
        return None
    vault = VaultLib(list(context.secrets))

    def decrypt(ciphertext: str, _filename: str) -> str:  # the file is named by the caller's finding
        return to_text(vault.decrypt(ciphertext))

    return decrypt
