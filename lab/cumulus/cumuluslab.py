#!/usr/bin/env python3
"""The lab's Spectrum switches: one container per Cumulus switch of the lab's Spectrum inventory,
answering SSH on loopback as the `cumulus` user, with NVUE's `nv` (lab/nvue) as its command line.

    cumuluslab.py up | down | status | factory [switch...]

The switches come from the site model of AIPOD_LAB_CUMULUS_INVENTORY (default
inventories/lab-spectrum): every switch whose platform is cumulus, at its mgmt_address (a loopback
address) on port 2222, the port the lab's NX-OS endpoints use too (22 may be the machine's own).
Each container shares the machine's network namespace and runs only sshd: what the switch role
needs of a Cumulus switch is SSH, a Python for Ansible's modules and `nv`. The switch's NVUE state
(applied, startup and pending revisions) lives inside the container, as on a switch, and survives
`up` until the container is recreated (its recipe changed) or `factory` is asked for.

up       builds nothing of its own: it uses the DGX stand-ins' image (lab/hosts builds it when
         missing), writes the client key, one host key per switch and known_hosts, and starts the
         containers. Idempotent; a switch no longer in the inventory is removed.
down     removes the containers; keeps the keys.
status   exits 1 unless every switch answers `nv show system` over SSH.
factory  puts the named switches (all by default) back to a switch as it ships (no revision applied).
"""
from __future__ import annotations

import hashlib
import ipaddress
import json
import os
import shlex
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hosts"))
import hostlab  # noqa: E402  (the lab's podman set-up, image and helpers)
from hostlab import LabError, podman, run  # noqa: E402

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import platforms  # noqa: E402
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as site_model  # noqa: E402
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site  # noqa: E402

ROOT = hostlab.ROOT
INVENTORY = Path(os.environ.get("AIPOD_LAB_CUMULUS_INVENTORY") or ROOT / "inventories" / "lab-spectrum")
STATE = hostlab.LAB_DIR / "cumulus"
NVUE_SOURCE = ROOT / "lab" / "nvue"
NAME_PREFIX = "aipod-lab-cumulus-"
LABEL = "aipod.lab"
SSH_PORT = 2222
READY_TIMEOUT = 60
RECIPE_VERSION = 1  # bump when the container's start-up changes

# Runs as the container's first process: the switch's user, then sshd in the foreground.
START = """#!/bin/sh
set -eu
id cumulus >/dev/null 2>&1 || useradd --create-home --shell /bin/bash cumulus
# '*' (no password, not locked): sshd takes the key; a locked account ('!') it would refuse.
usermod --password '*' cumulus
install -d -m 700 -o cumulus -g cumulus /home/cumulus/.ssh
install -m 600 -o cumulus -g cumulus /etc/aipod-cumulus/authorized_keys /home/cumulus/.ssh/authorized_keys
install -d -m 755 -o cumulus -g cumulus /var/lib/aipod-nvue
mkdir -p /run/sshd
exec /usr/sbin/sshd -D -e
"""

SSHD = """# Cumulus switch stand-in: key-only login as cumulus on the switch's loopback address.
# Named 00- so that its settings come first: sshd keeps the first value it reads.
ListenAddress {address}:{port}
HostKey /etc/ssh/ssh_host_ed25519_key
AllowUsers cumulus
PermitRootLogin no
PasswordAuthentication no
KbdInteractiveAuthentication no
# Without systemd in the container there is no login session to open.
UsePAM no
UseDNS no
MaxStartups 64:30:128
MaxSessions 64
"""

NV = """#!/bin/sh
# NVUE's command line on the lab's object model (lab/nvue): this switch's name and front-panel ports.
NVUE_HOSTNAME={hostname} NVUE_PORTS={ports} NVUE_STATE=/var/lib/aipod-nvue/state.json \\
  exec /usr/bin/python3 -S /usr/lib/aipod-nvue/nv.py "$@"
"""


def say(text: str) -> None:
    print(f"lab: cumulus: {text}", flush=True)


