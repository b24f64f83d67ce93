"""Fixtures of the storage lab tests."""
from __future__ import annotations

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "lab" / "ontap"))
from ontap_lab.private import PrivateLab  # noqa: E402


@pytest.fixture(scope="module")
def private_lab(tmp_path_factory):
    """A private ONTAP endpoint (fresh cluster) on its own port, stopped after the module's tests."""
    lab = PrivateLab(tmp_path_factory.mktemp("ontap-lab"))
    lab.lab("start")
    try:
        yield lab
    finally:
        lab.lab("stop")
