"""A run killed while a safety net is armed leaves nothing that fires after the next run's success.

The storage-network change on a DGX arms a rollback timer before it applies (aipod-storage-net).
The test makes every DGX need that change (its live storage-network files removed by hand), runs
compute.yml and kills the run's process group with SIGKILL, as a cancelled AWX job is killed, once
the apply has reported and before the confirmation. The management path of one DGX is then cut (a
blackhole route on the controller, lifted once that host's rollback has fired, as the rollback would
restore a path its change had broken). Then:

- the next run says what it found armed and what it did: on the hosts it reaches it confirms the
  change and disarms the rollback; on the cut host it does not adopt the change, it waits for the
  rollback and converges again;
- the run after it changes nothing;
- once past the longest timer the killed run armed, site.yml changes nothing, verification is
  green, no rollback timer is armed and no reachable host ever rolled back.

The rollback delay is shortened to ROLLBACK seconds for these runs (-e), so the waits stay short.
The kill and the runs that resolve it use compute.yml, the layer that arms the timer; the lock and
the resolution are the same for every playbook that changes the site.
"""
from __future__ import annotations

import os
import signal
import subprocess
import threading
import time

import pytest
from lab_support import BIN, converged_by_previous_test, hand_on_converged, lab, lab_hosts, last_report, podman, recap, run_proves_converged
from project_paths import REPO

pytestmark = [pytest.mark.lab, pytest.mark.slow, pytest.mark.release_check]
ROLLBACK = 90  # long enough that the resuming run reaches every reachable host first on a loaded machine
LIVE_FILES = "/etc/systemd/network/60-aipod-*"
KILL_AT = "network_confirm.yml for "  # the include line: the apply has reported, the confirmation has not run
RUN_ARGS = ["-e", f"dgx_node_network_rollback_seconds={ROLLBACK}"]
LAB_MGMT = {"dgx01": "172.31.250.101"}


def environment() -> dict:
    return dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0",
                PATH=f"{BIN}:{os.environ.get('PATH', '')}")


def run(playbook: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "ansible-playbook"), f"playbooks/{playbook}", *RUN_ARGS, *args], cwd=REPO,
                          env=environment(), capture_output=True, text=True, timeout=1800)


