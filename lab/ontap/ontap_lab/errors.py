"""ONTAP's error style: an HTTP status and a body ``{"error": {"message", "code", "target"}}``.

The codes are those ONTAP uses for the same conditions where known (4: entry doesn't exist,
262179: unexpected argument, 262196: field cannot be set, 262197: invalid value, 6: not
authorised); object-specific conflicts carry ONTAP-style codes that clients only display.
"""
from __future__ import annotations

from typing import Any


class OntapError(Exception):
    """An error ONTAP would answer with; raised anywhere below the router, rendered once."""

    def __init__(self, status: int, code: str | int, message: str, target: str | None = None):
        super().__init__(message)
        self.status = status
        self.code = str(code)
        self.message = message
        self.target = target

    def body(self) -> dict[str, Any]:
        error: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.target:
            error["target"] = self.target
        return {"error": error}


class JobError(OntapError):
    """A failure ONTAP reports through the job of an asynchronous write, not in the HTTP answer."""


def not_found(what: str = "entry doesn't exist", target: str | None = None) -> OntapError:
    return OntapError(404, 4, what, target)


def invalid_value(field: str, value: Any, allowed: str | None = None) -> OntapError:
    hint = f" ({allowed})" if allowed else ""
    return OntapError(400, 262197, f'"{value}" is an invalid value for field "{field}"{hint}', field)


def unexpected_argument(field: str) -> OntapError:
    return OntapError(400, 262179, f'Unexpected argument "{field}".', field)


def cannot_set(field: str) -> OntapError:
    return OntapError(400, 262196, f'Field "{field}" cannot be set in this operation.', field)


def missing(field: str) -> OntapError:
    return OntapError(400, 2, f'Missing value for field "{field}". It is required for this operation.', field)


def duplicate(message: str, code: str | int = 1, target: str | None = None) -> OntapError:
    return OntapError(409, code, message, target)


def conflict(message: str, code: str | int = 2, target: str | None = None) -> OntapError:
    return OntapError(400, code, message, target)
