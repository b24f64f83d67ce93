"""Each VM's seed: the files that make one image into this VM (the initramfs copies them onto /, guest/initramfs-seed).

Pure: ``seed_files`` returns path -> (bytes, mode); ``fingerprint`` hashes them, so a VM's
snapshot is reused exactly while its seed (and image and QEMU command) stay the same.
"""
from __future__ import annotations

import hashlib
import os
import subprocess

import yaml

from . import datapath
from .plan import Plan, Vm, host_storage_netplan, mgmt_netplan

DIR_MODES = {"/root": 0o700, "/root/.ssh": 0o700}
SEED_SIZE = "16M"


def _yaml(note: str, data: dict) -> bytes:
    return (f"# {note}\n" + yaml.safe_dump(data, sort_keys=False, default_flow_style=False)).encode()


def link_file(name: str, mac: str) -> bytes:
    # PermanentMACAddress, not MACAddress: a VLAN device inherits its parent's MAC (not its
    # permanent one), and a MACAddress match would make udev rename it after its parent.
    return (f"# Written by lab/vms: the model's name for the NIC with this MAC.\n"
            f"[Match]\nPermanentMACAddress={mac}\n\n[Link]\nName={name}\n").encode()


def seed_files(vm: Vm, plan: Plan, model: dict, host_key: bytes, host_key_pub: bytes,
               authorized_key: bytes) -> tuple[dict[str, tuple[bytes, int]], dict[str, int]]:
    """(files, extra directories) of a VM's seed, as absolute guest paths."""
    files: dict[str, tuple[bytes, int]] = {
        "/etc/hostname": (f"{vm.hostname}\n".encode(), 0o644),
        "/etc/hosts": (f"127.0.0.1\tlocalhost\n127.0.1.1\t{vm.hostname}\n".encode(), 0o644),
        "/etc/ssh/ssh_host_ed25519_key": (host_key, 0o600),
        "/etc/ssh/ssh_host_ed25519_key.pub": (host_key_pub, 0o644),
        "/root/.ssh/authorized_keys": (authorized_key, 0o600),
        "/etc/netplan/01-lab-mgmt.yaml": (_yaml("Written by lab/vms: SSH reaches the VM through QEMU's SLIRP.",
                                                {"network": {"version": 2, "renderer": "networkd",
                                                             "ethernets": {"mgmt0": mgmt_netplan()}}}), 0o600),
    }
    for nic in vm.nics:
        files[f"/etc/systemd/network/10-lab-{nic.name}.link"] = (link_file(nic.name, nic.mac), 0o644)
    directories: dict[str, int] = {}
    if vm.kind == "storage":
        state = datapath.storage_state(model)
        links = [datapath.Link(name=nic.name, mac=nic.mac, peer=plan.links[nic.link].client)
                 for nic in vm.nics if nic.link is not None]
        realisation = datapath.realise(state, links)
        for path, (text, mode) in realisation.files.items():
            files[path] = (text.encode(), mode)
        directories.update(realisation.directories)
    elif vm.configure_storage_nics:
        files["/etc/netplan/20-lab-storage-nics.yaml"] = (
            _yaml("Written by lab/vms from this host's storage_nics in the site model.",
                  host_storage_netplan(model, vm.name)), 0o600)
    return files, directories


def fingerprint(files: dict[str, tuple[bytes, int]], directories: dict[str, int]) -> str:
    digest = hashlib.sha256()
    for path in sorted(files):
        content, mode = files[path]
        digest.update(f"{path}\0{mode:o}\0{len(content)}\0".encode() + content)
    for path in sorted(directories):
        digest.update(f"{path}/\0{directories[path]:o}\0".encode())
    return digest.hexdigest()


def write_seed_image(files: dict[str, tuple[bytes, int]], directories: dict[str, int], work_dir: str, image: str) -> None:
    """Write the seed tree under work_dir/root and make an ext4 image of it (mkfs.ext4 -d, no mount)."""
    tree = os.path.join(work_dir, "root")
    subprocess.run(["rm", "-rf", work_dir], check=True)
    os.makedirs(tree, mode=0o755)
    os.chmod(tree, 0o755)

    def ensure_dir(guest_path: str, mode: int | None = None) -> None:
        parts = [p for p in guest_path.split("/") if p]
        for depth in range(1, len(parts) + 1):
            guest = "/" + "/".join(parts[:depth])
            host = os.path.join(tree, *parts[:depth])
            if not os.path.isdir(host):
                os.mkdir(host)
            wanted = mode if (mode is not None and depth == len(parts)) else DIR_MODES.get(guest, 0o755)
            os.chmod(host, wanted)

    for path, mode in directories.items():
        ensure_dir(path, mode)
    for path, (content, mode) in files.items():
        ensure_dir(os.path.dirname(path))
        host = os.path.join(tree, *[p for p in path.split("/") if p])
        with open(host, "wb") as handle:
            handle.write(content)
        os.chmod(host, mode)
    if os.path.exists(image):
        os.remove(image)
    subprocess.run(["truncate", "-s", SEED_SIZE, image], check=True)
    subprocess.run(["mkfs.ext4", "-q", "-F", "-L", "seed", "-d", work_dir, image], check=True,
                   stdout=subprocess.DEVNULL)