def killed_at(playbook: str, marker: str, run_args: list[str] = RUN_ARGS) -> tuple[float, str]:
    """`playbook`, its process group killed with SIGKILL when `marker` appears; (time of the kill, output)."""
    process = subprocess.Popen([str(BIN / "ansible-playbook"), f"playbooks/{playbook}", *run_args], cwd=REPO,
                               env=environment(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    lines, kill_time = [], None
    for line in process.stdout:
        lines.append(line)
        if marker in line and kill_time is None:
            os.killpg(process.pid, signal.SIGKILL)
            kill_time = time.monotonic()
            break
    process.wait(timeout=120)
    process.stdout.close()
    output = "".join(lines)
    assert kill_time is not None, f"the run never reached {marker!r}:\n{output[-4000:]}"
    return kill_time, output


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
    if not converged_by_previous_test():
        first = run("site.yml")
        assert first.returncode == 0, first.stdout[-4000:] + first.stderr[-2000:]
    yield
    for address in LAB_MGMT.values():
        subprocess.run(["ip", "route", "del", "blackhole", f"{address}/32"], check=False, capture_output=True)


def test_a_run_killed_before_confirming_leaves_no_armed_rollback_and_a_cut_host_rolls_back(converged_lab):
    since = int(time.time())
    cut, address = next(iter(LAB_MGMT.items()))
    reachable = [name for name in lab_hosts() if name != cut]
    remove_live_storage_files()
    kill_time, output = killed_at("compute.yml", KILL_AT)
    assert sorted(armed_timers()) == sorted(lab_hosts()), output[-3000:]
    close_ssh_masters()
    subprocess.run(["ip", "route", "add", "blackhole", f"{address}/32"], check=True)

    def lift_once_rolled_back() -> None:
        deadline = time.monotonic() + ROLLBACK + 120
        while time.monotonic() < deadline:
            if on_host(cut, "test", "-f", "/var/lib/aipod/storage-net/rolled-back", check=False).returncode == 0:
                break
            time.sleep(1)
        subprocess.run(["ip", "route", "del", "blackhole", f"{address}/32"], check=False)

    lifter = threading.Thread(target=lift_once_rolled_back)
    lifter.start()
    resumed = run("compute.yml")
    lifter.join()
    assert resumed.returncode == 0, resumed.stdout[-6000:]
    assert "may have left a storage-network rollback armed" in resumed.stdout + resumed.stderr
    resolved = {entry["host"]: entry for entry in last_report()["resolved"]}
    assert sorted(resolved) == sorted(lab_hosts()), resolved
    assert "rolled back" in resolved[cut]["found"] and resolved[cut]["action"] == "converging to the model again", resolved
    assert all("disarmed the rollback" in resolved[name]["action"] for name in reachable), resolved
    assert armed_timers() == []

    again = run("compute.yml")
    assert again.returncode == 0 and changed(again) == 0, again.stdout[-4000:]

    remaining = kill_time + ROLLBACK + 15 - time.monotonic()
    time.sleep(max(remaining, 0))
    last = run("site.yml")
    assert last.returncode == 0 and changed(last) == 0, last.stdout[-4000:]
    assert armed_timers() == []
    verification = last_report()["verification"]
    # The lab runs no Trident controller: those checks are "not checked" (exit 2), none may fail.
    assert verification["exit_code"] in (0, 2) and verification["counts"].get("fail", 0) == 0, verification["counts"]
    for host in reachable:
        journal = on_host(host, "journalctl", "-t", "aipod-storage-net", "--since", f"@{since}", "--no-pager", "-q",
                          "-o", "cat").stdout
        assert "rolled back" not in journal, f"{host}: {journal}"
    assert run_proves_converged(last.stdout)
    hand_on_converged("test_killed_runs: site.yml after the rollback window changed nothing")


STALE_STAGED = "/etc/aipod/storage-net/60-aipod-retired.network"
CUT_WRITE = "/etc/sysctl.d/.config_files-k1ll3d"


def test_check_mode_previews_what_a_stopped_run_left_and_the_next_run_resolves_it(converged_lab):
    """What a stopped run leaves on a DGX: an armed rollback (a long one here, so that nothing fires
    while check mode looks), a staged file the model no longer names and the temporary file of a
    write cut off between creating and renaming it. Check mode says what it would resolve and
    touches nothing; the next run resolves it and says so; the run after it changes nothing."""
    long_rollback = ["-e", "dgx_node_network_rollback_seconds=900"]
    host = sorted(lab_hosts())[1]
    remove_live_storage_files()
    killed_at("compute.yml", KILL_AT, long_rollback)
    close_ssh_masters()
    on_host(host, "sh", "-c", f"echo '[Match]' > {STALE_STAGED} && echo 'net.core.rmem' > {CUT_WRITE}")
    assert sorted(armed_timers()) == sorted(lab_hosts())

    preview = run("compute.yml", "--check", *long_rollback)
    assert preview.returncode == 0, preview.stdout[-6000:]
    found = {(entry["host"], entry["item"]): entry for entry in last_report()["resolved"]}
    assert {name for name, item in found if item == "storage-network rollback"} == set(lab_hosts()), found
    assert all(entry["action"] == "would keep it and disarm the rollback (check mode)"
               for (_, item), entry in found.items() if item == "storage-network rollback"), found
    assert found[(host, "stale files")] == {"host": host, "item": "stale files", "found": f"{STALE_STAGED}, {CUT_WRITE}",
                                            "action": "would remove them (check mode)"}, found
    assert sorted(armed_timers()) == sorted(lab_hosts())
    assert on_host(host, "ls", STALE_STAGED, CUT_WRITE, check=False).returncode == 0

    resumed = run("compute.yml", *long_rollback)
    assert resumed.returncode == 0, resumed.stdout[-6000:]
    found = {(entry["host"], entry["item"]): entry for entry in last_report()["resolved"]}
    assert found[(host, "stale files")]["action"] == "removed them", found
    assert all("disarmed the rollback" in entry["action"] for (_, item), entry in found.items()
               if item == "storage-network rollback"), found
    assert armed_timers() == []
    assert on_host(host, "ls", STALE_STAGED, check=False).returncode != 0
    assert on_host(host, "ls", CUT_WRITE, check=False).returncode != 0

    again = run("compute.yml", *long_rollback)
    assert again.returncode == 0 and changed(again) == 0, again.stdout[-4000:]
    # It started converged and changed only what compute.yml converges, which now changes nothing.
    hand_on_converged("test_killed_runs: compute.yml changed nothing after the resolving run")
