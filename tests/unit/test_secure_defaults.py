"""Defaults that protect a real site run from this project's directory: no vault password shared by
every inventory, and no facts of one inventory handed to another."""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

from project_paths import LAB, REPO, SAMPLE

BIN = pathlib.Path(sys.executable).parent
MARKER = "lab-only-fact-7f3a"


def plain_environment(**extra: str) -> dict[str, str]:
    """A shell in the project directory: the project's ansible.cfg, no vault id or cache setting of the tests."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith("ANSIBLE_")}
    environment.update(ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), PATH=f"{BIN}:{os.environ['PATH']}")
    environment.update(extra)
    return environment


def site_environment(*arguments: str) -> dict[str, str]:
    """What scripts/site.sh exports for these ansible-playbook arguments (scripts/site-environment.sh)."""
    script = f'ROOT="{REPO}"; . "{REPO}/scripts/site-environment.sh"; site_environment "$@"; env -0'
    output = subprocess.run(["bash", "-c", script, "site-environment", *arguments], env=plain_environment(),
                            capture_output=True, text=True, check=True).stdout
    return dict(entry.split("=", 1) for entry in output.split("\0") if "=" in entry)


def test_ansible_cfg_names_no_vault_password():
    dump = subprocess.run([str(BIN / "ansible-config"), "dump", "--only-changed"], cwd=REPO, env=plain_environment(),
                          capture_output=True, text=True, check=True).stdout
    assert "VAULT_PASSWORD_FILE" not in dump and "VAULT_IDENTITY" not in dump, dump


def test_ansible_vault_encrypt_in_the_project_refuses_without_a_vault_id(tmp_path):
    """A new site's secrets are never encrypted with the lab's committed password by accident."""
    secrets = tmp_path / "vault.yml"
    secrets.write_text("vault_ontap_admin_password: real-secret\n")
    result = subprocess.run([str(BIN / "ansible-vault"), "encrypt", str(secrets)], cwd=REPO, env=plain_environment(),
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode != 0, result.stdout + result.stderr
    assert secrets.read_text() == "vault_ontap_admin_password: real-secret\n"


def test_ansible_vault_encrypt_prompts_for_the_password(tmp_path):
    """Given a password on the prompt, it encrypts with that one and not with the lab's."""
    secrets = tmp_path / "vault.yml"
    secrets.write_text("vault_ontap_admin_password: real-secret\n")
    password = "a-site-password"
    subprocess.run([str(BIN / "ansible-vault"), "encrypt", "--vault-id", "site@prompt", str(secrets)], cwd=REPO,
                   env=plain_environment(), input=f"{password}\n{password}\n", capture_output=True, text=True, timeout=60, check=True)
    assert secrets.read_text().startswith("$ANSIBLE_VAULT;1.2;AES256;site")
    lab_view = subprocess.run([str(BIN / "ansible-vault"), "view", "--vault-id", f"lab@{LAB / 'vault-password.txt'}", str(secrets)],
                              cwd=REPO, env=plain_environment(), capture_output=True, text=True, timeout=60, check=False)
    assert lab_view.returncode != 0 and "real-secret" not in lab_view.stdout


def test_site_script_passes_the_lab_vault_id_only_to_the_lab():
    assert site_environment()["ANSIBLE_VAULT_IDENTITY_LIST"] == f"lab@{LAB / 'vault-password.txt'}"
    assert site_environment("-i", "inventories/lab")["ANSIBLE_VAULT_IDENTITY_LIST"] == f"lab@{LAB / 'vault-password.txt'}"
    assert "ANSIBLE_VAULT_IDENTITY_LIST" not in site_environment("-i", "inventories/sample", "--ask-vault-pass")


def hostvars_of(inventory: pathlib.Path, host: str, environment: dict[str, str]) -> dict:
    password = inventory.parent / "sample-vault-password"
    result = subprocess.run([str(BIN / "ansible-inventory"), "-i", str(inventory), "--vault-id", f"sample@{password}", "--list"],
                            cwd=REPO, env=environment, capture_output=True, text=True, timeout=120, check=True)
    return json.loads(result.stdout)["_meta"]["hostvars"][host]


def test_the_sample_never_sees_the_lab_facts(tmp_path):
    """A fact cache shared by inventories hands the lab's dgx01 facts to the sample's dgx01; the defaults do not."""
    (tmp_path / "sample-vault-password").write_text("aipod-sample-vault-password\n")
    sample = tmp_path / "sample"
    subprocess.run(["cp", "-r", str(SAMPLE), str(sample)], check=True)
    lab = site_environment()
    sample_run = site_environment("-i", str(sample))
    assert lab["ANSIBLE_CACHE_PLUGIN_CONNECTION"] != sample_run["ANSIBLE_CACHE_PLUGIN_CONNECTION"]
    # A lab run leaves its dgx01's facts in the cache (here a scratch one; set_fact contacts no host).
    lab_cache = tmp_path / "lab-facts"
    lab_run = dict(lab, ANSIBLE_CACHE_PLUGIN_CONNECTION=str(lab_cache))
    subprocess.run([str(BIN / "ansible"), "-i", str(LAB), "dgx01", "-m", "ansible.builtin.set_fact", "-a", f"aipod_marker={MARKER} cacheable=true"],
                   cwd=REPO, env=lab_run, capture_output=True, text=True, timeout=120, check=True)
    leaking = plain_environment(ANSIBLE_CACHE_PLUGIN="jsonfile", ANSIBLE_CACHE_PLUGIN_CONNECTION=str(lab_cache))
    assert MARKER in json.dumps(hostvars_of(sample, "dgx01", leaking)), "the check itself must see a shared cache"
    assert MARKER not in json.dumps(hostvars_of(sample, "dgx01", plain_environment()))
    separate = plain_environment(ANSIBLE_CACHE_PLUGIN="jsonfile",
                                 ANSIBLE_CACHE_PLUGIN_CONNECTION=str(tmp_path / "sample-facts"))
    assert MARKER not in json.dumps(hostvars_of(sample, "dgx01", separate))
