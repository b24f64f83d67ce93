"""The deepops_cluster role end to end, up to and including the call of DeepOps' cluster playbook.

A real DeepOps deployment needs real nodes (Kubespray installs Kubernetes over SSH), which this
machine cannot provide. Everything around it runs for real here: the download of the pinned
release and of its Kubespray (from file:// URLs, as a mirror would serve them), the virtualenv
built from Kubespray's requirements.txt, the Ansible version gate read from Kubespray's own
playbooks/ansible_version.yml, the generated configuration layered over DeepOps' example, the
run of the cluster playbook with DeepOps' own Ansible, the stamp that keeps a second run from
redeploying, and the kubeconfig brought back.

The release tarballs are stand-ins this test writes (not DeepOps' or Kubespray's code), with the
files the role relies on. Their cluster playbook records what DeepOps' Ansible saw and writes the
admin kubeconfig where Kubespray's kubeconfig_localhost would. The stand-in Kubespray pins
ansible-core 2.18 directly (the real v2.31.0 pins ansible==11.13.0, which brings ansible-core
2.18 with 57 MB of collections). Needs PyPI for that virtualenv.
"""
from __future__ import annotations

import json
import stat
import tarfile
import textwrap

import pytest
from kubernetes_helpers import recap, run_playbook

pytestmark = pytest.mark.slow
STAND_IN_CORE = "ansible-core==2.18.19"

CLUSTER_PLAYBOOK = """\
---
- name: Stand-in for DeepOps' cluster playbook
  hosts: kube_control_plane[0]
  connection: local
  gather_facts: false
  tasks:
    - name: Assert the Ansible range, as Kubespray does
      ansible.builtin.assert:
        that:
          - ansible_version.string is version('MIN', '>=')
          - ansible_version.string is version('MAX', '<')
    - name: Count the runs
      ansible.builtin.shell: echo run >> "{{ inventory_dir }}/../stand-in-runs"
      delegate_to: localhost
    - name: Record what DeepOps' Ansible saw
      ansible.builtin.copy:
        dest: "{{ inventory_dir }}/../stand-in-saw.json"
        content: "{{ {'ansible': ansible_version.full,
                      'control_plane': groups['kube_control_plane'], 'workers': groups['kube_node'],
                      'dgx01_ip': hostvars['dgx01']['ip'], 'dgx01_ansible_host': hostvars['dgx01']['ansible_host'],
                      'host_key_checking': lookup('ansible.builtin.config', 'HOST_KEY_CHECKING'),
                      'users': users, 'example_only': deepops_example_only,
                      'nfs_provisioner': k8s_nfs_client_provisioner, 'kubeconfig_localhost': kubeconfig_localhost,
                      'virtualenv': lookup('ansible.builtin.env', 'VIRTUAL_ENV')} | to_json }}"
        mode: "0644"
      delegate_to: localhost
    - name: Create the artifacts directory as Kubespray does
      ansible.builtin.file:
        path: "{{ artifacts_dir }}"
        state: directory
        mode: "0755"
      delegate_to: localhost
    - name: Write the admin kubeconfig as kubeconfig_localhost does
      ansible.builtin.copy:
        dest: "{{ artifacts_dir }}/admin.conf"
        content: "apiVersion: v1\\nkind: Config\\nclusters: []\\n# stand-in\\n"
        mode: "0600"
      delegate_to: localhost
"""


# Kubespray's lifecycle playbooks, as stand-ins: each records how DeepOps' Ansible called it.
LIFECYCLE_PLAYBOOK = """\
---
- name: Stand-in for Kubespray's NAME
  hosts: all
  connection: local
  gather_facts: false
  tasks:
    - name: Record the call
      ansible.builtin.shell: echo '{{ call | to_json }}' >> "{{ inventory_dir }}/../stand-in-calls.jsonl"
      vars:
        call: {playbook: NAME, limit: "{{ ansible_limit | default('') }}", hosts: "{{ ansible_play_hosts_all }}",
               node: "{{ node | default('') }}", skip_confirmation: "{{ skip_confirmation | default('') }}",
               reset_nodes: "{{ reset_nodes | default('') }}", allow_ungraceful_removal: "{{ allow_ungraceful_removal | default('') }}",
               serial: "{{ serial | default('') }}"}
      delegate_to: localhost
      run_once: true
      changed_when: true
    - name: Create the artifacts directory as Kubespray does
      ansible.builtin.file:
        path: "{{ inventory_dir }}/artifacts"
        state: directory
        mode: "0755"
      delegate_to: localhost
      run_once: true
      when: "'NAME' == 'upgrade-cluster.yml'"
    - name: Write the admin kubeconfig as kubeconfig_localhost does (an upgrade runs in the new release's tree)
      ansible.builtin.copy:
        dest: "{{ inventory_dir }}/artifacts/admin.conf"
        content: "apiVersion: v1\\nkind: Config\\nclusters: []\\n# stand-in upgraded\\n"
        mode: "0600"
      delegate_to: localhost
      run_once: true
      when: "'NAME' == 'upgrade-cluster.yml'"
"""
LIFECYCLE = ["scale.yml", "remove-node.yml", "upgrade-cluster.yml", "playbooks/facts.yml"]


