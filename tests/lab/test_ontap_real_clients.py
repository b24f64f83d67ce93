"""The lab's ONTAP endpoint against clients nobody here wrote, over HTTPS as lab/lab serves it.

NetApp's ``netapp_ontap`` library reads every record through its own schemas, so these tests fail
on any record a real client refuses, not only on wrong values; the NetApp DataOps Toolkit for
traditional environments runs its create, snapshot, clone, list and delete workflow. The endpoint
runs in a thread of the test (no container, no lab/lab); the toolkit is a pinned test dependency
(requirements/dataops-traditional.txt).
"""
from __future__ import annotations

import contextlib
import dataclasses
import datetime
import importlib.util
import json
import logging
import pathlib
import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from netapp_ontap import HostConnection
from netapp_ontap import config as ontap_config
from netapp_ontap.error import NetAppRestError
from netapp_ontap.resources import (
    CLI,
    Account,
    Aggregate,
    BroadcastDomain,
    Cluster,
    ExportPolicy,
    IpInterface,
    IpServicePolicy,
    Ipspace,
    NfsService,
    Node,
    Port,
    Qtree,
    Role,
    Snapshot,
    SnapshotPolicy,
    Svm,
    Volume,
)
from ontap_lab.api import Api
from ontap_lab.seed import set_admin_password
from ontap_lab.state import State
from ontap_lab_client import ADMIN_PASSWORD, REPO, Client, fresh_api, https_endpoint

AGGREGATES = ("lab_ontap_01_ssd_1", "lab_ontap_02_ssd_1")
GIB = 1024 ** 3
GOLDEN = REPO / "tests" / "golden" / "ontap_lab_converged.json"
# APIs real ONTAP serves and this endpoint knowingly does not (docs/lab-ontap-endpoint.md).
UNSERVED = ("private/cli/volume", "private/cli/vserver/nfs", "storage/qtrees", "storage/quota/rules",
            "name-services/dns", "network/ip/routes", "cluster/licensing/licenses", "storage/disks", "cluster/metrics",
            "support/ems/events", "protocols/cifs/services", "storage/luns",
            f"storage/volumes/{'0' * 8}-0000-0000-0000-{'0' * 12}/files")


