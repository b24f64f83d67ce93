"""Release check of the execution environment: build it offline, then run the site in it as AWX does.

    scripts/ee-check.sh [--playbook playbooks/site.yml] [--skip-build] [--keep]

1. The base image: Debian 13 (Python 3.13) from debootstrap (lab/ee/base-packages.txt), imported into podman, as the
   lab's host image is. Its Python is the venv /opt/ee-python (Debian keeps ensurepip for venvs).
2. The image: `ansible-builder build -f execution-environment.yml`, unchanged, with build arguments
   only (base image, package manager, Python, a Galaxy mirror, no helm), the arguments a site with
   mirrors passes. Galaxy is unreachable here, so lab/ee/galaxy_mirror.py serves the pinned
   collections from .venv on loopback; PyPI and Debian's archive are reached as on the machine.
3. An AWX-shaped job with ansible-runner in the image (podman): the repository's files in
   <job>/project (a project sync), the lab inventory exported with `ansible-inventory --list --export`
   behind an inventory script in <job>/inventory/hosts, the vault password answered at the prompt
   of `--vault-id lab@prompt` from <job>/env/passwords (AWX's vault credential), the extra variable
   and environment AWX's job template sets (docs/execution-environment.md).
4. ansible-navigator with the repository's ansible-navigator.yml validates the lab inventory in the
   same image.

Exit 0 when the image builds, the job's recap has no failed or unreachable host and its
verification has no failure (exit 0, or 2 for checks the lab cannot make), and navigator's validation passes; 1 otherwise; 2 on a set-up problem.
The lab is started (lab/lab start) and left running. Figures are printed at the end.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lab" / "ee"))
import galaxy_mirror  # noqa: E402  (beside this file)

VENV_BIN = Path(sys.executable).parent
LAB_DIR = Path(os.environ.get("AIPOD_LAB_DIR") or ROOT / ".lab")
CONTAINERS_CONF = LAB_DIR / "podman" / "containers.conf"
WORK = ROOT / ".cache" / "ee-check"
BASE_REPO = "localhost/aipod-ee-base"
EE_PYTHON = "/opt/ee-python"
DEBIAN_SUITE = "trixie"
DEBIAN_MIRROR = os.environ.get("AIPOD_LAB_DEBIAN_MIRROR", "http://deb.debian.org/debian")
RECAP = re.compile(r"^(\S+)\s+:\s+ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)
# The lab's files the lab inventory names (relative to the lab state): what a site keeps beside its
# inventory. The DGX hosts' private key is not among them: it comes as AWX's machine credential does.
LAB_FILES = ("hosts/ssh/known_hosts", "ontap/pki/ca.pem", "kubernetes/kubeconfig")
VAULT_ID = "lab"
# Where the job's run reports go: a volume of the job's container, as AWX's container group mounts one.
JOB_REPORTS = "/aipod-reports"
# The image's user (ansible-builder's default), which the job runs as.
JOB_UID = 1000


class CheckError(Exception):
    """A set-up problem (missing tool, lab not startable); printed without a traceback."""


def say(text: str) -> None:
    print(f"ee-check: {text}", flush=True)


def podman_env() -> dict[str, str]:
    return dict(os.environ, CONTAINERS_CONF=str(CONTAINERS_CONF), PATH=f"{VENV_BIN}:{os.environ['PATH']}")


def run(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    kwargs.setdefault("env", podman_env())
    return subprocess.run(args, text=True, **kwargs)


def ee_definition() -> dict:
    return yaml.safe_load((ROOT / "execution-environment.yml").read_text())


def ee_image() -> str:
    """The tag execution-environment.yml gives the image (podman puts it under localhost/)."""
    return "localhost/" + ee_definition()["options"]["tags"][0]


# ------------------------------------------------------------------------------------ base image
def base_recipe() -> str:
    digest = hashlib.sha256(f"{DEBIAN_SUITE} minbase {EE_PYTHON}\n".encode())
    digest.update((ROOT / "lab" / "ee" / "base-packages.txt").read_bytes())
    return digest.hexdigest()[:12]


def base_packages() -> list[str]:
    lines = (ROOT / "lab" / "ee" / "base-packages.txt").read_text().splitlines()
    return [line.split("#")[0].strip() for line in lines if line.split("#")[0].strip()]


def ensure_base_image() -> str:
    tag = f"{BASE_REPO}:{base_recipe()}"
    if run(["podman", "image", "exists", tag]).returncode == 0:
        return tag
    if shutil.which("debootstrap") is None:
        raise CheckError("debootstrap is not installed: run scripts/bootstrap.sh")
    say(f"building the base image {tag} (debootstrap {DEBIAN_SUITE}; about a minute)")
    with tempfile.TemporaryDirectory(dir=WORK) as build:
        rootfs = Path(build) / "rootfs"
        cache = LAB_DIR / "hosts" / "debs"
        cache.mkdir(parents=True, exist_ok=True)
        run(["debootstrap", "--variant=minbase", f"--include={','.join(base_packages())}", f"--cache-dir={cache}",
             DEBIAN_SUITE, str(rootfs), DEBIAN_MIRROR], check=True, capture_output=True)
        run(["chroot", str(rootfs), "python3", "-m", "venv", "--without-pip", EE_PYTHON], check=True)
        # The machine's CA bundle: it holds whatever CA the machine's route to PyPI and Debian needs,
        # as a site's base image carries its own.
        shutil.copy("/etc/ssl/certs/ca-certificates.crt", rootfs / "etc/ssl/certs/ca-certificates.crt")
        tar = subprocess.Popen(["tar", "--numeric-owner", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
        imported = run(["podman", "import", "--change",
                        f"ENV PATH={EE_PYTHON}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                        "-", tag], stdin=tar.stdout, capture_output=True)
        tar.stdout.close()
        if tar.wait() != 0 or imported.returncode != 0:
            raise CheckError(f"podman import failed: {imported.stderr.strip()}")
    return tag


# -------------------------------------------------------------------------------------- the image
def build_image(base: str) -> None:
    site_packages = Path(run([str(VENV_BIN / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, check=True).stdout.strip())
    packed = galaxy_mirror.artifacts(ROOT / "requirements.yml", [ROOT / "collections", site_packages])
    mirror = galaxy_mirror.serve(packed)
    host, port = mirror.server_address[:2]
    try:
        command = [str(VENV_BIN / "ansible-builder"), "build", "-f", str(ROOT / "execution-environment.yml"),
                   "-c", str(WORK / "context"), "--container-runtime", "podman", "-v", "2",
                   "--build-arg", f"EE_BASE_IMAGE={base}",
                   "--build-arg", "PKGMGR=/usr/bin/apt-get",
                   "--build-arg", f"PYCMD={EE_PYTHON}/bin/python3",
                   "--build-arg", f"ANSIBLE_GALAXY_CLI_COLLECTION_OPTS=--server http://{host}:{port}/api/",
                   "--build-arg", "HELM_VERSION=none",
                   # The mirror listens on loopback: the build's containers share the machine's network.
                   "--extra-build-cli-args=--network=host"]
        log = WORK / "build.log"
        with log.open("w") as handle:
            built = run(command, stdout=handle, stderr=subprocess.STDOUT, cwd=WORK)
        if built.returncode != 0:
            raise CheckError(f"ansible-builder build failed ({built.returncode}); the log: {log}\n"
                             + "".join(log.read_text().splitlines(keepends=True)[-25:]))
    finally:
        mirror.shutdown()


# -------------------------------------------------------------------------------------- the AWX job
def project_files() -> list[str]:
    """The repository's files as a project sync checks them out (tracked and new, not ignored)."""
    listed = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                 capture_output=True, check=True).stdout
    return [name for name in listed.split("\0") if name and (ROOT / name).exists()]


