"""The storage filters as Ansible calls them: argument checks and the transient-failure test."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError
from ontap_lab_client import LAB_MODEL

from ansible_collections.ontap_ai.pod.plugins.filter.aipod_ontap import FilterModule

FILTERS = FilterModule().filters()


def test_compare_filter_checks_its_arguments():
    with pytest.raises(AnsibleFilterError, match="site model"):
        FILTERS["aipod_ontap_compare"]({"not": "a model"}, {}, "network")
    with pytest.raises(AnsibleFilterError, match="unknown area"):
        FILTERS["aipod_ontap_compare"](LAB_MODEL, {}, "bogus")
    with pytest.raises(AnsibleFilterError, match="ontap_info"):
        FILTERS["aipod_ontap_compare"](LAB_MODEL, ["records"], "network")
    compared = FILTERS["aipod_ontap_compare"](LAB_MODEL, None, "lifs")
    assert len(compared["plan"]["lifs"]) == 9 and [item["action"] for item in compared["pending"]] == ["create"] * 9


def test_objects_filter_counts_the_model():
    # two tool roles and accounts, and the seven objects of imagenet's copy and cache on lab-dr among them
    assert sum(FILTERS["aipod_ontap_objects"](LAB_MODEL).values()) == 43


@pytest.mark.parametrize("result, transient", [
    ({"failed": True, "msg": "calling: svm/svms: got {'message': 'Service Unavailable', 'code': '503'}."}, True),
    ({"failed": True, "msg": "Error using REST for version, error: HTTPSConnectionPool(...): Max retries exceeded "
                             "(Caused by NewConnectionError(... [Errno 111] Connection refused))"}, True),
    ({"failed": True, "msg": "Error: REST requires ONTAP 9.7 or later for interface APIs."}, True),
    ({"failed": True, "exception": "(traceback unavailable)"}, True),
    ({"failed": True, "msg": "Max retries exceeded (Caused by SSLError(CERTIFICATE_VERIFY_FAILED))"}, False),
    ({"failed": True, "msg": "User is not authorized."}, False),
    ({"failed": True, "msg": "Error creating volume data: Duplicate volume name"}, False),
    ({"failed": False, "msg": "503"}, False),
    ("not a result", False),
])
def test_transient_failures_are_told_apart(result, transient):
    assert FILTERS["aipod_ontap_transient"](result) is transient


@pytest.mark.parametrize(("platform", "disaggregated"), [("AFX 1K", True), ("afx", True), ("AFF A90", False), (None, False)])
def test_only_an_afx_platform_is_disaggregated(platform, disaggregated):
    assert FILTERS["aipod_ontap_disaggregated"]({"platform": platform}) is disaggregated
    with pytest.raises(AnsibleFilterError, match="ontap section"):
        FILTERS["aipod_ontap_disaggregated"]("AFX")
