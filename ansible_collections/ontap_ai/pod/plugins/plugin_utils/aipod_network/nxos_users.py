"""Local NX-OS users the switch layer keeps, and the hash their passwords travel as.

The one such user is Harvest's (monitoring.harvest.switches): NX-OS's read-only network-operator
role, for the CiscoRest collector over NX-API. Its password goes to the switch as a SHA-256-crypt
hash (`username NAME password 5 $5$...`), so the clear text never reaches the CLI, its history or
its accounting log. NX-OS shows no password back, so a user is compared by its name and roles only.
"""
from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending

CRYPT_ALPHABET = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
# The byte triples SHA-256-crypt encodes, in its order (Drepper, "Unix crypt using SHA-256 and SHA-512").
SHA256_CRYPT_ORDER = ((0, 10, 20), (21, 1, 11), (12, 22, 2), (3, 13, 23), (24, 4, 14), (15, 25, 5), (6, 16, 26), (27, 7, 17),
                      (18, 28, 8), (9, 19, 29))
SHA256_CRYPT_ROUNDS = 5000  # the default, which the hash then does not name
SALT_LENGTH = 16  # SHA-256-crypt's longest
# NX-OS writes 6-character salts, and cisco.nxos's nxos_user takes no other length.
NXOS_SALT_LENGTH = 6


def _repeated(digest: bytes, length: int) -> bytes:
    return (digest * (length // len(digest) + 1))[:length]


def sha256_crypt(password: str, salt: str) -> str:
    """$5$<salt>$<hash>: SHA-256-crypt with the default rounds, as NX-OS's `password 5` takes it."""
    if not salt or any(char not in CRYPT_ALPHABET for char in salt):
        raise ValueError("a SHA-256-crypt salt is 1-16 characters of [./0-9A-Za-z]")
    key, salt_bytes = password.encode("utf-8"), salt[:SALT_LENGTH].encode("ascii")
    alternate = hashlib.sha256(key + salt_bytes + key).digest()
    first = hashlib.sha256(key + salt_bytes + _repeated(alternate, len(key)))
    length = len(key)
    while length:
        first.update(alternate if length & 1 else key)
        length >>= 1
    digest = first.digest()
    p_bytes = _repeated(hashlib.sha256(key * len(key)).digest(), len(key))
    s_bytes = _repeated(hashlib.sha256(salt_bytes * (16 + digest[0])).digest(), len(salt_bytes))
    for round_ in range(SHA256_CRYPT_ROUNDS):
        step = hashlib.sha256(p_bytes if round_ & 1 else digest)
        if round_ % 3:
            step.update(s_bytes)
        if round_ % 7:
            step.update(p_bytes)
        step.update(digest if round_ & 1 else p_bytes)
        digest = step.digest()
    encoded = []

    def put(high: int, middle: int, low: int, count: int) -> None:
        word = (high << 16) | (middle << 8) | low
        for _digit in range(count):
            encoded.append(CRYPT_ALPHABET[word & 0x3F])
            word >>= 6

    for high, middle, low in SHA256_CRYPT_ORDER:
        put(digest[high], digest[middle], digest[low], 4)
    put(0, digest[31], digest[30], 3)
    return f"$5${salt[:SALT_LENGTH]}${''.join(encoded)}"


def new_salt() -> str:
    return "".join(secrets.choice(CRYPT_ALPHABET) for _position in range(NXOS_SALT_LENGTH))


def configured_users(running: str) -> dict[str, list[str]]:
    """Local users of the running configuration and their roles: `username NAME ... role ROLE` lines
    (NX-OS puts a user's further roles on lines of their own)."""
    users: dict[str, list[str]] = {}
    for line in running.splitlines():
        words = line.split()
        if len(words) < 2 or words[0] != "username":
            continue
        roles = users.setdefault(words[1], [])
        for index, word in enumerate(words[:-1]):
            if word == "role" and words[index + 1] not in roles:
                roles.append(words[index + 1])
    return users


def pending_users(wanted: list[Mapping[str, Any]], running: str) -> list[dict[str, Any]]:
    """A wanted user the switch lacks (create), or one with no role yet (modify). A user of that name
    with another role is the site's: refused, never taken over (it would keep that role's rights).
    Other users are left alone."""
    have = configured_users(running)
    found = []
    for user in wanted:
        name, role = str(user["name"]), str(user["role"])
        if name not in have:
            found.append(aipod_pending.item(f"user {name}", "role", None, role, action="create",
                                            reason=f"Harvest's read-only user ({role}) for NX-API"))
        elif [r for r in have[name] if r != role]:
            found.append(aipod_pending.item(
                f"user {name}", "role", have[name], role, action="refuse",
                reason=f"the switch already has a user {name} with the role(s) {', '.join(have[name])}; the bundle does not "
                       "take it over: name Harvest's user otherwise (monitoring.harvest.switches.username)"))
        elif role not in have[name]:
            found.append(aipod_pending.item(f"user {name}", "role", have[name], role))
    return found
