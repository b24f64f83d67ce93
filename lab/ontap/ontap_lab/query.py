"""Collection GETs the ONTAP way: ``fields=`` selection, query filters, ``order_by`` and paging.

Filters follow ONTAP's query syntax on any (dotted) field: ``name=vol*`` (wildcard),
``name=a|b`` (or), ``name=!a`` (not), ``size=>100``, ``size=<=100``, ``size=1..5`` (range),
``enabled=true``. A filter on a field inside a list (``aggregates.name=aggr1``) matches a record
when any element matches; one on a reference names it (``svm=vs1`` is ``svm.name=vs1``).
``return_records=false`` answers the count without the records.
"""
from __future__ import annotations

import fnmatch
import urllib.parse
from collections.abc import Iterable
from typing import Any

from .errors import OntapError, unexpected_argument

# Query parameters that are not field filters.
RESERVED = {"fields", "max_records", "return_records", "return_timeout", "order_by", "start.index",
            "return_unmatched_nested_array_objects", "continue_on_failure", "serial_records"}
DEFAULT_MAX_RECORDS = 10000


# ---------------------------------------------------------------------------- values by path
def values_at(record: Any, path: list[str]) -> list[Any]:
    """Every value at a dotted path; lists on the way fan out."""
    if not path:
        if isinstance(record, list):
            return list(record)
        return [record]
    if isinstance(record, list):
        found: list[Any] = []
        for item in record:
            found.extend(values_at(item, path))
        return found
    if not isinstance(record, dict) or path[0] not in record:
        return []
    return values_at(record[path[0]], path[1:])


# ---------------------------------------------------------------------------- fields=
def parse_fields(raw: Iterable[str]) -> list[str]:
    selected: list[str] = []
    for chunk in raw:
        selected.extend(part.strip() for part in str(chunk).split(",") if part.strip())
    return selected


def check_fields(selected: list[str], known_roots: set[str]) -> None:
    for path in selected:
        root = path.split(".")[0]
        if root in ("*", "**"):
            continue
        if root not in known_roots:
            raise OntapError(400, 262197, f'The value "{path}" is invalid for field "fields".', "fields")


def _project(value: Any, path: list[str]) -> Any:
    """The part of value that path selects (None when absent)."""
    if isinstance(value, list):
        # Keep one entry per element (an empty one where the path is absent), so that several
        # paths into the same list merge element by element.
        items = [_project(item, path) for item in value]
        if value and all(item is None for item in items):
            return None
        return [{} if item is None else item for item in items]
    if not path or path[0] in ("*", "**"):
        return value
    if not isinstance(value, dict) or path[0] not in value:
        return None
    inner = _project(value[path[0]], path[1:])
    return None if inner is None else {path[0]: inner}


def _deep_merge(left: Any, right: Any) -> Any:
    if isinstance(left, dict) and isinstance(right, dict):
        merged = dict(left)
        for key, value in right.items():
            merged[key] = _deep_merge(merged[key], value) if key in merged else value
        return merged
    if isinstance(left, list) and isinstance(right, list) and len(left) == len(right):
        return [_deep_merge(a, b) for a, b in zip(left, right)]
    return right


def select(record: dict, selected: list[str], keys: Iterable[str]) -> dict:
    """The record reduced to the selected fields plus its keys and links (ONTAP always returns those)."""
    if any(path in ("*", "**") for path in selected):
        return record
    paths = list(selected) + [key for key in keys] + ["_links"]
    result: dict = {}
    for path in paths:
        part = _project(record, path.split("."))
        if part is not None:
            result = _deep_merge(result, part)
    return result


# ---------------------------------------------------------------------------- filters
def _as_number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _compare(value: Any, operator: str, operand: str) -> bool:
    number = _as_number(operand)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and number is not None:
        left, right = float(value), number
    else:
        left, right = str(value), operand
    return {"<": left < right, ">": left > right, "<=": left <= right, ">=": left >= right}[operator]  # type: ignore[operator]


def _term_matches(value: Any, term: str) -> bool:
    if isinstance(value, dict):
        # A query on a reference by its bare name (``svm=vs1``), ONTAP's shorthand for ``svm.name=vs1``.
        value = value.get("name")
        if value is None:
            return False
    for operator in ("<=", ">=", "<", ">"):
        if term.startswith(operator):
            return _compare(value, operator, term[len(operator):])
    if ".." in term:
        low, high = term.split("..", 1)
        return _compare(value, ">=", low) and _compare(value, "<=", high)
    if isinstance(value, bool):
        return term.lower() == str(value).lower()
    if isinstance(value, (int, float)):
        number = _as_number(term)
        return number is not None and float(value) == number
    if value is None:
        return term == "null"
    if "*" in term or "?" in term:
        return fnmatch.fnmatchcase(str(value), term)
    return str(value) == term


def matches(record: dict, field: str, expression: str) -> bool:
    values = values_at(record, field.split("."))
    for alternative in expression.split("|"):
        negate = alternative.startswith("!")
        term = alternative[1:] if negate else alternative
        if negate:
            if not any(_term_matches(value, term) for value in values):
                return True
        elif any(_term_matches(value, term) for value in values):
            return True
    return False


def query_filters(params: dict[str, list[str]], known_roots: set[str], consumed: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """(field, expression) filters of a query; ``consumed`` parameters are the endpoint's own switches."""
    filters = []
    for key, values in params.items():
        if key in RESERVED or key in consumed or key.startswith("start."):
            continue
        if key.split(".")[0] not in known_roots:
            raise unexpected_argument(key)
        for value in values:
            filters.append((key, value))
    return filters


def apply_filters(records: list[dict], filters: list[tuple[str, str]]) -> list[dict]:
    return [record for record in records if all(matches(record, field, expr) for field, expr in filters)]


# ---------------------------------------------------------------------------- order and paging
def order(records: list[dict], params: dict[str, list[str]]) -> list[dict]:
    for spec in reversed(parse_fields(params.get("order_by", []))):
        parts = spec.split()
        field, descending = parts[0], len(parts) > 1 and parts[1].lower() == "desc"

        def key(record: dict, field: str = field) -> tuple:
            found = values_at(record, field.split("."))
            return (0, str(found[0])) if found else (1, "")
        records = sorted(records, key=key, reverse=descending)
    return records


def page(records: list[dict], params: dict[str, list[str]], path: str) -> tuple[list[dict], str | None]:
    """(records of this page, href of the next page or None)."""
    try:
        start = int((params.get("start.index") or ["0"])[0])
        limit = int((params.get("max_records") or [str(DEFAULT_MAX_RECORDS)])[0])
    except ValueError as error:
        raise OntapError(400, 262197, f"Invalid paging parameter: {error}", "max_records") from error
    if limit < 1:
        raise OntapError(400, 262197, '"max_records" must be at least 1.', "max_records")
    chunk = records[start:start + limit]
    if start + limit >= len(records):
        return chunk, None
    following = {key: value for key, value in params.items() if key != "start.index"}
    following["start.index"] = [str(start + limit)]
    return chunk, f"{path}?{urllib.parse.urlencode(following, doseq=True)}"
