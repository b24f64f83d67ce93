"""The bundle's own code prints no deprecation warning on the row that runs the tests (every row of
docs/support-matrix.md runs the unit tests): every playbook's syntax check, validation of the
sample, and the switch configuration preview, which runs the cisco.nxos modules offline. Warnings
that docs/deprecations.md lists come from collections and are allowed."""
from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest
from deprecation_table import unexplained_deprecations
from project_paths import REPO, SAMPLE, SAMPLE_VAULT_PASSWORD

BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def vault(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("vault") / "password"
    path.write_bytes(SAMPLE_VAULT_PASSWORD)
    return path


def playbook(*args: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if not key.startswith("ANSIBLE_")}
    env.update(ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1", ANSIBLE_DEPRECATION_WARNINGS="true",
               PATH=f"{BIN}:{os.environ.get('PATH', '')}")
    return subprocess.run([str(BIN / "ansible-playbook"), *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=600)


@pytest.mark.slow
def test_syntax_checks_print_no_deprecation_of_ours(vault):
    playbooks = sorted(str(path.relative_to(REPO)) for path in (REPO / "playbooks").glob("*.yml"))
    result = playbook("--syntax-check", "-i", str(SAMPLE / "hosts.yml"), "--vault-id", f"sample@{vault}", *playbooks)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert unexplained_deprecations(result.stdout + result.stderr) == []


@pytest.mark.slow
def test_validation_and_the_switch_preview_print_no_deprecation_of_ours(vault, tmp_path):
    result = playbook("-i", str(SAMPLE / "hosts.yml"), "--vault-id", f"sample@{vault}", "playbooks/validate.yml",
                      "playbooks/switch_configs.yml", "-e", f"switch_configs_dir={tmp_path}")
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    assert (tmp_path / "n3232c-a.cfg").is_file()
    assert unexplained_deprecations(output) == []


def test_an_unlisted_deprecation_would_be_caught():
    assert unexplained_deprecations("[DEPRECATION WARNING]: Something of ours is deprecated.") == ["Something of ours is deprecated."]
    assert unexplained_deprecations("[DEPRECATION WARNING]: Importing 'to_native' from 'ansible.module_utils._text' "
                                    "is deprecated. This feature will be removed") == []


def test_facts_a_module_sets_are_read_through_ansible_facts():
    """Core 2.21 deprecates facts injected as top-level variables (INJECT_FACTS_AS_VARS): the facts
    the bundle's modules set are read as ansible_facts.<name>, never as a bare <name>."""
    bare = re.compile(r"(?<![\w.\]'])aipod_host\b")
    offenders = [f"{path.relative_to(REPO)}:{number}" for path in sorted((REPO / "ansible_collections").rglob("*.yml"))
                 for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if bare.search(line.split("#", 1)[0])]
    assert offenders == []


# The source of each warning docs/deprecations.md allows: the bundle's own code must hold none of them,
# so an allowed text can only come from the collections the table names.
ALLOWED_SOURCES = {
    "ansible.module_utils._text": re.compile(r"\bansible\.module_utils\._text\b|module_utils import _text\b"),
    "ansible.module_utils.common._collections_compat": re.compile(r"_collections_compat\b"),
    "warnings passed to exit_json or fail_json": re.compile(r"(exit|fail)_json\([^)]*\bwarnings\s*=", re.DOTALL),
    "a private ansible-core module": re.compile(r"\bansible\._internal\b"),
}


def code_of(text: str) -> str:
    """The Python text with its string literals blanked (offsets and lines kept): the sources are
    code; ontap_ai.pod.aipod_default holds the warnings' messages, which name them, as data."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    code = list(text)
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.STRING:
            first, last = starts[token.start[0] - 1] + token.start[1], starts[token.end[0] - 1] + token.end[1]
            code[first:last] = [character if character == "\n" else " " for character in code[first:last]]
    return "".join(code)


def test_blanking_strings_keeps_the_code_and_its_lines():
    text = 'x = "ansible.module_utils._text"\nfrom ansible.module_utils._text import to_text\n'
    assert [text.count("\n", 0, match.start()) + 1 for match in ALLOWED_SOURCES["ansible.module_utils._text"].finditer(code_of(text))] == [2]


@pytest.mark.parametrize("what", sorted(ALLOWED_SOURCES))
def test_the_bundle_s_own_code_holds_no_source_of_an_allowed_warning(what):
    pattern = ALLOWED_SOURCES[what]
    roots = [REPO / "ansible_collections", REPO / "scripts", REPO / "lab", REPO / "benchmarks"]
    # The whole file, not line by line: a call's arguments may span lines.
    offenders = [f"{path.relative_to(REPO)}:{text.count(chr(10), 0, match.start()) + 1}"
                 for root in roots for path in sorted(root.rglob("*.py")) if "__pycache__" not in path.parts
                 for text in [path.read_text(encoding="utf-8")] for match in pattern.finditer(code_of(text))]
    assert offenders == [], f"{what}: {offenders}"
