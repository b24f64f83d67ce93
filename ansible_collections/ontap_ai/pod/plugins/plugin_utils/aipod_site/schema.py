"""Level 1 of site validation: the JSON Schema (types, required keys, formats, enums, no unknown keys).

The schemas in schemas/ are the ones editors use through the yaml-language-server modeline.
Errors are rewritten into plain sentences with a fix, and located through the Site.
"""
from __future__ import annotations

import collections
import difflib
import functools
import json
import os
from collections.abc import Iterator
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.characters import shown_key
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.findings import Finding
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import GLOBAL_KEYS, HOST_KEYS, Site

try:
    import jsonschema
    from jsonschema import Draft202012Validator, FormatChecker, validators

    # JSON Schema counts 9000.0 as an integer; the roles would pass it on as a float (an MTU
    # written 9000.0 reached no broadcast domain). Integers are whole numbers written as such.
    StrictValidator = validators.extend(
        Draft202012Validator,
        type_checker=Draft202012Validator.TYPE_CHECKER.redefine(
            "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool)),
    )

    HAS_JSONSCHEMA = True
except ImportError:  # pragma: no cover - the toolchain pins jsonschema
    HAS_JSONSCHEMA = False

SCHEMA_DIR = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "schemas"))
TYPE_NAMES = {"object": "a mapping", "array": "a list", "string": "a string", "integer": "an integer",
              "number": "a number", "boolean": "true or false", "null": "empty"}


@functools.lru_cache(maxsize=4)
def load_schema(name: str, schema_dir: str = SCHEMA_DIR) -> dict:
    with open(os.path.join(schema_dir, name), encoding="utf-8") as handle:
        return json.load(handle)


@functools.lru_cache(maxsize=16)
def _validator(schema_name: str, definition: str, schema_dir: str):
    schema = load_schema(schema_name, schema_dir)
    # Validate one model key against its definition. Its $refs are resolved once, here: a site of
    # 1,024 DGX otherwise looks up tens of thousands of them in the registry, a third of the
    # schema's time. A recursive definition keeps its $ref, resolved inside the whole document.
    sub = {"$schema": schema["$schema"], "$defs": schema["$defs"],
           **_inline_refs({"$ref": f"#/$defs/{definition}"}, schema["$defs"], ())}
    return StrictValidator(sub, format_checker=FormatChecker())


_LOCAL_REF = "#/$defs/"


