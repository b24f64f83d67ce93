"""AFX, disaggregated ONTAP: no aggregates. The lab pod's model as an AFX 1K (no aggregates on the
nodes, the SVM or the FlexGroups) against a private lab endpoint seeded from it, which answers as AFX
does: `disaggregated` true, no aggregates, a volume POST naming one refused, FlexGroups placed by
ONTAP. The SVM is created without aggregates (na_ontap_svm), each FlexGroup with one REST POST of
style flexgroup (na_ontap_restit; na_ontap_volume's auto_provision_as sends what AFX refuses) and
then checked by na_ontap_volume; a re-run changes nothing."""
from __future__ import annotations

import shutil

import pytest
import yaml
from inventory_edits import as_afx
from ontap_lab.private import PrivateLab
from project_paths import REPO

pytestmark = [pytest.mark.lab, pytest.mark.slow, pytest.mark.release_check]


def afx_inventory(target):
    """inventories/lab as an AFX 1K cluster (inventory_edits.as_afx)."""
    shutil.copytree(REPO / "inventories" / "lab", target)
    ontap_file, trident_file = (target / "group_vars" / "all" / name for name in ("ontap.yml", "trident.yml"))
    ontap, trident = (yaml.safe_load(path.read_text()) for path in (ontap_file, trident_file))
    as_afx(ontap["ontap"], trident["trident"])
    ontap_file.write_text("---\n" + yaml.safe_dump(ontap, sort_keys=False))
    trident_file.write_text("---\n" + yaml.safe_dump(trident, sort_keys=False))
    return target


@pytest.fixture(scope="module")
def afx_lab(tmp_path_factory):
    base = afx_inventory(tmp_path_factory.mktemp("afx-inventory") / "lab")
    lab = PrivateLab(tmp_path_factory.mktemp("afx-lab"), base_inventory=base)
    lab.lab("start")
    try:
        yield lab
    finally:
        lab.lab("stop")


def test_the_storage_layer_converges_on_afx_with_flexgroups_placed_by_ontap(afx_lab, tmp_path):
    client = afx_lab.client()
    status, cluster = client.request("GET", "/api/cluster?fields=disaggregated")
    assert status == 200 and cluster["disaggregated"] is True
    assert afx_lab.records("/api/storage/aggregates") == []

    rc, recap, output = afx_lab.play(log=tmp_path / "first.log")
    assert rc == 0, output[-5000:]
    assert recap["lab-ontap"]["changed"] > 0
    assert "placed by ONTAP" in output

    [svm] = afx_lab.records("/api/svm/svms?fields=aggregates")
    assert not svm.get("aggregates")
    flexgroups = {v["name"]: v for v in afx_lab.records("/api/storage/volumes?style=flexgroup&fields=constituent_count,aggregates,"
                                                         "qos.policy.name,granular_data_mode,nas.path")}
    assert set(flexgroups) == {"data", "home", "imagenet"}  # imagenet: the lab's data set, placed by ONTAP too
    assert all(v["constituent_count"] >= 1 and "aggregates" not in v for v in flexgroups.values()), flexgroups
    assert flexgroups["data"]["qos"]["policy"]["name"] == "lab-data-floor"
    assert flexgroups["data"]["granular_data_mode"] == "advanced" and flexgroups["data"]["nas"]["path"] == "/data"

    rc, recap, output = afx_lab.play(log=tmp_path / "again.log")
    assert rc == 0 and recap["lab-ontap"]["changed"] == 0, output[-3000:]


def test_afx_refuses_a_volume_on_an_aggregate_and_the_auto_provision_body(afx_lab):
    """A volume naming an aggregate, and what na_ontap_volume's auto_provision_as sends
    (constituents_per_aggregate without aggregates), which is why the role creates AFX FlexGroups itself."""
    client = afx_lab.client()
    for extra, refusal in (({"aggregates": [{"name": "lab_ontap_01_ssd_1"}]}, "has no aggregates"),
                           ({"style": "flexgroup", "constituents_per_aggregate": 1}, "use constituent_count")):
        status, answer = client.request("POST", "/api/storage/volumes?return_timeout=30", {
            "name": "placed_by_hand", "svm": {"name": "lab-data"}, "size": 1024 ** 3, **extra})
        message = answer["error"]["message"] if status >= 400 else str(answer)
        assert status >= 400 and refusal in message, (status, answer)