def exported_inventory(inventory: Path = ROOT / "inventories" / "lab") -> str:
    """A lab inventory as AWX's inventory import stores it (with the inventory source's vault credential)."""
    return run([str(VENV_BIN / "ansible-inventory"), "-i", str(inventory), "--list", "--export",
                "--vault-id", f"{VAULT_ID}@{ROOT / 'inventories' / 'lab' / 'vault-password.txt'}"],
               cwd=ROOT, env=dict(podman_env(), ANSIBLE_CONFIG=str(ROOT / "ansible.cfg")), capture_output=True,
               check=True).stdout


def inline_vaulted(document: dict) -> dict:
    """The export with every vault_* value of `all` as an inline vault value, as docs/site-model.md advises.

    The lab keeps its secrets in a whole-file vault, which the export decrypts; a site that keeps them
    inline hands AWX ciphertext, and the job decrypts it with the vault credential. This is that site.
    """
    from ansible.parsing.vault import VaultLib, VaultSecret

    password = (ROOT / "inventories" / "lab" / "vault-password.txt").read_bytes().strip()
    vault = VaultLib([(VAULT_ID, VaultSecret(password))])
    variables = document.get("all", {}).get("vars", {})
    for name, value in variables.items():
        if name.startswith("vault_") and isinstance(value, str):
            variables[name] = {"__ansible_vault": vault.encrypt(value, vault_id=VAULT_ID).decode()}
    return document


