#!/usr/bin/env python3
"""The lab's DGX stand-ins: systemd hosts in podman containers, reachable over real SSH.

    hostlab.py up | down | status

Everything comes from the site model of the lab inventory (AIPOD_LAB_INVENTORY, default
inventories/lab): the DGX hosts, their management and storage addresses, the networks with their
subnets, gateways and MTUs. Nothing is typed here.

up      applies the podman set-up of the lab notes (a project-local containers.conf: runc, lower
        default ulimits, the lab's own network directory; fs.inotify.max_user_instances raised
        for the number of systemd hosts), builds the Debian 12 image if its recipe
        (lab/hosts/image/) changed, creates the lab bridges and podman networks, starts one
        container per DGX host with its inventory addresses, and writes the SSH key, host keys and
        known_hosts Ansible uses. Hosts that are no longer selected are removed. Idempotent.
down    removes the containers, the networks and the bridges; keeps the image and the keys.
status  reports image, networks and hosts; exits 1 unless every selected host answers over SSH.

Selection: AIPOD_LAB_DGX=N runs the first N DGX hosts of the inventory (natural order; at most
64); by default all of them. State lives in AIPOD_LAB_DIR/hosts and AIPOD_LAB_DIR/podman.
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import fcntl
import hashlib
import inspect
import ipaddress
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(os.environ.get("AIPOD_ROOT") or Path(__file__).resolve().parents[2])
sys.path.insert(0, str(ROOT))  # the collection ontap_ai.pod, as ansible_collections.ontap_ai.pod

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as site_model  # noqa: E402  (path set just above)
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site  # noqa: E402

LAB_DIR = Path(os.environ.get("AIPOD_LAB_DIR") or ROOT / ".lab")
STATE = LAB_DIR / "hosts"
PODMAN_DIR = LAB_DIR / "podman"
CONTAINERS_CONF = PODMAN_DIR / "containers.conf"
INVENTORY = Path(os.environ.get("AIPOD_LAB_INVENTORY") or ROOT / "inventories" / "lab")
IMAGE_DIR = Path(__file__).resolve().parent / "image"
IMAGE_REPO = "localhost/aipod-lab-dgx"
IMAGE_CURRENT = f"{IMAGE_REPO}:current"
NAME_PREFIX = "aipod-lab-"
BRIDGE_PREFIX = "aplab-"
LABEL = "aipod.lab"
MAX_HOSTS = 64
DEBIAN_SUITE = "bookworm"
DEBIAN_MIRROR = os.environ.get("AIPOD_LAB_DEBIAN_MIRROR", "http://deb.debian.org/debian")
SSH_READY_TIMEOUT = 180
PARALLEL = 4
INOTIFY_PER_HOST = 8


def say(text: str) -> None:
    print(f"lab: hosts: {text}", flush=True)


class LabError(Exception):
    """A problem the user can act on; printed without a traceback."""


def run(args: list[str], check: bool = True, capture: bool = True, **kwargs) -> subprocess.CompletedProcess:
    env = dict(os.environ, CONTAINERS_CONF=str(CONTAINERS_CONF))
    result = subprocess.run(args, env=env, text=True, capture_output=capture, **kwargs)
    if check and result.returncode != 0:
        detail = (result.stderr or result.stdout or "").strip()
        raise LabError(f"{' '.join(args[:4])}... failed ({result.returncode}): {detail}")
    return result


def podman(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return run(["podman", *args], check=check)


# ------------------------------------------------------------------------------------------ model
@dataclass
class Network:
    name: str            # the model's network name
    podman_name: str     # aipod-lab-<name>
    bridge: str          # the Linux bridge on the control machine
    subnet: str
    mtu: int
    gateway: str | None  # mgmt only: the bridge's own address, Ansible's way in
    purpose: str


@dataclass
class Host:
    name: str
    container: str
    mgmt_address: str
    mgmt_nic: str
    nics: list[dict] = field(default_factory=list)  # [{name, network}] storage NICs, unaddressed


def bridge_name(network: str) -> str:
    """aplab-<network>, shortened with a digest when the kernel's 15-character limit needs it."""
    name = BRIDGE_PREFIX + network
    if len(name) <= 15:
        return name
    return BRIDGE_PREFIX + network[:4] + "-" + hashlib.sha256(network.encode()).hexdigest()[:4]


