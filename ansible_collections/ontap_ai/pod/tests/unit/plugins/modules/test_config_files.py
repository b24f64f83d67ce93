"""config_files module: several files and directories in one run, idempotent, check mode, diffs."""
from __future__ import annotations

import json
import os
import stat

import pytest
from ansible.module_utils.testing import patch_module_args

from ansible_collections.ontap_ai.pod.plugins.modules import config_files


def run(capsys, args: dict, check: bool = False) -> dict:
    if check:
        args = dict(args, _ansible_check_mode=True)
    with patch_module_args(args), pytest.raises(SystemExit) as exit_info:
        config_files.main()
    result = json.loads(capsys.readouterr().out)
    assert exit_info.value.code == 0, result
    return result


def args_for(tmp_path, content="a = 1\n", mode="0640"):
    return {"files": [{"dest": str(tmp_path / "etc" / "x.conf"), "content": content, "mode": mode},
                      {"dest": str(tmp_path / "y.sh"), "content": "#!/bin/sh\n", "mode": "0755"}],
            "directories": [{"path": str(tmp_path / "mnt" / "data"), "mode": "0750"}]}


def test_creates_then_leaves_alone(tmp_path, capsys):
    first = run(capsys, args_for(tmp_path))
    assert first["changed"] is True
    assert first["files"] == {str(tmp_path / "etc" / "x.conf"): "created", str(tmp_path / "y.sh"): "created",
                              str(tmp_path / "mnt" / "data"): "created"}
    assert (tmp_path / "etc" / "x.conf").read_text() == "a = 1\n"
    assert stat.S_IMODE(os.stat(tmp_path / "etc" / "x.conf").st_mode) == 0o640
    assert stat.S_IMODE(os.stat(tmp_path / "y.sh").st_mode) == 0o755
    assert stat.S_IMODE(os.stat(tmp_path / "mnt" / "data").st_mode) == 0o750
    second = run(capsys, args_for(tmp_path))
    assert second["changed"] is False
    assert set(second["files"].values()) == {"unchanged"}


def test_check_mode_reports_without_writing(tmp_path, capsys):
    result = run(capsys, args_for(tmp_path), check=True)
    assert result["changed"] is True
    assert not (tmp_path / "etc").exists() and not (tmp_path / "mnt").exists()
    assert result["diff"][0] == {"before_header": str(tmp_path / "mnt" / "data"), "after_header": str(tmp_path / "mnt" / "data"),
                                 "before": "(absent)\n", "after": "(directory)\n"}
    assert result["diff"][1]["after"] == "a = 1\n" and result["diff"][1]["before"] == ""


def test_content_and_mode_drift_are_corrected(tmp_path, capsys):
    run(capsys, args_for(tmp_path))
    os.chmod(tmp_path / "y.sh", 0o700)
    result = run(capsys, args_for(tmp_path, content="a = 2\n"))
    assert result["changed"] is True
    assert result["files"][str(tmp_path / "etc" / "x.conf")] == "updated"
    assert result["files"][str(tmp_path / "y.sh")] == "attributes"
    assert [d["before"] for d in result["diff"]] == ["a = 1\n"]
    assert (tmp_path / "etc" / "x.conf").read_text() == "a = 2\n"
    assert stat.S_IMODE(os.stat(tmp_path / "y.sh").st_mode) == 0o755


def test_plan_and_diff_helpers():
    assert config_files.plan_file(None, b"x") == "created"
    assert config_files.plan_file(b"x", b"x") == "unchanged"
    assert config_files.plan_file(b"x", b"y") == "updated"
    assert config_files.diff_of("/f", b"\0bin", b"new")["before"] == "(binary or large file)\n"


def test_stale_files_of_an_exclusive_directory_and_interrupted_writes_are_removed(tmp_path, capsys):
    """A killed run leaves `.config_files-*` beside a destination; an older model leaves staged files."""
    staged = tmp_path / "staged"
    staged.mkdir()
    (staged / "60-aipod-old.network").write_text("[Match]\n")
    (staged / ".hidden-stale").write_text("x")
    (staged / "subdir").mkdir()
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / ".config_files-abc123").write_text("half a fi")
    (tmp_path / "etc" / "someone-elses.conf").write_text("kept\n")
    args = dict(args_for(tmp_path), files=args_for(tmp_path)["files"] + [
        {"dest": str(staged / "60-aipod-new.network"), "content": "[Match]\nName=eth1\n", "mode": "0644"}],
        exclusive_directories=[str(staged)])
    wanted_removed = sorted([str(staged / "60-aipod-old.network"), str(staged / ".hidden-stale"),
                             str(tmp_path / "etc" / ".config_files-abc123")])

    preview = run(capsys, args, check=True)
    assert preview["removed"] == wanted_removed and preview["changed"] is True
    assert (staged / "60-aipod-old.network").exists() and (tmp_path / "etc" / ".config_files-abc123").exists()

    result = run(capsys, args)
    assert result["removed"] == wanted_removed
    assert all(result["files"][path] == "removed" for path in wanted_removed)
    assert sorted(p.name for p in staged.iterdir()) == ["60-aipod-new.network", "subdir"]
    assert sorted(p.name for p in (tmp_path / "etc").iterdir()) == ["someone-elses.conf", "x.conf"]
    again = run(capsys, args)
    assert again["changed"] is False and again["removed"] == []


def test_no_temporary_file_stays_after_a_write(tmp_path, capsys):
    run(capsys, args_for(tmp_path))
    run(capsys, args_for(tmp_path, content="a = 2\n"))
    assert [p.name for p in (tmp_path / "etc").iterdir()] == ["x.conf"]
