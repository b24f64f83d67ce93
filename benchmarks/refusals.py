#!/usr/bin/env python3
"""Time and peak memory of ansible-playbook playbooks/validate.yml refusing hostile inventories.

Each case is a copy of inventories/sample with one hostile edit (issues 17 and 24): an alias bomb,
a file over the size cap, a FIFO, a link to /dev/zero, nesting thousands of levels deep, a CA file
of several GB, a vault file or an inline value the run cannot decrypt, a description holding a
command, a second inventory file. Each run is measured in a process of its own: wall seconds, and
the largest resident set of any process of the run (getrusage of the children). A case passes when
the run refuses (non-zero exit), names the file or host, and stays within 5 s and 200 MB.
Needs no lab.

    .venv/bin/python benchmarks/refusals.py [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks")]
from bench_support import VENV_BIN, environment, require_venv  # noqa: E402

SAMPLE = ROOT / "inventories" / "sample"
PASSWORD = b"aipod-sample-vault-password"
MAX_SECONDS, MAX_PEAK_MB = 5.0, 200.0
MEASURE = """
import json, resource, subprocess, sys, time
started = time.perf_counter()
result = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=600)
print(json.dumps({"rc": result.returncode, "seconds": round(time.perf_counter() - started, 2),
                  "peak_mb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
                  "output": result.stdout + result.stderr}))