def load_lab() -> tuple[dict[str, Network], list[Host]]:
    """The networks and DGX hosts the lab brings to life, from the lab inventory's model."""
    site = load_site(str(INVENTORY))
    model = site.model
    dgx = site_model.hosts_of_kind(model, "dgx")
    if not dgx:
        raise LabError(f"{INVENTORY} has no DGX hosts")
    wanted = os.environ.get("AIPOD_LAB_DGX", "").strip()
    count = len(dgx) if not wanted else int(wanted)
    if count < 0 or count > MAX_HOSTS:
        raise LabError(f"AIPOD_LAB_DGX={wanted}: the lab runs 0 to {MAX_HOSTS} DGX stand-ins")
    if count > len(dgx):
        raise LabError(f"AIPOD_LAB_DGX={count} but {INVENTORY} has {len(dgx)} DGX hosts; "
                       f"write a larger inventory with scripts/scale_site.py {INVENTORY} {count} "
                       f".lab/inventories/lab-{count} --ha-pairs 1 and set AIPOD_LAB_INVENTORY to it")
    networks_model = site_model.networks_by_name(model)
    networks: dict[str, Network] = {}
    hosts: list[Host] = []
    for host_name, data in list(dgx.items())[:count]:
        mgmt = data.get("mgmt_address")
        mgmt_ip = site_model.parse_address(mgmt)
        mgmt_net = next((n for n in networks_model.values() if n.get("purpose") == "mgmt" and mgmt_ip
                         and (s := site_model.parse_subnet(n.get("subnet"))) and mgmt_ip in s), None)
        if mgmt_net is None:
            raise LabError(f"{host_name}: no mgmt network of the model holds its mgmt_address {mgmt}")
        if not mgmt_net.get("gateway"):
            raise LabError(f"network {mgmt_net['name']} needs a gateway: the lab gives it to the bridge Ansible comes in by")
        _add_network(networks, mgmt_net)
        host = Host(name=host_name, container=NAME_PREFIX + host_name, mgmt_address=mgmt, mgmt_nic="eth0")
        for nic_name, nic in site_model.host_interfaces(model, host_name).items():
            if nic["kind"] != "storage":
                continue  # in-band bonds are the OS install's own path; the lab has none
            if nic["tagged"]:
                raise LabError(f"{host_name} {nic_name} is tagged, but this kernel has no 802.1Q: lab NICs must be untagged")
            network = networks_model.get(nic["network"] or "")
            if network is None:
                raise LabError(f"{host_name} {nic_name}: network {nic['network']} is not declared")
            _add_network(networks, network)
            host.nics.append({"name": nic_name, "network": network["name"]})
        if any(nic["name"] == host.mgmt_nic for nic in host.nics):
            raise LabError(f"{host_name}: storage NIC named {host.mgmt_nic}, which is the management NIC of the lab hosts")
        hosts.append(host)
    return networks, hosts


def _add_network(networks: dict[str, Network], network: dict) -> None:
    if network["name"] in networks:
        return
    gateway = network.get("gateway") if network.get("purpose") == "mgmt" else None
    networks[network["name"]] = Network(
        name=network["name"], podman_name=NAME_PREFIX + network["name"], bridge=bridge_name(network["name"]),
        subnet=str(ipaddress.IPv4Network(network["subnet"], strict=False)), mtu=int(network.get("mtu") or 1500),
        gateway=gateway, purpose=network.get("purpose", ""))