def _tarball(path, root_name: str, files: dict[str, str]) -> None:
    with tarfile.open(path, "w:gz") as archive:
        for name, content in files.items():
            target = path.parent / "src" / root_name / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content)
        archive.add(path.parent / "src" / root_name, arcname=root_name)


def make_release(tmp_path, minimum: str, maximum: str, version: str = "26.07", kubespray_version: str = "v2.31.0") -> dict:
    deepops = tmp_path / f"deepops-{version}.tar.gz"
    _tarball(deepops, f"deepops-{version}", {
        "playbooks/k8s-cluster.yml": CLUSTER_PLAYBOOK.replace("MIN", minimum).replace("MAX", maximum),
        "ansible.cfg": "[defaults]\nhost_key_checking = False\n",
        "roles/requirements.yml": "---\ncollections: []\nroles: []\n",
        "config.example/inventory": "# the example inventory, replaced by the generated one\n",
        "config.example/group_vars/all.yml": "---\ndeepops_example_only: kept\nusers: [{username: nvidia}]\n",
        "config.example/group_vars/k8s_cluster.yml": "---\nk8s_nfs_client_provisioner: true\nkubeconfig_localhost: false\n",
        "config.example/helm/example-values.yml": "---\nreplicas: 1\n",
        ".gitmodules": '[submodule "kubespray"]\n\tpath = submodules/kubespray\n\turl = https://example.invalid/kubespray.git\n',
    })
    kubespray = tmp_path / f"kubespray-{kubespray_version}.tar.gz"
    _tarball(kubespray, f"kubespray-{kubespray_version.lstrip('v')}", {
        **{name: LIFECYCLE_PLAYBOOK.replace("NAME", name) for name in LIFECYCLE},
        "cluster.yml": "---\n- name: Install Kubernetes\n  ansible.builtin.import_playbook: playbooks/cluster.yml\n",
        "playbooks/ansible_version.yml": textwrap.dedent(f"""\
            ---
            - name: Check Ansible version
              hosts: all
              vars:
                minimal_ansible_version: {minimum}
                maximal_ansible_version: {maximum}
              tasks: []
            """),
        "requirements.txt": STAND_IN_CORE + "\n",
    })
    return {"deepops": deepops, "kubespray": kubespray}


def run_role(tmp_path, release: dict, *extra: str, version: str = "26.07", kubespray_version: str = "v2.31.0"):
    kubernetes = {"deployment": "deepops",
                  "deepops": {"version": version, "release_url": f"file://{release['deepops']}"},
                  "common_user": {"name": "aipod", "uid": 2000, "group": "aipod", "gid": 2000}}
    extra_vars = {"kubernetes": kubernetes,
                  "deepops_cluster_work_dir": str(tmp_path / "work"),
                  "deepops_cluster_kubespray_url": f"file://{release['kubespray']}",
                  "deepops_cluster_releases": {version: {"kubespray": kubespray_version}},
                  "deepops_cluster_extra_python_packages": [],
                  "deepops_cluster_galaxy_requirements": False,
                  "deepops_cluster_poll_seconds": 1,  # the stand-in playbooks end in seconds
                  "kubernetes_access_kubeconfig_dir": str(tmp_path / "kubeconfigs")}
    return run_playbook(tmp_path, "-i", "inventories/sample", "tests/kubernetes/playbooks/deepops.yml",
                        "-e", json.dumps(extra_vars), *extra, check=False)


