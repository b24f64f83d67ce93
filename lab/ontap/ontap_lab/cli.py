"""``python -m ontap_lab serve|up|down|status|ctl``: run, start, stop, check and steer the endpoint.

Where things are (the lab's conventions, see lab/lab):

* ``AIPOD_LAB_INVENTORY`` (default inventories/lab): the cluster to bring to life; its
  ``ontap.mgmt_address``/``https_port`` are where the endpoint listens, its vault (opened with
  ``vault-password.txt`` beside it) holds the admin password;
* ``AIPOD_LAB_DIR`` (default .lab): ``ontap/state.json``, ``ontap/calls.jsonl``, ``ontap/faults.json``,
  ``ontap/pki/``, ``ontap/server.pid``, ``ontap/server.log``.
"""
from __future__ import annotations

import argparse
import base64
import dataclasses
import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


@dataclasses.dataclass
class Settings:
    inventory: str
    lab_dir: str
    host: str
    port: int
    admin_user: str
    ontap: dict

    @property
    def state_dir(self) -> str:
        return os.path.join(self.lab_dir, "ontap")

    def file(self, name: str) -> str:
        return os.path.join(self.state_dir, name)

    @property
    def ca_file(self) -> str:
        return os.path.join(self.state_dir, "pki", "ca.pem")

    @property
    def base_url(self) -> str:
        return f"https://{self.host}:{self.port}"


def settings_from_env(inventory: str | None = None, lab_dir: str | None = None) -> Settings:
    inventory = os.path.abspath(inventory or os.environ.get("AIPOD_LAB_INVENTORY") or os.path.join(REPO, "inventories", "lab"))
    lab_dir = os.path.abspath(lab_dir or os.environ.get("AIPOD_LAB_DIR") or os.path.join(REPO, ".lab"))
    ontap = load_ontap_model(inventory)
    return Settings(inventory=inventory, lab_dir=lab_dir, host=ontap["mgmt_address"], port=int(ontap.get("https_port", 443)),
                    admin_user=ontap.get("admin_user", "admin"), ontap=ontap)


def _vault():
    from ansible.parsing.vault import VaultLib, VaultSecret

    def secret_for(inventory: str) -> Any:
        path = os.environ.get("AIPOD_VAULT_PASSWORD_FILE") or os.path.join(inventory, "vault-password.txt")
        with open(path, "rb") as handle:
            return VaultLib([("lab", VaultSecret(handle.read().strip()))])
    return secret_for


def load_ontap_model(inventory: str) -> dict:
    """The ``ontap`` section of the inventory's site model, read with the bundle's own loader."""
    sys.path.insert(0, REPO)
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site  # noqa: E402  (path set just above)

    vault = None
    try:
        vault = _vault()(inventory)
    except OSError:
        pass
    site = load_site(inventory, decrypt=(lambda text, path: vault.decrypt(text).decode()) if vault else None)
    ontap = site.model.get("ontap")
    if not isinstance(ontap, dict) or not ontap.get("mgmt_address"):
        raise SystemExit(f"ontap lab: {inventory} has no ontap model with a mgmt_address")
    return ontap


def admin_password(inventory: str) -> str:
    """The cluster admin password from the inventory's vault (never printed, never passed on)."""
    sys.path[:0] = [REPO, os.path.join(REPO, "lab")]
    from lab_secrets import inventory_secret  # noqa: E402  (path set just above)

    try:
        return inventory_secret(inventory, "vault_ontap_admin_password", os.environ.get("AIPOD_VAULT_PASSWORD_FILE"))
    except KeyError:
        raise SystemExit(f"ontap lab: no vault_ontap_admin_password in {inventory}/group_vars") from None


