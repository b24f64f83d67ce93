"""Releases that must work together are checked by validation (docs/support-matrix.md, "Versions that
work together"): Trident and Kubernetes, Kubespray's kube_version form, Trident's REST or ZAPI."""
from __future__ import annotations

import pytest

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes import trident as trident_plan
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes import trident_rules as trident
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import load_site
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_validation import rules


@pytest.fixture
def site(decrypt):
    site = load_site("inventories/sample", decrypt=decrypt)
    assert site.model["kubernetes"]["deployment"] == "deepops"
    return site


def findings(site):
    return [(f.severity, f.message, f.hint) for f in rules.run_rules(site, check_files=False, rules=[trident.trident_versions])]


def test_the_sample_passes(site):
    assert findings(site) == []


# ------------------------------------------------------------------------ Trident and Kubernetes
@pytest.mark.parametrize("trident_version,kubernetes,problem", [
    ("26.06.0", "1.36.1", None),
    ("26.06.0", "1.27.0", None),
    ("26.06.0", "1.37.0", "supports Kubernetes up to 1.36"),
    ("26.06.0", "1.26.9", "needs Kubernetes 1.27 or newer"),
    ("26.02.1", "1.35.0", None),
    ("26.02.1", "1.36.0", "supports Kubernetes up to 1.35"),
    ("26.02.1", "1.33.4", "needs Kubernetes 1.34 or newer"),
    ("25.10.0", "1.35.0", "supports Kubernetes up to 1.34"),
    ("26.10.1", "1.40.0", None),           # no published range in the table: not refused
])
def test_trident_kubernetes_support(trident_version, kubernetes, problem):
    found = trident_plan.kubernetes_support_problem(trident_version, kubernetes)
    assert (found is None) if problem is None else (problem in found), found


def test_a_deepops_kube_version_outside_tridents_range_is_refused(site):
    site.model["trident"]["version"] = "26.02.1"
    site.model["kubernetes"]["deepops"]["kube_version"] = "1.36.0"
    assert findings(site) == [("error", "Trident 26.02.1 supports Kubernetes up to 1.35; the cluster is 1.36.0 "
                                        "(kubernetes.deepops.kube_version)",
                               "pick a Trident release that supports this Kubernetes, or another kube_version")]
    site.model["kubernetes"]["deepops"]["kube_version"] = "1.35.2"
    assert findings(site) == []


def test_kube_version_takes_no_v_prefix(site):
    site.model["kubernetes"]["deepops"]["kube_version"] = "v1.35.2"
    [(severity, message, hint)] = findings(site)
    assert severity == "error" and "leading v" in message and hint == "write '1.35.2'"
    site.model["kubernetes"]["deepops"]["kube_version"] = "1.35"
    [(severity, message, _)] = findings(site)
    assert severity == "error" and "major.minor.patch" in message


# ----------------------------------------------------------------------------- REST or ZAPI
@pytest.mark.parametrize("ontap,use_rest,platform,expected", [
    ("9.16.1", None, "AFF A90", None),
    ("9.15.1", None, "AFF A90", None),
    ("9.14.1", None, "AFF A800", "warning"),
    ("9.14.1", True, "AFF A800", None),
    ("9.12.1", False, "AFF A800", "warning"),
    ("9.11.1", True, "AFF A800", "error"),
    ("9.11.1", None, "AFF A800", None),
    (None, None, "AFX 1K", "error"),
    ("9.17.1", True, "AFX 1K", None),
    (None, True, "AFF A800", None),        # no ONTAP release in the model: nothing to compare
])
def test_ontap_transport(ontap, use_rest, platform, expected):
    finding = trident_plan.ontap_transport_finding(ontap, use_rest, platform)
    assert (finding or {}).get("severity") == expected, finding


def test_rest_on_an_ontap_without_it_is_refused_naming_the_backend(site):
    site.model["ontap"]["version"] = "9.11.1"
    backend = site.model["trident"]["backends"][0]
    backend["use_rest"] = True
    [(severity, message, hint)] = findings(site)
    assert severity == "error" and message.startswith(f"backend {backend['name']}: ONTAP 9.11.1 has no REST API")
    assert "remove use_rest" in hint


def test_use_rest_reaches_the_backend_spec(site):
    backend = dict(site.model["trident"]["backends"][0], use_rest=True)
    spec = trident_plan.backend_spec(site.model, backend, [])
    assert spec["useREST"] is True
    assert "useREST" not in trident_plan.backend_spec(site.model, site.model["trident"]["backends"][0], [])


def test_the_trident_plan_carries_the_range_the_role_checks_at_run_time(site):
    site.model["trident"]["version"] = "26.02.1"
    plan = trident_plan.trident_plan(site.model)
    # preflight.yml: cluster >= min and cluster < below (the first minor release it does not support)
    assert plan["kubernetes_support"] == {"release": "26.02", "min": "1.34", "max": "1.35", "below": "1.36"}
    site.model["trident"]["version"] = "26.10.1"
    assert trident_plan.trident_plan(site.model)["kubernetes_support"] is None
