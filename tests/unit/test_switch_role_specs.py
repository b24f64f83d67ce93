"""The switch roles' argument specs match their defaults (keys, values, types)."""
from __future__ import annotations

import pytest
import yaml
from project_paths import COLLECTION

TYPES = {"int": int, "bool": bool, "str": str}


@pytest.mark.parametrize("role", ["switch_nxos", "switch_cumulus"])
def test_argument_specs_match_the_defaults(role):
    defaults = yaml.safe_load((COLLECTION / "roles" / role / "defaults" / "main.yml").read_text())
    specs = yaml.safe_load((COLLECTION / "roles" / role / "meta" / "argument_specs.yml").read_text())["argument_specs"]
    documented = {}
    for entry in specs.values():
        for name, option in entry["options"].items():
            assert name.startswith(role + "_")
            assert option["description"] and option["type"] in TYPES
            assert option["default"] == defaults[name], f"{name}: spec default {option['default']!r} != {defaults[name]!r}"
            if "{{" not in str(defaults[name]):
                assert isinstance(defaults[name], TYPES[option["type"]])
            if "choices" in option:
                assert defaults[name] in option["choices"]
            documented[name] = option
    assert set(documented) == set(defaults), "every default is documented in some entry point, and nothing else"
    assert set(specs) >= {"main", "render"}
