#!/usr/bin/env python3
"""The lab's Kubernetes at 4, 64 and 256 nodes: start, nodes Ready, a pod on each Running, one drain,
and the peak memory of the lab's processes. One run; compare the ratios against 4 nodes.

    .venv/bin/python benchmarks/lab_kubernetes_nodes.py [--counts 4,64,256]

Runs a Kubernetes of its own (a temporary AIPOD_LAB_DIR and its own ports, unless the environment
sets them), so that it neither needs nor touches the lab's DGX stand-ins: each node is a kubelet
file as `nodes.py sync` writes one for a DGX (8 GPUs), which nodes.py registers and KWOK plays.
The workload is `nodes.py workload`: a one-replica Deployment pinned to each node and one
PodDisruptionBudget over them, as the rolling-change tests use it. Needs a version built with
KWOK (lab/kubernetes/version by default).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
LAB_KUBERNETES = REPO / "lab" / "kubernetes"
PORTS = {"AIPOD_LAB_KUBE_API_PORT": "26443", "AIPOD_LAB_KUBE_ETCD_PORT": "33790", "AIPOD_LAB_KUBE_ETCD_PEER_PORT": "33800",
         "AIPOD_LAB_KUBE_KCM_PORT": "26257", "AIPOD_LAB_KUBE_SCHEDULER_PORT": "26259", "AIPOD_LAB_KWOK_PORT": "26260"}


class PeakMemory:
    """Samples the summed resident memory of the processes lab/kubernetes recorded, twice a second."""

    def __init__(self, run_dir: pathlib.Path) -> None:
        self.run_dir, self.peak, self.by_name = run_dir, 0, {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.sample, daemon=True)

    def sample(self) -> None:
        while not self.stop.wait(0.5):
            sizes = {}
            for pid_file in self.run_dir.glob("*.pid"):
                try:
                    status = pathlib.Path(f"/proc/{pid_file.read_text().strip()}/status").read_text()
                except (OSError, ValueError):
                    continue
                rss = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
                sizes[pid_file.stem] = rss // 1024
            if sum(sizes.values()) > self.peak:
                self.peak, self.by_name = sum(sizes.values()), sizes

    def __enter__(self) -> PeakMemory:
        self.thread.start()
        return self

    def __exit__(self, *_exc) -> None:
        self.stop.set()
        self.thread.join()


def run(command: list[str], env: dict) -> str:
    result = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result.stdout


def wait_until(what: str, check, seconds: float = 600) -> float:
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > seconds:
            sys.exit(f"{what}: not reached in {seconds:.0f} s")
        time.sleep(0.2)
    return time.monotonic() - started


def one_size(count: int, env: dict, lab_dir: pathlib.Path) -> dict:
    state = lab_dir / "kubernetes"
    kubectl = [str(state / "bin" / "kubectl"), "--kubeconfig", str(state / "kubeconfig")]

    def items(*what: str) -> list[dict]:
        return json.loads(run([*kubectl, "get", *what, "-o", "json"], env))["items"]

    run([str(LAB_KUBERNETES / "down")], env)
    try:
        started = time.monotonic()
        run([str(LAB_KUBERNETES / "up")], env)
        figures = {"nodes": count, "start": time.monotonic() - started}
        # up registered the lab inventory's DGX (nodes.py sync); this run has only its own.
        kubelets = state / "kubelets"
        for path in kubelets.glob("*.json"):
            path.unlink()
        run([*kubectl, "delete", "nodes", "--all"], env)
        with PeakMemory(state / "run") as memory:
            kubelets.mkdir(parents=True, exist_ok=True)
            names = {f"dgx{index + 1:03d}" for index in range(count)}
            for index in range(count):
                name = f"dgx{index + 1:03d}"
                body = {"gpus": 8, "ready": True, "address": f"10.{index // 250}.{index % 250}.1", "container": None}
                (kubelets / f"{name}.json").write_text(json.dumps(body))

            def all_ready() -> bool:
                nodes = [n for n in items("nodes") if n["metadata"]["name"] in names]
                return len(nodes) == count and all(
                    any(c["type"] == "Ready" and c["status"] == "True" for c in n["status"].get("conditions", []))
                    and not any(t["key"] == "node.kubernetes.io/not-ready" for t in n["spec"].get("taints", []))
                    for n in nodes)

            figures["nodes ready"] = wait_until(f"{count} nodes Ready", all_ready)
            started = time.monotonic()
            run([sys.executable, str(LAB_KUBERNETES / "nodes.py"), "workload"], env)

            def all_running() -> bool:
                pods = items("pods", "-n", "aipod-lab-workload")
                return len(pods) == count and all(p["status"].get("phase") == "Running" for p in pods)

            wait_until(f"{count} pods Running", all_running)
            figures["pods running"] = time.monotonic() - started  # from the workload's creation
            started = time.monotonic()
            run([*kubectl, "drain", "dgx001", "--ignore-daemonsets", "--timeout=300s"], env)
            figures["drain"] = time.monotonic() - started
        figures["peak MB"] = memory.peak
        figures["peak by process"] = memory.by_name
    finally:
        run([str(LAB_KUBERNETES / "down")], env)  # also after a failure: its processes run detached
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--counts", default="4,64,256")
    counts = [int(part) for part in parser.parse_args().counts.split(",")]
    with tempfile.TemporaryDirectory(prefix="aipod-kube-nodes-") as temporary:
        lab_dir = pathlib.Path(os.environ.get("AIPOD_LAB_DIR") or temporary)
        env = {**PORTS, **os.environ, "AIPOD_LAB_DIR": str(lab_dir)}
        version = env.get("AIPOD_LAB_KUBE_VERSION") or (LAB_KUBERNETES / "version").read_text().strip()
        built = run([str(LAB_KUBERNETES / "build")], env).strip().splitlines()[-1]
        if not (pathlib.Path(built) / "bin" / "kwok").exists():
            sys.exit(f"Kubernetes {version} is built without KWOK ({built}): this benchmark needs a module-built version")
        load = os.getloadavg()[0]
        results = [one_size(count, env, lab_dir) for count in counts]
    print(f"The lab's Kubernetes {version} with KWOK, load average {load:.1f} on {os.cpu_count()} CPUs")
    base = results[0]
    print(f"{'nodes':>6} {'start s':>8} {'nodes Ready s':>14} {'pods Running s':>15} {'drain s':>8} {'peak MB':>8}   ratios to {base['nodes']} nodes")
    for figures in results:
        ratios = " / ".join(f"{figures[key] / base[key]:.2f}" for key in ("nodes ready", "pods running", "drain", "peak MB"))
        print(f"{figures['nodes']:>6} {figures['start']:>8.1f} {figures['nodes ready']:>14.1f} {figures['pods running']:>15.1f} "
              f"{figures['drain']:>8.1f} {figures['peak MB']:>8}   {ratios}")
    for figures in results:
        print(f"  peak at {figures['nodes']} nodes, MB by process: {figures['peak by process']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
