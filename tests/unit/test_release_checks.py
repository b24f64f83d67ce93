"""The release checks (scripts/release-check.sh) are what docs/benchmarks.md says they are: every test
module marked release_check and every molecule scenario CI leaves to them is in its table, and the
table names nothing else."""
from __future__ import annotations

import re

from project_paths import REPO

MARK = re.compile(r"^pytestmark = .*pytest\.mark\.release_check", re.M)


def marked_modules() -> set[str]:
    return {str(path.relative_to(REPO)) for path in (REPO / "tests").rglob("test_*.py") if MARK.search(path.read_text())}


def release_check_scenarios() -> list[str]:
    match = re.search(r"^RELEASE_CHECK_SCENARIOS=\((.*)\)$", (REPO / "scripts" / "test.sh").read_text(), re.M)
    assert match, "scripts/test.sh names no RELEASE_CHECK_SCENARIOS"
    return match.group(1).split()


def release_check_table() -> str:
    text = (REPO / "docs" / "benchmarks.md").read_text()
    section = text[text.index("## Release checks"):]
    following = section.find("\n## ", 1)
    return section if following == -1 else section[:following]


def test_every_marked_module_is_in_the_table_and_the_table_names_only_marked_modules():
    table = release_check_table()
    named = set(re.findall(r"`(tests/[^`]+\.py)`", table))
    assert marked_modules(), "no test is marked release_check"
    assert named == marked_modules()


def test_every_scenario_left_to_the_release_checks_exists_and_is_in_the_table():
    table = release_check_table()
    for scenario in release_check_scenarios():
        assert (REPO / "molecule" / scenario / "molecule.yml").is_file(), scenario
        assert f"molecule `{scenario}`" in table, scenario


def test_ci_leaves_the_marked_tests_to_the_release_checks_and_the_release_checks_run_them():
    ci = (REPO / "scripts" / "test.sh").read_text()
    release = (REPO / "scripts" / "release-check.sh").read_text()
    assert '-m "lab and not release_check"' in ci
    assert '-m "lab and release_check"' in release
    assert "RELEASE_CHECK_SCENARIOS" in release