# ----------------------------------------------------------------------------------- podman setup
def write_if_changed(path: Path, text: str, mode: int = 0o644) -> bool:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.read_text() == text:
        return False
    path.write_text(text)
    path.chmod(mode)
    return True


def podman_setup() -> None:
    """The lab notes' podman set-up, in a project-local containers.conf (CONTAINERS_CONF)."""
    if shutil.which("podman") is None:
        raise LabError("podman is not installed: run scripts/bootstrap.sh (it installs lab/hosts/debian-packages.txt)")
    network_dir = PODMAN_DIR / "networks"
    network_dir.mkdir(parents=True, exist_ok=True)
    text = (
        "# Written by lab/hosts (see /work/shared/lab-notes.md and docs/compute.md). Use it with\n"
        f"#   CONTAINERS_CONF={CONTAINERS_CONF}\n"
        "[containers]\n"
        "# root here lacks CAP_SYS_RESOURCE: podman's default nofile=1048576 cannot be set\n"
        'default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]\n'
        "[engine]\n"
        "# crun refuses the hybrid cgroup layout of these machines; runc works\n"
        'runtime = "runc"\n'
        "[network]\n"
        "# the lab's networks live with the lab state, apart from the machine's own podman networks\n"
        'network_backend = "cni"\n'
        f'network_config_dir = "{network_dir}"\n'
    )
    if write_if_changed(CONTAINERS_CONF, text):
        say(f"podman set-up written to {CONTAINERS_CONF}")


def ensure_inotify(hosts: int) -> None:
    """Each systemd host holds a few inotify instances of root's; the kernel default (128) runs out
    near 30 hosts, after which systemd in new hosts never finishes booting. Raise it, never lower it."""
    path = Path("/proc/sys/fs/inotify/max_user_instances")
    wanted = 256 + INOTIFY_PER_HOST * hosts
    current = int(path.read_text())
    if current < wanted:
        path.write_text(str(wanted))
        say(f"raised fs.inotify.max_user_instances from {current} to {wanted} for {hosts} systemd hosts")


# -------------------------------------------------------------------------------------- the image
def image_recipe() -> str:
    digest = hashlib.sha256()
    digest.update(f"{DEBIAN_SUITE} minbase\n".encode())
    for path in sorted(IMAGE_DIR.iterdir()):
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def image_packages() -> list[str]:
    lines = (IMAGE_DIR / "packages.txt").read_text().splitlines()
    return [line.split("#")[0].strip() for line in lines if line.split("#")[0].strip()]


def ensure_image() -> str:
    """The image of the current recipe (built once, then reused); returns its tag."""
    tag = f"{IMAGE_REPO}:{image_recipe()}"
    if podman("image", "exists", tag, check=False).returncode != 0:
        build_image(tag)
    current = podman("image", "inspect", "--format", "{{.Id}}", IMAGE_CURRENT, check=False).stdout.strip()
    wanted = podman("image", "inspect", "--format", "{{.Id}}", tag).stdout.strip()
    if current != wanted:
        podman("tag", tag, IMAGE_CURRENT)
    # Older recipes' images go once no container uses them.
    for line in podman("images", "--format", "{{.Repository}}:{{.Tag}}", IMAGE_REPO).stdout.split():
        if line not in (tag, IMAGE_CURRENT):
            podman("rmi", line, check=False)
    return tag