def test_version_gate_stops_before_deepops_runs(tmp_path):
    # The pinned Kubespray demands an Ansible the virtualenv does not have.
    release = make_release(tmp_path, "2.19.0", "2.20.0")
    result = run_role(tmp_path, release)
    assert result.returncode != 0
    assert "Check the Ansible version before DeepOps touches a node" in result.stdout
    assert "requires 2.19.0 <= ansible-core < 2.20.0" in result.stdout
    assert "has 2.18.19" in result.stdout and "Nothing has been deployed" in result.stdout
    work = tmp_path / "work" / "deepops-26.07-kubespray-v2.31.0"
    assert not (work / "stand-in-runs").exists()
    assert not (work / "config" / "inventory").exists()
    assert not (tmp_path / "kubeconfigs").exists()


def test_release_to_kubeconfig_and_a_second_run_changes_nothing(tmp_path):
    release = make_release(tmp_path, "2.18.0", "2.19.0")
    first = run_role(tmp_path, release)
    assert first.returncode == 0, first.stdout[-5000:]
    assert "satisfies Kubespray v2.31.0 (2.18.0 <= core < 2.19.0)" in first.stdout
    work = tmp_path / "work" / "deepops-26.07-kubespray-v2.31.0"
    saw = json.loads((work / "stand-in-saw.json").read_text())
    assert saw["ansible"].startswith("2.18.")
    assert saw["control_plane"] == ["k8s-cp01", "k8s-cp02", "k8s-cp03"]
    assert saw["workers"] == ["dgx01", "dgx02", "dgx03", "dgx04"]
    assert (saw["dgx01_ip"], saw["dgx01_ansible_host"]) == ("10.61.219.101", "10.61.218.101")
    # The bundle keeps host-key checking on although DeepOps' ansible.cfg turns it off.
    assert saw["host_key_checking"] is True
    # DeepOps' example stays as its defaults; the bundle's layer wins where it speaks.
    assert saw["example_only"] == "kept"
    assert saw["users"][0]["username"] == "aipod"
    assert saw["nfs_provisioner"] is False and saw["kubeconfig_localhost"] is True
    assert saw["virtualenv"].endswith("venv-deepops-26.07-kubespray-v2.31.0")
    kubeconfig = tmp_path / "kubeconfigs" / "aipod-sample" / "kubeconfig"
    assert "# stand-in" in kubeconfig.read_text()
    assert stat.S_IMODE(kubeconfig.stat().st_mode) == 0o600
    assert (work / "config" / "helm" / "example-values.yml").exists()
    assert (work / "config" / "group_vars" / "all" / "10-deepops-example.yml").exists()
    assert not (work / "config" / "group_vars" / "all.yml").exists()

    second = run_role(tmp_path, release)
    assert second.returncode == 0, second.stdout[-5000:]
    assert recap(second.stdout)["changed"] == 0, second.stdout[-5000:]
    assert "DeepOps is up to date" in second.stdout
    assert (work / "stand-in-runs").read_text().count("run") == 1


def test_check_mode_on_a_fresh_provisioning_host_changes_nothing(tmp_path):
    release = make_release(tmp_path, "2.18.0", "2.19.0")
    result = run_role(tmp_path, release, "--check", "--diff")
    assert result.returncode == 0, result.stdout[-5000:]
    assert "check mode stops here" in result.stdout
    assert recap(result.stdout)["changed"] > 0
    assert not (tmp_path / "work").exists()


def calls(tmp_path, tree: str) -> list[dict]:
    path = tmp_path / "work" / tree / "stand-in-calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def inventory_edit(tmp_path, name: str, text: str) -> list[str]:
    """A second inventory source layered over the sample: the operator's edit."""
    path = tmp_path / f"{name}.yml"
    path.write_text(textwrap.dedent(text))
    return ["-i", str(path)]


