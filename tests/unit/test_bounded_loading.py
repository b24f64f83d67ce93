"""Loading the site model is bounded whatever the YAML holds: an alias bomb ("billion laughs": a few
hundred bytes of nested aliases that expand to 9^9 values) is refused, naming its file, in at most
5 s and 200 MB, through validate_site() and through ansible-playbook, with or without the bundle's
callbacks.

Each run is measured in a child process of its own (a fresh process, so its peak resident memory is
its own), under an address-space limit and a timeout, so that a regression fails the test instead
of taking the machine's memory.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from project_paths import REPO, SAMPLE, SAMPLE_VAULT_PASSWORD

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import sources
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.yamlload import (
    MAX_FILE_NODES,
    Budget,
    YamlRefused,
    load_with_lines,
)
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site

BIN = os.path.dirname(sys.executable)
# CPU seconds of the refused run (its own and its children's): wall time on a machine that runs the
# lab and another row beside it measures the neighbours; benchmarks/refusals.py keeps the wall figures.
MAX_CPU_SECONDS = 5.0
MAX_PEAK_MB = 200
ADDRESS_SPACE_LIMIT = 3 * 1024 ** 3  # a regression fails with MemoryError here, not with the machine's memory


def alias_bomb(levels: int = 9, width: int = 9) -> str:
    """width^levels values from a few hundred bytes."""
    lines = ["---", "lol0: &a0 [" + ", ".join(["lol"] * width) + "]"]
    lines += [f"lol{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * width) + "]" for level in range(1, levels)]
    return "\n".join(lines) + "\n"


# The child: runs a command, then prints its wall time, the CPU seconds of it and its descendants,
# and the peak resident memory of its largest descendant (RUSAGE_CHILDREN of a process that started
# nothing else).
MEASURE = f"""
import json, resource, subprocess, sys, time
def limit():
    resource.setrlimit(resource.RLIMIT_AS, ({ADDRESS_SPACE_LIMIT}, {ADDRESS_SPACE_LIMIT}))
started = time.perf_counter()
try:
    done = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=60, preexec_fn=limit)
    rc, output = done.returncode, done.stdout + done.stderr
except subprocess.TimeoutExpired as expired:
    rc, output = "timeout", str(expired.stdout or "")
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({{"rc": rc, "seconds": time.perf_counter() - started, "cpu_seconds": usage.ru_utime + usage.ru_stime,
                  "peak_mb": usage.ru_maxrss / 1024, "output": output[-6000:]}}))
