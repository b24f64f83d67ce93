#!/usr/bin/env python3
"""Start, stop and check the lab's NX-OS endpoints: one endpoint.py process per nxos switch.

    control.py up | down | status

The switches, their addresses and login come from the lab inventory (AIPOD_LAB_INVENTORY): every
host of group switches whose model says platform nxos listens on its switch.mgmt_address, on
ansible_port of group_vars/switches.yml, for ansible_user with the vault's
vault_switch_admin_password. State lives in AIPOD_LAB_DIR/nxos/<switch>/: host key, password
file (0600), configuration (state.json), pid and log.

Host keys: each endpoint has its own ed25519 key, generated once. `up` records the public keys in
~/.ssh/known_hosts, the file Ansible's network_cli transports (paramiko and libssh) check host
keys against, replacing older entries for the same address and port. paramiko finds ~ from $HOME,
libssh from the password database: where the two differ (a run with HOME set elsewhere, as
benchmarks/ci.py --cold does), both files get the entries. Checking stays on; a copy of the entries
is kept in AIPOD_LAB_DIR/nxos/known_hosts.

AIPOD_LAB_NXOS_WRITE_ERASE=1 makes `up` start the switches from factory configuration (like
`write erase` and a reload); the molecule scenario uses it to converge blank switches.

Cabling: `up` writes AIPOD_LAB_DIR/nxos/cabling.json from the site model (each switch port's
connects_to, and the vPC peer-link members paired in order with the peer's), which the endpoints
read to tell link state, LLDP neighbours and vPC peer status (lab/nxos/nxos_fabric.py).
"""
from __future__ import annotations

import os
import pwd
import signal
import socket
import subprocess
import sys
import time

import yaml

