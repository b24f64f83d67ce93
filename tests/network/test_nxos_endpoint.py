"""The lab's NX-OS endpoint, checked with cisco.nxos itself.

Fidelity: configuration pushed over SSH comes back through `show running-config` (the sections
the modules' facts read) and the collection's own parsers (state parsed) as exactly what was
pushed. Security: password login
only with the vault's password, host key checked against the known_hosts entry the lab wrote.
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import time

import paramiko
import pytest
import yaml
from project_paths import LAB, LAB_VAULT_PASSWORD, REPO, make_decryptor

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import nxos
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site

pytestmark = [pytest.mark.lab]
SWITCH = "lab-sw-a"


def lab(action: str, erase: bool = False) -> None:
    env = dict(os.environ, AIPOD_LAB_NXOS_WRITE_ERASE="1" if erase else "0")
    subprocess.run([str(REPO / "lab" / "lab"), action, "nxos"], check=True, env=env, cwd=REPO)


@pytest.fixture(scope="module")
def endpoint():
    lab("start", erase=True)
    site = load_site(str(LAB), decrypt=make_decryptor(LAB_VAULT_PASSWORD))
    vault = yaml.safe_load(make_decryptor(LAB_VAULT_PASSWORD)((LAB / "group_vars/all/vault.yml").read_text(), None))
    port = yaml.safe_load((LAB / "group_vars" / "switches.yml").read_text())["ansible_port"]
    address = site.model["hosts"][SWITCH]["switch"]["mgmt_address"]
    yield {"model": site.model, "address": address, "port": port, "password": vault["vault_switch_admin_password"]}
    lab("stop")


def connect(endpoint, password=None, known_hosts=None) -> paramiko.SSHClient:
    client = paramiko.SSHClient()
    if known_hosts is None:
        client.load_system_host_keys()
    else:
        client.load_host_keys(str(known_hosts))
    client.set_missing_host_key_policy(paramiko.RejectPolicy())
    client.connect(endpoint["address"], port=endpoint["port"], username="admin", password=password or endpoint["password"],
                   look_for_keys=False, allow_agent=False, timeout=10)
    return client


class Shell:
    def __init__(self, client: paramiko.SSHClient):
        self.channel = client.invoke_shell()
        self.read()

    def read(self) -> str:
        data = b""
        deadline = time.monotonic() + 10
        while not data.rstrip().endswith(b"#") and time.monotonic() < deadline:
            data += self.channel.recv(65536)
        return data.decode()

    def run(self, line: str) -> str:
        self.channel.send(line + "\r")
        lines = self.read().replace("\r\n", "\n").split("\n")
        return "\n".join(lines[1:-1])   # without the echo and the prompt


def push_lines(intent: dict) -> list[str]:
    """The intent as CLI, the way an engineer would type it."""
    lines = ["configure terminal"] + [f"feature {f}" for f in intent["features"]]
    for vlan in intent["vlans"]:
        lines += [f"vlan {vlan['vlan_id']}", f"name {vlan['name']}"]
    lines += intent["qos_config"].splitlines() + intent["port_config"].splitlines()
    l2 = {e["name"]: e for e in intent["l2_interfaces"]}
    for entry in intent["interfaces"]:
        lines += [f"interface {entry['name']}", f"description {entry['description']}", f"mtu {entry['mtu']}"]
        if entry.get("enabled"):
            lines.append("no shutdown")
        policy = entry.get("service_policy", {}).get("type_options", {}).get("qos", {}).get("input")
        if policy:
            lines.append(f"service-policy type qos input {policy}")
        layer2 = l2[entry["name"]]
        if layer2.get("mode") == "trunk":
            lines += ["switchport mode trunk", f"switchport trunk allowed vlan {layer2['trunk']['allowed_vlans']}"]
        else:
            lines.append(f"switchport access vlan {layer2['access']['vlan']}")
    for entry in intent["member_interfaces"]:
        lines += [f"interface {entry['name']}", f"description {entry['description']}", "no shutdown"]
    for lag in intent["lag_interfaces"]:
        for member in lag["members"]:
            lines += [f"interface {member['member']}", f"channel-group {lag['name'][len('port-channel'):]} force mode active"]
    for entry in intent["lacp_interfaces"]:
        lines.append(f"interface {entry['name']}")
        if "rate" in entry:
            lines.append(f"lacp rate {entry['rate']}")
        if entry.get("suspend_individual") is False:
            lines.append("no lacp suspend-individual")
    lines += ["terminal dont-ask"] + nxos.unrendered_lines(intent)[len(intent["features"]):]
    return lines + ["end"]


PARSE_PLAYBOOK = """
- hosts: {switch}
  gather_facts: false
  tasks:
    - name: Parse VLANs
      cisco.nxos.nxos_vlans: {{state: parsed, running_config: "{{{{ lookup('file', '{work}/vlans.txt') }}}}"}}
      register: vlans
    - name: Parse interfaces
      cisco.nxos.nxos_interfaces: {{state: parsed, running_config: "{{{{ lookup('file', '{work}/running.txt') }}}}"}}
      register: interfaces
    - name: Parse layer-2 interfaces
      cisco.nxos.nxos_l2_interfaces: {{state: parsed, running_config: "{{{{ lookup('file', '{work}/running.txt') }}}}"}}
      register: l2
    - name: Parse port-channels
      cisco.nxos.nxos_lag_interfaces: {{state: parsed, running_config: "{{{{ lookup('file', '{work}/running.txt') }}}}"}}
      register: lag
    - name: Parse LACP
      cisco.nxos.nxos_lacp_interfaces: {{state: parsed, running_config: "{{{{ lookup('file', '{work}/running.txt') }}}}"}}
      register: lacp
    - name: Keep the parsed state
      ansible.builtin.copy:
        dest: "{work}/parsed.json"
        content: "{{{{ {{'vlans': vlans.parsed, 'interfaces': interfaces.parsed, 'l2_interfaces': l2.parsed,
                     'lag_interfaces': lag.parsed, 'lacp_interfaces': lacp.parsed}} | to_json }}}}"
        mode: "0644"
      delegate_to: localhost
