"""QEMU for the VM lab: the command line of a VM, its QMP monitor, and the accelerator probe."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from typing import Any

from .plan import GUEST_MGMT_ADDRESS, SLIRP_NET, SSH_PORT, STORAGE_ADDRESS, Plan, Vm

QEMU = "qemu-system-x86_64"
# TCG's default translation cache is 1 GiB of host memory per VM; 128 MiB is as fast here.
TCG_TB_SIZE_MB = 128
SNAPSHOT = "lab-ready"


def kernel_command_line(vm: Vm) -> str:
    parts = ["root=/dev/vda", "rw", "console=ttyS0", "quiet", f"systemd.hostname={vm.hostname}",
             f"systemd.machine_id={vm.machine_id}", "random.trust_cpu=on"]
    if vm.kind == "storage":
        parts.append("systemd.wants=nfs-server.service")
    return " ".join(parts)


def command(vm: Vm, plan: Plan, image_dir: str, vm_dir: str, accel: str, loadvm: str | None = None) -> list[str]:
    """The full QEMU command of a VM; everything it opens on the host is on loopback."""
    guest_ip = GUEST_MGMT_ADDRESS.split("/")[0]
    args = [QEMU, "-name", f"aipod-{vm.name}", "-nodefaults", "-no-user-config", "-display", "none",
            "-machine", "pc", "-smp", "1", "-m", str(vm.memory_mb)]
    if accel == "kvm":
        args += ["-accel", "kvm", "-cpu", "host"]
    else:
        args += ["-accel", f"tcg,tb-size={TCG_TB_SIZE_MB}", "-cpu", "max"]
    args += [
        "-kernel", os.path.join(image_dir, "vmlinuz"), "-initrd", os.path.join(image_dir, "initrd.img"),
        "-append", kernel_command_line(vm),
        # The disk is disposable (every start from the snapshot reverts it): skip host flushes.
        "-drive", f"file={os.path.join(vm_dir, 'disk.qcow2')},if=virtio,format=qcow2,cache=unsafe,discard=unmap",
        # Read-only, so savevm skips it.
        "-drive", f"file={os.path.join(vm_dir, 'seed.img')},if=virtio,format=raw,readonly=on",
        "-device", "virtio-rng-pci",
        "-rtc", "base=utc",
        "-netdev", (f"user,id=mgmt,net={SLIRP_NET},restrict=on,"
                    f"hostfwd=tcp:{vm.address}:{SSH_PORT}-{guest_ip}:22"),
    ]
    for nic in vm.nics:
        if nic.link is None:
            args += ["-device", f"virtio-net-pci,netdev=mgmt,mac={nic.mac}"]
            continue
        link = plan.links[nic.link]
        peer = plan.vm(link.client).address if vm.kind == "storage" else STORAGE_ADDRESS
        netdev = f"link{link.index + 1}"
        # A UDP socket pair on loopback: one Ethernet frame per datagram, either end may restart.
        # ctrl_vlan=off: the NIC passes every VLAN tag. With the guest-programmed VLAN filter,
        # a VM restored from a snapshot drops the tagged frames of VLANs it had before the
        # snapshot (QEMU 7.2 does not bring the filter back), so the VLAN would go deaf.
        args += ["-netdev", f"socket,id={netdev},udp={peer}:{link.port},localaddr={vm.address}:{link.port}",
                 "-device", f"virtio-net-pci,netdev={netdev},mac={nic.mac},ctrl_vlan=off"]
    args += ["-serial", f"file:{os.path.join(vm_dir, 'console.log')}",
             "-qmp", f"unix:{os.path.join(vm_dir, 'qmp.sock')},server=on,wait=off",
             "-pidfile", os.path.join(vm_dir, "qemu.pid"), "-daemonize"]
    if loadvm:
        args += ["-loadvm", loadvm]
    return args


class Qmp:
    """A minimal QMP client (one command at a time)."""

    def __init__(self, path: str, timeout: float = 120.0):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buffer = b""
        self._read()  # greeting
        self.execute("qmp_capabilities")

    def _read(self) -> dict[str, Any]:
        while True:
            while b"\n" not in self.buffer:
                chunk = self.sock.recv(65536)
                if not chunk:
                    raise ConnectionError("QMP connection closed")
                self.buffer += chunk
            line, self.buffer = self.buffer.split(b"\n", 1)
            message = json.loads(line)
            if "event" not in message:
                return message

    def execute(self, command: str, /, **arguments: Any) -> Any:
        # Positional-only: QMP commands take arguments called `name` (set_link, device_del).
        request: dict[str, Any] = {"execute": command}
        if arguments:
            request["arguments"] = arguments
        self.sock.sendall(json.dumps(request).encode() + b"\n")
        reply = self._read()
        if "error" in reply:
            raise RuntimeError(f"QMP {command}: {reply['error'].get('desc')}")
        return reply.get("return")

    def hmp(self, command_line: str) -> str:
        """A human-monitor command; savevm/loadvm report failures as text, so any text is an error."""
        return str(self.execute("human-monitor-command", **{"command-line": command_line}) or "")

    def close(self) -> None:
        self.sock.close()


def probe_kvm(image_dir: str, work_dir: str, timeout: float = 15.0) -> tuple[bool, str]:
    """Does KVM really boot the guest kernel here? (/dev/kvm may exist and still fail.)"""
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False, "/dev/kvm is not usable"
    log = os.path.join(work_dir, "kvm-probe.log")
    if os.path.exists(log):
        os.remove(log)
    process = subprocess.Popen(
        [QEMU, "-accel", "kvm", "-cpu", "host", "-m", "256", "-nodefaults", "-display", "none", "-no-reboot",
         "-serial", f"file:{log}", "-kernel", os.path.join(image_dir, "vmlinuz"),
         "-append", "console=ttyS0 panic=-1 rdinit=/lab-probe-no-init"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + timeout
    booted = False
    while time.monotonic() < deadline and process.poll() is None:
        if os.path.exists(log) and b"Linux version" in open(log, "rb").read():
            booted = True
            break
        time.sleep(0.2)
    if process.poll() is None:
        process.kill()
    _, error = process.communicate()
    if booted:
        return True, "KVM boots the guest kernel"
    reason = (error or "").strip().splitlines()
    return False, f"KVM does not boot the guest kernel ({reason[0] if reason else 'no kernel output'})"