ROOT = os.environ.get("AIPOD_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAB_DIR = os.environ.get("AIPOD_LAB_DIR") or os.path.join(ROOT, ".lab")
INVENTORY = os.environ.get("AIPOD_LAB_INVENTORY") or os.path.join(ROOT, "inventories", "lab")
STATE_DIR = os.path.join(LAB_DIR, "nxos")
HERE = os.path.dirname(os.path.abspath(__file__))
# paramiko's ~ ($HOME) first, then libssh's (the password database's home directory).
KNOWN_HOSTS_FILES = tuple(dict.fromkeys(os.path.join(home, ".ssh", "known_hosts")
                                        for home in (os.path.expanduser("~"), pwd.getpwuid(os.getuid()).pw_dir)))
START_TIMEOUT = 15.0

# The collection ontap_ai.pod (as ansible_collections.ontap_ai.pod) and the lab's secrets reader.
sys.path[:0] = [ROOT, os.path.join(ROOT, "lab"), HERE]


def _vault_secret(inventory: str, name: str) -> str:
    from lab_secrets import inventory_secret

    password_file = os.path.join(inventory, "vault-password.txt")
    if not os.path.exists(password_file):
        password_file = os.path.join(ROOT, "inventories", "lab", "vault-password.txt")
    try:
        return inventory_secret(inventory, name, password_file)
    except KeyError:
        raise SystemExit(f"lab nxos: {name} is not defined in {inventory}/group_vars") from None


def endpoints() -> list[dict]:
    """The nxos switches of the lab inventory and how to serve them."""
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site

    site = load_site(INVENTORY)
    connection = {}
    connection_file = os.path.join(INVENTORY, "group_vars", "switches.yml")
    if os.path.exists(connection_file):
        with open(connection_file, encoding="utf-8") as handle:
            connection = yaml.safe_load(handle) or {}
    port = int(connection.get("ansible_port", 22))
    user = str(connection.get("ansible_user", "admin"))
    result = []
    for host, body in sorted(site.model["hosts"].items()):
        switch = body.get("switch")
        if isinstance(switch, dict) and switch.get("platform") == "nxos":
            result.append({"name": host, "address": switch["mgmt_address"], "port": port, "user": user,
                           "dir": os.path.join(STATE_DIR, host)})
    return result


def cabling(model: dict) -> list:
    """The cables between the lab's switches and to the hosts and ONTAP nodes, as the site model declares them."""
    from nxos_fabric import End

    links = []
    seen: set[tuple[str, str]] = set()
    switches = {host: body["switch"] for host, body in sorted(model["hosts"].items()) if isinstance(body.get("switch"), dict)}
    for host, switch in switches.items():
        peer_link = (switch.get("vpc") or {}).get("peer_link") or {}
        peer = (switch.get("vpc") or {}).get("peer")
        peer_members = (((switches.get(peer) or {}).get("vpc") or {}).get("peer_link") or {}).get("members", [])
        for mine, theirs in zip(peer_link.get("members", []), peer_members):
            if (host, mine) not in seen and (peer, theirs) not in seen:
                links.append((End(host, mine), End(peer, theirs)))
                seen.update({(host, mine), (peer, theirs)})
        for port in switch.get("ports", []):
            far = port.get("connects_to") or {}
            device = far.get("host") or far.get("ontap_node")
            if device and (host, port["name"]) not in seen:
                links.append((End(host, port["name"]), End(device, far.get("nic") or far.get("port"))))
                seen.add((host, port["name"]))
        for channel in switch.get("port_channels", []):
            far = channel.get("connects_to") or {}
            device = far.get("host") or far.get("ontap_node")
            for member in channel.get("members", []):
                if device and (host, member) not in seen:
                    # the model names the far end's bundle (a0a), not which of its ports this cable reaches
                    links.append((End(host, member), End(device, None)))
                    seen.add((host, member))
    # Uplinks between switch pairs: each member meets the far pair's member the cabling plan names.
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network.model import cabling_plan

    for row in cabling_plan(model):
        if row["device_kind"] == "switch" and row["kind"] == "member" and row["device_port"]:
            if (row["switch"], row["port"]) not in seen and (row["device"], row["device_port"]) not in seen:
                links.append((End(row["switch"], row["port"]), End(row["device"], row["device_port"])))
                seen.update({(row["switch"], row["port"]), (row["device"], row["device_port"])})
    return links


def _pid(endpoint: dict) -> int | None:
    try:
        with open(os.path.join(endpoint["dir"], "pid"), encoding="utf-8") as handle:
            pid = int(handle.read().strip())
        os.kill(pid, 0)
        return pid
    except (OSError, ValueError):
        return None


def _listening(endpoint: dict) -> bool:
    try:
        with socket.create_connection((endpoint["address"], endpoint["port"]), timeout=2) as sock:
            return sock.recv(64).startswith(b"SSH-2.0-")
    except OSError:
        return False


def _host_key(endpoint: dict) -> str:
    path = os.path.join(endpoint["dir"], "ssh_host_ed25519_key")
    if not os.path.exists(path):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", f"{endpoint['name']} lab endpoint", "-f", path],
                       check=True)
    return path


def _known_host_name(endpoint: dict) -> str:
    return endpoint["address"] if endpoint["port"] == 22 else f"[{endpoint['address']}]:{endpoint['port']}"


def record_host_keys(items: list[dict]) -> None:
    """Put each endpoint's public key in the transports' known_hosts files, replacing older keys for its address."""
    entries = []
    for endpoint in items:
        with open(_host_key(endpoint) + ".pub", encoding="utf-8") as handle:
            kind, key = handle.read().split()[:2]
        entries.append(f"{_known_host_name(endpoint)} {kind} {key}")
    for known_hosts in KNOWN_HOSTS_FILES:
        _record(known_hosts, items, entries)
    with open(os.path.join(STATE_DIR, "known_hosts"), "w", encoding="utf-8") as handle:
        handle.write("\n".join(entries) + "\n")


