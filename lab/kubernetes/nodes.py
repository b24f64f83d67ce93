#!/usr/bin/env python3
"""The lab's kubelets and scheduler: what makes the API server's Node objects and pods behave as on a pod.

    nodes.py run [--kwok]             the agent (lab/kubernetes/up starts it in the background)
    nodes.py sync                     register a kubelet for each kube_node DGX the lab runs
    nodes.py kubelet NAME [--ready | --not-ready | --gone] [--gpus N]
    nodes.py workload                 a Deployment per node and a PodDisruptionBudget over them

A real pod's DGX each run a kubelet that registers its Node (Ready, with its GPUs as the
allocatable extended resource nvidia.com/gpu), starts the pods bound to it and finishes the ones
being deleted; kube-scheduler binds pending pods to schedulable nodes. The lab has the API server
and the controller manager but no kubelet or scheduler, so this agent plays them, no more:
- a kubelet per file in AIPOD_LAB_DIR/kubernetes/kubelets/ (NAME.json: gpus, ready, address);
  it registers its Node and reports Ready or NotReady as its file says (the fault knob);
- pods bound to a Ready node become Running and Ready; pods being deleted on a registered node are
  finished (graceful deletion completed), as a kubelet does after the containers stop;
- pods without a node are bound to a Ready, schedulable node that matches their nodeSelector, once
  their PersistentVolumeClaims are bound;
- a Node deleted while its host's kubelet.service is stopped is not registered again (a running
  kubelet would register it again at once);
- every cordon, uncordon, binding and finished pod goes to logs/node-events.jsonl with its time,
  so tests can check the order of a rolling change.
Nothing runs in a container: a pod here is an API object whose status the agent keeps.

With --kwok (a Kubernetes built from Go modules), the real kube-scheduler binds the pods and KWOK
plays the kubelets' side of the API: Node status and leases, pods Running, deletions finished. The
agent then keeps only what KWOK does not do: it registers each kubelet's Node (labelled
aipod-lab/kubelet=kwok, which KWOK manages) with its GPUs, posts NotReady for a kubelet the fault
knob stops (the label then says not-ready, so KWOK leaves that Node alone) and finishes the pods
being deleted on it, does not register a Node again once its host's kubelet.service is stopped,
and writes the node events from watches.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(os.environ.get("AIPOD_ROOT") or Path(__file__).resolve().parents[2])
LAB_DIR = Path(os.environ.get("AIPOD_LAB_DIR") or ROOT / ".lab")
STATE = LAB_DIR / "kubernetes"
KUBELETS = STATE / "kubelets"
EVENTS = STATE / "logs" / "node-events.jsonl"
KUBECONFIG = STATE / "kubeconfig"
# The version the kubelets report: the lab's (lab/kubernetes/version, or the one the environment asks for).
KUBE_VERSION = "v" + (os.environ.get("AIPOD_LAB_KUBE_VERSION") or (Path(__file__).with_name("version")).read_text().strip())
# The label that hands a Node to KWOK (lab/kubernetes/up: --manage-nodes-with-label-selector).
KWOK_LABEL = "aipod-lab/kubelet"
WORKLOAD_NAMESPACE = "aipod-lab-workload"
WORKLOAD_LABEL = "aipod-lab-train"
# A pass runs when the API server reports a change to a Node or a pod (watches, as a kubelet and the
# scheduler are told), when a kubelet's file changes (looked at every FILE_SECONDS), and at least
# every RESYNC_SECONDS (as informers resync). Listing everything twice a second instead cost the
# idle lab about 4 CPU s a minute in the API server, etcd and this agent.
FILE_SECONDS = 0.25
RESYNC_SECONDS = 10.0
WATCH_SECONDS = 300


def say(text: str) -> None:
    print(f"lab kubernetes: nodes: {text}", flush=True)


def client():
    from kubernetes import client as kube_client
    from kubernetes import config

    config.load_kube_config(str(KUBECONFIG))
    return kube_client


def read_kubelets() -> dict[str, dict]:
    kubelets = {}
    for path in sorted(KUBELETS.glob("*.json")):
        try:
            kubelets[path.stem] = json.loads(path.read_text())
        except (OSError, ValueError):
            continue  # being written; read it on the next pass
    return kubelets


def write_kubelet(name: str, body: dict) -> None:
    KUBELETS.mkdir(parents=True, exist_ok=True)
    temporary = KUBELETS / f".{name}.json.tmp"
    temporary.write_text(json.dumps(body, sort_keys=True))
    temporary.replace(KUBELETS / f"{name}.json")


def record(event: str, **fields) -> None:
    EVENTS.parent.mkdir(parents=True, exist_ok=True)
    with EVENTS.open("a") as stream:
        stream.write(json.dumps({"time": time.time(), "event": event, **fields}) + "\n")


def node_status(kubelet: dict) -> dict:
    """The status a kubelet reports: Ready or not, capacity with the GPUs, the node's address."""
    ready = bool(kubelet.get("ready", True))
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    resources = {"cpu": "128", "memory": "2113929216Ki", "pods": "110", "nvidia.com/gpu": str(int(kubelet.get("gpus", 0)))}
    return {
        "capacity": resources,
        "allocatable": resources,
        "conditions": [{
            "type": "Ready", "status": "True" if ready else "False",
            "reason": "KubeletReady" if ready else "KubeletNotReady",
            "message": "kubelet is posting ready status" if ready else "the lab's fault knob says this kubelet is not ready",
            "lastHeartbeatTime": now, "lastTransitionTime": now}],
        "addresses": [{"type": "InternalIP", "address": kubelet.get("address") or "127.0.0.1"}],
        "nodeInfo": {"machineID": "", "systemUUID": "", "bootID": "", "kernelVersion": os.uname().release,
                     "osImage": "Debian GNU/Linux 12 (lab stand-in)", "containerRuntimeVersion": "containerd://1.7.0",
                     "kubeletVersion": KUBE_VERSION, "kubeProxyVersion": KUBE_VERSION,
                     "operatingSystem": "linux", "architecture": "amd64"},
    }