def write_inventory_script(path: Path, document: dict) -> None:
    """AWX hands a job its inventory as one script that prints the imported JSON document."""
    path.write_text(f"#!/bin/sh\n[ \"$1\" = --list ] || {{ echo '{{}}'; exit 0; }}\n"
                    f"cat <<'AIPOD_INVENTORY'\n{json.dumps(document).rstrip()}\nAIPOD_INVENTORY\n")
    path.chmod(0o755)


def write_credentials(env: Path) -> None:
    """AWX's vault credential (answered at the prompt of --vault-id lab@prompt) and machine credential
    (the key goes to an ssh-agent inside the job, never to a file there)."""
    password = (ROOT / "inventories" / "lab" / "vault-password.txt").read_text().strip()
    (env / "passwords").write_text(json.dumps({rf"^Vault password \({VAULT_ID}\):\s*?$": password}))
    (env / "cmdline").write_text(f"--vault-id {VAULT_ID}@prompt")
    (env / "ssh_key").write_text((LAB_DIR / "hosts" / "ssh" / "id_ed25519").read_text())


def prepare_job(job: Path) -> None:
    if job.exists():
        shutil.rmtree(job)
    project = job / "project"
    for name in project_files():
        target = project / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target, follow_symlinks=False)
    # The lab's files the lab inventory names, where it names them (<project>/.lab).
    for name in LAB_FILES:
        target = project / ".lab" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(LAB_DIR / name, target)
    inventory = job / "inventory"
    inventory.mkdir(parents=True)
    write_inventory_script(inventory / "hosts", inline_vaulted(json.loads(exported_inventory())))
    env = job / "env"
    env.mkdir()
    write_credentials(env)
    # docs/execution-environment.md: the job template's environment names the site's files directory;
    # the lab inventory finds its keys from AIPOD_LAB_DIR.
    (env / "envvars").write_text(json.dumps({
        "AIPOD_SITE_FILES_DIR": "/runner/project/inventories/lab",
        "AIPOD_LAB_DIR": "/runner/project/.lab",
        # The run report outlives the job only on a volume (docs/execution-environment.md).
        "AIPOD_REPORT_ROOT": JOB_REPORTS,
        "ANSIBLE_NOCOLOR": "1",
    }))
    # HOME of the job is /runner; libssh (network_cli) checks the switches' keys in ~/.ssh/known_hosts.
    ssh = job / ".ssh"
    ssh.mkdir(mode=0o700)
    shutil.copy2(LAB_DIR / "nxos" / "known_hosts", ssh / "known_hosts")


def run_job(job: Path, image: str, playbook: str) -> tuple[int, str]:
    """AWX's way: the private data directory is streamed into the image (`ansible-runner transmit`), run there
    by `ansible-runner worker` as the image's user, and its events are streamed back (`ansible-runner process`)."""
    runner = str(VENV_BIN / "ansible-runner")
    transmit = subprocess.Popen([runner, "transmit", str(job), "-p", playbook, "--ident", "job"],
                                stdout=subprocess.PIPE, env=podman_env())
    # The lab's endpoints listen on loopback and on the lab's bridges: the job shares the machine's network.
    reports = job.parent / "job-reports"
    shutil.rmtree(reports, ignore_errors=True)
    reports.mkdir()
    os.chown(reports, JOB_UID, 0)
    worker = subprocess.Popen(["podman", "run", "--rm", "-i", "--network=host", "-v", f"{reports}:{JOB_REPORTS}", image,
                               "ansible-runner", "worker", "--private-data-dir=/runner"],
                              stdin=transmit.stdout, stdout=subprocess.PIPE, env=podman_env())
    transmit.stdout.close()
    processed = subprocess.run([runner, "process", str(job), "--ident", "job"], stdin=worker.stdout,
                               capture_output=True, text=True, env=podman_env(), timeout=3600)
    worker.stdout.close()
    worker_rc, transmit_rc = worker.wait(), transmit.wait()
    status = (job / "artifacts" / "job" / "status")
    rc_file = (job / "artifacts" / "job" / "rc")
    rc = int(rc_file.read_text()) if rc_file.exists() else (processed.returncode or worker_rc or transmit_rc or 1)
    summary = f"\n[ee-check] transmit {transmit_rc}, worker {worker_rc}, process {processed.returncode}, " \
              f"status {status.read_text().strip() if status.exists() else 'none'}, rc {rc}\n"
    return rc, processed.stdout + processed.stderr + summary


def recap(output: str) -> dict[str, dict[str, int]]:
    return {host: {"ok": int(ok), "changed": int(changed), "unreachable": int(unreachable), "failed": int(failed)}
            for host, ok, changed, unreachable, failed in RECAP.findall(output)}