def _record(known_hosts: str, items: list[dict], entries: list[str]) -> None:
    os.makedirs(os.path.dirname(known_hosts), mode=0o700, exist_ok=True)
    existing = open(known_hosts, encoding="utf-8").read().splitlines() if os.path.exists(known_hosts) else []
    for endpoint, entry in zip(items, entries):
        if entry in existing:
            continue
        subprocess.run(["ssh-keygen", "-q", "-R", _known_host_name(endpoint), "-f", known_hosts],
                       check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(known_hosts, "a", encoding="utf-8") as handle:
            handle.write(entry + "\n")
        print(f"lab nxos: recorded the host key of {endpoint['name']} ({_known_host_name(endpoint)}) in {known_hosts}")
    old = known_hosts + ".old"
    if os.path.exists(old):
        os.remove(old)  # ssh-keygen -R's backup; the lab's entries are in .lab/nxos/known_hosts


def start(endpoint: dict, password: str) -> None:
    # The readiness check below is "the port answers": a process this file no longer names (left by
    # an earlier lab directory or a killed run) would answer for an endpoint that failed to bind.
    if _listening(endpoint):
        raise SystemExit(f"lab nxos: {endpoint['address']}:{endpoint['port']} already answers, but not for the endpoint "
                         f"{endpoint['dir']}/pid names; stop that process (ss -ltnp 'sport = :{endpoint['port']}'), "
                         "then start again")
    os.makedirs(endpoint["dir"], mode=0o700, exist_ok=True)
    password_file = os.path.join(endpoint["dir"], "password")
    descriptor = os.open(password_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(password)
    key = _host_key(endpoint)
    log = open(os.path.join(endpoint["dir"], "endpoint.log"), "ab")
    process = subprocess.Popen(
        [sys.executable, os.path.join(HERE, "endpoint.py"), "--name", endpoint["name"], "--address", endpoint["address"],
         "--port", str(endpoint["port"]), "--state-dir", endpoint["dir"], "--username", endpoint["user"],
         "--password-file", password_file, "--host-key", key],
        stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
    with open(os.path.join(endpoint["dir"], "pid"), "w", encoding="utf-8") as handle:
        handle.write(str(process.pid))
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"lab nxos: {endpoint['name']} exited at start; see {endpoint['dir']}/endpoint.log")
        if _listening(endpoint):
            print(f"lab nxos: {endpoint['name']} listening on {endpoint['address']}:{endpoint['port']} (pid {process.pid})")
            return
        time.sleep(0.1)
    process.kill()
    raise SystemExit(f"lab nxos: {endpoint['name']} did not listen within {START_TIMEOUT:.0f} s; see {endpoint['dir']}/endpoint.log")


def stop(endpoint: dict) -> None:
    pid = _pid(endpoint)
    if pid is not None:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except OSError:
                break
            time.sleep(0.1)
        else:
            os.kill(pid, signal.SIGKILL)
        print(f"lab nxos: {endpoint['name']} stopped")
    pid_file = os.path.join(endpoint["dir"], "pid")
    if os.path.exists(pid_file):
        os.remove(pid_file)


def up() -> int:
    items = endpoints()
    if not items:
        print("lab nxos: the lab inventory has no nxos switch; nothing to start")
        return 0
    erase = os.environ.get("AIPOD_LAB_NXOS_WRITE_ERASE") == "1"
    password = _vault_secret(INVENTORY, "vault_switch_admin_password")
    os.makedirs(STATE_DIR, mode=0o700, exist_ok=True)
    from nxos_fabric import CABLING_FILE, write_cabling

    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site

    write_cabling(os.path.join(STATE_DIR, CABLING_FILE), cabling(load_site(INVENTORY).model))
    for endpoint in items:
        if erase:
            stop(endpoint)
            state = os.path.join(endpoint["dir"], "state.json")
            if os.path.exists(state):
                os.remove(state)
                print(f"lab nxos: {endpoint['name']} configuration erased")
        if _pid(endpoint) is not None and _listening(endpoint):
            print(f"lab nxos: {endpoint['name']} already up on {endpoint['address']}:{endpoint['port']}")
            continue
        stop(endpoint)
        start(endpoint, password)
    record_host_keys(items)
    return 0


def down() -> int:
    for endpoint in endpoints():
        stop(endpoint)
    return 0


def status() -> int:
    rc = 0
    for endpoint in endpoints():
        pid = _pid(endpoint)
        if pid is not None and _listening(endpoint):
            print(f"lab nxos: {endpoint['name']} up on {endpoint['address']}:{endpoint['port']} (pid {pid})")
        else:
            print(f"lab nxos: {endpoint['name']} down")
            rc = 1
    return rc


if __name__ == "__main__":
    actions = {"up": up, "down": down, "status": status}
    if len(sys.argv) != 2 or sys.argv[1] not in actions:
        raise SystemExit("usage: control.py up|down|status")
    sys.exit(actions[sys.argv[1]]())