def kubelet_running(container: str | None) -> bool:
    """Whether kubelet.service runs in the DGX stand-in's container (asked only when its Node has disappeared)."""
    import subprocess

    if not container:
        return True
    env = dict(os.environ, CONTAINERS_CONF=str(LAB_DIR / "podman" / "containers.conf"))
    try:
        answer = subprocess.run(["podman", "exec", container, "systemctl", "is-active", "kubelet.service"],
                                capture_output=True, text=True, timeout=20, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return True  # unknown: behave as a running kubelet, as before
    state = answer.stdout.strip()
    return state not in ("inactive", "failed") if answer.returncode in (0, 3) else True


def is_ready(node) -> bool:
    return any(c.type == "Ready" and c.status == "True" for c in (node.status.conditions or []))


def registration_metadata(name: str, labels: dict[str, str]) -> dict:
    """A DGX's Node as its kubelet registers it (the attach-detach annotation every kubelet sets), with
    the labels node feature discovery's worker puts on a host with NVIDIA PCI devices, and the one
    the GPU Operator's node feature rules derive from it."""
    return {"name": name,
            "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                       "feature.node.kubernetes.io/pci-10de.present": "true", "nvidia.com/gpu.present": "true", **labels},
            "annotations": {"volumes.kubernetes.io/controller-managed-attach-detach": "true"}}

class Agent:
    def __init__(self, kube) -> None:
        self.kube = kube
        self.core = kube.CoreV1Api()
        self.unschedulable: dict[str, bool] = {}
        self.registered: set[str] = set()

    def running_kubelets(self, kubelets: dict[str, dict], nodes: dict):
        """(name, kubelet, its Node or None) for each kubelet that runs. A Node deleted while its host's
        kubelet.service is stopped makes that kubelet gone: a real kubelet would not register it again either."""
        for name, kubelet in kubelets.items():
            if kubelet.get("gone"):
                continue
            node = nodes.get(name)
            if node is None and name in self.registered and not kubelet_running(kubelet.get("container")):
                write_kubelet(name, {**kubelet, "gone": True})
                record("kubelet_stopped", node=name)
                continue
            yield name, kubelet, node

    def nodes(self, kubelets: dict[str, dict]) -> dict:
        nodes = {n.metadata.name: n for n in self.core.list_node().items}
        for name, kubelet, node in self.running_kubelets(kubelets, dict(nodes)):
            if node is None:
                body = {"apiVersion": "v1", "kind": "Node", "metadata": registration_metadata(name, {})}
                node = self.core.create_node(body)
                record("registered", node=name)
            wanted = node_status(kubelet)
            have_ready = is_ready(node) if node.status and node.status.conditions else None
            have_gpus = ((node.status.allocatable or {}) if node.status else {}).get("nvidia.com/gpu")
            if have_ready != (wanted["conditions"][0]["status"] == "True") or have_gpus != wanted["allocatable"]["nvidia.com/gpu"]:
                node = self.core.patch_node_status(name, {"status": wanted})
                record("ready" if is_ready(node) else "not_ready", node=name)
            nodes[name] = node
            self.registered.add(name)
        for node in nodes.values():
            self.observe(node)
        return nodes

    def observe(self, node) -> None:
        """Record a cordon or uncordon of the node since it was last seen."""
        name, cordoned = node.metadata.name, bool(node.spec.unschedulable)
        if name in self.unschedulable and self.unschedulable[name] != cordoned:
            record("cordoned" if cordoned else "uncordoned", node=name)
        self.unschedulable[name] = cordoned

    def pods(self, kubelets: dict[str, dict], nodes: dict) -> None:
        # A NotReady kubelet (its network plugin down, say) still stops the pods being deleted on it;
        # only a gone one does not.
        alive = {name for name, k in kubelets.items() if not k.get("gone")}
        running = {name for name in alive if kubelets[name].get("ready", True)}
        for pod in self.core.list_pod_for_all_namespaces().items:
            meta, spec = pod.metadata, pod.spec
            where = spec.node_name
            if meta.deletion_timestamp is not None:
                if where in alive or not where:
                    if where:
                        # A drain cordons, then evicts: the cordon may have come after this pass read the nodes.
                        self.observe(self.core.read_node(where))
                    self.core.delete_namespaced_pod(meta.name, meta.namespace, grace_period_seconds=0)
                    record("pod_finished", node=where, pod=f"{meta.namespace}/{meta.name}")
                continue
            if not where:
                target = self.schedule(pod, nodes)
                if target and self.still_schedulable(target) and self.claims_bound(pod):
                    body = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": meta.name},
                            "target": {"apiVersion": "v1", "kind": "Node", "name": target}}
                    self.core.create_namespaced_binding(meta.namespace, body, _preload_content=False)
                    record("bound", node=target, pod=f"{meta.namespace}/{meta.name}")
                continue
            if where in running and (pod.status.phase != "Running"):
                now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
                status = {"phase": "Running", "startTime": now, "hostIP": "127.0.0.1", "podIP": "127.0.0.1",
                          "conditions": [{"type": t, "status": "True", "lastTransitionTime": now}
                                         for t in ("Initialized", "Ready", "ContainersReady", "PodScheduled")],
                          "containerStatuses": [{"name": c.name, "image": c.image, "imageID": "", "ready": True,
                                                 "restartCount": 0, "started": True, "state": {"running": {"startedAt": now}}}
                                                for c in spec.containers]}
                self.core.patch_namespaced_pod_status(meta.name, meta.namespace, {"status": status})
                record("running", node=where, pod=f"{meta.namespace}/{meta.name}")

    def still_schedulable(self, name: str) -> bool:
        """The node as it is now: a drain may have cordoned it since this pass read the nodes."""
        node = self.core.read_node(name)
        self.observe(node)
        return is_ready(node) and not node.spec.unschedulable

    def claims_bound(self, pod) -> bool:
        """kube-scheduler binds a pod only once its PersistentVolumeClaims are bound (Immediate binding)."""
        for volume in pod.spec.volumes or []:
            claim = volume.persistent_volume_claim
            if claim is not None:
                found = self.core.read_namespaced_persistent_volume_claim(claim.claim_name, pod.metadata.namespace)
                if (found.status.phase if found.status else None) != "Bound":
                    return False
        return True

    @staticmethod
    def schedule(pod, nodes: dict) -> str | None:
        """The Ready, schedulable node with the fewest pods bound so far that matches the pod's nodeSelector."""
        selector = pod.spec.node_selector or {}
        candidates = [name for name, node in sorted(nodes.items())
                      if is_ready(node) and not node.spec.unschedulable
                      and all((node.metadata.labels or {}).get(k) == v for k, v in selector.items())]
        return candidates[0] if candidates else None

    def run(self) -> None:
        say(f"playing the kubelets in {KUBELETS} and the scheduler")
        changed = threading.Event()
        changed.set()
        for lister in (self.core.list_node, self.core.list_pod_for_all_namespaces):
            threading.Thread(target=watch_forever, args=(self.kube, lister, changed), daemon=True).start()

        def one_pass() -> None:
            kubelets = read_kubelets()
            self.pods(kubelets, self.nodes(kubelets))

        self.loop(changed, one_pass)

    @staticmethod
    def loop(changed: threading.Event, one_pass) -> None:
        """Run a pass on a watch event, a changed kubelet file, or every RESYNC_SECONDS."""
        files, last_pass = None, 0.0
        while True:
            now_files = kubelet_files()
            if now_files != files or time.monotonic() - last_pass >= RESYNC_SECONDS:
                changed.set()
            if changed.wait(FILE_SECONDS):
                changed.clear()
                files, last_pass = now_files, time.monotonic()
                try:
                    one_pass()
                except Exception as error:  # the API server restarting, a conflict: try again on the next pass
                    say(f"pass failed: {type(error).__name__}: {str(error)[:300]}")
                    time.sleep(FILE_SECONDS)
                    changed.set()


