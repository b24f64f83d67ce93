"""The cluster's objects, persisted to one JSON file, and the hook that realises LIF addresses.

Records are kept in ONTAP's own output shape (what a ``fields=**`` GET returns, minus ``_links``
and minus fields computed from other objects, such as a broadcast domain's ports). Each write
request ends with ``Store.save``: the file is replaced atomically, so a restart at any moment
finds either the state before or the state after the request.
"""
from __future__ import annotations

import copy
import hashlib
import json
import os
import secrets
import tempfile
import threading
import uuid as uuidlib
from collections.abc import Iterator
from typing import Any, Protocol

STATE_VERSION = 1
PASSWORD_HISTORY = 6


def new_uuid() -> str:
    return str(uuidlib.uuid4())


class Realiser(Protocol):
    """Makes the endpoint's LIFs real somewhere (e.g. addresses on a host the lab creates).

    Called after a LIF is created, changed or deleted (before/after are full interface records,
    None when absent), and once at start-up with every LIF so a realiser can resynchronise.
    """

    def lif_changed(self, before: dict | None, after: dict | None) -> None: ...

    def resync(self, lifs: list[dict]) -> None: ...


class NullRealiser:
    """The default: LIF addresses live only in the endpoint's state."""

    def lif_changed(self, before: dict | None, after: dict | None) -> None:
        return None

    def resync(self, lifs: list[dict]) -> None:
        return None


class State:
    """All objects of one cluster: ``objects[collection][key] = record`` in creation order."""

    def __init__(self, data: dict | None = None):
        self.data: dict[str, Any] = data or {"version": STATE_VERSION, "cluster": {}, "objects": {},
                                              "counters": {}, "passwords": {}}

    # -- objects
    @property
    def cluster(self) -> dict:
        return self.data["cluster"]

    def collection(self, name: str) -> dict[str, dict]:
        return self.data["objects"].setdefault(name, {})

    def records(self, name: str) -> list[dict]:
        return list(self.collection(name).values())

    def get(self, name: str, key: str) -> dict | None:
        return self.collection(name).get(key)

    def put(self, name: str, key: str, record: dict) -> dict:
        self.collection(name)[key] = record
        return record

    def remove(self, name: str, key: str) -> dict | None:
        return self.collection(name).pop(key, None)

    def find(self, name: str, /, **criteria: Any) -> Iterator[dict]:
        """Records whose dotted fields equal the criteria: find('ports', **{'node.name': 'n1'})."""
        for record in self.collection(name).values():
            if all(_dig(record, field) == value for field, value in criteria.items()):
                yield record

    def first(self, name: str, /, **criteria: Any) -> dict | None:
        return next(self.find(name, **criteria), None)

    def next_number(self, counter: str, start: int = 1) -> int:
        value = self.data["counters"].get(counter, start)
        self.data["counters"][counter] = value + 1
        return value

    # -- passwords: salted PBKDF2 hashes, newest first, never the password itself
    def set_password(self, account_key: str, password: str) -> None:
        salt = secrets.token_hex(16)
        digest = _hash(password, salt)
        history = self.data["passwords"].setdefault(account_key, [])
        history.insert(0, {"salt": salt, "hash": digest})
        del history[PASSWORD_HISTORY:]

    def check_password(self, account_key: str, password: str) -> bool:
        history = self.data["passwords"].get(account_key) or []
        return bool(history) and secrets.compare_digest(history[0]["hash"], _hash(password, history[0]["salt"]))

    def password_was_used(self, account_key: str, password: str) -> bool:
        return any(secrets.compare_digest(entry["hash"], _hash(password, entry["salt"]))
                   for entry in self.data["passwords"].get(account_key) or [])

    def forget_password(self, account_key: str) -> None:
        self.data["passwords"].pop(account_key, None)

    def snapshot(self) -> dict:
        return copy.deepcopy(self.data)


def _hash(password: str, salt: str) -> str:
    return hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), bytes.fromhex(salt), 20000).hex()


def _dig(record: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(record, dict):
            return None
        record = record.get(part)
    return record


class Store:
    """Where the state lives on disk: one JSON file, replaced atomically on every save."""

    def __init__(self, path: str):
        self.path = path
        self._lock = threading.Lock()

    def exists(self) -> bool:
        return os.path.isfile(self.path)

    def load(self) -> State:
        with open(self.path, encoding="utf-8") as handle:
            data = json.load(handle)
        if data.get("version") != STATE_VERSION:
            raise ValueError(f"{self.path}: state version {data.get('version')} is not {STATE_VERSION}")
        return State(data)

    def save(self, state: State) -> None:
        with self._lock:
            directory = os.path.dirname(os.path.abspath(self.path))
            os.makedirs(directory, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=".state-", dir=directory)
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    json.dump(state.data, out, indent=1, sort_keys=False)
                    out.flush()
                    os.fsync(out.fileno())
                os.chmod(temporary, 0o600)
                os.replace(temporary, self.path)
            except BaseException:
                if os.path.exists(temporary):
                    os.unlink(temporary)
                raise
