"""The cabling plan documents: Markdown, CSV and the Graphviz topology."""
from __future__ import annotations

import collections
import csv
import io
import re

import pytest
from switch_test_models import sample_model

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import cabling, ipplan
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import model as m


@pytest.fixture(scope="module")
def model():
    return sample_model()


def test_csv_has_one_line_per_cable(model):
    rows = m.cabling_plan(model)
    parsed = list(csv.DictReader(io.StringIO(cabling.document(model, "csv", rows))))
    assert len(parsed) == len(rows)
    assert parsed[0]["switch"] == "n3232c-a" and parsed[0]["device_port"] == "enp225s0f0"
    assert parsed[0]["vlans"] == "3111" and parsed[0]["pfc"] == "yes" and parsed[0]["mtu"] == "9216"


def test_markdown_has_a_table_per_switch(model):
    text = cabling.document(model, "markdown", m.cabling_plan(model))
    assert "## n3232c-a" in text and "## n3232c-b" in text
    assert "| Ethernet1/1 | port | dgx01 enp225s0f0 | 3111 | 200G | 9216 | yes |" in text
    assert "| Ethernet1/13 | member of port-channel11 | aipod-a800-01 e2a (a0a) | trunk 3101 | 100G | 9216 | no |" in text
    assert "VLANs: 3101 inband, 3111 storage-a, 3112 storage-b." in text


def test_dot_links_every_cable_between_declared_ports(model):
    rows = m.cabling_plan(model)
    text = cabling.document(model, "dot", rows)
    assert text.startswith("graph aipod_sample {")
    assert text.count(" -- ") == len(rows)
    assert '"dgx01":"enp225s0f0":s -- "n3232c-a":"Ethernet1_1":n' in text
    assert '"n3232c-a":"Ethernet1_31":s -- "n3232c-b":"Ethernet1_31":s' in text
    for row in rows:                                   # each edge end is a port cell of its node
        assert f'PORT="{cabling._id(row["port"])}"' in text


def test_unknown_kind_is_refused(model):
    with pytest.raises(ValueError, match="unknown cabling document kind"):
        cabling.document(model, "pdf", [])


def test_the_committed_sample_documents_are_current(model):
    """docs/cabling/sample-* are regenerated with:
    ansible-playbook -i inventories/sample/hosts.yml --vault-id sample@<password file> playbooks/cabling.yml \\
        -e cabling_dir=$PWD/docs/cabling -e cabling_name=sample
    """
    from project_paths import REPO

    rows = m.cabling_plan(model)
    docs = REPO / "docs" / "cabling"
    for kind, name in (("markdown", "sample-cabling.md"), ("csv", "sample-cabling.csv"), ("dot", "sample-topology.dot")):
        assert (docs / name).read_text() == cabling.document(model, kind, rows), f"docs/cabling/{name} is out of date"
    plan = ipplan.ip_plan(model)
    assert (docs / "sample-ip-plan.md").read_text() == ipplan.markdown(plan, "aipod-sample"), "docs/cabling/sample-ip-plan.md is out of date"
    assert (docs / "sample-ip-plan.csv").read_text() == ipplan.csv_text(plan), "docs/cabling/sample-ip-plan.csv is out of date"
    import html

    svg = html.unescape((docs / "sample-topology.svg").read_text())
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    for device in ("n3232c-a", "n3232c-b", "dgx01", "aipod-a800-02"):
        assert device in svg


@pytest.mark.parametrize(("inventory", "pod", "devices"), [
    ("sample-large", "aipod-superpod", ("sn5600-1a", "sn5600-2b", "sn5600-spine-b", "dgx32", "aff-a90-08")),
    ("sample-aipod", "aipod-h100", ("sn4600-a", "sn4600-b", "dgx04", "aff-a90-02")),
])
def test_the_committed_documents_of_the_larger_samples_are_current(inventory, pod, devices):
    """docs/cabling/<inventory>-* are regenerated with:
    ansible-playbook -i inventories/<inventory>/hosts.yml --vault-id sample@<password file> playbooks/cabling.yml \\
        -e cabling_dir=$PWD/docs/cabling -e cabling_name=<inventory>
    """
    import html

    from project_paths import REPO, SAMPLE_VAULT_PASSWORD, make_decryptor

    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site

    model = load_site(str(REPO / "inventories" / inventory), decrypt=make_decryptor(SAMPLE_VAULT_PASSWORD)).model
    rows = m.cabling_plan(model)
    docs = REPO / "docs" / "cabling"
    for kind, name in (("markdown", f"{inventory}-cabling.md"), ("csv", f"{inventory}-cabling.csv"),
                       ("dot", f"{inventory}-topology.dot")):
        assert (docs / name).read_text() == cabling.document(model, kind, rows), f"docs/cabling/{name} is out of date"
    plan = ipplan.ip_plan(model)
    assert (docs / f"{inventory}-ip-plan.md").read_text() == ipplan.markdown(plan, pod)
    assert (docs / f"{inventory}-ip-plan.csv").read_text() == ipplan.csv_text(plan)
    if inventory == "sample-large":
        # each leaf switch's four uplink members, listed once from the leaf: two cables to each spine switch
        uplinks = [row for row in rows if row["device_kind"] == "switch" and row["kind"] == "member"]
        assert len(uplinks) == 16 and {row["switch"] for row in uplinks} == {"sn5600-1a", "sn5600-1b", "sn5600-2a", "sn5600-2b"}
        assert collections.Counter((row["switch"], row["device"]) for row in uplinks) == {
            (leaf, spine): 2 for leaf in ("sn5600-1a", "sn5600-1b", "sn5600-2a", "sn5600-2b") for spine in ("sn5600-spine-a", "sn5600-spine-b")}
        # the A90's data ports and a1a members on 4x200G lanes of the storage leaf, at 200G
        storage = [row for row in rows if row["device_kind"] == "ontap"]
        assert len(storage) == 48 and {row["switch"] for row in storage} == {"sn5600-2a", "sn5600-2b"}
        assert all(re.fullmatch(r"swp[1-6]s[0-3]", row["port"]) and row["speed"] == "200G" for row in storage)
    svg = html.unescape((docs / f"{inventory}-topology.svg").read_text())
    for device in devices:
        assert device in svg


def test_two_pairs_back_to_back_list_each_uplink_cable_once(tmp_path):
    """The sample grown on two Nexus 9364C pairs (the former sample-large, docs/sample-large.md): the
    uplink's four cables, two members a switch, listed once from the first pair, as a bow tie."""
    import sys

    from project_paths import REPO, SAMPLE, SAMPLE_VAULT_PASSWORD, make_decryptor

    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site

    sys.path.insert(0, str(REPO / "scripts"))
    from scale_site import scale

    inventory = scale(str(SAMPLE), 32, str(tmp_path / "sample-large-nxos"), switch_model="N9K-C9364C", switch_stem="leaf")
    rows = m.cabling_plan(load_site(inventory, decrypt=make_decryptor(SAMPLE_VAULT_PASSWORD)).model)
    uplinks = [row for row in rows if row["device_kind"] == "switch" and row["kind"] == "member"]
    assert len(uplinks) == 4 and all(row["switch"].startswith("leaf-1") for row in uplinks)
    assert collections.Counter((row["switch"], row["device"]) for row in uplinks) == {
        (near, far): 1 for near in ("leaf-1a", "leaf-1b") for far in ("leaf-2a", "leaf-2b")}