def _inline_refs(node: Any, defs: dict, expanding: tuple) -> Any:
    """node with each local $ref replaced by the definition it names (keywords beside a $ref are kept
    beside it through allOf, as JSON Schema 2020-12 applies both)."""
    if isinstance(node, list):
        return [_inline_refs(item, defs, expanding) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(_LOCAL_REF) and ref[len(_LOCAL_REF):] in defs and ref not in expanding:
        target = _inline_refs(defs[ref[len(_LOCAL_REF):]], defs, expanding + (ref,))
        siblings = {key: _inline_refs(value, defs, expanding) for key, value in node.items() if key != "$ref"}
        if not siblings:
            return target
        return {**siblings, "allOf": list(siblings.get("allOf") or []) + [target]}
    return {key: _inline_refs(value, defs, expanding) for key, value in node.items()}


def check_schema(site: Site, schema_dir: str = SCHEMA_DIR) -> list[Finding]:
    """Validate every model key of the site against its schema definition."""
    return schema_findings_and_bad_paths(site, schema_dir)[0]


def schema_findings_and_bad_paths(site: Site, schema_dir: str = SCHEMA_DIR) -> tuple[list[Finding], list[tuple]]:
    """Schema findings, and the model paths of values whose type is wrong (the rules must not see them)."""
    if not HAS_JSONSCHEMA:
        return [Finding("schema", "error", (), "the jsonschema library is missing", "run scripts/bootstrap.sh",
                        site.locate(()))], []
    findings: list[Finding] = []
    bad_paths: list[tuple] = []
    for key in GLOBAL_KEYS:
        if key in site.model:
            findings.extend(_check(site, "site.schema.json", key, site.model[key], (key,), schema_dir, bad_paths))
    for host, body in sorted(site.model["hosts"].items()):
        for key in HOST_KEYS:
            if key in body:
                findings.extend(_check(site, "host.schema.json", key, body[key], ("hosts", host, key), schema_dir, bad_paths))
    return findings, bad_paths


def _check(site: Site, schema_name: str, definition: str, value: Any, base: tuple, schema_dir: str,
           bad_paths: list[tuple]) -> Iterator[Finding]:
    for relative, bad, message, hint, extra in _errors(schema_name, definition, schema_dir, value):
        path = base + relative
        if bad:
            bad_paths.append(path)
        if extra is not None:
            located = site.locate(path + (extra,))
            path = path + (shown_key(extra),)
        else:
            located = site.locate(path)
        yield Finding("schema", "error", path, message, hint, located)


# What the schema says of a value, by the value's repr: a site validated again (every host of a
# run, the same model with one field changed) has most of its keys unchanged, and the schema is
# the costlier half of a validation. repr tells apart what the schema does (1 and True and "1",
# int and str keys, key order); a value whose repr fails is validated each time.
_ERRORS_SEEN: collections.OrderedDict[tuple, tuple] = collections.OrderedDict()
_ERRORS_SEEN_SIZE = 256


def _errors(schema_name: str, definition: str, schema_dir: str, value: Any) -> tuple:
    """((relative path, bad type, message, hint, extra key), ...) of the schema's errors for value."""
    try:
        key = (schema_name, definition, schema_dir, repr(value))
    except Exception:  # pylint: disable=broad-except  # a repr that fails: no memo, same answer
        return _validate(schema_name, definition, schema_dir, value)
    if key in _ERRORS_SEEN:
        _ERRORS_SEEN.move_to_end(key)
        return _ERRORS_SEEN[key]
    errors = _validate(schema_name, definition, schema_dir, value)
    _ERRORS_SEEN[key] = errors
    if len(_ERRORS_SEEN) > _ERRORS_SEEN_SIZE:
        _ERRORS_SEEN.popitem(last=False)
    return errors


def _validate(schema_name: str, definition: str, schema_dir: str, value: Any) -> tuple:
    errors = []
    for error in _validator(schema_name, definition, schema_dir).iter_errors(value):
        for leaf in _leaves(error, value):
            message, hint = describe(leaf)
            errors.append((tuple(leaf.absolute_path), leaf.validator in ("type", "enum", "const", "pattern", "format"),
                           message, hint, _extra_key(leaf)))
    return tuple(errors)


def _leaves(error, instance_root) -> list:
    """For oneOf/anyOf, the errors of the branch the value most likely meant; else the error itself."""
    if error.validator not in ("oneOf", "anyOf") or not error.context:
        return [error]
    instance = error.instance
    branches: dict[int, list] = {}
    for sub in error.context:
        branches.setdefault(sub.schema_path[0], []).append(sub)
    options = error.validator_value

    def score(index: int) -> tuple:
        branch = options[index] if index < len(options) else {}
        branch = branch if isinstance(branch, dict) else {}
        required = set(branch.get("required", []))
        keys = set(instance) if isinstance(instance, dict) else set()
        return (-len(required & keys), len(branches[index]))

    best = min(branches, key=score)
    leaves = []
    for sub in branches[best]:
        leaves.extend(_leaves(sub, instance_root))
    return leaves


def _extra_key(error) -> str | None:
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set((error.schema or {}).get("properties", {}))
        patterns = (error.schema or {}).get("patternProperties", {})
        import re

        for key in error.instance:
            if key not in allowed and not any(re.search(p, str(key)) for p in patterns):
                return key
    if error.validator == "required":
        return None
    return None


def _show(value: Any) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def describe(error) -> tuple[str, str]:
    """(message, hint) in plain words for one jsonschema error."""
    kind = error.validator
    value = error.instance
    expected = error.validator_value
    if kind == "required":
        missing = [key for key in expected if not (isinstance(value, dict) and key in value)]
        return (f"missing required key '{missing[0]}'" if missing else error.message,
                f"add '{missing[0]}:'" if missing else "")
    if kind == "additionalProperties":
        allowed = sorted((error.schema or {}).get("properties", {}))
        extra = _extra_key(error)
        close = difflib.get_close_matches(str(extra), allowed, n=1)
        return (f"unknown key '{shown_key(extra)}'",
                f"did you mean '{close[0]}'?" if close else f"remove it; allowed keys: {', '.join(allowed)}")
    if kind == "type":
        wanted = expected if isinstance(expected, list) else [expected]
        if isinstance(value, float) and "integer" in wanted and value.is_integer():
            return (f"{value} is a number with a decimal point, expected an integer", f"write {int(value)}")
        return (f"{_show(value)} is {_type_of(value)}, expected {' or '.join(TYPE_NAMES.get(t, t) for t in wanted)}",
                "write " + " or ".join(TYPE_NAMES.get(t, t) for t in wanted) + " (unquoted for numbers and booleans)")
    if kind == "enum":
        return (f"{_show(value)} is not one of: {', '.join(str(v) for v in expected)}",
                f"use one of {', '.join(str(v) for v in expected)}")
    if kind == "const":
        return (f"{_show(value)} must be {expected!r}", f"write {expected!r}")
    if kind == "format":
        names = {"ipv4": "an IPv4 address", "uuid": "a UUID"}
        return (f"{_show(value)} is not {names.get(expected, expected)}", f"write {names.get(expected, expected)}")
    if kind == "pattern":
        description = (error.schema or {}).get("description", "")
        return (f"{_show(value)} does not have the expected form{': ' + description if description else ''}",
                f"match the pattern {expected}")
    if kind in ("minimum", "exclusiveMinimum"):
        return (f"{_show(value)} is below the minimum {expected}", f"use a value of at least {expected}")
    if kind in ("maximum", "exclusiveMaximum"):
        return (f"{_show(value)} is above the maximum {expected}", f"use a value of at most {expected}")
    if kind == "multipleOf":
        return (f"{_show(value)} is not a multiple of {expected}", f"use a multiple of {expected}")
    if kind in ("minItems", "minProperties"):
        return (f"needs at least {expected} entr{'y' if expected == 1 else 'ies'}", "add the missing entries")
    if kind in ("maxLength",):
        return (f"{_show(value)} is longer than {expected} characters", f"shorten it to {expected} characters")
    if kind in ("minLength",):
        return ("must not be empty", "write a value")
    if kind == "false" or expected is False:
        return ("this key is not allowed here", "remove it")
    return (error.message if len(error.message) < 200 else error.message[:200] + "...", "")


def _type_of(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    if value is None:
        return "empty"
    return type(value).__name__


__all__ = ["check_schema", "describe", "load_schema", "SCHEMA_DIR", "jsonschema"]