def build_image(tag: str) -> None:
    if shutil.which("debootstrap") is None:
        raise LabError("debootstrap is not installed: run scripts/bootstrap.sh")
    build_root = STATE / "build"
    cache = STATE / "debs"
    cache.mkdir(parents=True, exist_ok=True)
    if build_root.exists():
        shutil.rmtree(build_root)
    build_root.mkdir(parents=True)
    rootfs = build_root / "rootfs"
    started = time.monotonic()
    say(f"building image {tag} (debootstrap {DEBIAN_SUITE} from {DEBIAN_MIRROR}; about two minutes)")
    run(["debootstrap", "--variant=minbase", f"--include={','.join(image_packages())}",
         f"--cache-dir={cache}", DEBIAN_SUITE, str(rootfs), DEBIAN_MIRROR])
    shutil.copy(IMAGE_DIR / "setup.sh", rootfs / "tmp" / "aipod-setup.sh")
    run(["chroot", str(rootfs), "/bin/sh", "/tmp/aipod-setup.sh"])
    (rootfs / "tmp" / "aipod-setup.sh").unlink(missing_ok=True)
    tar = subprocess.Popen(["tar", "--numeric-owner", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
    imported = subprocess.run(
        ["podman", "import", "--change", 'CMD ["/sbin/init"]', "--change", f"LABEL {LABEL}.recipe={tag.split(':')[1]}",
         "-", tag], stdin=tar.stdout, env=dict(os.environ, CONTAINERS_CONF=str(CONTAINERS_CONF)),
        capture_output=True, text=True)
    tar.stdout.close()
    if tar.wait() != 0 or imported.returncode != 0:
        raise LabError(f"podman import failed: {imported.stderr.strip()}")
    shutil.rmtree(build_root)
    say(f"image {tag} built in {time.monotonic() - started:.0f} s")


# ------------------------------------------------------------------------------------ networking
def conflist(network: Network) -> dict:
    """A CNI network: a bridge the lab names, no NAT (lab traffic stays on the lab's networks).

    mgmt gets host-local addresses and its gateway on the bridge (Ansible's way in); storage
    networks are plain layer 2, like cabled NICs before the DGX role configures them.
    """
    bridge: dict = {"type": "bridge", "bridge": network.bridge, "mtu": network.mtu, "hairpinMode": True,
                    "ipMasq": False, "isGateway": network.gateway is not None}
    if network.gateway:
        bridge["ipam"] = {"type": "host-local", "ranges": [[{"subnet": network.subnet, "gateway": network.gateway}]],
                          "routes": [{"dst": "0.0.0.0/0"}]}
    else:
        bridge["ipam"] = {}
    return {"cniVersion": "0.4.0", "name": network.podman_name, "plugins": [bridge, {"type": "tuning"}]}


def link_exists(name: str) -> bool:
    return run(["ip", "link", "show", "dev", name], check=False).returncode == 0


def ensure_networks(networks: dict[str, Network]) -> None:
    for network in networks.values():
        path = PODMAN_DIR / "networks" / f"{network.podman_name}.conflist"
        if write_if_changed(path, json.dumps(conflist(network), indent=2) + "\n"):
            say(f"network {network.podman_name}: bridge {network.bridge}, {network.subnet}, MTU {network.mtu}")
        # The bridge exists before any container does, so other lab parts can attach to it.
        if not link_exists(network.bridge):
            run(["ip", "link", "add", "name", network.bridge, "type", "bridge"])
        run(["ip", "link", "set", "dev", network.bridge, "mtu", str(network.mtu), "up"])
        if network.gateway:
            prefix = ipaddress.IPv4Network(network.subnet).prefixlen
            address = f"{network.gateway}/{prefix}"
            if address not in run(["ip", "-4", "-o", "addr", "show", "dev", network.bridge]).stdout:
                run(["ip", "addr", "add", address, "dev", network.bridge])


# ------------------------------------------------------------------------------------------- SSH
def ssh_dir() -> Path:
    return STATE / "ssh"


def ensure_keys(hosts: list[Host]) -> None:
    """The client key Ansible logs in with, one host key per host, and the known_hosts file."""
    ensure_ssh_keys(ssh_dir(), STATE / "hostkeys", [(host.name, host.mgmt_address) for host in hosts], "aipod-lab")


def ensure_ssh_keys(directory: Path, hostkeys: Path, hosts: list[tuple[str, str]], comment: str) -> None:
    """A client key in `directory`, a host key per (name, known_hosts address) under `hostkeys`, and
    `directory`/known_hosts listing them (an address with a port is written `[address]:port`)."""
    directory.mkdir(parents=True, exist_ok=True)
    directory.chmod(0o700)
    client = directory / "id_ed25519"
    if not client.exists():
        run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(client)])
    lines = []
    for name, address in hosts:
        key = hostkeys / name / "ssh_host_ed25519_key"
        if not key.exists():
            key.parent.mkdir(parents=True, exist_ok=True)
            run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", f"root@{name}", "-f", str(key)])
        kind, body = key.with_suffix(".pub").read_text().split()[:2]
        lines.append(f"{address} {kind} {body}\n")
    write_if_changed(directory / "known_hosts", "".join(lines), 0o644)