"""

VALIDATE = """
import sys
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site
print(validate_site(sys.argv[1], check_files=False).text())
"""


def measured(*command: str, env: dict | None = None) -> dict:
    result = subprocess.run([sys.executable, "-c", MEASURE, *command], cwd=REPO, env=env, capture_output=True, text=True,
                            timeout=120, check=True)
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def bombed_sample(tmp_path_factory):
    inventory = tmp_path_factory.mktemp("bomb") / "sample"
    shutil.copytree(SAMPLE, inventory)
    bomb = alias_bomb()
    assert len(bomb) < 600
    (inventory / "group_vars" / "all" / "lol.yml").write_text(bomb)
    return inventory


def test_the_alias_bomb_is_refused_by_validate_site_within_bounds(bombed_sample):
    figures = measured(sys.executable, "-c", VALIDATE, str(bombed_sample),
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])))
    shown = {k: v for k, v in figures.items() if k != "output"}
    assert figures["rc"] == 0, figures["output"]
    assert "group_vars/all/lol.yml:" in figures["output"] and "refused: this file expands to more than" in figures["output"], figures["output"]
    assert figures["cpu_seconds"] <= MAX_CPU_SECONDS, shown
    assert figures["peak_mb"] <= MAX_PEAK_MB, shown
    print(f"validate_site: {shown}")


def without_our_callbacks(tmp_path) -> str:
    """The project's ansible.cfg with neither of the bundle's callbacks: safety must not rest on them."""
    config = tmp_path / "ansible.cfg"
    config.write_text("".join(line for line in (REPO / "ansible.cfg").read_text().splitlines(keepends=True)
                              if not line.startswith(("callbacks_enabled", "stdout_callback"))))
    return str(config)


@pytest.mark.parametrize("callbacks", ["configured", "none"])
def test_the_alias_bomb_is_refused_by_the_validation_run_within_bounds(bombed_sample, tmp_path, callbacks):
    password = tmp_path / "sample-vault-password"
    password.write_bytes(SAMPLE_VAULT_PASSWORD)
    config = str(REPO / "ansible.cfg") if callbacks == "configured" else without_our_callbacks(tmp_path)
    env = dict(os.environ, ANSIBLE_CONFIG=config, ANSIBLE_NOCOLOR="1", ANSIBLE_LOCAL_TEMP=str(tmp_path / "tmp"),
               ANSIBLE_HOME=str(tmp_path / "home"), AIPOD_REPORT_ROOT=str(tmp_path / "reports"))
    figures = measured(os.path.join(BIN, "ansible-playbook"), "-i", str(bombed_sample), "--vault-id", f"sample@{password}",
                       "playbooks/validate.yml", env=env)
    shown = {k: v for k, v in figures.items() if k != "output"}
    output = figures["output"]
    # The guard inventory plugin refuses the file while Ansible reads the inventory: Ansible never expands it.
    assert figures["rc"] == 2, output
    assert "group_vars/all/lol.yml:" in output and "refused: this file expands to more than" in output, output
    assert "REFUSED" in output and "nothing was run" in output and "Traceback" not in output, output
    assert "PLAY [" not in output, output
    assert figures["cpu_seconds"] <= MAX_CPU_SECONDS, shown
    assert figures["peak_mb"] <= MAX_PEAK_MB, shown
    print(f"ansible-playbook validate.yml, callbacks {callbacks}: {shown}")


def test_a_site_file_nested_too_deep_is_refused_without_our_callbacks(tmp_path):
    """Ansible's own loader kills the interpreter (SIGSEGV, no message) on a group_vars value nested
    tens of thousands of levels deep; the guard refuses the file before that loader reads it."""
    inventory = tmp_path / "sample"
    shutil.copytree(SAMPLE, inventory)
    (inventory / "group_vars" / "all" / "deep.yml").write_text("x: " + "[" * 30_000 + "]" * 30_000 + "\n")
    password = tmp_path / "sample-vault-password"
    password.write_bytes(SAMPLE_VAULT_PASSWORD)
    env = dict(os.environ, ANSIBLE_CONFIG=without_our_callbacks(tmp_path), ANSIBLE_NOCOLOR="1",
               ANSIBLE_LOCAL_TEMP=str(tmp_path / "tmp"), ANSIBLE_HOME=str(tmp_path / "home"),
               AIPOD_REPORT_ROOT=str(tmp_path / "reports"))
    figures = measured(os.path.join(BIN, "ansible-playbook"), "-i", str(inventory), "--vault-id", f"sample@{password}",
                       "playbooks/validate.yml", env=env)
    output = figures["output"]
    assert figures["rc"] == 2, output
    assert "group_vars/all/deep.yml:1:" in output and "nested more than 64 levels deep" in output, output
    assert "REFUSED" in output and "PLAY [" not in output, output


def _hostile_sources(root):
    """An inventory per source Ansible itself would choke on before any validation runs."""
    cases = {}
    big = root / "big"
    shutil.copytree(SAMPLE, big)
    (big / "hosts.yml").write_text("---\nall:\n  children:\n" + "".join(
        f"    g{i}:\n      hosts:\n        h{i}:\n" for i in range(420_000)))
    cases["a 17 MB hosts.yml"] = (big / "hosts.yml", "more than the 8,388,608 a file of the site model may hold")
    deep = root / "deep"
    shutil.copytree(SAMPLE, deep)
    (deep / "hosts.yml").write_text("all:\n  vars:\n    x: " + "[" * 30_000 + "]" * 30_000 + "\n  hosts:\n    dgx01:\n")
    cases["hosts.yml nested 30,000 deep"] = (deep / "hosts.yml", "nested more than 64 levels deep")
    bare = root / "bare"
    shutil.copytree(SAMPLE, bare)
    (bare / "hosts.yml").rename(bare / "hosts")
    (bare / "hosts").write_text("all:\n  vars:\n    x: " + "{a: " * 20_000 + "1" + "}" * 20_000 + "\n")
    cases["a YAML hosts file without an extension, nested 20,000 deep"] = (bare / "hosts", "nested more than 64 levels deep")
    fifo = root / "fifo"
    shutil.copytree(SAMPLE, fifo)
    os.mkfifo(fifo / "extra")
    cases["a FIFO in the inventory directory"] = (fifo, "extra: refused: a FIFO, not a regular file")
    large = root / "large"
    shutil.copytree(SAMPLE, large)
    (large / "more.ini").write_text("[dgx]\n" + "".join(f"x{i}\n" for i in range(1_200_000)))
    cases["a 10 MB INI file beside hosts.yml"] = (large, "more.ini: refused:")
    return cases


def test_inventory_sources_ansible_would_choke_on_are_refused_unread_within_bounds(tmp_path):
    """The guard inventory plugin judges every source, and every entry of a directory source, before
    Ansible's yaml and ini plugins read it, and refuses the run before its first play."""
    password = tmp_path / "sample-vault-password"
    password.write_bytes(SAMPLE_VAULT_PASSWORD)
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1", ANSIBLE_LOCAL_TEMP=str(tmp_path / "tmp"),
               ANSIBLE_HOME=str(tmp_path / "home"), AIPOD_REPORT_ROOT=str(tmp_path / "reports"))
    for case, (source, expected) in _hostile_sources(tmp_path).items():
        figures = measured(os.path.join(BIN, "ansible-playbook"), "-i", str(source), "--vault-id", f"sample@{password}",
                           "playbooks/validate.yml", env=env)
        shown = {k: v for k, v in figures.items() if k != "output"}
        output = figures["output"]
        assert figures["rc"] == 2, (case, output)
        assert expected in output and "REFUSED" in output and "nothing was run" in output, (case, output)
        assert "Traceback" not in output, (case, output)
        assert figures["cpu_seconds"] <= MAX_CPU_SECONDS and figures["peak_mb"] <= MAX_PEAK_MB, (case, shown)
        print(f"{case}: {shown}")
        # Not an empty inventory for other tools either (an inventory sync would take it for the site).
        listing = measured(os.path.join(BIN, "ansible-inventory"), "-i", str(source), "--vault-id", f"sample@{password}",
                           "--list", env=env)
        assert listing["rc"] == 2 and "inventory source not read" in listing["output"], (case, listing["output"][-2000:])


