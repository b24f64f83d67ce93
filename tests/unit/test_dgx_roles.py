"""Every dgx_* role: meta/argument_specs.yml covers defaults/main.yml exactly, with the same values."""
from __future__ import annotations

import pytest
import yaml
from project_paths import COLLECTION

ROLES = sorted((COLLECTION / "roles").glob("dgx_*"))


def test_there_are_dgx_roles():
    assert ROLES


@pytest.mark.parametrize("role", ROLES, ids=lambda path: path.name)
def test_argument_specs_match_defaults(role):
    defaults = yaml.safe_load((role / "defaults" / "main.yml").read_text()) or {}
    options = yaml.safe_load((role / "meta" / "argument_specs.yml").read_text())["argument_specs"]["main"]["options"]
    assert sorted(options) == sorted(defaults)
    for name, option in options.items():
        assert name.startswith(role.name + "_"), name
        assert option.get("description") and option.get("type"), name
        assert option.get("default") == defaults[name], name
