"""site.yml from a brownfield start: devices that held configuration before the bundle came.

`lab/lab start --brownfield` brings ONTAP, the switches and the DGX to factory state and then adds,
through each device's own interface, what real sites arrive with (lab/brownfield.py):

- switches: the model's DGX ports as a wide trunk, shut, or in a LACP port-channel the model does not
  name, with old descriptions; a VLAN and a port the model does not use;
- ONTAP: an SVM of an earlier project with a volume, an export policy and a data LIF;
- DGX: /etc/fstab lines for the model's mount points from an old NFS server, one for a mount the
  model does not name, and a systemd-networkd file for the management NIC.

The site run converges and the run after it reports changed=0. What the model owns is reconciled
(docs/brownfield.md): every managed port carries exactly the model's configuration, and the mount
points' fstab lines name the model's LIFs. What it does not own is byte for byte as before: the
foreign ONTAP objects, the unused port and VLAN, the other fstab line and the network file.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from lab_support import lab, lab_hosts, playbook, podman, recap
from project_paths import REPO

pytestmark = [pytest.mark.lab, pytest.mark.release_check]
sys.path[:0] = [str(REPO / "lab"), str(REPO / "lab" / "nxos"), str(REPO / "lab" / "ontap")]
import brownfield  # noqa: E402  (the lab's seeding, path set just above)

FOREIGN_ONTAP = (("svm/svms", f"name={brownfield.FOREIGN_SVM}"),
                 ("storage/volumes", f"svm.name={brownfield.FOREIGN_SVM}"),
                 ("protocols/nfs/export-policies", f"svm.name={brownfield.FOREIGN_SVM}"),
                 ("network/ip/interfaces", f"svm.name={brownfield.FOREIGN_SVM}"))
MANAGED_PORTS = ("Ethernet1/1", "Ethernet1/2", "Ethernet1/3")
FOREIGN_SWITCH = (f"show running-config interface {brownfield.FOREIGN_PORT}", f"show running-config vlan {brownfield.FOREIGN_VLAN}")


def foreign_ontap() -> dict:
    from ontap_lab.cli import LabClient, settings_from_env

    client = LabClient(settings_from_env(str(REPO / "inventories" / "lab"), str(REPO / ".lab")))
    found = {}
    for collection, query in FOREIGN_ONTAP:
        status, answer = client.request("GET", f"/api/{collection}?{query}&fields=*")
        assert status == 200, answer
        found[collection] = [{key: value for key, value in record.items() if key != "_links"} for record in answer["records"]]
    return found


def switch_shows(*commands: str) -> dict[str, dict[str, str]]:
    """Each command's output on each switch, without the time stamps NX-OS prints."""
    from control import endpoints

    shown = {}
    for endpoint in endpoints():
        with brownfield.switch_session(endpoint) as connection:
            shown[endpoint["name"]] = {command: re.sub(r"(?m)^!(Time|Running configuration last done at):.*\n", "",
                                                       connection.send_command(command)) for command in commands}
    return shown


def host_files() -> dict[str, dict[str, str]]:
    return {name: {"fstab": podman("exec", container, "cat", "/etc/fstab").stdout,
                   "network": podman("exec", container, "cat", brownfield.FOREIGN_NETWORK_FILE, check=False).stdout}
            for name, container in lab_hosts().items()}


@pytest.fixture(scope="module")
def brownfield_run():
    started = lab("start", "--brownfield")
    assert started.returncode == 0, started.stdout + started.stderr
    before = {"ontap": foreign_ontap(), "switches": switch_shows(*FOREIGN_SWITCH), "hosts": host_files()}
    first = playbook("playbooks/site.yml")
    again = playbook("playbooks/site.yml")
    yield before, first, again
    removed = subprocess.run([sys.executable, str(REPO / "lab" / "brownfield.py"), "--remove"], cwd=REPO,
                             capture_output=True, text=True, timeout=300)
    assert removed.returncode == 0, removed.stdout + removed.stderr


def test_the_site_converges_from_brownfield_and_the_next_run_changes_nothing(brownfield_run):
    _, first, again = brownfield_run
    assert first.returncode == 0, first.stdout[-6000:]
    assert re.search(r"layer switches: done: [1-9][0-9]* changed", first.stdout)
    assert again.returncode == 0, again.stdout[-4000:]
    assert all(counts["changed"] == 0 for counts in recap(again.stdout).values()), again.stdout[-4000:]


def test_objects_the_model_does_not_own_are_untouched(brownfield_run):
    before, _, _ = brownfield_run
    after_ontap = foreign_ontap()
    assert [record["name"] for record in after_ontap["svm/svms"]] == [brownfield.FOREIGN_SVM]
    assert brownfield.FOREIGN_VOLUME in [record["name"] for record in after_ontap["storage/volumes"]]
    assert after_ontap == before["ontap"]
    assert switch_shows(*FOREIGN_SWITCH) == before["switches"]
    for name, files in host_files().items():
        assert files["network"] == before["hosts"][name]["network"] != ""
        foreign_line = f"{brownfield.OLD_NFS_SERVER}:/scratch {brownfield.FOREIGN_MOUNT} "
        assert foreign_line in files["fstab"], files["fstab"]


def test_managed_ports_and_mount_points_carry_only_the_model(brownfield_run):
    shown = switch_shows(*(f"show running-config interface {port}" for port in MANAGED_PORTS))
    for switch, outputs in shown.items():
        for port in MANAGED_PORTS:
            config = outputs[f"show running-config interface {port}"]
            assert "channel-group" not in config and "trunk allowed" not in config, f"{switch} {port}:\n{config}"
            assert "no shutdown" in config and re.search(r"description dgx0\d eth\d", config), f"{switch} {port}:\n{config}"
    for name, files in host_files().items():
        assert f"{brownfield.OLD_NFS_SERVER}:/old" not in files["fstab"], f"{name}:\n{files['fstab']}"
        for path in ("/mnt/data", "/mnt/home"):
            (line,) = [line for line in files["fstab"].splitlines() if f" {path} " in line]
            assert line.startswith("172.31.25"), f"{name}: {line}"
    report = json.loads((REPO / "reports" / "latest" / "report.json").read_text())
    assert report["ok"] is True


def test_a_hand_written_network_file_that_would_win_over_the_bundle_s_is_refused(brownfield_run):
    host, container = sorted(lab_hosts().items())[-1]
    shadow = "/etc/systemd/network/10-storage.network"
    podman("exec", container, "sh", "-c", f"printf '[Match]\\nName=eth1\\n[Network]\\nAddress=10.9.9.21/24\\n' > {shadow}")
    try:
        refused = playbook("playbooks/compute.yml", "--limit", host)
        assert refused.returncode != 0
        assert f"Storage NIC eth1 is also configured by {shadow}, which systemd-networkd applies instead" in refused.stdout
        assert recap(refused.stdout)[host]["changed"] == 0
    finally:
        podman("exec", container, "rm", "-f", shadow)

