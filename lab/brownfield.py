#!/usr/bin/env python3
"""Bring running lab components to a brownfield state: what real sites arrive in before the bundle.

    brownfield.py [component...]          (lab/lab start --brownfield calls it after a factory start)
    brownfield.py --remove [component...] remove what the first form added and the site run left
                                          (the foreign objects, lines and files), so that the tests
                                          after a brownfield test find the lab as the others leave it

Each component is first brought to factory state by lab/lab; this script then configures, through
each device's own interface as an operator or an earlier project would have, what the site model
does not describe:

nxos   every switch: a VLAN the model does not name; the model's first DGX port as a trunk with a
       wide allowed list and an old description; the second DGX port shut; the third a member of a
       LACP port-channel the model does not name; a port the model does not use, described and in
       an access VLAN (it must stay as it is). Sent over SSH with netmiko, as NX-OS CLI.
ontap  an SVM of an earlier project with a volume, an export policy with a rule and a data LIF on
       the node management port, none of which the model owns (they must stay as they are). Sent
       as ONTAP REST calls.
cumulus every Spectrum switch of inventories/lab-spectrum: the same earlier owner in NVUE - a
       bridge VLAN the model does not name; the first DGX port a trunk of it with an old
       description; the second DGX port down; the third a member of a bond the model does not
       name; a port the model does not use, described and an access port of that VLAN (it must
       stay as it is). Sent over SSH as the cumulus user with `nv set` and `nv config apply`.
hosts  every DGX: /etc/fstab lines for the model's mount points from an old NFS server, and one
       for a mount the model does not name (it must stay); a systemd-networkd file for the
       management NIC the model does not own.

What each component holds afterwards is written to AIPOD_LAB_DIR/brownfield.json, which the e2e
test compares after the site runs (docs/brownfield.md).
"""
from __future__ import annotations

import contextlib
import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator

ROOT = os.environ.get("AIPOD_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAB_DIR = os.environ.get("AIPOD_LAB_DIR") or os.path.join(ROOT, ".lab")
INVENTORY = os.environ.get("AIPOD_LAB_INVENTORY") or os.path.join(ROOT, "inventories", "lab")
RECORD = os.path.join(LAB_DIR, "brownfield.json")
sys.path[:0] = [ROOT, os.path.join(ROOT, "lab"), os.path.join(ROOT, "lab", "nxos"), os.path.join(ROOT, "lab", "ontap")]

FOREIGN_VLAN = 999
FOREIGN_PORT = "Ethernet1/20"
FOREIGN_PORT_CHANNEL = 40
FOREIGN_SVM = "legacy_nfs"
FOREIGN_VOLUME = "legacy_home"
FOREIGN_POLICY = "legacy_clients"
FOREIGN_LIF = "legacy_nfs_lif1"
OLD_NFS_SERVER = "192.0.2.10"
FOREIGN_MOUNT = "/mnt/legacy-scratch"
FOREIGN_NETWORK_FILE = "/etc/systemd/network/10-lab-mgmt.network"
FOREIGN_NVUE_PORT = "swp40"
FOREIGN_BOND = "bond40"


def _site(inventory=INVENTORY):
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site

    return load_site(str(inventory))


@contextlib.contextmanager
def switch_session(endpoint: dict) -> Iterator:
    """A netmiko session to one lab switch (its address, port and login from the lab inventory)."""
    from control import _vault_secret
    from netmiko import ConnectHandler

    connection = ConnectHandler(device_type="cisco_nxos", host=endpoint["address"], port=endpoint["port"],
                                username=endpoint["user"], password=_vault_secret(INVENTORY, "vault_switch_admin_password"),
                                ssh_config_file=None, allow_agent=False, use_keys=False)
    try:
        yield connection
    finally:
        connection.disconnect()


def lab_hosts() -> tuple[dict[str, str], dict[str, str]]:
    """The DGX stand-ins (name -> container) and the environment podman needs to reach them."""
    with open(os.path.join(LAB_DIR, "hosts", "lab.json"), encoding="utf-8") as handle:
        description = json.load(handle)
    return ({name: host["container"] for name, host in description["hosts"].items()},
            dict(os.environ, CONTAINERS_CONF=description["containers_conf"]))


def switch_lines(switch: dict) -> list[str]:
    """The configuration an earlier owner left on a switch, around the model's DGX ports."""
    dgx_ports = [port["name"] for port in switch.get("ports") or [] if "host" in (port.get("connects_to") or {})]
    first, second, third = dgx_ports[:3]
    return [
        f"vlan {FOREIGN_VLAN}", "name legacy-lab",
        f"interface {first}", "description old cluster uplink", "switchport mode trunk",
        f"switchport trunk allowed vlan 1-100,{FOREIGN_VLAN}", "no shutdown",
        f"interface {second}", "description spare", "shutdown",
        f"interface port-channel{FOREIGN_PORT_CHANNEL}", "description legacy bundle", "switchport mode trunk",
        f"interface {third}", "switchport mode trunk", f"channel-group {FOREIGN_PORT_CHANNEL} mode active",
        f"interface {FOREIGN_PORT}", "description lab printer - not in the model", "switchport mode access",
        f"switchport access vlan {FOREIGN_VLAN}", "no shutdown",
    ]


def nxos() -> dict:
    from control import endpoints

    model = _site().model
    seeded = {}
    for endpoint in endpoints():
        lines = switch_lines(model["hosts"][endpoint["name"]]["switch"])
        with switch_session(endpoint) as connection:
            output = connection.send_config_set(lines, cmd_verify=False)
        if "Invalid" in output or "% " in output:
            raise SystemExit(f"lab brownfield: {endpoint['name']} refused part of its brownfield configuration:\n{output}")
        seeded[endpoint["name"]] = {"foreign_port": FOREIGN_PORT, "foreign_vlan": FOREIGN_VLAN,
                                    "foreign_port_channel": FOREIGN_PORT_CHANNEL}
        print(f"lab brownfield: nxos {endpoint['name']}: {len(lines)} lines of earlier configuration")
    return seeded


def ontap() -> dict:
    from ontap_lab.cli import LabClient, settings_from_env

    settings = settings_from_env(INVENTORY, LAB_DIR)
    client = LabClient(settings)
    nodes = settings.ontap["nodes"]
    aggregate = nodes[0]["aggregates"][0]["name"]

    def call(method: str, path: str, body: dict) -> dict:
        status, answer = client.request(method, path, body, timeout=30)
        if status not in (200, 201, 202):
            raise SystemExit(f"lab brownfield: ONTAP {method} {path} answered {status}: {answer}")
        job = ((answer or {}).get("job") or {}).get("uuid")
        deadline = time.monotonic() + 60
        while job and time.monotonic() < deadline:
            _, state = client.request("GET", f"/api/cluster/jobs/{job}")
            if (state or {}).get("state") in ("success", "failure"):
                if state["state"] == "failure":
                    raise SystemExit(f"lab brownfield: ONTAP job of {method} {path} failed: {state}")
                break
            time.sleep(0.2)
        return answer or {}

    call("POST", "/api/svm/svms", {"name": FOREIGN_SVM, "aggregates": [{"name": aggregate}],
                                   "nfs": {"enabled": True}, "comment": "earlier project"})
    call("POST", "/api/protocols/nfs/export-policies",
         {"name": FOREIGN_POLICY, "svm": {"name": FOREIGN_SVM},
          "rules": [{"clients": [{"match": "198.51.100.0/24"}], "ro_rule": ["sys"], "rw_rule": ["sys"],
                     "superuser": ["none"], "protocols": ["nfs3"]}]})
    call("POST", "/api/storage/volumes",
         {"name": FOREIGN_VOLUME, "svm": {"name": FOREIGN_SVM}, "aggregates": [{"name": aggregate}],
          "size": 20 * 1024 ** 3, "nas": {"path": f"/{FOREIGN_VOLUME}", "export_policy": {"name": FOREIGN_POLICY}}})
    call("POST", "/api/network/ip/interfaces",
         {"name": FOREIGN_LIF, "svm": {"name": FOREIGN_SVM}, "ip": {"address": "198.51.100.20", "netmask": "24"},
          "location": {"home_port": {"name": "e0M", "node": {"name": nodes[0]["name"]}}},
          "service_policy": {"name": "default-data-files"}})
    print(f"lab brownfield: ontap: SVM {FOREIGN_SVM} with volume {FOREIGN_VOLUME}, export policy {FOREIGN_POLICY}, "
          f"LIF {FOREIGN_LIF}")
    return {"svm": FOREIGN_SVM, "volume": FOREIGN_VOLUME, "export_policy": FOREIGN_POLICY, "lif": FOREIGN_LIF}


def fstab_lines(mounts: list[dict]) -> list[str]:
    """What a hand-built DGX holds: the model's mount points from an old server, and one more."""
    lines = [f"{OLD_NFS_SERVER}:/old{mount['path']} {mount['path']} nfs vers=3,hard 0 0" for mount in mounts]
    return lines + [f"{OLD_NFS_SERVER}:/scratch {FOREIGN_MOUNT} nfs vers=3,soft 0 0"]


def hosts() -> dict:
    containers, environment = lab_hosts()
    mounts = (_site().model.get("compute") or {}).get("mounts") or []
    network = "[Match]\nName=eth0\n\n[Network]\nDHCP=no\nKeepConfiguration=yes\n"
    seeded = {}
    for name, container in sorted(containers.items()):
        fstab = "\n".join(fstab_lines(mounts)) + "\n"
        script = ("set -e; cat >> /etc/fstab; mkdir -p /etc/systemd/network; "
                  f"printf '%s' \"$AIPOD_NETWORK\" > {FOREIGN_NETWORK_FILE}")
        subprocess.run(["podman", "exec", "-i", "-e", f"AIPOD_NETWORK={network}", container, "sh", "-c", script],
                       input=fstab, text=True, env=environment, check=True, capture_output=True, timeout=60)
        seeded[name] = {"fstab": fstab_lines(mounts), "network_file": FOREIGN_NETWORK_FILE}
        print(f"lab brownfield: hosts {name}: old fstab lines and {FOREIGN_NETWORK_FILE}")
    return seeded


def _cumulus_lab():
    sys.path.insert(0, os.path.join(ROOT, "lab", "cumulus"))
    import cumuluslab

    return cumuluslab


def nv_session(switch, commands: list[list[str]]) -> None:
    """Each `nv` command over its own SSH session as the cumulus user, then one apply."""
    lab = _cumulus_lab()
    for words in [*commands, ["config", "apply", "--assume-yes"]]:
        # ssh hands the remote shell one command line: each word is quoted for it.
        result = subprocess.run(lab.ssh_command(switch, "nv", *map(shlex.quote, words)), capture_output=True, text=True,
                                timeout=60)
        if result.returncode != 0:
            raise SystemExit(f"lab brownfield: {switch.name} refused nv {' '.join(words)}: {result.stderr.strip()}")


def nvue_commands(switch: dict) -> list[list[str]]:
    """What an earlier owner left on a Spectrum switch, around the model's DGX ports (as nxos's)."""
    dgx_ports = [port["name"] for port in switch.get("ports") or [] if "host" in (port.get("connects_to") or {})]
    first, second, third = dgx_ports[:3]
    vlan = str(FOREIGN_VLAN)
    return [
        ["set", "bridge", "domain", "br_default", "vlan", vlan],
        ["set", "interface", first, "description", "old cluster uplink"],
        ["set", "interface", first, "bridge", "domain", "br_default", "vlan", vlan],
        ["set", "interface", second, "description", "spare"],
        ["set", "interface", second, "link", "state", "down"],
        ["set", "interface", FOREIGN_BOND, "bond", "member", third],
        ["set", "interface", FOREIGN_BOND, "description", "legacy bundle"],
        ["set", "interface", FOREIGN_BOND, "bridge", "domain", "br_default", "vlan", vlan],
        ["set", "interface", FOREIGN_NVUE_PORT, "description", "lab printer - not in the model"],
        ["set", "interface", FOREIGN_NVUE_PORT, "bridge", "domain", "br_default", "access", vlan],
    ]


def cumulus() -> dict:
    lab = _cumulus_lab()
    model = _site(lab.INVENTORY).model
    seeded = {}
    for switch in lab.load_switches():
        commands = nvue_commands(model["hosts"][switch.name]["switch"])
        nv_session(switch, commands)
        seeded[switch.name] = {"foreign_port": FOREIGN_NVUE_PORT, "foreign_vlan": FOREIGN_VLAN, "foreign_bond": FOREIGN_BOND}
        print(f"lab brownfield: cumulus {switch.name}: {len(commands)} nv set commands of earlier configuration")
    return seeded


def remove_cumulus() -> None:
    """The Spectrum pair back to factory state: what the earlier owner left is gone with what a run
    of inventories/lab-spectrum set (the next run of it sets that again)."""
    _cumulus_lab().factory()


def remove_nxos() -> None:
    from control import endpoints

    for endpoint in endpoints():
        with switch_session(endpoint) as connection:
            connection.send_config_set([f"default interface {FOREIGN_PORT}", f"no interface port-channel{FOREIGN_PORT_CHANNEL}",
                                        f"no vlan {FOREIGN_VLAN}"], cmd_verify=False)


def remove_ontap() -> None:
    from ontap_lab.cli import LabClient, settings_from_env

    client = LabClient(settings_from_env(INVENTORY, LAB_DIR))
    for collection, query, key in (("network/ip/interfaces", f"name={FOREIGN_LIF}", "uuid"),
                                   ("storage/volumes", f"svm.name={FOREIGN_SVM}&name={FOREIGN_VOLUME}", "uuid"),
                                   ("protocols/nfs/export-policies", f"svm.name={FOREIGN_SVM}&name={FOREIGN_POLICY}", "id"),
                                   ("svm/svms", f"name={FOREIGN_SVM}", "uuid")):
        status, answer = client.request("GET", f"/api/{collection}?{query}&fields={key}")
        for record in (answer or {}).get("records") or []:
            if collection == "storage/volumes":
                client.request("PATCH", f"/api/{collection}/{record[key]}", {"state": "offline"}, timeout=30)
            status, answer = client.request("DELETE", f"/api/{collection}/{record[key]}", timeout=30)
            if status not in (200, 202):
                raise SystemExit(f"lab brownfield: ONTAP DELETE {collection} {record[key]} answered {status}: {answer}")


def remove_hosts() -> None:
    containers, environment = lab_hosts()
    for container in containers.values():
        subprocess.run(["podman", "exec", container, "sh", "-c",
                        f"sed -i '\\# {FOREIGN_MOUNT} #d' /etc/fstab; rm -f {FOREIGN_NETWORK_FILE}"],
                       env=environment, check=True, capture_output=True, timeout=60)


SEEDERS = {"ontap": ontap, "nxos": nxos, "cumulus": cumulus, "hosts": hosts}
REMOVERS = {"ontap": remove_ontap, "nxos": remove_nxos, "cumulus": remove_cumulus, "hosts": remove_hosts}


def main(argv: list[str]) -> int:
    if argv[:1] == ["--remove"]:
        for name in argv[1:] or list(REMOVERS):
            if name in REMOVERS:
                REMOVERS[name]()
        if os.path.exists(RECORD):
            os.remove(RECORD)
        print("lab brownfield: removed")
        return 0
    names = argv or list(SEEDERS)
    unknown = [name for name in names if name not in SEEDERS and name not in ("kubernetes", "vms")]
    if unknown:
        print(f"lab brownfield: no brownfield state for {', '.join(unknown)} (known: {', '.join(SEEDERS)})", file=sys.stderr)
        return 2
    record = {}
    for name in names:
        if name in SEEDERS:
            record[name] = SEEDERS[name]()
    os.makedirs(LAB_DIR, exist_ok=True)
    with open(RECORD, "w", encoding="utf-8") as handle:
        json.dump(record, handle, indent=2, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