class KwokAgent(Agent):
    """Registration, the NotReady knob and the node events; KWOK and kube-scheduler do the rest."""

    def __init__(self, kube) -> None:
        super().__init__(kube)
        self.events_lock = threading.Lock()
        self.pod_nodes: dict[str, str] = {}
        self.running: set[str] = set()
        # Kubelets the fault knob made NotReady: alive, so they still finish the pods being deleted
        # on them, which KWOK, no longer playing them, would not.
        self.not_ready: frozenset[str] = frozenset()

    def nodes(self, kubelets: dict[str, dict]) -> dict:
        self.not_ready = frozenset(name for name, k in kubelets.items() if not k.get("gone") and not k.get("ready", True))
        nodes = {n.metadata.name: n for n in self.core.list_node().items}
        for name, kubelet in kubelets.items():
            node = nodes.get(name)
            if kubelet.get("gone") and node is not None and (node.metadata.labels or {}).get(KWOK_LABEL) == "kwok":
                # No kubelet any more: KWOK lets the Node go, and the node lifecycle controller marks it
                # unknown once its lease runs out, as for a dead host.
                nodes[name] = self.core.patch_node(name, {"metadata": {"labels": {KWOK_LABEL: "gone"}}})
        for name in self.not_ready & set(nodes):
            # A pod whose deletion began while KWOK still played the node is finished here.
            for pod in self.core.list_pod_for_all_namespaces(field_selector=f"spec.nodeName={name}").items:
                if pod.metadata.deletion_timestamp is not None:
                    self.finish(pod)
        for name, kubelet, node in self.running_kubelets(kubelets, dict(nodes)):
            ready = bool(kubelet.get("ready", True))
            wanted = node_status(kubelet)
            if node is None:
                # Registered with its capacity, address and node info, as a kubelet registers (a Node may
                # carry its status on creation); KWOK adds the conditions.
                del wanted["conditions"]
                body = {"apiVersion": "v1", "kind": "Node",
                        "metadata": registration_metadata(name, {KWOK_LABEL: "kwok" if ready else "not-ready"}),
                        "status": wanted}
                node = self.core.create_node(body)
                record("registered", node=name)
            else:
                labelled_ready = (node.metadata.labels or {}).get(KWOK_LABEL) == "kwok"
                have_gpus = ((node.status.allocatable or {}) if node.status else {}).get("nvidia.com/gpu")
                if labelled_ready != ready:
                    node = self.core.patch_node(name, {"metadata": {"labels": {KWOK_LABEL: "kwok" if ready else "not-ready"}}})
                    if ready:
                        record("ready", node=name)  # KWOK reports it Ready again
                if not ready and (is_ready(node) or not (node.status and node.status.conditions)):
                    # KWOK no longer renews this Node: post NotReady, as a kubelet whose runtime is down does.
                    node = self.core.patch_node_status(name, {"status": {"conditions": wanted["conditions"]}})
                    record("not_ready", node=name)
                if have_gpus != wanted["allocatable"]["nvidia.com/gpu"]:
                    status = {"capacity": wanted["capacity"], "allocatable": wanted["allocatable"]}
                    node = self.core.patch_node_status(name, {"status": status})
            nodes[name] = node
            self.registered.add(name)
        return nodes

    def node_event(self, kind: str, node) -> None:
        """Cordons and uncordons, as the watch reports them."""
        if kind != "DELETED":
            with self.events_lock:
                self.observe(node)

    def pod_event(self, kind: str, pod) -> None:
        """Bindings, starts and finished pods, as the watch reports them."""
        key = f"{pod.metadata.namespace}/{pod.metadata.name}"
        where = pod.spec.node_name
        with self.events_lock:
            if kind == "DELETED":
                self.running.discard(key)
                if self.pod_nodes.pop(key, None) is not None or where:
                    self.observe_node(where)
                    record("pod_finished", node=where, pod=key)
                return
            if pod.metadata.deletion_timestamp is not None and where in self.not_ready:
                self.finish(pod)
                return
            if where and self.pod_nodes.get(key) != where:
                self.pod_nodes[key] = where
                self.observe_node(where)
                record("bound", node=where, pod=key)
            if where and pod.status and pod.status.phase == "Running" and key not in self.running:
                self.running.add(key)
                record("running", node=where, pod=key)

    def observe_node(self, name: str | None) -> None:
        """The node as it is now, before a pod event on it is written: the two watches are separate
        streams, and a drain's cordon must come before the evictions it causes."""
        if name:
            try:
                self.observe(self.core.read_node(name))
            except Exception as error:  # the node is gone: nothing to observe
                if getattr(error, "status", None) != 404:
                    raise

    def finish(self, pod) -> None:
        """Finish a pod's deletion, as its kubelet does once the containers stopped."""
        try:
            self.core.delete_namespaced_pod(pod.metadata.name, pod.metadata.namespace, grace_period_seconds=0)
        except Exception as error:  # already gone
            if getattr(error, "status", None) != 404:
                raise

    def run(self) -> None:
        say(f"registering the kubelets in {KUBELETS}; KWOK plays them, kube-scheduler schedules")
        changed = threading.Event()
        changed.set()
        # Node events start a pass (a Node deleted, a label changed); pod events need none.
        threading.Thread(target=watch_forever, args=(self.kube, self.core.list_node, changed, self.node_event),
                         daemon=True).start()
        threading.Thread(target=watch_forever, args=(self.kube, self.core.list_pod_for_all_namespaces, None,
                                                     self.pod_event), daemon=True).start()
        self.loop(changed, lambda: self.nodes(read_kubelets()))