# ---------------------------------------------------------------------------- serve
def serve(settings: Settings) -> None:
    from .api import Api
    from .lifhost import NamespaceRealiser
    from .pki import ensure_pki
    from .seed import seed_state, set_admin_password
    from .service import CallLog, Faults, Service
    from .state import Store

    os.makedirs(settings.state_dir, exist_ok=True)
    addresses = [settings.host, "127.0.0.1"] + [n["mgmt_address"] for n in settings.ontap.get("nodes", []) if n.get("mgmt_address")]
    addresses += [peer["ontap"]["mgmt_address"] for peer in lab_peers(settings)]
    pki = ensure_pki(os.path.join(settings.state_dir, "pki"), addresses, [settings.ontap["cluster_name"], "localhost"])
    store = Store(settings.file("state.json"))
    password = admin_password(settings.inventory)
    state = store.load() if store.exists() else seed_state(settings.ontap, settings.admin_user)
    set_admin_password(state, settings.admin_user, password)
    store.save(state)
    # Data LIFs get real addresses on the lab's storage bridges (a namespace the lab creates), so a
    # DGX stand-in can ping its LIFs with don't-fragment jumbo frames.
    realiser = NamespaceRealiser(settings.lab_dir, log=lambda text: print(text, flush=True))
    api = Api(state, store, realiser=realiser)

    def svm_lifs() -> list[dict]:
        return [lif for lif in api.state.records("ip_interfaces") if lif.get("scope") == "svm"]

    realiser.resync(svm_lifs())

    peer_resets: list = []

    def reseed() -> None:
        fresh = seed_state(settings.ontap, settings.admin_user)
        set_admin_password(fresh, settings.admin_user, password)
        api.state = fresh
        store.save(fresh)
        realiser.resync(svm_lifs())
        for reset in peer_resets:  # a factory lab is a factory pair: the peers forget this cluster too
            reset()

    def restart(downtime: float) -> None:
        if service.server is not None:
            service.server.socket.close()
        calls.handle.flush()
        time.sleep(downtime)
        os.execv(sys.executable, [sys.executable, "-m", "ontap_lab", "--inventory", settings.inventory,
                                  "--lab-dir", settings.lab_dir, "serve"])

    faults = Faults(settings.file("faults.json"))
    calls = CallLog(settings.file("calls.jsonl"))
    service = Service(api, faults, calls, settings.admin_user, reseed, restart)
    for peer in lab_peers(settings):
        peer_resets.append(serve_peer(settings, peer, api, pki))
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(SystemExit(0)))
    print(f"ontap lab: serving {settings.ontap['cluster_name']} on {settings.base_url} (pid {os.getpid()})", flush=True)
    service.serve(settings.host, settings.port, pki["server"], pki["server-key"])


# ---------------------------------------------------------------------------- peer clusters
PEERS_DIR = os.path.join(os.path.dirname(HERE), "peers")


def lab_peers(settings: Settings) -> list[dict]:
    """The peer clusters the lab serves: those of the inventory's ontap.peers that lab/ontap/peers/
    defines, each where the inventory says it is (its mgmt_address, and https_port, the cluster's
    by default), so that a private lab's copy of the inventory moves its peers with it."""
    import yaml

    found = []
    for peer in settings.ontap.get("peers") or []:
        path = os.path.join(PEERS_DIR, f"{peer.get('name')}.yml")
        if os.path.isfile(path) and peer.get("mgmt_address"):
            with open(path, encoding="utf-8") as handle:
                definition = yaml.safe_load(handle)
            definition["ontap"].update(mgmt_address=peer["mgmt_address"], https_port=int(peer.get("https_port") or settings.port))
            found.append(definition)
    return found


def peer_password(settings: Settings, name: str) -> str:
    """The peer cluster's admin password, from the vault variable the bundle reads it from."""
    from lab_secrets import inventory_secret

    sys.path.insert(0, REPO)
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_datasets.model import peer_password_variable  # noqa: E402

    variable = peer_password_variable(name)
    try:
        return inventory_secret(settings.inventory, variable, os.environ.get("AIPOD_VAULT_PASSWORD_FILE"))
    except KeyError:
        raise SystemExit(f"ontap lab: the lab vault has no {variable} for peer cluster {name}") from None


def seed_peer(definition: dict, password: str, admin_user: str) -> Any:
    """A peer cluster as its own operators left it: seeded, with its intercluster LIFs and SVMs."""
    from .api import Api
    from .seed import seed_state, set_admin_password

    state = seed_state(definition["ontap"], admin_user)
    set_admin_password(state, admin_user, password)
    api = Api(state, job_seconds=0.0)
    token = base64.b64encode(f"{admin_user}:{password}".encode()).decode()
    headers = {"Authorization": f"Basic {token}"}
    calls = [("network/ip/interfaces", {"name": lif["name"], "ip": {"address": lif["address"], "netmask": str(lif["prefix_len"])},
                                        "location": {"home_port": {"name": lif["port"], "node": {"name": lif["node"]}}},
                                        "service_policy": {"name": "default-intercluster"}, "ipspace": {"name": "Default"}})
             for lif in definition.get("intercluster_lifs") or []]
    calls += [("svm/svms", {"name": svm["name"], "aggregates": [{"name": a} for a in svm.get("aggregates") or []],
                            "nfs": {"enabled": True}}) for svm in definition.get("svms") or []]
    for path, body in calls:
        response = api.handle("POST", f"/api/{path}?return_timeout=30", json.dumps(body).encode(), headers)
        if response.status not in (201, 202):
            raise SystemExit(f"ontap lab: seeding peer {definition['ontap']['cluster_name']}: POST {path}: {response.body}")
    return state


