#!/usr/bin/env python3
"""One lab NX-OS switch over SSH: the nxos_cli command line behind a paramiko SSH server.

    endpoint.py --name lab-sw-a --address 127.0.20.1 --port 2222 --state-dir .lab/nxos/lab-sw-a

Reads the login password from the file given by --password-file (written by control.py, 0600),
serves interactive shells (what cisco.nxos' network_cli uses) and `ssh switch 'show version'`
exec requests, and keeps the switch's configuration in <state-dir>/state.json: the running
configuration is written after every change, and on start the switch comes up with its saved
startup configuration, as a switch does after a reload.

The other lab switches and the cabling are read from --fabric-dir (default: the parent of
--state-dir, where control.py keeps every switch's state and cabling.json): link state, LLDP
neighbours and vPC peer status depend on them (nxos_fabric). Tests run an Endpoint in a thread.
"""
from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import logging
import os
import signal
import socket
import sys
import threading
import time

import paramiko

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from nxos_cli import Switch, factory_state  # noqa: E402
from nxos_fabric import DirectoryFabric  # noqa: E402

BANNER = ("Cisco Nexus Operating System (NX-OS) Software\r\n"
          "TAC support: http://www.cisco.com/tac\r\n"
          "Copyright (C) 2002-2021, Cisco and/or its affiliates.\r\n"
          "All rights reserved.\r\n"
          "This is the ONTAP AI pod bundle's lab endpoint, not a Cisco product.\r\n")
LOG = logging.getLogger("nxos-endpoint")


class StateStore:
    """The switch's configuration on disk, written atomically after each change."""

    def __init__(self, path: str):
        self.path = path
        self.lock = threading.Lock()

    def load(self) -> dict | None:
        if not os.path.exists(self.path):
            return None
        with open(self.path, encoding="utf-8") as handle:
            return json.load(handle)

    def save(self, state: dict) -> None:
        with self.lock:
            temporary = self.path + ".tmp"
            with open(temporary, "w", encoding="utf-8") as handle:
                json.dump(state, handle, indent=1, sort_keys=True)
            os.replace(temporary, self.path)


class Server(paramiko.ServerInterface):
    def __init__(self, username: str, password: str):
        self.username = username
        self.password = password
        self.ready = threading.Event()
        self.exec_command: str | None = None

    def get_allowed_auths(self, username):
        return "password"

    def check_auth_password(self, username, password):
        good = hmac.compare_digest(username.encode(), self.username.encode()) and \
            hmac.compare_digest(password.encode(), self.password.encode())
        if not good:
            time.sleep(0.5)  # like a switch's AAA: wrong passwords are not answered at once
        return paramiko.AUTH_SUCCESSFUL if good else paramiko.AUTH_FAILED

    def check_channel_request(self, kind, chanid):
        return paramiko.OPEN_SUCCEEDED if kind == "session" else paramiko.OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED

    def check_channel_pty_request(self, *args):
        return True

    def check_channel_window_change_request(self, *args):
        return True

    def check_channel_shell_request(self, channel):
        self.ready.set()
        return True

    def check_channel_exec_request(self, channel, command):
        self.exec_command = command.decode(errors="replace")
        self.ready.set()
        return True


def _send(channel: paramiko.Channel, text: str) -> None:
    channel.sendall(text.replace("\r\n", "\n").replace("\n", "\r\n").encode())


def serve_shell(channel: paramiko.Channel, switch: Switch, lock: threading.Lock) -> None:
    session = switch.session()
    _send(channel, BANNER + "\r\n" + session.prompt())
    buffer = b""
    after_cr = False  # a "\n" right after a "\r" ends no second line, even across reads
    while True:
        data = channel.recv(4096)
        if not data:
            return
        if after_cr and data.startswith(b"\n"):
            data = data[1:]
        after_cr = False
        buffer += data
        while True:
            cut = [p for p in (buffer.find(b"\r"), buffer.find(b"\n")) if p >= 0]
            if not cut:
                break
            end = min(cut)
            line = buffer[:end].decode(errors="replace")
            if buffer[end:end + 2] == b"\r\n":
                buffer = buffer[end + 2:]
            else:
                after_cr = buffer[end:end + 1] == b"\r" and end + 1 == len(buffer)
                buffer = buffer[end + 1:]
            if line.strip() in ("exit", "quit", "logout") and not session.mode:
                _send(channel, line + "\n")
                return
            with lock:
                output = session.execute(line)
            _send(channel, line + "\n" + (output + "\n" if output else "") + session.prompt())