def kubelet_files() -> tuple:
    """What identifies the kubelets' files as they are now: names, sizes and modification times."""
    try:
        return tuple(sorted((path.name, stat.st_mtime_ns, stat.st_size)
                            for path, stat in ((path, path.stat()) for path in KUBELETS.glob("*.json"))))
    except OSError:
        return ()


def watch_forever(kube, lister, changed: threading.Event | None, on_event=None) -> None:
    """Hand every event of a watch over what `lister` lists to `on_event(type, object)` if given, then
    set `changed` if given. A watch that ends is resumed from the last version it saw, so no event is
    lost between two watches; when that version is too old (410), it starts again with a listing."""
    from kubernetes import watch

    version = None
    while True:
        watcher = watch.Watch()
        try:
            for event in watcher.stream(lister, resource_version=version, timeout_seconds=WATCH_SECONDS,
                                        _request_timeout=WATCH_SECONDS + 30):
                version = watcher.resource_version
                if event["type"] == "ERROR":
                    version = None  # the version expired: list again
                    break
                if on_event is not None:
                    try:
                        on_event(event["type"], event["object"])
                    except Exception as error:  # one event's handling failed: the watch goes on
                        say(f"event not handled: {type(error).__name__}: {str(error)[:200]}")
                if changed is not None:
                    changed.set()
        except Exception as error:  # the API server restarting: the pass loop resyncs meanwhile
            if getattr(error, "status", None) == 410:
                version = None
            say(f"watch ended: {type(error).__name__}: {str(error)[:200]}")
            time.sleep(1)
        if changed is not None:
            changed.set()


