"""The lab pod with a Spectrum pair on Cumulus Linux (inventories/lab-spectrum), end to end.

`lab/lab start` runs the two switches (lab/cumulus): SSH on loopback as the cumulus user, and NVUE's
`nv` on the lab's object model (lab/nvue), which refuses what NVUE refuses. The rest of the pod (ONTAP,
the DGX stand-ins, the API server) is the lab pod's own, so a site run on this inventory changes the
switches only. Hand changes go through `nv set` and `nv config apply` over SSH, as an operator's would.
"""
from __future__ import annotations

import json
import shlex
import subprocess
import sys

import pytest
from lab_support import REPO, lab, last_report, playbook, recap

pytestmark = [pytest.mark.lab, pytest.mark.release_check]
sys.path[:0] = [str(REPO / "lab"), str(REPO / "lab" / "cumulus"), str(REPO / "lab" / "hosts")]
import brownfield  # noqa: E402  (the lab's seeding, path set just above)
import cumuluslab  # noqa: E402

SPECTRUM = ("-i", "inventories/lab-spectrum/hosts.yml")
SWITCHES = ("lab-sn-a", "lab-sn-b")


def nv(switch: str, *words: str) -> str:
    """An `nv` command on a lab switch over SSH (each word quoted for the remote shell)."""
    target = next(s for s in cumuluslab.load_switches() if s.name == switch)
    result = subprocess.run(cumuluslab.ssh_command(target, "nv", *map(shlex.quote, words)), capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, f"nv {' '.join(words)} on {switch}: {result.stderr}"
    return result.stdout


def applied(switch: str) -> dict:
    """The applied tree: `nv config show -o json` prints [{"header": ...}, {"set": <tree>}]."""
    shown = json.loads(nv(switch, "config", "show", "-o", "json"))
    assert isinstance(shown, list) and "header" in shown[0]
    return next(part["set"] for part in shown if "set" in part)


def switch_changes(output: str) -> dict[str, int]:
    return {host: counts["changed"] for host, counts in recap(output).items() if host in SWITCHES}


def drift(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(REPO / "scripts" / "drift.sh"), *SPECTRUM, *args], cwd=REPO, capture_output=True, text=True,
                          timeout=1800)


@pytest.fixture(scope="module")
def spectrum_lab():
    started = lab("start")
    assert started.returncode == 0, started.stdout + started.stderr
    factory = subprocess.run([str(REPO / "lab" / "cumulus" / "factory")], capture_output=True, text=True, timeout=120)
    assert factory.returncode == 0, factory.stdout + factory.stderr
    yield
    # Leave the switches as the model has them for whatever runs next.
    playbook(*SPECTRUM, "playbooks/switches.yml")


def test_the_first_site_run_configures_the_pair_and_verification_reads_it_back(spectrum_lab):
    preview = playbook(*SPECTRUM, "playbooks/switches.yml", "--check", "--diff")
    assert preview.returncode == 0, preview.stdout[-4000:]
    assert "NVUE diff to apply:" in preview.stdout and switch_changes(preview.stdout) == {"lab-sn-a": 0, "lab-sn-b": 0}
    assert "interface" not in applied("lab-sn-a")  # check mode applied nothing

    first = playbook(*SPECTRUM, "playbooks/site.yml")
    assert first.returncode == 0, first.stdout[-5000:] + first.stderr[-2000:]
    assert switch_changes(first.stdout) == {"lab-sn-a": 1, "lab-sn-b": 1}
    state = applied("lab-sn-a")
    assert state["interface"]["swp1"]["bridge"]["domain"]["br_default"]["access"] == 3111
    assert set(state["interface"]["peerlink"]["bond"]["member"]) == {"swp63", "swp64"}
    assert state["interface"]["bond11"]["bond"]["mlag"]["id"] == 11
    checks = [check for check in last_report()["verification"]["checks"] if check.get("host") in SWITCHES]
    assert len(checks) == 2 and all(check["status"] == "pass" for check in checks), checks

    # The rest of the pod is the lab pod's, whose own tests prove its no-op: the pair's is the switch layer's.
    again = playbook(*SPECTRUM, "playbooks/switches.yml")
    assert again.returncode == 0, again.stdout[-4000:]
    assert switch_changes(again.stdout) == {"lab-sn-a": 0, "lab-sn-b": 0} and "NVUE: nothing to change" in again.stdout


