"""A FlexGroup is mounted on a data directory of the DGX, never over a system directory (where it
would hide what the OS needs, /tmp included) nor over DGX OS's local RAID cache, /raid."""
from __future__ import annotations

import pytest

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation.validate import validate_site


def mount_findings(sample_copy, decrypt, mount_point: str) -> list:
    path = sample_copy / "group_vars" / "all" / "compute.yml"
    text = path.read_text()
    assert "      path: /mnt/data\n" in text
    path.write_text(text.replace("      path: /mnt/data\n", f"      path: {mount_point}\n", 1))
    return [f for f in validate_site(str(sample_copy), decrypt=decrypt).errors if f.rule == "mount"]


@pytest.mark.parametrize(("mount_point", "problem"), [
    ("/tmp", "is (inside) /tmp, a system directory"), ("/tmp/data", "is (inside) /tmp, a system directory"),
    ("/var/tmp/data", "is (inside) /var"), ("/etc/data", "is (inside) /etc"), ("/boot", "is (inside) /boot"),
    ("/raid", "is DGX OS's local NVMe RAID"),
])
def test_a_mount_over_a_system_directory_or_the_local_raid_is_refused(sample_copy, decrypt, mount_point, problem):
    [error] = mount_findings(sample_copy, decrypt, mount_point)
    assert error.path == ("compute", "mounts", 0, "path") and problem in error.message and error.location.line


@pytest.mark.parametrize("mount_point", ["/mnt/data", "/raid/datasets", "/data", "/tmpdata"])
def test_a_data_directory_is_a_mount_point(sample_copy, decrypt, mount_point):
    assert mount_findings(sample_copy, decrypt, mount_point) == []