"""


def test_pushed_configuration_parses_back_to_what_was_pushed(endpoint, tmp_path: pathlib.Path):
    intent = nxos.intent(m.switch_plan(endpoint["model"], SWITCH))
    client = connect(endpoint)
    shell = Shell(client)
    errors = [(line, out) for line in push_lines(intent) if (out := shell.run(line))]
    assert errors == []
    running = shell.run("show running-config")
    # each parser gets the output its module's facts read from a switch
    (tmp_path / "running.txt").write_text(shell.run("show running-config | section ^interface"))
    (tmp_path / "vlans.txt").write_text(shell.run("show vlan | json") + "\n\n" + shell.run("show running-config | section ^vlan"))
    client.close()
    (tmp_path / "parse.yml").write_text(PARSE_PLAYBOOK.format(switch=SWITCH, work=tmp_path))
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), PATH=f"{REPO / '.venv/bin'}:{os.environ['PATH']}")
    result = subprocess.run([str(REPO / ".venv/bin/ansible-playbook"), "-i", str(LAB / "hosts.yml"), str(tmp_path / "parse.yml")],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    parsed = json.loads((tmp_path / "parsed.json").read_text())
    assert nxos.pending(intent, parsed) == []
    # and nothing extra: every parsed port-channel and LACP entry is one the intent pushed
    assert {e["name"] for e in parsed["lag_interfaces"]} == {e["name"] for e in intent["lag_interfaces"]}
    assert {e["name"] for e in parsed["lacp_interfaces"]} == {e["name"] for e in intent["lacp_interfaces"]}
    parsed_if = {e["name"]: e for e in parsed["interfaces"]}
    for entry in intent["interfaces"]:
        assert parsed_if[entry["name"]]["mtu"] == entry["mtu"]
        assert parsed_if[entry["name"]]["description"] == entry["description"]
    # the running configuration shows what nxos_config pushed, line for line
    for line in intent["qos_config"].splitlines():
        assert line in running.splitlines()


def test_login_needs_the_vault_password(endpoint):
    with pytest.raises(paramiko.AuthenticationException):
        connect(endpoint, password="not-the-password")


def test_host_key_is_checked_against_known_hosts(endpoint, tmp_path: pathlib.Path):
    key = (REPO / ".lab" / "nxos" / SWITCH / "ssh_host_ed25519_key.pub").read_text().split()[1]
    entry = f"[{endpoint['address']}]:{endpoint['port']}"
    known = pathlib.Path(os.path.expanduser("~/.ssh/known_hosts")).read_text().splitlines()
    assert any(line.startswith(entry + " ") and key in line for line in known)
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    with pytest.raises(paramiko.SSHException):
        connect(endpoint, known_hosts=empty)            # an unknown host is refused, never added
    connect(endpoint).close()


VERIFY_PLAYBOOK = """
- hosts: {switch}
  gather_facts: false
  tasks:
    - name: Compare the switch with the model (switch_nxos, entry point verify)
      ansible.builtin.include_role:
        name: ontap_ai.pod.switch_nxos
        tasks_from: verify