@dataclass
class Switch:
    name: str
    address: str
    ports: int

    @property
    def container(self) -> str:
        return NAME_PREFIX + self.name


def load_switches() -> list[Switch]:
    """The Cumulus switches of the lab's Spectrum inventory, each on a loopback address."""
    if not (INVENTORY / "hosts.yml").exists():
        raise LabError(f"{INVENTORY}/hosts.yml does not exist (AIPOD_LAB_CUMULUS_INVENTORY)")
    model = load_site(str(INVENTORY)).model
    switches = []
    for name, switch in site_model.hosts_of_kind(model, "switch").items():
        if switch.get("platform") != "cumulus":
            continue
        address = ipaddress.ip_address(str(switch.get("mgmt_address")))
        if not address.is_loopback:
            raise LabError(f"{name}: mgmt_address {address} is not a loopback address; the lab's switches live on 127.0.0.0/8")
        ports = (platforms.port_map("cumulus", switch.get("model")) or {}).get("ports") or 64
        switches.append(Switch(name=name, address=str(address), ports=int(ports)))
    return switches


def ssh_dir() -> Path:
    return STATE / "ssh"


def ensure_keys(switches: list[Switch]) -> None:
    hostlab.ensure_ssh_keys(ssh_dir(), STATE / "hostkeys", [(s.name, f"[{s.address}]:{SSH_PORT}") for s in switches],
                            "aipod-lab-cumulus")


def ssh_command(switch: Switch, *command: str, timeout: int = 5) -> list[str]:
    return hostlab.ssh_argv(ssh_dir(), f"cumulus@{switch.address}", *command, port=SSH_PORT, timeout=timeout)