"""


def encrypted(plaintext: str, password: bytes, vault_id: str) -> str:
    from ansible.parsing.vault import VaultLib, VaultSecret
    return VaultLib().encrypt(plaintext, VaultSecret(password), vault_id=vault_id).decode()


def alias_bomb(site: Path) -> str:
    lines = ["---", "vault_lol0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"vault_lol{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 9) + "]" for level in range(1, 9)]
    (site / "group_vars" / "all" / "lol.yml").write_text("\n".join(lines) + "\n")
    return "lol.yml"


def fifty_megabytes(site: Path) -> str:
    with open(site / "group_vars" / "all" / "big.yml", "w", encoding="utf-8") as handle:
        handle.write("---\nvault_big:\n")
        line = "  - " + "x" * 96 + "\n"
        handle.write(line * (50 * 1024 * 1024 // len(line)))
    return "big.yml"


def fifo(site: Path) -> str:
    os.mkfifo(site / "group_vars" / "all" / "pipe.yml")
    return "pipe.yml"


def dev_zero(site: Path) -> str:
    (site / "group_vars" / "all" / "zero.yml").symlink_to("/dev/zero")
    return "zero.yml"


def deep_nesting(site: Path) -> str:
    (site / "group_vars" / "all" / "deep.yml").write_text("---\nvault_deep: " + "[" * 5000 + "]" * 5000 + "\n")
    return "deep.yml"


def huge_ca_file(site: Path) -> str:
    with open(site / "files" / "ontap-ca.pem", "r+b") as handle:  # sparse: no disk space used
        handle.truncate(4 * 1024 ** 3)
    return "ontap-ca.pem"


def vault_file_wrong_password(site: Path) -> str:
    (site / "group_vars" / "all" / "vault.yml").write_text(encrypted("vault_x: 1\n", b"another password", "sample"))
    return "vault.yml"


def inline_vault_other_id(site: Path) -> str:
    body = "".join(f"  {line}\n" for line in encrypted("s3cret", b"netbox password", "netbox").splitlines())
    with open(site / "group_vars" / "switches.yml", "a", encoding="utf-8") as handle:
        handle.write("vault_switch_extra: !vault |\n" + body)
    return "vault_switch_extra"


def description_with_a_command(site: Path) -> str:
    path = site / "host_vars" / "n3232c-a.yml"
    text = path.read_text()
    first_port = text.index("connects_to:")  # the first port-channel
    path.write_text(text[:first_port] + 'description: "dgx01 storage\\nreload", ' + text[first_port:])
    return "n3232c-a.yml"


def second_inventory_file(site: Path) -> str:
    (site / "more.ini").write_text("[dgx]\ndgx09 ansible_host=10.61.218.109\n")
    return "dgx09"


def big_hosts_file(site: Path) -> str:
    (site / "hosts.yml").write_text("---\nall:\n  children:\n" + "".join(
        f"    g{i}:\n      hosts:\n        h{i}:\n" for i in range(420_000)))
    return "hosts.yml"


def deep_hosts_file(site: Path) -> str:
    (site / "hosts.yml").write_text("all:\n  vars:\n    x: " + "[" * 30_000 + "]" * 30_000 + "\n  hosts:\n    dgx01:\n")
    return "hosts.yml"


def fifo_beside_hosts_file(site: Path) -> str:
    os.mkfifo(site / "extra")
    return "extra"


def password_file_copied_in(site: Path) -> str:
    (site / "group_vars" / "all" / "shadow.yml").write_text("root:$y$j9T$secret-hash:19000:0:99999:7:::\n")
    return "shadow.yml"


CASES: dict[str, Callable[[Path], str]] = {
    "alias bomb (about 500 bytes, 9^9 values)": alias_bomb,
    "50 MB vars file": fifty_megabytes,
    "FIFO in group_vars": fifo,
    "vars file linked to /dev/zero": dev_zero,
    "5000 levels of nesting": deep_nesting,
    "4 GB CA file (sparse)": huge_ca_file,
    "vault file under another password": vault_file_wrong_password,
    "inline vault value for another vault id": inline_vault_other_id,
    "port-channel description holding a command": description_with_a_command,
    "second inventory file adding a host (-i directory)": second_inventory_file,
    "17 MB hosts.yml": big_hosts_file,
    "hosts.yml nested 30,000 levels deep": deep_hosts_file,
    "FIFO beside hosts.yml (-i directory)": fifo_beside_hosts_file,
    "password file copied into group_vars": password_file_copied_in,
}
# Cases whose inventory is given as its directory (-i <site>), so that Ansible reads every entry.
DIRECTORY_SOURCES = (second_inventory_file, fifo_beside_hosts_file)


def measure(site: Path, password: Path, source: Path) -> dict:
    command = [str(VENV_BIN / "ansible-playbook"), "-i", str(source), "--vault-id", f"sample@{password}",
               "playbooks/validate.yml"]
    env = dict(environment(), AIPOD_RUN_LOCK_DIR=str(site.parent / "locks"), AIPOD_REPORT_ROOT=str(site.parent / "reports"))
    result = subprocess.run([sys.executable, "-c", MEASURE, *command], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=900, check=True)
    return json.loads(result.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    args = parser.parse_args()
    require_venv()
    results = []
    with tempfile.TemporaryDirectory(prefix="aipod-refusals-") as work:
        password = Path(work) / "password"
        password.write_bytes(PASSWORD + b"\n")
        for name, edit in {"the sample as shipped (accepted)": None, **CASES}.items():
            site = Path(work) / f"case-{len(results)}" / "sample"
            shutil.copytree(SAMPLE, site)
            named = edit(site) if edit else ""
            source = site if edit in DIRECTORY_SOURCES else site / "hosts.yml"
            figures = measure(site, password, source)
            refused = figures["rc"] != 0
            row = {"case": name, "rc": figures["rc"], "seconds": figures["seconds"], "peak_mb": figures["peak_mb"],
                   "named": bool(named) and named in figures["output"],
                   "ok": (refused and named in figures["output"] if edit else figures["rc"] == 0)
                   and "secret-hash" not in figures["output"]
                   and figures["seconds"] <= MAX_SECONDS and figures["peak_mb"] <= MAX_PEAK_MB}
            results.append(row)
            print(f"{name:<55} rc={row['rc']} {row['seconds']:>5} s {row['peak_mb']:>6} MB "
                  f"{'named' if row['named'] else '':<6} {'ok' if row['ok'] else 'FAILED'}", flush=True)
            shutil.rmtree(site.parent, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0 if all(row["ok"] for row in results) else 1


if __name__ == "__main__":
    sys.exit(main())