def sync() -> int:
    """A kubelet for each kube_node DGX the lab runs (lab/hosts selection), with the model's GPU count and address."""
    sys.path.insert(0, str(ROOT / "lab" / "hosts"))
    import hostlab  # the lab's own selection of DGX stand-ins

    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as site_model
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site

    _networks, hosts = hostlab.load_lab()
    model = load_site(str(hostlab.INVENTORY)).model
    workers = set(site_model.group_members(model, "kube_node"))
    dgx = site_model.hosts_of_kind(model, "dgx")
    wanted = {}
    for host in hosts:
        if host.name in workers:
            count = ((dgx.get(host.name) or {}).get("gpus") or {}).get("count") or 0
            wanted[host.name] = {"gpus": int(count), "ready": True, "address": host.mgmt_address.split("/")[0],
                                 "container": host.container}
    current = read_kubelets()
    for name, body in wanted.items():
        have = current.get(name, {})
        if have.get("gpus") != body["gpus"] or have.get("gone") or have.get("container") != body["container"]:
            write_kubelet(name, body)
    for name in set(current) - set(wanted):
        write_kubelet(name, {**current[name], "gone": True})
    say(f"kubelets for {', '.join(sorted(wanted)) or 'no host'}")
    return 0


def kubelet(name: str, state: str | None, gpus: int | None = None) -> int:
    current = read_kubelets().get(name)
    if current is None:
        print(f"lab kubernetes: nodes: no kubelet {name} (known: {', '.join(read_kubelets()) or 'none'})", file=sys.stderr)
        return 1
    changed = dict(current)
    if state is not None:
        changed.update(ready=state == "ready", gone=state == "gone")
    if gpus is not None:
        changed["gpus"] = gpus
    write_kubelet(name, changed)
    say(f"kubelet {name}: {state or 'as it was'}{f', {gpus} GPUs' if gpus is not None else ''}")
    return 0