def spec(switch: Switch, image_id: str) -> str:
    """Digest of what a container is made from: a change recreates it (and its NVUE state)."""
    sources = {path.name: path.read_text() for path in sorted(NVUE_SOURCE.glob("*.py"))}
    text = json.dumps({"image": image_id, "switch": [switch.address, switch.ports], "version": RECIPE_VERSION,
                       "start": START, "sshd": SSHD, "nv": NV, "sources": sources,
                       "hostkey": (STATE / "hostkeys" / switch.name / "ssh_host_ed25519_key.pub").read_text(),
                       "client": (ssh_dir() / "id_ed25519.pub").read_text()}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def existing() -> dict[str, dict]:
    out = podman("ps", "-a", "--filter", f"label={LABEL}=cumulus", "--format", "json").stdout
    return {entry["Names"][0]: entry for entry in json.loads(out or "[]") if entry.get("Names")}


def create(switch: Switch, image: str, digest: str) -> None:
    podman("create", "--name", switch.container, "--hostname", switch.name,
           # The machine's network namespace: sshd listens on the switch's loopback address only.
           "--network", "host", "--label", f"{LABEL}=cumulus", "--label", f"{LABEL}.switch={switch.name}",
           "--label", f"{LABEL}.spec={digest}", image, "/bin/sh", "/usr/local/sbin/aipod-cumulus-start")
    with tempfile.TemporaryDirectory(prefix="aipod-lab-cumulus-") as staging:
        root = Path(staging)
        for directory in ("etc/ssh/sshd_config.d", "etc/aipod-cumulus", "usr/lib/aipod-nvue", "usr/local/sbin", "usr/bin"):
            (root / directory).mkdir(parents=True)
        for suffix, mode in (("", 0o600), (".pub", 0o644)):
            target = root / "etc" / "ssh" / f"ssh_host_ed25519_key{suffix}"
            shutil.copy(STATE / "hostkeys" / switch.name / target.name, target)
            target.chmod(mode)
        (root / "etc/ssh/sshd_config.d/00-aipod-cumulus.conf").write_text(SSHD.format(address=switch.address, port=SSH_PORT))
        shutil.copy(ssh_dir() / "id_ed25519.pub", root / "etc/aipod-cumulus/authorized_keys")
        for source in NVUE_SOURCE.glob("*.py"):
            shutil.copy(source, root / "usr/lib/aipod-nvue" / source.name)
        (root / "usr/local/sbin/aipod-cumulus-start").write_text(START)
        (root / "usr/bin/nv").write_text(NV.format(hostname=shlex.quote(switch.name), ports=switch.ports))
        (root / "usr/bin/nv").chmod(0o755)
        podman("cp", f"{staging}/.", f"{switch.container}:/")
    podman("start", switch.container)


def wait_ready(switches: list[Switch]) -> None:
    deadline = time.monotonic() + READY_TIMEOUT
    pending = list(switches)
    while pending and time.monotonic() < deadline:
        pending = [s for s in pending if run(ssh_command(s, "nv", "show", "system", timeout=3), check=False).returncode != 0]
        if pending:
            time.sleep(0.5)
    if pending:
        raise LabError(f"no SSH answer within {READY_TIMEOUT} s from: {', '.join(s.name for s in pending)} "
                       f"(podman logs {pending[0].container})")


def up() -> int:
    started = time.monotonic()
    hostlab.podman_setup()
    switches = load_switches()
    current = existing()
    stale = [name for name in current if name not in {s.container for s in switches}]
    if stale:
        podman("rm", "--force", "--time", "0", *stale)
        say(f"removed {len(stale)} switch(es) not in {INVENTORY.name}: {', '.join(sorted(stale))}")
    if not switches:
        say(f"{INVENTORY.name} has no Cumulus switches: nothing to start")
        return 0
    image = hostlab.ensure_image()
    image_id = podman("image", "inspect", "--format", "{{.Id}}", image).stdout.strip()
    ensure_keys(switches)
    created = []
    for switch in switches:
        digest = spec(switch, image_id)
        entry = current.get(switch.container)
        if entry and (entry.get("Labels") or {}).get(f"{LABEL}.spec") == digest:
            if entry.get("State") != "running":
                podman("start", switch.container)
            continue
        if entry:
            podman("rm", "--force", "--time", "0", switch.container)
        create(switch, image, digest)
        created.append(switch.name)
    wait_ready(switches)
    say(f"{len(switches)} Cumulus switch(es) up from {INVENTORY.name}"
        f"{' (started ' + ', '.join(created) + ')' if created else ''} in {time.monotonic() - started:.0f} s: "
        + ", ".join(f"{s.name} {s.address}:{SSH_PORT}" for s in switches))
    return 0


def down() -> int:
    if shutil.which("podman") is None or not hostlab.CONTAINERS_CONF.exists():
        say("nothing to stop")
        return 0
    containers = list(existing())
    if containers:
        podman("rm", "--force", "--time", "0", *containers)
        say(f"removed {len(containers)} switch(es)")
    return 0


def status() -> int:
    if shutil.which("podman") is None or not hostlab.CONTAINERS_CONF.exists():
        say("not set up (lab/lab start cumulus)")
        return 1
    switches = load_switches()
    current = existing()
    ok = True
    for switch in switches:
        state = current.get(switch.container, {}).get("State", "absent")
        answers = state == "running" and run(ssh_command(switch, "nv", "show", "system"), check=False).returncode == 0
        ok = ok and answers
        say(f"{switch.name} ({switch.container}) {switch.address}:{SSH_PORT}: {state}, nv {'answers' if answers else 'no answer'}")
    return 0 if ok else 1


def factory(*names: str) -> int:
    """Back to a switch as it ships: the NVUE state file goes, so no revision is applied or pending."""
    switches = {s.name: s for s in load_switches()}
    names = list(names) or list(switches)
    unknown = [name for name in names if name not in switches]
    if unknown:
        raise LabError(f"factory: {', '.join(unknown)} not a Cumulus switch of {INVENTORY.name} (known: {', '.join(switches)})")
    for name in names:
        podman("exec", switches[name].container, "rm", "-f", "/var/lib/aipod-nvue/state.json")
        say(f"{name}: factory state (no NVUE revision)")
    return 0


def main(argv: list[str]) -> int:
    return hostlab.dispatch(argv, {"up": up, "down": down, "status": status, "factory": factory}, __doc__, say)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