"""


def run_verify(tmp_path: pathlib.Path) -> subprocess.CompletedProcess:
    (tmp_path / "verify.yml").write_text(VERIFY_PLAYBOOK.format(switch=SWITCH))
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), PATH=f"{REPO / '.venv/bin'}:{os.environ['PATH']}")
    return subprocess.run([str(REPO / ".venv/bin/ansible-playbook"), "-i", str(LAB), str(tmp_path / "verify.yml")],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=600)


def test_the_comparison_finds_a_feature_and_a_vpc_membership_removed_by_hand(endpoint, tmp_path: pathlib.Path):
    """Features and vPC memberships are compared in one read of the running configuration
    (compare_config), not one module call per item: it must still see each of them go."""
    intent = nxos.intent(m.switch_plan(endpoint["model"], SWITCH))
    member = next(item for item in intent["vpc_interfaces"] if not item.get("peer_link"))
    shell = Shell(connect(endpoint))
    assert [(line, out) for line in push_lines(intent) if (out := shell.run(line))] == []
    matching = run_verify(tmp_path)
    assert matching.returncode == 0, matching.stdout[-4000:]
    for line in ["configure terminal", "no feature lldp", f"interface port-channel{member['portchannel']}",
                 f"no vpc {member['vpc']}", "end"]:
        assert shell.run(line) == ""
    differing = run_verify(tmp_path)
    assert differing.returncode != 0
    assert "differs from the site model" in differing.stdout
    assert "feature lldp: missing" in differing.stdout
    assert f"port-channel{member['portchannel']}: vPC is none, the model says {member['vpc']}" in differing.stdout
    # put it back for the other tests of the module
    assert [(line, out) for line in push_lines(intent) if (out := shell.run(line))] == []


# ------------------------------------------------ trunk lists under every supported cisco.nxos
ROLE_PLAYBOOK = """
- hosts: {switch}
  gather_facts: false
  tasks:
    - name: Configure the switch (switch_nxos)
      ansible.builtin.include_role:
        name: ontap_ai.pod.switch_nxos