def ssh_command(host: Host, *command: str, timeout: int = 5) -> list[str]:
    return ssh_argv(ssh_dir(), f"root@{host.mgmt_address}", *command, timeout=timeout)


def ssh_argv(directory: Path, target: str, *command: str, port: int | None = None, timeout: int = 5) -> list[str]:
    """ssh with the lab's key and known_hosts in `directory`, host keys checked, no agent or config."""
    return ["ssh", "-o", "BatchMode=yes", "-o", f"ConnectTimeout={timeout}", "-o", "StrictHostKeyChecking=yes",
            "-o", f"UserKnownHostsFile={directory / 'known_hosts'}", "-o", "GlobalKnownHostsFile=/dev/null",
            "-o", "LogLevel=ERROR", *(["-p", str(port)] if port else []), "-i", str(directory / "id_ed25519"),
            target, *command]


def ssh_ok(host: Host) -> bool:
    return run(ssh_command(host, "true", timeout=3), check=False).returncode == 0


# ------------------------------------------------------------------------------------ containers
def host_spec(host: Host, networks: dict[str, Network], image_id: str) -> str:
    """Digest of everything a container is created from: a change recreates it."""
    key = (STATE / "hostkeys" / host.name / "ssh_host_ed25519_key.pub").read_text()
    client = (ssh_dir() / "id_ed25519.pub").read_text()
    text = json.dumps({"image": image_id, "mgmt": [host.mgmt_address, networks_for(host, networks)[0].podman_name],
                       "nics": host.nics, "hostkey": key, "client": client, "args": run_args_version()}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def run_args_version() -> int:
    return 2  # bump when create_container's options change


def networks_for(host: Host, networks: dict[str, Network]) -> list[Network]:
    mgmt = next(n for n in networks.values() if n.gateway and ipaddress.IPv4Address(host.mgmt_address)
                in ipaddress.IPv4Network(n.subnet))
    return [mgmt] + [networks[nic["network"]] for nic in host.nics]


def existing_containers() -> dict[str, dict]:
    out = podman("ps", "-a", "--filter", f"label={LABEL}=hosts", "--format", "json").stdout
    result = {}
    for entry in json.loads(out or "[]"):
        names = entry.get("Names") or []
        if names:
            result[names[0]] = entry
    return result


def create_container(host: Host, networks: dict[str, Network], image: str, spec: str) -> None:
    mgmt, *storage = networks_for(host, networks)
    args = ["create", "--name", host.container, "--hostname", host.name, "--systemd=always",
            # A DGX's root may configure its NICs (networkd) and ping; nothing more is granted.
            "--cap-add", "NET_ADMIN,NET_RAW",
            # Name lookups stay on the host itself: nothing resolves or leaves through the lab.
            "--dns", "127.0.0.1",
            "--label", f"{LABEL}=hosts", "--label", f"{LABEL}.host={host.name}", "--label", f"{LABEL}.spec={spec}",
            "--network", f"{mgmt.podman_name}:ip={host.mgmt_address},interface_name={host.mgmt_nic}"]
    for nic, network in zip(host.nics, storage):
        args += ["--network", f"{network.podman_name}:interface_name={nic['name']}"]
    podman(*args, image, "/sbin/init")
    with tempfile.TemporaryDirectory(prefix="aipod-lab-") as staging:
        root = Path(staging)
        (root / "etc" / "ssh").mkdir(parents=True)
        (root / "root" / ".ssh").mkdir(parents=True, mode=0o700)
        for suffix in ("", ".pub"):
            source = STATE / "hostkeys" / host.name / f"ssh_host_ed25519_key{suffix}"
            target = root / "etc" / "ssh" / source.name
            shutil.copy(source, target)
            target.chmod(0o600 if not suffix else 0o644)
        authorized = root / "root" / ".ssh" / "authorized_keys"
        shutil.copy(ssh_dir() / "id_ed25519.pub", authorized)
        authorized.chmod(0o600)
        podman("cp", f"{staging}/.", f"{host.container}:/")
    podman("start", host.container)


def reconcile_hosts(hosts: list[Host], networks: dict[str, Network], image: str) -> None:
    image_id = podman("image", "inspect", "--format", "{{.Id}}", image).stdout.strip()
    existing = existing_containers()
    wanted = {host.container for host in hosts}
    stale = [name for name in existing if name not in wanted]
    if stale:
        say(f"removing {len(stale)} host(s) not selected: {', '.join(sorted(stale))}")
        podman("rm", "--force", "--time", "0", *stale)
    todo = []
    for host in hosts:
        spec = host_spec(host, networks, image_id)
        current = existing.get(host.container)
        if current and (current.get("Labels") or {}).get(f"{LABEL}.spec") == spec:
            if current.get("State") != "running":
                podman("start", host.container)
            continue
        if current:
            podman("rm", "--force", "--time", "0", host.container)
        todo.append((host, spec))
    if todo:
        say(f"starting {len(todo)} DGX stand-in(s): {', '.join(h.name for h, _ in todo)}")
        with concurrent.futures.ThreadPoolExecutor(PARALLEL) as pool:
            for future in [pool.submit(create_container, host, networks, image, spec) for host, spec in todo]:
                future.result()


def wait_ready(hosts: list[Host]) -> None:
    """Every host answers over SSH (known host key) and systemd has finished booting."""
    deadline = time.monotonic() + SSH_READY_TIMEOUT
    pending = list(hosts)
    while pending and time.monotonic() < deadline:
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(
                lambda h: run(ssh_command(h, "systemctl", "is-system-running", "--wait", timeout=3), check=False),
                pending))
        still = []
        for host, answer in zip(pending, answers):
            state = answer.stdout.strip()
            if answer.returncode == 255 or state in ("", "initializing", "starting"):
                still.append(host)
            elif state != "running":
                failed = run(ssh_command(host, "systemctl", "--failed", "--no-legend", "--plain"), check=False).stdout
                say(f"warning: {host.name} is {state}; failed units: {' '.join(unit.split()[0] for unit in failed.splitlines() if unit) or '-'}")
        pending = still
        if pending:
            time.sleep(1)
    if pending:
        raise LabError(f"no SSH answer within {SSH_READY_TIMEOUT} s from: {', '.join(h.name for h in pending)} "
                       f"(podman logs {pending[0].container})")


