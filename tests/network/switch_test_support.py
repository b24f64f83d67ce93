"""Helpers for the switch-layer tests that run playbooks: the Cumulus copy of the sample, and runs."""
from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess

import yaml
from project_paths import REPO, SAMPLE, SAMPLE_VAULT_PASSWORD

ANSIBLE_PLAYBOOK = str(REPO / ".venv" / "bin" / "ansible-playbook")


def swp(port: str) -> str:
    match = re.fullmatch(r"Ethernet1/(\d+)", port)
    return f"swp{match.group(1)}" if match else port


def write_cumulus_sample(target: pathlib.Path) -> pathlib.Path:
    """A copy of inventories/sample whose switches run Cumulus Linux (ports swpN, NVUE over SSH)."""
    shutil.copytree(SAMPLE, target)
    for path in target.glob("host_vars/*.yml"):
        data = yaml.safe_load(path.read_text())
        switch = data.get("switch") if isinstance(data, dict) else None
        if not switch:
            continue
        switch["platform"] = "cumulus"
        switch["model"] = "SN3700"
        for port in switch.get("ports", []):
            port["name"] = swp(port["name"])
        for channel in switch.get("port_channels", []):
            channel["members"] = [swp(member) for member in channel["members"]]
        switch["vpc"]["peer_link"]["members"] = [swp(m) for m in switch["vpc"]["peer_link"]["members"]]
        path.write_text("---\n" + yaml.safe_dump(data, sort_keys=False))
    (target / "group_vars" / "switches.yml").write_text(
        "---\n# Cumulus Linux switches: NVUE over SSH as the cumulus user.\n"
        'ansible_host: "{{ switch.mgmt_address }}"\nansible_user: cumulus\n')
    return target


def vault_password_file(directory: pathlib.Path) -> pathlib.Path:
    path = directory / "sample-vault-password.txt"
    path.write_bytes(SAMPLE_VAULT_PASSWORD)
    return path


def playbook(inventory: pathlib.Path, name: str, *args: str, vault: pathlib.Path | None = None) -> subprocess.Popen:
    """Start ansible-playbook on one of the bundle's playbooks (the caller waits)."""
    command = [ANSIBLE_PLAYBOOK, "-i", str(inventory / "hosts.yml"), str(REPO / "playbooks" / name), *args]
    if vault:
        command[1:1] = ["--vault-id", f"sample@{vault}"]
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               PATH=f"{REPO / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    return subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def finish(process: subprocess.Popen) -> str:
    output, _ = process.communicate(timeout=900)
    assert process.returncode == 0, f"{' '.join(process.args)} failed:\n{output[-6000:]}"
    return output


def render_configs(work: pathlib.Path, vault: pathlib.Path, variants: dict[str, tuple[pathlib.Path, tuple[str, ...], str]]) -> dict:
    """playbooks/switch_configs.yml for each variant {key: (inventory, switches, suffix)}, run in parallel:
    {key: {switch: text}, "dirs": {key: directory}}."""
    runs = [playbook(inventory, "switch_configs.yml", "-e", f"switch_configs_dir={work / key}", vault=vault)
            for key, (inventory, _switches, _suffix) in variants.items()]
    for run in runs:
        finish(run)
    rendered: dict = {key: {name: (work / key / f"{name}.{suffix}").read_text() for name in switches}
                      for key, (_inventory, switches, suffix) in variants.items()}
    rendered["dirs"] = {key: work / key for key in variants}
    return rendered