def serve_peer(settings: Settings, definition: dict, main: Any, pki: dict) -> Any:
    """Serve a peer cluster in a thread of this process, in the main cluster's fabric; returns its factory reset."""
    import threading

    from .api import Api
    from .seed import set_admin_password
    from .service import CallLog, Faults, Service
    from .state import Store

    ontap = definition["ontap"]
    name = ontap["cluster_name"]
    directory = os.path.join(settings.state_dir, "peers", name)
    os.makedirs(directory, exist_ok=True)
    password = peer_password(settings, name)
    store = Store(os.path.join(directory, "state.json"))
    state = store.load() if store.exists() else seed_peer(definition, password, settings.admin_user)
    set_admin_password(state, settings.admin_user, password)
    store.save(state)
    api = Api(state, store)
    main.fabric.join(api)

    def reseed() -> None:
        api.state = seed_peer(definition, password, settings.admin_user)
        store.save(api.state)

    service = Service(api, Faults(os.path.join(directory, "faults.json")), CallLog(os.path.join(directory, "calls.jsonl")),
                      settings.admin_user, reseed, lambda downtime: None)
    threading.Thread(target=service.serve, args=(ontap["mgmt_address"], int(ontap.get("https_port", 443)),
                                                 pki["server"], pki["server-key"]), daemon=True).start()
    print(f"ontap lab: serving peer {name} on https://{ontap['mgmt_address']}:{ontap.get('https_port', 443)}", flush=True)
    return reseed


# ---------------------------------------------------------------------------- client
class LabClient:
    """A small HTTPS client for the endpoint (tests, benchmarks, ctl); trusts only the lab CA."""

    def __init__(self, settings: Settings, user: str | None = None, password: str | None = None):
        self.settings = settings
        self.user = user or settings.admin_user
        self._password = password
        self.context = ssl.create_default_context(cafile=settings.ca_file)

    def _auth(self) -> str:
        if self._password is None:
            self._password = admin_password(self.settings.inventory)
        return "Basic " + base64.b64encode(f"{self.user}:{self._password}".encode()).decode()

    def request(self, method: str, path: str, body: Any = None, timeout: float = 10) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.settings.base_url + path, data=data, method=method,
                                         headers={"Authorization": self._auth(), "Content-Type": "application/json",
                                                  "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, context=self.context, timeout=timeout) as response:
                raw = response.read()
                return response.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as error:
            raw = error.read()
            return error.code, json.loads(raw) if raw else None

    def health(self, timeout: float = 2) -> dict | None:
        try:
            request = urllib.request.Request(self.settings.base_url + "/lab/health")
            with urllib.request.urlopen(request, context=self.context, timeout=timeout) as response:
                return json.loads(response.read())
        except (OSError, ValueError):
            return None


# ---------------------------------------------------------------------------- up / down / status
def _pid(settings: Settings) -> int | None:
    try:
        with open(settings.file("server.pid"), encoding="utf-8") as handle:
            pid = int(handle.read().strip())
        os.kill(pid, 0)
        return pid
    except (OSError, ValueError):
        return None


def up(settings: Settings) -> int:
    """Start the endpoint (or find it running). With AIPOD_LAB_ONTAP_FACTORY=1 the cluster is brought
    back to its factory state first (the seeded nodes, ports and aggregates; the CA is kept)."""
    factory = os.environ.get("AIPOD_LAB_ONTAP_FACTORY") == "1"
    pid = _pid(settings)
    if pid and os.path.isfile(settings.ca_file) and LabClient(settings).health():
        if factory:
            code, body = LabClient(settings).request("POST", "/lab/reset")
            if code != 200:
                print(f"ontap lab: factory reset failed: {body}", file=sys.stderr)
                return 1
            print(f"ontap lab: running on {settings.base_url} (pid {pid}), reset to factory state")
            return 0
        print(f"ontap lab: already running on {settings.base_url} (pid {pid})")
        return 0
    if factory:
        for name in ("state.json", "faults.json"):
            if os.path.exists(settings.file(name)):
                os.unlink(settings.file(name))
        shutil.rmtree(settings.file("peers"), ignore_errors=True)
    if pid:
        down(settings)
    os.makedirs(settings.state_dir, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [os.path.dirname(HERE), os.environ.get("PYTHONPATH")])))
    with open(settings.file("server.log"), "ab") as log:
        process = subprocess.Popen([sys.executable, "-m", "ontap_lab", "--inventory", settings.inventory,
                                    "--lab-dir", settings.lab_dir, "serve"], stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, env=env, start_new_session=True, cwd=REPO)
    with open(settings.file("server.pid"), "w", encoding="utf-8") as handle:
        handle.write(str(process.pid))
    deadline = time.time() + 30
    while time.time() < deadline:
        if process.poll() is not None:
            print(f"ontap lab: the endpoint exited (code {process.returncode}); see {settings.file('server.log')}", file=sys.stderr)
            return 1
        if os.path.isfile(settings.ca_file) and LabClient(settings).health():
            print(f"ontap lab: {settings.ontap['cluster_name']} on {settings.base_url} (pid {process.pid}), "
                  f"CA {os.path.relpath(settings.ca_file, REPO)}")
            return 0
        time.sleep(0.2)
    print(f"ontap lab: no answer on {settings.base_url} after 30 s; see {settings.file('server.log')}", file=sys.stderr)
    return 1


