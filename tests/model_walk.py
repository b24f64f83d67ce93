"""Walking a site model in tests: every leaf value with the path that reaches it."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def leaves(value: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """(path, value) of every value below `value` that is neither a dict nor a list."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, path + (index,))
    else:
        yield path, value