@dataclasses.dataclass
class Endpoint:
    api: Api
    url: str
    ca: str

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def raw(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        return requests.request(method, f"{self.url}/api/{path}", auth=("admin", ADMIN_PASSWORD), verify=self.ca,
                                timeout=10, **kwargs)


@contextlib.contextmanager
def serve(api: Api, directory: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Endpoint]:
    # A CA bundle from the environment would replace the lab CA the clients are given.
    for variable in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(variable, raising=False)
    with https_endpoint(api, directory) as (url, ca, _service):
        yield Endpoint(api, url, ca)


@pytest.fixture
def endpoint(tmp_path, monkeypatch) -> Iterator[Endpoint]:
    with serve(fresh_api(tmp_path), tmp_path, monkeypatch) as served:
        yield served


def connect(endpoint: Endpoint) -> HostConnection:
    return HostConnection("127.0.0.1", port=endpoint.port, username="admin", password=ADMIN_PASSWORD,
                          verify=endpoint.ca, poll_interval=1)


@pytest.fixture
def ontap(endpoint) -> Iterator[Endpoint]:
    """``endpoint``, with a netapp_ontap connection in effect."""
    with connect(endpoint):
        yield endpoint


def make_svm(name: str = "vs1", **extra: Any) -> Svm:
    svm = Svm(name=name, aggregates=[{"name": aggregate} for aggregate in AGGREGATES], **extra)
    svm.post(poll=True)
    return Svm.find(name=name)


def make_volume(name: str, size: int = 2 * GIB, svm: str = "vs1", **extra: Any) -> Volume:
    Volume(name=name, svm={"name": svm}, size=size, aggregates=[{"name": AGGREGATES[0]}],
           **{"nas": {"path": f"/{name}"}, **extra}).post(poll=True)
    return Volume.find(name=name, svm=svm)


def error_code(error: pytest.ExceptionInfo[NetAppRestError]) -> str:
    return error.value.response_body["error"]["code"]


# ---------------------------------------------------------------------------- netapp_ontap
def test_svm_created_with_nfs_and_cifs_blocks_has_them_enabled(ontap):
    make_svm(nfs={"enabled": True}, cifs={"name": "labcifs", "workgroup": "labwg", "enabled": True})
    svm = Svm.find(name="vs1", fields="nfs,cifs,state")
    assert (svm.state, svm.nfs.allowed, svm.nfs.enabled) == ("running", True, True)
    assert (svm.cifs.enabled, svm.cifs.name, svm.cifs.workgroup) == (True, "LABCIFS", "LABWG")
    # the NFS service exists, found by the client's own query form (svm=<name>) and by its key
    service = NfsService.find(svm="vs1")
    assert (service.svm.name, service.enabled, service.state) == ("vs1", True, "online")
    assert service.protocol.v3_enabled is True and service.transport.tcp_max_transfer_size == 65536
    by_key = NfsService(svm={"uuid": svm.uuid})
    by_key.get()
    assert by_key.svm.name == "vs1" and by_key.protocol.v41_enabled is False
    # an SVM without the nfs block has no NFS service
    make_svm("vs2")
    assert Svm.find(name="vs2", fields="nfs").nfs.enabled is False
    assert NfsService.find(svm="vs2") is None
    # a CIFS server in an Active Directory domain needs a domain controller the lab has not: the job fails
    with pytest.raises(NetAppRestError, match="Active Directory"):
        make_svm("vs3", cifs={"name": "adcifs", "ad_domain": {"fqdn": "corp.example", "user": "a", "password": "b"}})
    assert Svm.find(name="vs3") is None


def test_volume_get_find_and_collections_read_through_the_clients_schemas(ontap):
    make_svm()
    created = make_volume("data", nas={"path": "/data", "unix_permissions": "0750", "uid": 1000, "gid": 1000})
    found = Volume.find(name="data", svm="vs1")
    assert found.uuid == created.uuid
    assert (found.size, found.style, found.state, found.svm.name) == (2 * GIB, "flexvol", "online", "vs1")
    assert (found.nas.path, found.nas.unix_permissions, found.nas.uid) == ("/data", 750, 1000)
    assert found.clone.is_flexclone is False and found.snapshot_count == 0
    assert not hasattr(found, "constituent_count")  # a FlexVol has none; 0 is what the client's schema refuses
    again = Volume(uuid=found.uuid)
    again.get()
    assert again.name == "data" and again.aggregates[0].name == AGGREGATES[0]
    Volume(name="fg", svm={"name": "vs1"}, size=8 * GIB, aggregates=[{"name": a} for a in AGGREGATES],
           constituents_per_aggregate=2, guarantee={"type": "none"}, nas={"path": "/fg"}).post(poll=True)
    assert Volume.find(name="fg", svm="vs1", fields="style,constituent_count").constituent_count == 4
    everything = list(Volume.get_collection(fields="*", svm="vs1"))
    assert sorted(volume.name for volume in everything) == ["data", "fg", "vs1_root"]
    assert {volume.name for volume in Volume.get_collection(**{"svm.name": "vs1"})} == {"data", "fg", "vs1_root"}
    assert list(Volume.get_collection(svm="nosuchsvm")) == []
    assert Volume.count_collection(svm="vs1") == 3


def test_autosize_is_kept_and_checked_as_ontap_checks_it(ontap):
    make_svm()
    volume = make_volume("grows", size=2 * GIB)
    volume.get(fields="autosize")
    assert (volume.autosize.mode, volume.autosize.maximum) == ("off", 2 * GIB * 6 // 5)
    volume.autosize = {"mode": "grow", "maximum": 4 * GIB}
    volume.patch(poll=True)
    again = Volume.find(name="grows", svm="vs1", fields="autosize")
    assert (again.autosize.mode, again.autosize.maximum) == ("grow", 4 * GIB)
    for refused in ({"maximum": GIB}, {"mode": "sometimes"}, {"grow_threshold": 40, "shrink_threshold": 60}):
        again.autosize = refused
        with pytest.raises(NetAppRestError) as error:
            again.patch(poll=True)
        assert error_code(error) == "262197"
    assert Volume.find(name="grows", svm="vs1", fields="autosize").autosize.maximum == 4 * GIB


def test_return_records_false_answers_the_count_only(endpoint):
    Client(endpoint.api).post("svm/svms", {"name": "vs1"}, return_timeout=30)
    body = endpoint.raw("GET", "storage/volumes", params={"return_records": "false"}).json()
    assert body["num_records"] == 1 and "records" not in body
    assert len(endpoint.raw("GET", "storage/volumes", params={"return_records": "true"}).json()["records"]) == 1


def test_snapshots_are_created_listed_renamed_and_deleted(ontap):
    make_svm()
    volume = make_volume("data")
    Snapshot(volume.uuid, name="first", comment="before the run").post(poll=True)
    Snapshot(volume.uuid, name="second", snapmirror_label="daily").post(poll=True)
    snapshots = list(Snapshot.get_collection(volume.uuid, fields="*"))
    assert [snapshot.name for snapshot in snapshots] == ["first", "second"]
    assert all(isinstance(snapshot.create_time, datetime.datetime) for snapshot in snapshots)
    assert {(snapshot.volume.name, snapshot.svm.name, snapshot.state) for snapshot in snapshots} == {("data", "vs1", "valid")}
    first = Snapshot.find(volume.uuid, name="first")
    assert first.comment == "before the run" and not hasattr(first, "owners")
    assert Snapshot.find(volume.uuid, name="second").snapmirror_label == "daily"
    assert Volume.find(name="data", svm="vs1", fields="snapshot_count").snapshot_count == 2
    with pytest.raises(NetAppRestError) as duplicate:
        Snapshot(volume.uuid, name="first").post(poll=True)
    assert duplicate.value.status_code == 409
    first.name = "renamed"
    first.patch(poll=True)
    assert Snapshot.find(volume.uuid, name="renamed").uuid == first.uuid
    Snapshot(volume.uuid, uuid=snapshots[1].uuid).delete(poll=True)
    assert [snapshot.name for snapshot in Snapshot.get_collection(volume.uuid)] == ["renamed"]
    with pytest.raises(NetAppRestError) as missing:
        Snapshot(volume.uuid, uuid=snapshots[1].uuid).get()
    assert missing.value.status_code == 404 and error_code(missing) == "4"


def test_restore_brings_the_data_back_and_drops_newer_snapshots(ontap):
    make_svm()
    volume = make_volume("data", nas={"path": "/data", "unix_permissions": "0755"})
    Snapshot(volume.uuid, name="good").post(poll=True)
    volume.nas = {"unix_permissions": "0700"}
    volume.patch(poll=True)
    Snapshot(volume.uuid, name="bad").post(poll=True)
    Volume(uuid=volume.uuid).patch(poll=True, **{"restore_to.snapshot.name": "good"})
    restored = Volume.find(name="data", svm="vs1", fields="nas")
    assert restored.nas.unix_permissions == 755
    assert [snapshot.name for snapshot in Snapshot.get_collection(volume.uuid)] == ["good"]
    with pytest.raises(NetAppRestError) as missing:
        Volume(uuid=volume.uuid).patch(poll=True, **{"restore_to.snapshot.name": "bad"})
    assert missing.value.status_code == 404 and "bad" in str(missing.value)


def test_flexclone_carries_its_parent_and_holds_it(ontap):
    make_svm()
    parent = make_volume("data", size=3 * GIB, nas={"path": "/data", "unix_permissions": "0750", "uid": 1000, "gid": 1001})
    Snapshot(parent.uuid, name="base").post(poll=True)
    base = Snapshot.find(parent.uuid, name="base")
    Volume(name="c1", svm={"name": "vs1"}, nas={"path": "/c1"},
           clone={"is_flexclone": True, "parent_volume": {"name": "data"}, "parent_snapshot": {"name": "base"}}).post(poll=True)
    clone = Volume.find(name="c1", svm="vs1", fields="clone,size,nas,aggregates,style")
    assert clone.clone.is_flexclone is True
    assert (clone.clone.parent_volume.name, clone.clone.parent_volume.uuid) == ("data", parent.uuid)
    assert (clone.clone.parent_snapshot.name, clone.clone.parent_snapshot.uuid) == ("base", base.uuid)
    assert clone.clone.parent_svm.name == "vs1"
    assert (clone.size, clone.style, clone.aggregates[0].name) == (3 * GIB, "flexvol", AGGREGATES[0])
    assert (clone.nas.path, clone.nas.unix_permissions, clone.nas.uid, clone.nas.gid) == ("/c1", 750, 1000, 1001)
    assert Volume.find(name="data", svm="vs1", fields="clone").clone.has_flexclone is True
    assert Snapshot.find(parent.uuid, name="base").owners == ["volume clone"]
    # without a parent snapshot, ONTAP takes one for the clone
    Volume(name="c2", svm={"name": "vs1"}, clone={"is_flexclone": True, "parent_volume": {"uuid": parent.uuid}}).post(poll=True)
    taken = Volume.find(name="c2", svm="vs1", fields="clone").clone.parent_snapshot.name
    assert taken.startswith("clone_c2.") and Snapshot.find(parent.uuid, name=taken).owners == ["volume clone"]
    # a parent snapshot that does not exist is refused, and nothing is made
    with pytest.raises(NetAppRestError) as refused:
        Volume(name="c3", svm={"name": "vs1"},
               clone={"is_flexclone": True, "parent_volume": {"name": "data"}, "parent_snapshot": {"name": "nope"}}).post(poll=True)
    assert refused.value.status_code == 404 and '"nope" does not exist' in str(refused.value)
    assert Volume.find(name="c3", svm="vs1") is None
    # the parent and the clone's snapshot stay while clones use them
    with pytest.raises(NetAppRestError) as parent_delete:
        Volume(uuid=parent.uuid).delete(poll=True)
    assert error_code(parent_delete) == "524615"
    with pytest.raises(NetAppRestError) as busy:
        Snapshot(parent.uuid, uuid=base.uuid).delete(poll=True)
    assert "in use by FlexClone volume" in str(busy.value)
    # a split clone is a volume of its own; a deleted clone frees its snapshot
    split = Volume(uuid=clone.uuid)
    split.clone = {"split_initiated": True}
    split.patch(poll=True)
    assert Volume.find(name="c1", svm="vs1", fields="clone").clone.is_flexclone is False
    Volume(uuid=Volume.find(name="c2", svm="vs1").uuid).delete(poll=True)
    assert Volume.find(name="data", svm="vs1", fields="clone").clone.has_flexclone is False
    assert not hasattr(Snapshot.find(parent.uuid, name="base"), "owners")
    Snapshot(parent.uuid, uuid=base.uuid).delete(poll=True)
    Volume(uuid=parent.uuid).delete(poll=True)
    assert sorted(volume.name for volume in Volume.get_collection(svm="vs1")) == ["c1", "vs1_root"]


def test_a_flexgroup_clone_is_a_flexgroup_of_its_parents_shape(ontap):
    make_svm()
    Volume(name="fg", svm={"name": "vs1"}, size=8 * GIB, aggregates=[{"name": a} for a in AGGREGATES],
           constituents_per_aggregate=2, guarantee={"type": "none"}, nas={"path": "/fg"}).post(poll=True)
    Volume(name="fg_clone", svm={"name": "vs1"}, nas={"path": "/fg_clone"},
           clone={"is_flexclone": True, "parent_volume": {"name": "fg"}}).post(poll=True)
    clone = Volume.find(name="fg_clone", svm="vs1", fields="style,size,constituent_count,aggregates,clone")
    assert (clone.style, clone.size, clone.constituent_count) == ("flexgroup", 8 * GIB, 4)
    assert sorted(aggregate.name for aggregate in clone.aggregates) == sorted(AGGREGATES)
    assert clone.clone.parent_volume.name == "fg" and clone.clone.parent_snapshot.name.startswith("clone_fg_clone.")


def test_delete_takes_mounted_volumes_offline_and_refuses_what_ontap_refuses(ontap):
    make_svm()
    outer = make_volume("outer")
    inner = make_volume("inner", nas={"path": "/outer/inner"})
    with pytest.raises(NetAppRestError) as mounted_beneath:
        Volume(uuid=outer.uuid).delete(poll=True)
    assert error_code(mounted_beneath) == "918667" and '"inner"' in str(mounted_beneath.value)
    # ONTAP's DELETE takes an online, mounted volume offline and unmounts it itself: no step before it
    before = Volume.find(name="inner", svm="vs1", fields="state,nas")
    assert (before.state, before.nas.path) == ("online", "/outer/inner")
    Volume(uuid=inner.uuid).delete(poll=True)
    assert Volume.find(name="inner", svm="vs1") is None
    Volume(uuid=outer.uuid).delete(poll=True)
    root = Volume.find(name="vs1_root", svm="vs1")
    make_volume("other")
    with pytest.raises(NetAppRestError) as root_delete:
        Volume(uuid=root.uuid).delete(poll=True)
    assert error_code(root_delete) == "917531"


def test_unserved_apis_answer_api_not_found(ontap):
    for path in UNSERVED:
        for method in ("GET", "POST"):
            answer = ontap.raw(method, path, json={})
            assert answer.status_code == 404, (method, path)
            assert answer.json() == {"error": {"message": "API not found", "code": "4", "target": "uri"}}, (method, path)
    with pytest.raises(NetAppRestError) as qtrees:
        list(Qtree.get_collection())
    assert qtrees.value.status_code == 404 and "API not found" in str(qtrees.value)
    with pytest.raises(NetAppRestError) as cli:
        CLI().execute("volume show")
    assert cli.value.status_code == 404


def test_a_record_the_client_would_refuse_fails_the_request(ontap):
    make_svm()
    volume = make_volume("data")
    with ontap.api.lock:
        ontap.api.state.get("volumes", volume.uuid)["state"] = "melting"
    with pytest.raises(NetAppRestError) as refused:
        list(Volume.get_collection(fields="state", svm="vs1"))
    assert refused.value.status_code == 500
    assert "netapp_ontap client refuses this volumes record" in str(refused.value) and '"state"' in str(refused.value)


def test_the_converged_clusters_records_read_through_the_client(tmp_path, monkeypatch):
    """Every record the roles leave on a converged cluster (tests/golden), read with the client's schemas."""
    state = State(json.loads(GOLDEN.read_text()))
    set_admin_password(state, "admin", ADMIN_PASSWORD)
    collections = {Node: "nodes", Aggregate: "aggregates", Port: "ports", BroadcastDomain: "broadcast_domains",
                   Ipspace: "ipspaces", IpInterface: "ip_interfaces", IpServicePolicy: "service_policies", Svm: "svms",
                   NfsService: "nfs_services", ExportPolicy: "export_policies", SnapshotPolicy: "snapshot_policies",
                   Role: "roles", Account: "accounts"}
    with serve(Api(state), tmp_path, monkeypatch) as endpoint, connect(endpoint):
        cluster = Cluster()
        cluster.get()
        assert cluster.name == state.cluster["name"] and cluster.version.generation == 9
        for resource, collection in collections.items():
            records = list(resource.get_collection(fields="*"))
            assert len(records) == len(state.records(collection)), resource.__name__
        volumes = list(Volume.get_collection(fields="*"))
        flexgroups = [volume for volume in volumes if volume.style == "flexgroup"]
        assert flexgroups and all(volume.constituent_count >= 1 for volume in flexgroups)
        assert len(volumes) == sum(1 for v in state.records("volumes") if v.get("style") != "flexgroup_constituent")


# ---------------------------------------------------------------------------- NetApp DataOps Toolkit
def memory_keyring(secrets: dict[tuple[str, str], str]) -> Any:
    """A credential store in memory, where the toolkit's ``keyring`` calls find the ONTAP login."""
    import keyring.backend

    class MemoryKeyring(keyring.backend.KeyringBackend):
        priority = 1  # type: ignore[assignment]

        def get_password(self, service: str, username: str) -> str | None:
            return secrets.get((service, username))

        def set_password(self, service: str, username: str, password: str) -> None:
            secrets[(service, username)] = password

        def delete_password(self, service: str, username: str) -> None:
            secrets.pop((service, username), None)

    return MemoryKeyring()


class UnusedBotoConfig:
    def __init__(self, *args: Any, **kwargs: Any):
        raise AssertionError("the DataOps workflow used botocore, which the test does not provide")


def boto3_stand_in() -> dict[str, types.ModuleType]:
    """Empty modules standing in for boto3 and botocore, which the toolkit imports for its S3 functions
    only (requirements/dataops-traditional.txt says why they are not installed): any use fails."""
    modules = {name: types.ModuleType(name) for name in ("boto3", "botocore", "botocore.client", "botocore.config")}
    modules["botocore.client"].Config = UnusedBotoConfig  # type: ignore[attr-defined]
    modules["botocore.config"].Config = UnusedBotoConfig  # type: ignore[attr-defined]
    return modules


def configured_toolkit(endpoint: Endpoint, home: pathlib.Path, monkeypatch: pytest.MonkeyPatch, svm: str,
                       data_lif: str) -> types.ModuleType:
    """The toolkit, configured as its ``config`` command would, for one SVM of the endpoint's cluster."""
    if importlib.util.find_spec("netapp_dataops") is None:
        pytest.fail("netapp-dataops-traditional is not installed: scripts/bootstrap.sh installs "
                    "requirements/dataops-traditional.txt")
    if importlib.util.find_spec("boto3") is None:
        for name, module in boto3_stand_in().items():
            monkeypatch.setitem(sys.modules, name, module)
    import keyring.core
    import netapp_dataops.traditional as toolkit
    from netapp_dataops.constants import KEYRING_SERVICE_NAME

    (home / ".netapp_dataops").mkdir(parents=True)
    (home / ".netapp_dataops" / "config.json").write_text(json.dumps({
        "connectionType": "ONTAP", "hostname": f"127.0.0.1:{endpoint.port}", "svm": svm, "dataLif": data_lif,
        "sslCertPath": endpoint.ca, "defaultVolumeType": "flexvol", "defaultExportPolicy": "default",
        "defaultSnapshotPolicy": "none", "defaultUnixUID": "0", "defaultUnixGID": "0", "defaultUnixPermissions": "0777",
        "defaultAggregate": AGGREGATES[0]}))
    monkeypatch.setenv("HOME", str(home))
    # keyring.set_keyring() cannot put back "no backend chosen yet"; monkeypatch restores it after the test.
    monkeypatch.setattr(keyring.core, "_keyring_backend", memory_keyring(
        {(KEYRING_SERVICE_NAME, "username"): "admin", (KEYRING_SERVICE_NAME, "password"): ADMIN_PASSWORD}))
    monkeypatch.setattr(ontap_config, "CONNECTION", None)  # the toolkit sets the library's global connection
    return toolkit


@pytest.fixture
def dataops(endpoint, tmp_path, monkeypatch) -> Iterator[types.ModuleType]:
    """The toolkit for the lab cluster's SVM vs1, made here."""
    Client(endpoint.api).post("svm/svms", {"name": "vs1", "aggregates": [{"name": a} for a in AGGREGATES],
                                           "nfs": {"enabled": True}}, return_timeout=30)
    yield configured_toolkit(endpoint, tmp_path / "home", monkeypatch, "vs1", "172.31.251.10")


def volumes_by_name(toolkit: types.ModuleType) -> dict[str, dict]:
    return {volume["Volume Name"]: volume for volume in toolkit.list_volumes()}


def test_dataops_toolkit_workflow(dataops, endpoint, caplog):
    toolkit = dataops
    client = Client(endpoint.api)
    toolkit.create_volume(volume_name="project1", volume_size="100GB", unix_permissions="0755", unix_uid="1000",
                          unix_gid="1000", snapshot_policy="none")
    created = client.one("storage/volumes", name="project1", fields="size,nas,guarantee,aggregates,comment,snapshot_policy")
    assert created["size"] == 100 * GIB and created["guarantee"]["type"] == "none"
    assert (created["nas"]["path"], created["nas"]["unix_permissions"], created["nas"]["uid"]) == ("/project1", 755, 1000)
    assert created["aggregates"][0]["name"] == AGGREGATES[0] and created["comment"] == "netapp-dataops"

    toolkit.create_snapshot(volume_name="project1", snapshot_name="baseline")
    snapshots = toolkit.list_snapshots(volume_name="project1")
    assert [snapshot["Snapshot Name"] for snapshot in snapshots] == ["baseline"]
    assert isinstance(snapshots[0]["Create Time"], datetime.datetime)

    toolkit.clone_volume(new_volume_name="project1_clone", source_volume_name="project1", source_snapshot_name="baseline",
                         unix_uid="2000", unix_gid="2000")
    volumes = volumes_by_name(toolkit)
    assert set(volumes) == {"project1", "project1_clone"}  # the SVM root is not listed
    assert volumes["project1"] == {
        "Volume Name": "project1", "Size": "100.0GB", "Type": "flexvol", "NFS Mount Target": "172.31.251.10:/project1",
        "Junction Path": "/project1", "FlexCache": "no", "Clone": "no", "Source SVM": "", "Source Volume": "",
        "Source Snapshot": ""}
    clone = volumes["project1_clone"]
    assert (clone["Clone"], clone["Source SVM"], clone["Source Volume"], clone["Source Snapshot"]) == \
        ("yes", "vs1", "project1", "baseline")
    assert (clone["Size"], clone["Junction Path"]) == ("100.0GB", "/project1_clone")
    cloned = client.one("storage/volumes", name="project1_clone", fields="nas,snapshot_policy,comment")
    assert (cloned["nas"]["uid"], cloned["nas"]["gid"], cloned["nas"]["unix_permissions"]) == (2000, 2000, 755)
    assert cloned["nas"]["export_policy"]["name"] == "default" and cloned["snapshot_policy"]["name"] == "none"
    assert "CLONENAME:project1_clone" in cloned["comment"]
    # the table the toolkit's CLI prints (through pandas and tabulate)
    caplog.set_level(logging.INFO)
    toolkit.list_volumes(print_output=True)
    row = next(line.split() for line in caplog.text.splitlines() if line.startswith("project1_clone"))
    assert row == ["project1_clone", "100.0GB", "flexvol", "172.31.251.10:/project1_clone", "/project1_clone", "no", "yes",
                   "vs1", "project1", "baseline"]

    # the clone holds its snapshot and its parent, as on ONTAP
    with pytest.raises(toolkit.InvalidSnapshotParameterError):
        toolkit.delete_snapshot(volume_name="project1", snapshot_name="baseline")
    with pytest.raises(toolkit.APIConnectionError, match="one or more clones"):
        toolkit.delete_volume(volume_name="project1", delete_non_clone=True)

    toolkit.delete_volume(volume_name="project1_clone")
    toolkit.delete_snapshot(volume_name="project1", snapshot_name="baseline")
    assert toolkit.list_snapshots(volume_name="project1") == []
    toolkit.delete_volume(volume_name="project1", delete_non_clone=True)
    assert toolkit.list_volumes() == []
    assert [volume["name"] for volume in client.records("storage/volumes", svm="vs1")] == ["vs1_root"]


def test_dataops_toolkit_lists_space_as_ontap_reports_it(dataops, endpoint):
    """Each volume reports its space as ONTAP does (size, snapshot reserve, used, available, footprint
    and metadata, and a FlexGroup's constituents' footprints), so the toolkit's space columns hold
    figures, not "Unknown"."""
    toolkit = dataops
    client = Client(endpoint.api)
    toolkit.create_volume(volume_name="flat", volume_size="100GB", volume_type="flexvol")
    toolkit.create_volume(volume_name="spread", volume_size="800GB", volume_type="flexgroup")
    listed = {volume["Volume Name"]: volume for volume in toolkit.list_volumes(include_space_usage_details=True)}
    for name in ("flat", "spread"):
        row = listed[name]
        assert "Unknown" not in row.values(), row
        assert row["Snap Reserve"] == "5%", row
    assert listed["flat"]["Usage"] == "2.0MB" and listed["flat"]["Capacity"] == "95.0GB", listed["flat"]
    for volume in client.records("storage/volumes", svm="vs1", is_svm_root="false", fields="space,style,constituents"):
        space = volume["space"]
        assert space["snapshot"]["reserve_size"] == space["size"] * space["snapshot"]["reserve_percent"] // 100
        assert space["afs_total"] == space["size"] - space["snapshot"]["reserve_size"]
        assert space["used"] + space["available"] == space["afs_total"] and 0 < space["used"] < space["afs_total"]
        assert space["total_footprint"] == space["footprint"] + space["metadata"]
        if volume["style"] == "flexgroup":
            assert sum(part["space"]["used"] for part in volume["constituents"]) == space["used"]
    for name in ("flat", "spread"):
        toolkit.delete_volume(volume_name=name, delete_non_clone=True)


def test_dataops_toolkit_restores_and_splits(dataops, endpoint):
    toolkit = dataops
    client = Client(endpoint.api)
    toolkit.create_volume(volume_name="work", volume_size="10GB", unix_permissions="0750")
    toolkit.create_snapshot(volume_name="work", snapshot_name="before")
    volume = client.one("storage/volumes", name="work")
    client.patch(f"storage/volumes/{volume['uuid']}", {"nas": {"unix_permissions": 700}}, return_timeout=30)
    toolkit.restore_snapshot(volume_name="work", snapshot_name="before")
    assert client.one("storage/volumes", name="work", fields="nas")["nas"]["unix_permissions"] == 750
    toolkit.clone_volume(new_volume_name="work_copy", source_volume_name="work", split=True)
    copy = volumes_by_name(toolkit)["work_copy"]
    assert copy["Clone"] == "no" and copy["Size"] == "10.0GB"
    # the split clone no longer holds its parent
    toolkit.delete_volume(volume_name="work", delete_non_clone=True)
    assert set(volumes_by_name(toolkit)) == {"work_copy"}


def test_a_data_scientist_versions_clones_and_restores_the_models_data_set(tmp_path, monkeypatch):
    """The data set the storage layer built on the converged lab cluster (tests/golden: inventories/lab's
    imagenet, with its Snapshot policy, owner and reserve), driven with the toolkit as the seeds' workflow
    says: list it, take a version, clone the version into an experiment, restore it, list both."""
    state = State(json.loads(GOLDEN.read_text()))
    set_admin_password(state, "admin", ADMIN_PASSWORD)
    with serve(Api(state), tmp_path, monkeypatch) as endpoint:
        toolkit = configured_toolkit(endpoint, tmp_path / "home", monkeypatch, "lab-data", "172.31.251.101")
        client = Client(endpoint.api)
        volume = client.one("storage/volumes", name="imagenet", fields="style,nas,snapshot_policy,space")
        assert (volume["style"], volume["snapshot_policy"]["name"], volume["space"]["snapshot"]["reserve_percent"]) == (
            "flexgroup", "dataset_imagenet", 5)
        assert (volume["nas"]["uid"], volume["nas"]["gid"], volume["nas"]["unix_permissions"]) == (2000, 2000, 770)
        listed = volumes_by_name(toolkit)["imagenet"]
        assert (listed["Size"], listed["Type"], listed["Junction Path"]) == ("2.0TB", "flexgroup", "/imagenet")

        toolkit.create_snapshot(volume_name="imagenet", snapshot_name="v1")
        toolkit.clone_volume(new_volume_name="imagenet_exp1", source_volume_name="imagenet", source_snapshot_name="v1",
                             unix_uid="2000", unix_gid="2000")
        experiment = volumes_by_name(toolkit)["imagenet_exp1"]
        assert (experiment["Clone"], experiment["Source Volume"], experiment["Source Snapshot"]) == ("yes", "imagenet", "v1")
        client.patch(f"storage/volumes/{volume['uuid']}", {"nas": {"unix_permissions": 700}}, return_timeout=30)
        toolkit.restore_snapshot(volume_name="imagenet", snapshot_name="v1")
        assert client.one("storage/volumes", name="imagenet", fields="nas")["nas"]["unix_permissions"] == 770
        # ONTAP's own snapmirror.* copy (the data set is replicated to lab-dr) stays beside the user's version.
        assert [snapshot["Snapshot Name"] for snapshot in toolkit.list_snapshots(volume_name="imagenet")
                if not snapshot["Snapshot Name"].startswith("snapmirror.")] == ["v1"]
        assert {"imagenet", "imagenet_exp1"} <= set(volumes_by_name(toolkit))