def serve_client(client: socket.socket, host_key: paramiko.PKey, switch: Switch, lock: threading.Lock,
           username: str, password: str) -> None:
    transport = paramiko.Transport(client)
    transport.local_version = "SSH-2.0-OpenSSH_7.3"  # NX-OS 9.3 reports an OpenSSH 7.x banner
    transport.add_server_key(host_key)
    server = Server(username, password)
    try:
        transport.start_server(server=server)
        channel = transport.accept(30)
        if channel is None or not server.ready.wait(30):
            return
        if server.exec_command is not None:
            session = switch.session()
            outputs = []
            for command in server.exec_command.split(";"):
                with lock:
                    outputs.append(session.execute(command))
            _send(channel, "\n".join(o for o in outputs if o) + "\n")
            channel.send_exit_status(0)
            channel.shutdown_write()
            channel.close()
        else:
            serve_shell(channel, switch, lock)
    except (paramiko.SSHException, OSError, EOFError) as error:
        LOG.info("session ended: %s", error)
    finally:
        transport.close()


def serial_number(name: str) -> str:
    """A stable chassis serial per switch name, in Cisco's form."""
    return "FOC" + hashlib.sha256(name.encode()).hexdigest()[:8].upper()


class Endpoint:
    """Serves one switch over SSH on a listening socket: each connection in its own thread.

    `serve_forever` is the endpoint process's loop; `start` runs it in a daemon thread (tests) and
    returns the port, `stop` closes the listener."""

    def __init__(self, switch: Switch, host_key: paramiko.PKey, username: str, password: str):
        self.switch = switch
        self.host_key = host_key
        self.username = username
        self.password = password
        self.lock = threading.Lock()      # one command at a time on the switch's state
        self.listener: socket.socket | None = None

    def listen(self, address: str, port: int) -> int:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((address, port))
        listener.listen(16)
        self.listener = listener
        return listener.getsockname()[1]

    def serve_forever(self) -> None:
        assert self.listener is not None
        while True:
            try:
                client, peer = self.listener.accept()
            except OSError:
                return                    # the listener was closed: stop serving
            threading.Thread(target=serve_client, args=(client, self.host_key, self.switch, self.lock, self.username,
                                                        self.password), name=f"ssh-{peer[1]}", daemon=True).start()

    def start(self, address: str = "127.0.0.1", port: int = 0) -> int:
        bound = self.listen(address, port)
        threading.Thread(target=self.serve_forever, name=f"nxos-{self.switch.name}", daemon=True).start()
        return bound

    def stop(self) -> None:
        if self.listener is not None:
            self.listener.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name", required=True)
    parser.add_argument("--address", required=True)
    parser.add_argument("--port", type=int, default=22)
    parser.add_argument("--state-dir", required=True)
    parser.add_argument("--username", default="admin")
    parser.add_argument("--password-file", required=True)
    parser.add_argument("--host-key", required=True)
    parser.add_argument("--model", default="N3K-C3232C")
    parser.add_argument("--fabric-dir", help="the lab's switches and cabling.json (default: the parent of --state-dir)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s {args.name} %(message)s")
    # lab/lab status probes the port and hangs up before the SSH banner; paramiko would log each as an error
    logging.getLogger("paramiko").setLevel(logging.CRITICAL)

    with open(args.password_file, encoding="utf-8") as secret:
        password = secret.read().rstrip("\n")
    host_key = paramiko.Ed25519Key.from_private_key_file(args.host_key)
    store = StateStore(os.path.join(args.state_dir, "state.json"))
    saved = store.load()
    secret_hash = "$5$" + hashlib.sha256(f"{args.name}:{password}".encode()).hexdigest()[:43]
    if saved is None:
        state = factory_state(args.name, args.address, args.username, secret_hash)
        state["startup"] = json.loads(json.dumps(state))
    elif saved.get("startup"):
        # after a restart the switch runs its startup configuration, like a reloaded switch
        state = json.loads(json.dumps(saved["startup"]))
        state["startup"] = saved["startup"]
    else:
        state = saved
    fabric = DirectoryFabric(args.fabric_dir or os.path.dirname(os.path.abspath(args.state_dir)))
    switch = Switch(state, model=args.model, serial=serial_number(args.name), on_change=store.save, name=args.name,
                    fabric=fabric)
    store.save(state)

    endpoint = Endpoint(switch, host_key, args.username, password)
    endpoint.listen(args.address, args.port)
    signal.signal(signal.SIGTERM, lambda *_: (endpoint.stop(), sys.exit(0)))
    LOG.info("listening on %s:%d", args.address, args.port)
    endpoint.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