def workload() -> int:
    """A one-replica Deployment pinned to each registered node, and a PDB allowing one disruption among them."""
    kube = client()
    from kubernetes.dynamic import DynamicClient

    core, apps = kube.CoreV1Api(), kube.AppsV1Api()
    # Kubernetes 1.20 serves PodDisruptionBudgets as policy/v1beta1 only (which the current client has no
    # class for), 1.25 and later as policy/v1 only.
    policy = "policy/v1" if int(kube.VersionApi().get_code().minor.rstrip("+")) >= 21 else "policy/v1beta1"
    budgets = DynamicClient(kube.ApiClient()).resources.get(api_version=policy, kind="PodDisruptionBudget")
    names = sorted(name for name, k in read_kubelets().items() if not k.get("gone"))
    try:
        core.create_namespace({"metadata": {"name": WORKLOAD_NAMESPACE}})
    except kube.ApiException as error:
        if error.status != 409:
            raise
    for name in names:
        body = {"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": f"train-{name}", "namespace": WORKLOAD_NAMESPACE},
                "spec": {"replicas": 1, "selector": {"matchLabels": {"app": WORKLOAD_LABEL, "node": name}},
                         "template": {"metadata": {"labels": {"app": WORKLOAD_LABEL, "node": name}},
                                      "spec": {"nodeSelector": {"kubernetes.io/hostname": name},
                                               "terminationGracePeriodSeconds": 5,
                                               "containers": [{"name": "train", "image": "lab.invalid/train:1"}]}}}}
        try:
            apps.create_namespaced_deployment(WORKLOAD_NAMESPACE, body)
        except kube.ApiException as error:
            if error.status != 409:
                raise
    budget = {"apiVersion": policy, "kind": "PodDisruptionBudget",
              "metadata": {"name": WORKLOAD_LABEL, "namespace": WORKLOAD_NAMESPACE},
              "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": WORKLOAD_LABEL}}}}
    try:
        budgets.create(body=budget, namespace=WORKLOAD_NAMESPACE)
    except Exception as error:  # the dynamic client raises its own ConflictError
        if getattr(error, "status", None) != 409:
            raise
    say(f"workload in namespace {WORKLOAD_NAMESPACE}: one pod pinned to each of {', '.join(names) or 'no node'}")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run")
    run.add_argument("--kwok", action="store_true", help="KWOK plays the kubelets and kube-scheduler schedules")
    commands.add_parser("sync")
    commands.add_parser("workload")
    one = commands.add_parser("kubelet")
    one.add_argument("name")
    one.add_argument("--gpus", type=int, help="the GPUs the kubelet reports (a GPU lost to a fault)")
    state = one.add_mutually_exclusive_group()
    state.add_argument("--ready", dest="state", action="store_const", const="ready")
    state.add_argument("--not-ready", dest="state", action="store_const", const="not-ready")
    state.add_argument("--gone", dest="state", action="store_const", const="gone")
    args = parser.parse_args(argv)
    if args.command == "run":
        (KwokAgent if args.kwok else Agent)(client()).run()
        return 0
    if args.command == "sync":
        return sync()
    if args.command == "workload":
        return workload()
    return kubelet(args.name, args.state, args.gpus)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main(sys.argv[1:]))