def test_an_alias_is_indexed_once_and_located_where_it_is_used():
    data, lines, _duplicates = load_with_lines("base: &b {x: [1, 2], y: 3}\nuse1: *b\nuse2: *b\n")
    assert data["use2"]["x"] == [1, 2]
    assert lines[("base", "x", 1)] == 1 and lines[("use2",)] == 3
    assert ("use2", "x") not in lines  # a path through an alias is not walked again: it is located at the alias


def test_a_file_under_the_budget_loads_with_its_aliases():
    data, _lines, _duplicates = load_with_lines(alias_bomb(levels=4, width=9))  # 9^4 = 6561 values
    assert len(data["lol3"]) == 9 and data["lol3"][8][8][8] == ["lol"] * 9


@pytest.mark.parametrize(("text", "budget", "message", "line"), [
    (alias_bomb(), Budget(), f"expands to more than {MAX_FILE_NODES:,} values", None),
    ("a: &a [*a]\n", Budget(), "alias *a is inside the value it repeats", 1),
    ("a: &a x\nb: [" + ", ".join(["*a"] * 20) + "]\n", Budget(aliases=10), "more than 10 alias uses", 2),
    ("a: " + "[" * 100000 + "]" * 100000 + "\n", Budget(), "nested more than 64 levels deep", 1),
    ("a: " + "x" * 100 + "\n", Budget(file_bytes=64), "bytes, more than the 64", None),
])
def test_what_is_over_the_budget_is_refused_with_its_line(text, budget, message, line):
    with pytest.raises(YamlRefused) as refused:
        load_with_lines(text, budget)
    assert message in str(refused.value)
    if line is not None:
        assert refused.value.line == line
    assert refused.value.hint


def test_the_budget_is_shared_by_the_files_of_an_inventory():
    budget = Budget(total_nodes=100)
    load_with_lines("a: [" + ", ".join(["x"] * 60) + "]\n", budget)
    with pytest.raises(YamlRefused, match="the inventory's files hold more than 100 values together"):
        load_with_lines("b: [" + ", ".join(["x"] * 60) + "]\n", budget)


def test_an_over_budget_file_is_a_located_finding_and_the_rest_is_still_checked(bombed_sample):
    report = validate_site(str(bombed_sample), check_files=False)
    refused = [f for f in report.errors if f.rule == "yaml-limit"]
    assert len(refused) == 1 and refused[0].location.file.endswith("group_vars/all/lol.yml") and refused[0].location.line
    assert [f for f in report.errors if f.rule != "yaml-limit"] == []


def test_an_exported_inventory_nested_too_deep_is_refused(tmp_path):
    document = tmp_path / "inventory.json"
    document.write_text("[" * 5000 + "]" * 5000)
    report = validate_site(str(document))
    assert not report.ok and "refused" in report.errors[0].message


@pytest.mark.parametrize("given", ["directory", "hosts file"])
def test_the_site_files_behind_a_source_are_judged_as_validation_reads_them(bombed_sample, given):
    source = bombed_sample if given == "directory" else bombed_sample / "hosts.yml"
    refused, not_yaml = sources.unreadable_site_files(str(source), decrypt=None)
    assert [f.rule for f in refused] == ["yaml-limit"] and refused[0].location.file.endswith("lol.yml")
    assert not_yaml == []


@pytest.mark.parametrize("error", [MemoryError, KeyboardInterrupt])
def test_judging_the_site_files_never_swallows_memory_errors_or_interrupts(bombed_sample, monkeypatch, error):
    def fail(*_args, **_kwargs):
        raise error()

    monkeypatch.setattr(sources, "load_site", fail)
    with pytest.raises(error):
        sources.unreadable_site_files(str(bombed_sample), decrypt=None)
