"""Files in the inventory that are not what a vars file is (issue 24 item 3): a FIFO would block, a
device never ends, a link out of the inventory would make the validator read and report on a file it
should not. Each is refused by name, before its content is read, and the progress callback ends the
run there (rule yaml-limit). A directory linked inside group_vars is read, as Ansible reads it."""
from __future__ import annotations

import os
import shutil
import time

import pytest

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site


@pytest.fixture
def sample(tmp_path):
    copy = tmp_path / "sample"
    shutil.copytree("inventories/sample", copy)
    return copy


def refusals(inventory):
    site = load_site(str(inventory))
    return [(f.location.file.rsplit("/", 1)[-1], f.message) for f in site.findings if f.rule == "yaml-limit"]


def test_a_fifo_is_refused_without_blocking(sample):
    os.mkfifo(sample / "group_vars" / "all" / "pipe.yml")
    started = time.monotonic()
    assert refusals(sample) == [("pipe.yml", "refused: a FIFO, not a regular file; only regular files are read")]
    assert time.monotonic() - started < 5


def test_a_link_to_a_device_is_refused(sample):
    (sample / "group_vars" / "all" / "zero.yml").symlink_to("/dev/zero")
    [(name, message)] = refusals(sample)
    assert name == "zero.yml" and "a link to /dev/zero, outside the inventory and no inventory's vars file" in message


def test_a_link_to_a_system_file_is_refused_and_its_content_never_shown(sample, tmp_path):
    secret = tmp_path / "shadow"
    secret.write_text("root:$y$j9T$secret-hash:19000:0:99999:7:::\n")
    (sample / "group_vars" / "shadow.yml").symlink_to(secret)
    site = load_site(str(sample))
    shown = " ".join(f"{f.message} {f.hint}" for f in site.findings)
    assert "secret-hash" not in shown and "19000" not in shown
    assert [name for name, _message in refusals(sample)] == ["shadow.yml"]


def test_a_password_file_copied_in_is_refused_without_its_lines(sample):
    """A regular file in group_vars that is not a vars file parses into keys that are its lines."""
    (sample / "group_vars" / "all" / "shadow.yml").write_text(
        "root:$y$j9T$secret-hash:19000:0:99999:7:::\nsecret line with spaces: x\ndaemon: '*'\n")
    site = load_site(str(sample))
    found = [f for f in site.findings if f.location.file.endswith("shadow.yml")]
    shown = " ".join(f"{f.message} {f.hint} {f.location}" for f in site.findings)
    assert "secret-hash" not in shown and "19000" not in shown and "secret line" not in shown
    assert [f.rule for f in found] == ["unknown-key"] * 3
    assert "is not a variable name (41 characters, not shown)" in found[0].message
    assert "unknown top-level key 'daemon'" in found[2].message       # a name is still named


def test_a_link_to_another_inventorys_vars_file_is_read(sample, tmp_path):
    """Sites and test scenarios share model files by linking them (molecule/compute links the lab's)."""
    shared = tmp_path / "shared" / "group_vars" / "all"
    shared.mkdir(parents=True)
    (shared / "note.yml").write_text("---\nswitch_note: 1\n")
    (sample / "group_vars" / "all" / "note.yml").symlink_to(shared / "note.yml")
    site = load_site(str(sample))
    assert refusals(sample) == []
    assert any(f.path.endswith("all/note.yml") and f.data == {"switch_note": 1} for f in site.files)


def test_a_link_to_a_file_named_like_a_vars_file_elsewhere_is_refused(sample, tmp_path):
    elsewhere = tmp_path / "etc" / "secrets.yml"
    elsewhere.parent.mkdir()
    elsewhere.write_text("---\nvault_x: 1\n")
    (sample / "group_vars" / "secrets.yml").symlink_to(elsewhere)
    assert [name for name, _message in refusals(sample)] == ["secrets.yml"]


def test_a_link_inside_the_inventory_is_read(sample):
    (sample / "group_vars" / "kept").mkdir()
    (sample / "group_vars" / "kept" / "extra.yml").write_text("---\nextra_note: 1\n")
    (sample / "group_vars" / "all" / "linked").symlink_to(sample / "group_vars" / "kept")
    site = load_site(str(sample))
    assert refusals(sample) == []
    assert any(f.path.endswith("linked/extra.yml") for f in site.files)


def test_a_linked_directory_that_loops_is_read_once(sample):
    (sample / "group_vars" / "all" / "loop").symlink_to(sample / "group_vars" / "all")
    started = time.monotonic()
    load_site(str(sample))
    assert time.monotonic() - started < 5


def test_group_loops_are_found_once_each():
    from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import group_loops

    assert group_loops({"all": {"a", "b"}, "a": {"b"}, "b": {"a"}}) == [["a", "b", "a"]]
    assert group_loops({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"d"}}) == [["a", "b", "c", "a"], ["d", "d"]]
    assert group_loops({"all": {"a", "b"}, "a": {"c"}, "b": {"c"}}) == []