"""

# Where Ansible finds cisco.nxos: the collections of requirements.yml (./collections, as every run
# of the bundle) or only what the installed `ansible` package bundles (11.1.0 with ansible 12). The
# package's is tried only when it is another release: the same release would repeat the same proof.
def _manifest_version(collections_dir: pathlib.Path) -> str | None:
    manifest = collections_dir / "ansible_collections" / "cisco" / "nxos" / "MANIFEST.json"
    return json.loads(manifest.read_text())["collection_info"]["version"] if manifest.is_file() else None


def _collection_sources() -> dict[str, str | None]:
    import ansible

    sources: dict[str, str | None] = {"requirements.yml": None}
    packaged = _manifest_version(pathlib.Path(ansible.__file__).resolve().parents[1])
    if packaged != _manifest_version(REPO / "collections"):
        sources["the ansible package"] = str(REPO)
    return sources


COLLECTION_SOURCES = _collection_sources()


def loaded_nxos(collections_path: str | None) -> str:
    command = [str(REPO / ".venv/bin/ansible-galaxy"), "collection", "list", "cisco.nxos", "--format", "json"]
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"))
    if collections_path:
        env["ANSIBLE_COLLECTIONS_PATH"] = collections_path
    listed = json.loads(subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, check=True).stdout)
    # ansible-galaxy lists every path; Ansible loads from the first of them (collections_path, then the package)
    first = next(path for path in listed if "cisco.nxos" in listed[path])
    return listed[first]["cisco.nxos"]["version"]


def run_role(tmp_path: pathlib.Path, collections_path: str | None) -> subprocess.CompletedProcess:
    (tmp_path / "role.yml").write_text(ROLE_PLAYBOOK.format(switch=SWITCH))
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               PATH=f"{REPO / '.venv/bin'}:{os.environ['PATH']}")
    if collections_path:
        env["ANSIBLE_COLLECTIONS_PATH"] = collections_path
    return subprocess.run([str(REPO / ".venv/bin/ansible-playbook"), "-i", str(LAB / "hosts.yml"), str(tmp_path / "role.yml")],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.slow
@pytest.mark.parametrize("source", COLLECTION_SOURCES)
def test_trunks_carry_exactly_the_models_vlans_fresh_or_brownfield(endpoint, tmp_path: pathlib.Path, source):
    """A fresh trunk allows every VLAN; cisco.nxos 11.2 renders `allowed vlan add`, which would
    leave it so. Whatever the release, the role leaves each trunk with the model's list only, on a
    fresh port and on one that arrives with another list, and a second run sends nothing."""
    collections_path = COLLECTION_SOURCES[source]
    version = loaded_nxos(collections_path)
    lab("stop")
    lab("start", erase=True)
    intent = nxos.intent(m.switch_plan(endpoint["model"], SWITCH))
    trunks = {e["name"]: e["trunk"]["allowed_vlans"] for e in intent["l2_interfaces"]
              if e.get("mode") == "trunk" and e["name"].startswith("Ethernet")}
    brownfield, fresh = sorted(trunks)[0], sorted(trunks)[1]
    shell = Shell(connect(endpoint))
    for line in ["configure terminal", f"interface {brownfield}", "switchport", "switchport mode trunk",
                 "switchport trunk allowed vlan 10-20,4000", "end"]:
        assert shell.run(line) == "", line
    assert "switchport trunk allowed vlan" not in shell.run(f"show running-config interface {fresh}")

    first = run_role(tmp_path, collections_path)
    assert first.returncode == 0, f"cisco.nxos {version}: " + first.stdout[-4000:] + first.stderr[-2000:]
    for name, allowed in trunks.items():
        lines = [line.strip() for line in shell.run(f"show running-config interface {name}").splitlines()]
        listed = [line for line in lines if line.startswith("switchport trunk allowed vlan")]
        assert listed == [f"switchport trunk allowed vlan {allowed}"], f"cisco.nxos {version}, {name}: {lines}"
    second = run_role(tmp_path, collections_path)
    assert second.returncode == 0 and re.search(rf"{SWITCH}\s*: ok=\d+\s+changed=0 ", second.stdout), \
        f"cisco.nxos {version}: the second run changed something\n" + second.stdout[-4000:]