def test_add_remove_and_upgrade_take_kubespray_s_own_paths(tmp_path):
    """After the first deployment: a new DGX joins through scale.yml limited to it, a decommissioned one
    leaves through remove-node.yml, a new DeepOps release upgrades through upgrade-cluster.yml, and a
    release that would skip a Kubespray minor or go back is refused before anything runs."""
    release = make_release(tmp_path, "2.18.0", "2.19.0")
    tree = "deepops-26.07-kubespray-v2.31.0"
    assert run_role(tmp_path, release).returncode == 0
    record = json.loads((tmp_path / "work" / "deployed-aipod-sample.json").read_text())
    assert (record["deepops"], record["kubespray"], record["workers"]) == ("26.07", "v2.31.0", ["dgx01", "dgx02", "dgx03", "dgx04"])

    added = inventory_edit(tmp_path, "added", """\
        all:
          children:
            dgx: {hosts: {dgx05: {ansible_host: 10.61.218.105, dgx: {inband: {address: 10.61.219.105}}}}}
            kube_node: {hosts: {dgx05: }}
        """)
    grown = run_role(tmp_path, release, *added)
    assert grown.returncode == 0, grown.stdout[-5000:]
    assert "new worker(s): dgx05; the others are not touched" in grown.stdout
    facts, scale = calls(tmp_path, tree)
    assert (facts["playbook"], facts["limit"]) == ("playbooks/facts.yml", "")
    assert "dgx01" in facts["hosts"] and "dgx05" in facts["hosts"]
    assert (scale["playbook"], scale["limit"], scale["hosts"]) == ("scale.yml", "dgx05", ["dgx05"])
    assert (tmp_path / "work" / tree / "stand-in-runs").read_text().count("run") == 1  # the cluster playbook ran once
    assert run_role(tmp_path, release, *added).stdout.count("DeepOps is up to date") == 1

    # dgx02 leaves drained and reset; dgx03 is dead (the operator says so for this run).
    decommissioned = inventory_edit(tmp_path, "decommissioned", """\
        all:
          children:
            decommission: {hosts: {dgx02: , dgx03: }}
        """)
    # The dead one leaves first and alone (Kubespray would fail gathering its facts in any other call).
    dead = run_role(tmp_path, release, *added, *decommissioned, "-e", '{"deepops_cluster_remove_unreachable": ["dgx03"]}')
    assert dead.returncode == 0, dead.stdout[-5000:]
    (remove_dead,) = calls(tmp_path, tree)[2:]
    # Booleans arrive as booleans (JSON extra vars), which Kubespray's conditionals need under ansible-core 2.19.
    assert (remove_dead["playbook"], remove_dead["node"], remove_dead["skip_confirmation"], remove_dead["reset_nodes"],
            remove_dead["allow_ungraceful_removal"]) == ("remove-node.yml", "dgx03", True, False, True)
    record = json.loads((tmp_path / "work" / "deployed-aipod-sample.json").read_text())
    assert record["workers"] == ["dgx01", "dgx02", "dgx04", "dgx05"]
    shrunk = run_role(tmp_path, release, *added, *decommissioned)
    assert shrunk.returncode == 0, shrunk.stdout[-5000:]
    (remove,) = calls(tmp_path, tree)[3:]
    assert (remove["playbook"], remove["node"], remove["skip_confirmation"], remove["reset_nodes"]) == ("remove-node.yml", "dgx02", True, "")
    record = json.loads((tmp_path / "work" / "deployed-aipod-sample.json").read_text())
    assert record["workers"] == ["dgx01", "dgx04", "dgx05"]

    (tmp_path / "newer").mkdir()
    newer = make_release(tmp_path / "newer", "2.18.0", "2.19.0", version="26.10", kubespray_version="v2.32.0")
    upgraded = run_role(tmp_path, newer, *added, *decommissioned, version="26.10", kubespray_version="v2.32.0")
    assert upgraded.returncode == 0, upgraded.stdout[-5000:]
    (upgrade,) = calls(tmp_path, "deepops-26.10-kubespray-v2.32.0")
    assert (upgrade["playbook"], str(upgrade["serial"])) == ("upgrade-cluster.yml", "1")
    assert not (tmp_path / "work" / "deepops-26.10-kubespray-v2.32.0" / "stand-in-runs").exists()  # no cluster playbook

    (tmp_path / "skipping").mkdir()
    skipping = make_release(tmp_path / "skipping", "2.18.0", "2.19.0", version="27.07", kubespray_version="v2.34.0")
    refused = run_role(tmp_path, skipping, *added, *decommissioned, version="27.07", kubespray_version="v2.34.0")
    assert refused.returncode != 0
    assert "Kubespray v2.32.0 -> v2.34.0 skips minor releases" in refused.stdout
    assert "Nothing has been fetched or run" in refused.stdout
    assert not (tmp_path / "work" / "deepops-27.07-kubespray-v2.34.0").exists()


def test_a_rerun_with_a_dead_host_to_remove_is_refused(tmp_path):
    release = make_release(tmp_path, "2.18.0", "2.19.0")
    result = run_role(tmp_path, release, "-e", '{"deepops_cluster_rerun": true, "deepops_cluster_remove_unreachable": ["dgx03"]}')
    assert result.returncode != 0
    assert "deepops_cluster_rerun runs the cluster playbook on every host, which fails on the dead host(s)" in result.stdout
    assert "Nothing has been fetched or run" in result.stdout
    assert not (tmp_path / "work").exists()  # refused before the release was fetched