def down(settings: Settings) -> int:
    pid = _pid(settings)
    if pid is None:
        print("ontap lab: not running")
    else:
        os.kill(pid, signal.SIGTERM)
        for _ in range(50):
            try:
                os.kill(pid, 0)
            except OSError:
                break
            time.sleep(0.1)
        else:
            os.kill(pid, signal.SIGKILL)
        print(f"ontap lab: stopped (pid {pid}); state kept in {os.path.relpath(settings.file('state.json'), REPO)}")
    if os.path.exists(settings.file("server.pid")):
        os.unlink(settings.file("server.pid"))
    from .lifhost import remove as remove_lif_namespace

    remove_lif_namespace(settings.lab_dir)
    return 0


def status(settings: Settings) -> int:
    pid = _pid(settings)
    health = LabClient(settings).health() if pid and os.path.isfile(settings.ca_file) else None
    if not health:
        print(f"ontap lab: down ({settings.base_url})")
        return 1
    code, body = LabClient(settings).request("GET", "/lab/state")
    objects = ", ".join(f"{count} {name}" for name, count in sorted((body or {}).get("objects", {}).items())) if code == 200 else "?"
    print(f"ontap lab: up on {settings.base_url} (pid {health['pid']}, cluster {health['cluster']}, "
          f"{health['last_call']} calls logged); objects: {objects}")
    return 0


# ---------------------------------------------------------------------------- ctl
def ctl(settings: Settings, args: argparse.Namespace) -> int:
    client = LabClient(settings)
    if args.action == "faults":
        changes = {key: value for key, value in (("latency_ms", args.latency_ms), ("jitter_ms", args.jitter_ms),
                                                 ("error_rate", args.error_rate), ("error_status", args.error_status),
                                                 ("error_phase", args.error_phase), ("restart_after", args.restart_after),
                                                 ("restart_downtime_ms", args.restart_downtime_ms), ("seed", args.seed))
                   if value is not None}
        if args.methods:
            changes["methods"] = args.methods.split(",")
        code, body = client.request("POST", "/lab/faults", changes)
    elif args.action == "clear-faults":
        code, body = client.request("DELETE", "/lab/faults")
    elif args.action in ("calls", "counters"):
        code, body = client.request("GET", f"/lab/{args.action}?since={args.since}")
    elif args.action == "mark":
        code, body = client.request("GET", "/lab/mark")
    elif args.action == "export":
        code, body = client.request("GET", "/lab/export")
        print(json.dumps(body, indent=1, sort_keys=True))
        return 0 if code < 400 else 1
    elif args.action == "reset":
        code, body = client.request("POST", "/lab/reset")
    elif args.action == "restart":
        code, body = client.request("POST", "/lab/restart", {"downtime_ms": args.downtime_ms})
    else:
        raise SystemExit(f"unknown action {args.action}")
    print(json.dumps(body, indent=1))
    return 0 if code < 400 else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ontap_lab", description=__doc__.splitlines()[0])
    parser.add_argument("--inventory", help="inventory directory (default: $AIPOD_LAB_INVENTORY or inventories/lab)")
    parser.add_argument("--lab-dir", help="lab state directory (default: $AIPOD_LAB_DIR or .lab)")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("serve", help="run the endpoint in the foreground")
    commands.add_parser("up", help="start the endpoint in the background (idempotent)")
    commands.add_parser("down", help="stop the endpoint (state is kept)")
    commands.add_parser("status", help="say whether the endpoint answers")
    control = commands.add_parser("ctl", help="steer a running endpoint")
    control.add_argument("action", choices=["faults", "clear-faults", "calls", "counters", "mark", "reset", "restart", "export"])
    control.add_argument("--since", type=int, default=0)
    control.add_argument("--latency-ms", type=int)
    control.add_argument("--jitter-ms", type=int)
    control.add_argument("--error-rate", type=float)
    control.add_argument("--error-status", type=int)
    control.add_argument("--error-phase", choices=["before", "after", "mixed"])
    control.add_argument("--methods", help="comma-separated HTTP methods the errors apply to (default: all)")
    control.add_argument("--restart-after", type=int)
    control.add_argument("--restart-downtime-ms", type=int)
    control.add_argument("--downtime-ms", type=int, default=1500)
    control.add_argument("--seed", type=int)
    args = parser.parse_args(argv)
    settings = settings_from_env(args.inventory, args.lab_dir)
    if args.command == "serve":
        serve(settings)
        return 0
    return {"up": up, "down": down, "status": status}.get(args.command, lambda s: ctl(s, args))(settings)