def test_a_drift_made_with_nv_set_is_reported_then_put_back(spectrum_lab):
    playbook(*SPECTRUM, "playbooks/switches.yml")
    nv("lab-sn-b", "set", "interface", "swp2", "link", "mtu", "1500")
    nv("lab-sn-b", "set", "interface", "swp9", "description", "moved by hand")
    nv("lab-sn-b", "config", "apply", "--assume-yes")

    found = drift("--tags", "switches")  # the switch layer only: the other layers are the lab pod's, and not checked
    assert found.returncode == 1, found.stdout[-4000:] + found.stderr[-2000:]
    devices = {(d["layer"], d["device"]): d for d in last_report()["drift"]["devices"]}
    assert devices[("switches", "lab-sn-a")]["status"] == "clean"
    items = devices[("switches", "lab-sn-b")]["differences"]
    assert {"object": "interface swp2", "field": "link mtu", "before": None, "after": 9216, "action": "modify",
            "reason": "the model sets link mtu 9216"} in items, items
    assert [entry["after"] for entry in items if (entry["object"], entry["field"]) == ("interface swp9", "description")] == \
        ["lab-ontap-01 e1b"], items
    assert applied("lab-sn-b")["interface"]["swp2"]["link"]["mtu"] == 1500  # the report changed nothing

    repaired = playbook(*SPECTRUM, "playbooks/switches.yml")
    assert repaired.returncode == 0, repaired.stdout[-4000:]
    assert switch_changes(repaired.stdout) == {"lab-sn-a": 0, "lab-sn-b": 1}
    assert applied("lab-sn-b")["interface"]["swp2"]["link"]["mtu"] == 9216
    after = drift("--tags", "switches")
    assert after.returncode == 2, after.stdout[-3000:]  # incomplete: only the switches were read, and they are clean
    assert {d["device"]: d["status"] for d in last_report()["drift"]["devices"] if d["layer"] == "switches"} == \
        {"lab-sn-a": "clean", "lab-sn-b": "clean"}


def test_a_brownfield_pair_converges_and_keeps_what_the_model_does_not_own(spectrum_lab):
    seeded = lab("start", "--brownfield", "cumulus")
    assert seeded.returncode == 0, seeded.stdout + seeded.stderr
    before = {switch: applied(switch) for switch in SWITCHES}
    foreign = brownfield.FOREIGN_NVUE_PORT, brownfield.FOREIGN_BOND
    assert before["lab-sn-a"]["interface"][foreign[1]]["bond"]["member"] == {"swp3": {}}

    first = playbook(*SPECTRUM, "playbooks/switches.yml")
    assert first.returncode == 0, first.stdout[-5000:]
    assert switch_changes(first.stdout) == {"lab-sn-a": 1, "lab-sn-b": 1}
    assert "nv unset interface bond40 bond member swp3" in first.stdout  # said, in the run's output
    for switch in SWITCHES:
        state = applied(switch)["interface"]
        # The model's ports carry the model: out of the foreign bond, up, an access port of their VLAN.
        assert state["swp3"]["bridge"]["domain"]["br_default"]["access"] in (3111, 3112)
        assert "member" not in state[foreign[1]].get("bond", {})
        assert state["swp2"]["link"]["state"] == {"up": {}}
        assert "vlan" not in state["swp1"]["bridge"]["domain"]["br_default"]
        # What the model does not own is as it was.
        assert state[foreign[0]] == before[switch]["interface"][foreign[0]]
        assert state[foreign[1]]["description"] == "legacy bundle"
        assert str(brownfield.FOREIGN_VLAN) in applied(switch)["bridge"]["domain"]["br_default"]["vlan"]

    again = playbook(*SPECTRUM, "playbooks/switches.yml")
    assert switch_changes(again.stdout) == {"lab-sn-a": 0, "lab-sn-b": 0}, again.stdout[-3000:]
    removed = subprocess.run([sys.executable, str(REPO / "lab" / "brownfield.py"), "--remove", "cumulus"], capture_output=True,
                             text=True, timeout=300)
    assert removed.returncode == 0, removed.stdout + removed.stderr


def test_nvue_refuses_what_the_role_would_never_send(spectrum_lab):
    """The endpoint is NVUE's object model, not a recorder: an unknown path or a bad value is refused."""
    target = next(s for s in cumuluslab.load_switches() if s.name == "lab-sn-a")
    for words, message in ((["set", "interface", "swp1", "link", "mtu", "99999"], "Valid range is 552-9216"),
                           (["set", "interface", "swp1", "lnk", "mtu", "9000"], "Invalid Command")):
        result = subprocess.run(cumuluslab.ssh_command(target, "nv", *words), capture_output=True, text=True, timeout=60)
        assert result.returncode != 0 and message in result.stderr, (words, result.stderr)
