"""YAML loading that keeps where every value was written.

Ansible's own loader tags values with their origin, but only through private APIs; the site
validator needs file and line for every key path, and must also catch what YAML silently
accepts (a key written twice in one mapping keeps only the last value).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import yaml

VAULT_HEADER = "$ANSIBLE_VAULT;"


class VaultValue(str):
    """An inline `!vault` value: its plaintext is never needed (nor shown) by the validator."""


class YamlProblem(Exception):
    """A file that is not valid YAML, with the line where parsing stopped."""

    def __init__(self, message: str, line: int | None):
        super().__init__(message)
        self.line = line


# libyaml's parser keeps line marks too and is several times faster than the pure-Python one.
_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BaseLoader):  # type: ignore[misc, valid-type]
    """Safe loader that also reads Ansible's !vault and !unsafe tags."""


_Loader.add_constructor("!vault", lambda loader, node: VaultValue("<vaulted>"))
_Loader.add_constructor("!unsafe", lambda loader, node: str(loader.construct_scalar(node)))


def load_with_lines(text: str) -> tuple[Any, dict[tuple, int], list[tuple[tuple, int, int]]]:
    """Parse one YAML document.

    Returns (data, lines, duplicates): lines maps each key path to the 1-based line of its value
    (for mapping keys, the line of the key); duplicates lists (path, first_line, second_line) for
    keys written twice in one mapping.
    """
    try:
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise YamlProblem(f"{exc.problem or exc}", mark.line + 1 if mark else None) from None
    except yaml.YAMLError as exc:
        raise YamlProblem(str(exc), None) from None
    lines: dict[tuple, int] = {}
    duplicates: list[tuple[tuple, int, int]] = []
    if node is not None:
        _index(node, (), lines, duplicates)
    return data, lines, duplicates


def _index(node: yaml.Node, path: tuple, lines: dict, duplicates: list) -> None:
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: dict[Any, int] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                continue
            key = _scalar_key(key_node)
            key_line = key_node.start_mark.line + 1
            if key in seen:
                duplicates.append((path + (key,), seen[key], key_line))
            seen[key] = key_line
            # A key's line is where the key is written, which is what an editor jumps to.
            lines[path + (key,)] = key_line
            _index(value_node, path + (key,), lines, duplicates)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _index(item, path + (index,), lines, duplicates)


def _scalar_key(node: yaml.ScalarNode) -> Any:
    """The key as YAML would construct it (so 1 and '1' differ as they do in the data)."""
    resolved = node.tag
    if resolved == "tag:yaml.org,2002:int":
        try:
            return int(node.value)
        except ValueError:
            return node.value
    return node.value


def is_vault_file(text: str) -> bool:
    return text.lstrip().startswith(VAULT_HEADER)


Decryptor = Callable[[str, str], str]
"""decrypt(ciphertext, filename) -> plaintext; raises if it cannot."""
