"""What the lab benchmarks share: the project's paths, the environment their commands run in, the
lab script, the play recap and the scaled inventories (scripts/scale_site.py)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = ROOT / ".venv" / "bin"
RECAP = re.compile(r"^(?P<host>\S+)\s+:\s+ok=(?P<ok>\d+)\s+changed=(?P<changed>\d+)\s+unreachable=(?P<unreachable>\d+)\s+"
                   r"failed=(?P<failed>\d+)", re.MULTILINE)


def require_venv() -> None:
    if not (VENV_BIN / "ansible-playbook").exists():
        sys.exit("benchmark: run scripts/bootstrap.sh first")


def environment(inventory: Path | None = None, **extra: str) -> dict[str, str]:
    """The caller's environment with the project's virtualenv and ansible.cfg, plain output, the lab's
    vault id and a fact cache of its own (as scripts/site.sh runs the lab), and the lab sized by the
    inventory given (never by an AIPOD_LAB_DGX left in the shell)."""
    env = dict(os.environ)
    env.update({"PATH": f"{VENV_BIN}:{env.get('PATH', '')}", "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
                "ANSIBLE_NOCOLOR": "1", "ANSIBLE_FORCE_COLOR": "0", "ANSIBLE_DEPRECATION_WARNINGS": "false",
                "ANSIBLE_VAULT_IDENTITY_LIST": f"lab@{ROOT / 'inventories' / 'lab' / 'vault-password.txt'}",
                "ANSIBLE_CACHE_PLUGIN": "jsonfile", "ANSIBLE_CACHE_PLUGIN_CONNECTION": str(ROOT / ".cache" / "facts" / "benchmark")})
    env.pop("AIPOD_LAB_DGX", None)
    if inventory is not None:
        env["AIPOD_LAB_INVENTORY"] = str(inventory)
    env.update(extra)
    return env


def lab(action: str, *components: str, inventory: Path | None = None, **extra: str) -> None:
    """lab/lab <action> <components>; a failure ends the benchmark with the lab's own output."""
    result = subprocess.run([str(ROOT / "lab" / "lab"), action, *components], cwd=ROOT, capture_output=True, text=True,
                            env=environment(inventory, **extra))
    if result.returncode != 0:
        sys.exit(f"benchmark: lab/lab {action} {' '.join(components)} failed:\n{result.stdout}{result.stderr}")


def recap(output: str) -> dict[str, dict[str, int]]:
    """Host -> {ok, changed, unreachable, failed} from a PLAY RECAP."""
    return {m["host"]: {k: int(m[k]) for k in ("ok", "changed", "unreachable", "failed")} for m in RECAP.finditer(output)}


def scaled_inventory(size: int) -> Path:
    """inventories/lab grown to `size` DGX hosts (scripts/scale_site.py), under .lab/inventories.

    One HA pair, as the lab's ONTAP endpoint serves; the switch pairs grow with the DGX."""
    inventory = ROOT / ".lab" / "inventories" / f"lab-{size}"
    subprocess.run([str(VENV_BIN / "python"), "scripts/scale_site.py", "inventories/lab", str(size), str(inventory),
                    "--ha-pairs", "1"],
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return inventory


def from_nothing(inventory: Path) -> None:
    """Every lab component back to its factory state, sized for this inventory."""
    lab("stop", "hosts", "nxos", "kubernetes")
    lab("start", "ontap", inventory=inventory, AIPOD_LAB_ONTAP_FACTORY="1")
    lab("start", "nxos", inventory=inventory, AIPOD_LAB_NXOS_WRITE_ERASE="1")
    lab("start", "hosts", "kubernetes", inventory=inventory)
    # Fact caches of earlier runs would skip work a first run has to do.
    subprocess.run(["rm", "-rf", str(ROOT / ".cache" / "facts")], check=True)


def measure_each(items: Iterable, measure: Callable[[object, Path], dict]) -> tuple[list[dict], float]:
    """measure(item, logs) for each item, then the lab back to inventories/lab whatever happened;
    returns the results and the whole benchmark's seconds. Logs go to .lab/benchmarks."""
    logs = ROOT / ".lab" / "benchmarks"
    logs.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    results = []
    try:
        for item in items:
            results.append(measure(item, logs))
    finally:
        print("== restoring the lab to inventories/lab", flush=True)
        lab("stop", "hosts")
        # The switches of a larger pod's run hold its port-channels: back to factory state, so
        # that the next run configures them for the default pod from scratch.
        lab("start", "nxos", AIPOD_LAB_NXOS_WRITE_ERASE="1")
        lab("start")
    return results, time.monotonic() - started


def print_figures(figures: dict, path: Path | None) -> int:
    """Print the figures as JSON, also to `path` when given; the script's exit status (0)."""
    print(json.dumps(figures, indent=2))
    if path:
        path.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


def playbook(inventory: Path, name: str, log: Path, **extra: str) -> float:
    """ansible-playbook NAME on the inventory, its output in `log`, in the benchmark's environment
    (extra: more environment variables); its wall seconds. A failed run ends the benchmark."""
    started = time.monotonic()
    with open(log, "w", encoding="utf-8") as output:
        result = subprocess.run([str(VENV_BIN / "ansible-playbook"), "-i", str(inventory), name], cwd=ROOT,
                                env=environment(**extra), stdout=output, stderr=subprocess.STDOUT, check=False)
    if result.returncode != 0:
        sys.exit(f"benchmark: {name} failed (rc {result.returncode}); see {log}")
    return round(time.monotonic() - started, 1)