def write_description(networks: dict[str, Network], hosts: list[Host], image: str) -> None:
    """.lab/hosts/lab.json: what runs, for other lab parts (e.g. a storage-side namespace on a bridge)."""
    description = {
        "inventory": str(INVENTORY),
        "containers_conf": str(CONTAINERS_CONF),
        "image": image,
        "ssh": {"user": "root", "private_key": str(ssh_dir() / "id_ed25519"), "known_hosts": str(ssh_dir() / "known_hosts")},
        "networks": {n.name: {"podman_network": n.podman_name, "bridge": n.bridge, "subnet": n.subnet, "mtu": n.mtu,
                              "gateway_on_bridge": n.gateway} for n in networks.values()},
        "hosts": {h.name: {"container": h.container, "mgmt_address": h.mgmt_address, "mgmt_nic": h.mgmt_nic,
                           "storage_nics": h.nics} for h in hosts},
    }
    write_if_changed(STATE / "lab.json", json.dumps(description, indent=2) + "\n")


@contextlib.contextmanager
def locked():
    STATE.mkdir(parents=True, exist_ok=True)
    with open(STATE / ".lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


# -------------------------------------------------------------------------------------- commands
def up() -> int:
    with locked():
        started = time.monotonic()
        podman_setup()
        networks, hosts = load_lab()
        ensure_inotify(len(hosts))
        image = ensure_image()
        ensure_networks(networks)
        ensure_keys(hosts)
        reconcile_hosts(hosts, networks, image)
        wait_ready(hosts)
        write_description(networks, hosts, image)
        say(f"{len(hosts)} DGX stand-in(s) up from {INVENTORY.name} ({time.monotonic() - started:.0f} s); "
            f"ssh key {ssh_dir() / 'id_ed25519'}, known_hosts {ssh_dir() / 'known_hosts'}")
    return 0


def down() -> int:
    with locked():
        if shutil.which("podman") is None or not CONTAINERS_CONF.exists():
            say("nothing to stop")
            return 0
        containers = list(existing_containers())
        if containers:
            podman("rm", "--force", "--time", "0", *containers)
            say(f"removed {len(containers)} host(s)")
        for path in sorted((PODMAN_DIR / "networks").glob(f"{NAME_PREFIX}*.conflist")):
            data = json.loads(path.read_text())
            bridge = data["plugins"][0].get("bridge")
            podman("network", "rm", "--force", data["name"], check=False)
            path.unlink(missing_ok=True)
            if bridge and link_exists(bridge):
                run(["ip", "link", "del", "dev", bridge])
            say(f"removed network {data['name']} (bridge {bridge})")
        (STATE / "lab.json").unlink(missing_ok=True)
    return 0


def status() -> int:
    if shutil.which("podman") is None or not CONTAINERS_CONF.exists():
        say("not set up (lab/lab start hosts)")
        return 1
    networks, hosts = load_lab()
    image = podman("images", "--format", "{{.Repository}}:{{.Tag}}", IMAGE_CURRENT, check=False).stdout.strip()
    say(f"image {IMAGE_CURRENT}: {'present (recipe ' + image_recipe() + ')' if image else 'absent'}")
    for network in networks.values():
        present = (PODMAN_DIR / "networks" / f"{network.podman_name}.conflist").exists() and link_exists(network.bridge)
        say(f"network {network.podman_name} bridge {network.bridge} {network.subnet} MTU {network.mtu}: "
            f"{'present' if present else 'absent'}")
    existing = existing_containers()
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        reachable = dict(zip([h.name for h in hosts], pool.map(
            lambda h: existing.get(h.container, {}).get("State") == "running" and ssh_ok(h), hosts)))
    for host in hosts:
        state = existing.get(host.container, {}).get("State", "absent")
        say(f"{host.name} ({host.container}) {host.mgmt_address}: {state}, ssh {'ok' if reachable[host.name] else 'no answer'}")
    extra = sorted(set(existing) - {h.container for h in hosts})
    if extra:
        say(f"also running, not selected: {', '.join(extra)}")
    return 0 if hosts and all(reachable.values()) else 1


def dispatch(argv: list[str], commands: dict, usage: str, report) -> int:
    """`<script> <command> [arguments]`: commands[name](arguments); a LabError is reported, exit 1."""
    if len(argv) < 2 or argv[1] not in commands:
        print(usage)
        return 2
    command = commands[argv[1]]
    try:
        inspect.signature(command).bind(*argv[2:])
    except TypeError:
        print(usage)
        return 2
    try:
        return command(*argv[2:])
    except LabError as error:
        report(f"error: {error}")
        return 1


def main(argv: list[str]) -> int:
    return dispatch(argv, {"up": up, "down": down, "status": status}, __doc__, say)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
