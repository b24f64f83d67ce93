"""A run killed while a safety net is armed leaves nothing that fires after the next run's success.

The storage-network change on a DGX arms a rollback timer before it applies (aipod-storage-net).
Each test makes every DGX need that change (its live storage-network files removed by hand), runs
site.yml and kills the run's process group with SIGKILL, as a cancelled AWX job is killed, once the
apply has reported and before the confirmation. Then:

- the next run converges and says what it found armed and what it did;
- the run after it changes nothing;
- the test waits past the longest timer the killed run armed, and runs once more: nothing changes,
  verification is green and no rollback timer is armed on any DGX.

With the management path of one DGX cut (a blackhole route on the controller, lifted once that host's
rollback has fired, as the rollback would restore a path its change had broken), the next run must not
adopt that host's change: it waits for the rollback, then converges.

The rollback delay is shortened to ROLLBACK seconds for these runs (-e), so the waits stay short.
"""
from __future__ import annotations

import os
import signal
import subprocess
import threading
import time

import pytest
from lab_support import BIN, lab, lab_hosts, last_report, podman, recap
from project_paths import REPO

pytestmark = [pytest.mark.lab, pytest.mark.slow]
ROLLBACK = 40
LIVE_FILES = "/etc/systemd/network/60-aipod-*"
KILL_AT = "network_confirm.yml for "  # the include line: the apply has reported, the confirmation has not run
RUN_ARGS = ["-e", f"dgx_node_network_rollback_seconds={ROLLBACK}"]
LAB_MGMT = {"dgx01": "172.31.250.101"}


def environment() -> dict:
    return dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0",
                PATH=f"{BIN}:{os.environ.get('PATH', '')}")


def site(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "ansible-playbook"), "playbooks/site.yml", *RUN_ARGS, *args], cwd=REPO,
                          env=environment(), capture_output=True, text=True, timeout=1800)


def site_killed_at(marker: str) -> tuple[float, str]:
    """site.yml, its process group killed with SIGKILL when `marker` appears; (time of the kill, output)."""
    process = subprocess.Popen([str(BIN / "ansible-playbook"), "playbooks/site.yml", *RUN_ARGS], cwd=REPO,
                               env=environment(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    lines, killed_at = [], None
    for line in process.stdout:
        lines.append(line)
        if marker in line and killed_at is None:
            os.killpg(process.pid, signal.SIGKILL)
            killed_at = time.monotonic()
            break
    process.wait(timeout=120)
    process.stdout.close()
    output = "".join(lines)
    assert killed_at is not None, f"the run never reached {marker!r}:\n{output[-4000:]}"
    return killed_at, output


def on_host(host: str, *command: str, check: bool = True) -> subprocess.CompletedProcess:
    return podman("exec", lab_hosts()[host], *command, check=check)


def armed_timers() -> list[str]:
    return [host for host in lab_hosts()
            if on_host(host, "systemctl", "is-active", "aipod-storage-net-rollback.timer", check=False).stdout.strip() == "active"]


def remove_live_storage_files() -> None:
    for host in lab_hosts():
        on_host(host, "sh", "-c", f"rm -f {LIVE_FILES} && networkctl reload")


def changed(run: subprocess.CompletedProcess) -> int:
    return sum(counts["changed"] for counts in recap(run.stdout).values())


def close_ssh_masters() -> None:
    """End the SSH control masters the killed run left, so the next run opens fresh connections."""
    subprocess.run(["pkill", "-f", f"ControlPath={REPO}/.ansible/cp"], check=False)
    subprocess.run(["pkill", "-f", r"ssh: .*\.ansible/cp/.* \[mux\]"], check=False)


@pytest.fixture
def converged_lab():
    started = lab("start")
    assert started.returncode == 0, started.stdout + started.stderr
    first = site()
    assert first.returncode == 0, first.stdout[-4000:] + first.stderr[-2000:]
    yield
    for address in LAB_MGMT.values():
        subprocess.run(["ip", "route", "del", "blackhole", f"{address}/32"], check=False, capture_output=True)


def wait_past_the_rollback(killed_at: float) -> None:
    remaining = killed_at + ROLLBACK + 15 - time.monotonic()
    if remaining > 0:
        time.sleep(remaining)


def test_a_run_killed_before_confirming_the_storage_network_leaves_no_armed_rollback(converged_lab):
    since = int(time.time())
    remove_live_storage_files()
    killed_at, output = site_killed_at(KILL_AT)
    assert sorted(armed_timers()) == sorted(lab_hosts()), output[-3000:]

    resumed = site()
    assert resumed.returncode == 0, resumed.stdout[-6000:]
    assert "did not finish" in resumed.stdout + resumed.stderr
    resolved = {entry["host"]: entry for entry in last_report()["resolved"]}
    assert sorted(resolved) == sorted(lab_hosts()), resolved
    assert all("disarmed the rollback" in entry["action"] for entry in resolved.values()), resolved
    assert armed_timers() == []

    again = site()
    assert again.returncode == 0 and changed(again) == 0, again.stdout[-4000:]

    wait_past_the_rollback(killed_at)
    last = site()
    assert last.returncode == 0 and changed(last) == 0, last.stdout[-4000:]
    verification = last_report()["verification"]
    # The lab runs no Trident controller: those checks are "not checked" (exit 2), none may fail.
    assert verification["exit_code"] in (0, 2) and verification["counts"].get("fail", 0) == 0, verification["counts"]
    for host in lab_hosts():
        journal = on_host(host, "journalctl", "-t", "aipod-storage-net", "--since", f"@{since}", "--no-pager", "-q",
                          "-o", "cat").stdout
        assert "rolled back" not in journal, f"{host}: {journal}"


def test_with_the_management_path_cut_the_rollback_wins_and_the_next_run_converges(converged_lab):
    host, address = next(iter(LAB_MGMT.items()))
    remove_live_storage_files()
    killed_at, output = site_killed_at(KILL_AT)
    close_ssh_masters()
    subprocess.run(["ip", "route", "add", "blackhole", f"{address}/32"], check=True)

    def lift_once_rolled_back() -> None:
        deadline = time.monotonic() + ROLLBACK + 120
        while time.monotonic() < deadline:
            if on_host(host, "test", "-f", "/var/lib/aipod/storage-net/rolled-back", check=False).returncode == 0:
                break
            time.sleep(1)
        subprocess.run(["ip", "route", "del", "blackhole", f"{address}/32"], check=False)

    lifter = threading.Thread(target=lift_once_rolled_back)
    lifter.start()
    resumed = site()
    lifter.join()
    assert resumed.returncode == 0, resumed.stdout[-6000:]
    resolved = {entry["host"]: entry for entry in last_report()["resolved"]}
    assert "rolled back" in resolved[host]["found"] and resolved[host]["action"] == "converging to the model again", resolved
    others = [name for name in lab_hosts() if name != host]
    assert all("disarmed the rollback" in resolved[name]["action"] for name in others), resolved
    assert armed_timers() == []

    again = site()
    assert again.returncode == 0 and changed(again) == 0, again.stdout[-4000:]
    wait_past_the_rollback(time.monotonic() - ROLLBACK)  # the resumed run armed and confirmed its own
    last = site()
    assert last.returncode == 0 and changed(last) == 0, last.stdout[-4000:]
    verification = last_report()["verification"]
    # The lab runs no Trident controller: those checks are "not checked" (exit 2), none may fail.
    assert verification["exit_code"] in (0, 2) and verification["counts"].get("fail", 0) == 0, verification["counts"]
