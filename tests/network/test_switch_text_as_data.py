"""Free text of the model reaches the switches as inert data: descriptions full of shell and CLI
syntax and look-alike letters are rendered, for NX-OS and for Cumulus, as the one line or the one
argument they belong to, and parsed back from the rendered files exactly as written. Nothing else in
the configuration changes."""
from __future__ import annotations

import shlex

import pytest
import yaml
from project_paths import REPO, SAMPLE
from switch_test_support import finish, playbook, swp, vault_password_file, write_cumulus_sample
from test_switch_configs import blocks, sections

GOLDEN = REPO / "tests" / "golden" / "switches"
HOSTILE = [
    "dgx01 ; reload | ! # $(id) `id` 'q' \"dq\" \\ {x} <y> ~ * ? & %s",
    "end\\nconfigure terminal -- copy run start",
    "ｄｇｘ０１ ЕΤΗ1/1 \u00a0no shutdown",
]
# NX-OS takes printable ASCII without '?' (rule switch-text); the rest of the CLI syntax stays.
NXOS_HOSTILE = [
    "dgx01 ; reload | ! # $(id) `id` 'q' \"dq\" \\ {x} <y> ~ * & %s",
    "end\\nconfigure terminal -- copy run start",
    "interface Ethernet1/9 ; no shutdown ; exit",
]


def with_descriptions(inventory, ports_named, texts) -> dict[str, str]:
    """Give the first ports of n3232c-a the hostile descriptions; {port: description}."""
    path = inventory / "host_vars" / "n3232c-a.yml"
    data = yaml.safe_load(path.read_text())
    given = {}
    for port, text in zip(data["switch"]["ports"], texts):
        port["description"] = text
        given[ports_named(port["name"])] = text
    path.write_text("---\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return given


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    work = tmp_path_factory.mktemp("switch-text")
    vault = vault_password_file(work)
    nxos = work / "inventories" / "sample"
    import shutil
    shutil.copytree(SAMPLE, nxos)
    cumulus = write_cumulus_sample(work / "inventories" / "sample-cumulus")
    given = {"nxos": with_descriptions(nxos, str, NXOS_HOSTILE), "cumulus": with_descriptions(cumulus, swp, HOSTILE)}
    for process in [playbook(nxos, "switch_configs.yml", "-e", f"switch_configs_dir={work / 'nxos'}", vault=vault),
                    playbook(cumulus, "switch_configs.yml", "-e", f"switch_configs_dir={work / 'cumulus'}", vault=vault)]:
        finish(process)
    return {"given": given, "nxos": (work / "nxos" / "n3232c-a.cfg").read_text(),
            "cumulus": (work / "cumulus" / "n3232c-a.nvue").read_text()}


def test_nxos_holds_each_description_as_one_line_and_nothing_else_changes(rendered):
    interfaces = blocks(sections(rendered["nxos"])["nxos_interfaces (rendered)"])
    for port, text in rendered["given"]["nxos"].items():
        assert [line for line in interfaces[port] if line.startswith("description ")] == [f"description {text}"]
    golden = (GOLDEN / "sample-nxos" / "n3232c-a.cfg").read_text().splitlines()
    changed = [line for line in rendered["nxos"].splitlines() if line not in golden]
    assert all(line.strip().startswith("description ") for line in changed), changed


def test_nvue_holds_each_description_as_one_argument_and_nothing_else_changes(rendered):
    commands = [shlex.split(line) for line in rendered["cumulus"].splitlines() if line.startswith("nv ")]
    assert all(command[:2] in (["nv", "set"], ["nv", "unset"]) for command in commands)
    for port, text in rendered["given"]["cumulus"].items():
        assert ["nv", "set", "interface", port, "description", text] in commands
    golden = [shlex.split(line) for line in (GOLDEN / "sample-cumulus" / "n3232c-a.nvue").read_text().splitlines()
              if line.startswith("nv ")]
    changed = [command for command in commands if command not in golden]
    assert all(command[4] == "description" for command in changed), changed
    assert all(line.startswith(("# ", "nv set ", "nv unset ")) for line in rendered["cumulus"].splitlines() if line)