def job_report(job: Path) -> dict | None:
    reports = sorted((job.parent / "job-reports").glob("*-site/report.json"), key=lambda path: path.stat().st_mtime)
    return json.loads(reports[-1].read_text()) if reports else None


# ---------------------------------------------------------------------------------- ansible-navigator
def navigator_validate() -> tuple[int, str]:
    # ansible-navigator refuses podman without the POSIX message-queue directory (a container --ipc needs it).
    Path("/dev/mqueue").mkdir(exist_ok=True)
    command = [str(VENV_BIN / "ansible-navigator"), "run", "playbooks/validate.yml", "-i", "inventories/lab",
               "--vault-id", f"{VAULT_ID}@inventories/lab/vault-password.txt"]
    result = run(command, cwd=ROOT, capture_output=True, timeout=900,
                 env=dict(podman_env(), ANSIBLE_NAVIGATOR_CONFIG=str(ROOT / "ansible-navigator.yml")))
    return result.returncode, result.stdout + result.stderr


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--playbook", default="playbooks/site.yml", help="the job template's playbook")
    parser.add_argument("--skip-build", action="store_true", help="use the image already built")
    parser.add_argument("--keep", action="store_true", help="keep the job's directory (.cache/ee-check/job)")
    args = parser.parse_args(argv)
    WORK.mkdir(parents=True, exist_ok=True)
    figures: dict[str, float] = {}
    image = ee_image()
    try:
        started = time.monotonic()
        if not args.skip_build:
            base = ensure_base_image()
            figures["base image"] = time.monotonic() - started
            started = time.monotonic()
            say(f"ansible-builder build -f execution-environment.yml on {base} (log: {WORK / 'build.log'})")
            build_image(base)
            figures["image build"] = time.monotonic() - started
        elif run(["podman", "image", "exists", image]).returncode != 0:
            raise CheckError(f"--skip-build, but there is no image {image}")
        say("starting the lab (lab/lab start)")
        started_lab = run([str(ROOT / "lab" / "lab"), "start"], capture_output=True, timeout=1800)
        if started_lab.returncode != 0:
            raise CheckError("lab/lab start failed:\n" + started_lab.stdout[-3000:] + started_lab.stderr[-3000:])
        job = WORK / "job"
        prepare_job(job)
    except (CheckError, galaxy_mirror.MirrorError) as error:
        say(f"error: {error}")
        return 2
    except subprocess.CalledProcessError as error:
        say(f"error: {' '.join(error.cmd[:4])}... exited {error.returncode}: {(error.stderr or '').strip()[-2000:]}")
        return 2
    say(f"AWX-style job: ansible-runner, {args.playbook}, image {image}, inventory script, vault at the prompt")
    started = time.monotonic()
    rc, output = run_job(job, image, args.playbook)
    figures["job"] = time.monotonic() - started
    (WORK / "job.log").write_text(output)
    hosts = recap(output)
    report = job_report(job) if args.playbook == "playbooks/site.yml" else None
    problems = []
    if rc != 0:
        problems.append(f"ansible-runner exited {rc}")
    if not hosts:
        problems.append("the job printed no recap")
    problems += [f"{host}: {counts}" for host, counts in hosts.items() if counts["failed"] or counts["unreachable"]]
    if "reaches this run in plain text" in output:
        problems.append("secrets reached the job in plain text: the vault credential was not exercised")
    if args.playbook == "playbooks/site.yml" and report is None:
        problems.append(f"the job wrote no run report to its volume ({JOB_REPORTS})")
    elif report is not None and report.get("verification", {}).get("exit_code") not in (0, 2):
        # 2: green, with checks the lab cannot make (no kubelet, no Trident controller) named not_checked.
        verification = report.get("verification", {})
        problems.append(f"verification exit {verification.get('exit_code')}: "
                        + "; ".join(f"{c.get('host')}: {c.get('name')}: {c.get('detail')}" for c in verification.get("failures", [])))
    started = time.monotonic()
    navigator_rc, navigator_output = navigator_validate()
    figures["navigator validate"] = time.monotonic() - started
    (WORK / "navigator.log").write_text(navigator_output)
    if navigator_rc != 0:
        problems.append(f"ansible-navigator run playbooks/validate.yml exited {navigator_rc} (log: {WORK / 'navigator.log'})")
    if not args.keep:
        shutil.rmtree(job, ignore_errors=True)
    say("recap: " + ", ".join(f"{host} changed={counts['changed']}" for host, counts in hosts.items()))
    say("figures: " + ", ".join(f"{name} {seconds:.0f} s" for name, seconds in figures.items()))
    if problems:
        say(f"FAILED (job log: {WORK / 'job.log'}):\n  " + "\n  ".join(problems))
        return 1
    say("passed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
