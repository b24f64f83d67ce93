"""A change of trident.version: install, nothing, an upgrade by the install method, or a refusal with the reason."""
from __future__ import annotations

import pytest

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.trident import chart_version_of, version_step


@pytest.mark.parametrize(("installed", "wanted", "method", "action", "says"), [
    (None, "26.02.1", "helm", "install", "not installed yet"),
    (None, "26.02.1", "preinstalled", "none", "checked, not installed"),
    ("26.02.1", "26.02.1", "helm", "none", "as the model says"),
    ("26.02.1", "26.02.2", "helm", "upgrade", "26.02.1 -> 26.02.2 through helm upgrade"),
    ("25.06.0", "26.06.0", "operator_manifests", "upgrade", "operator manifests of the new release"),
    ("26.06.0", "26.02.1", "helm", "refuse", "does not support downgrades"),
    ("26.02.1", "26.02.0", "helm", "refuse", "does not support downgrades"),
    ("25.02.0", "26.06.0", "helm", "upgrade", "25.02.0 -> 26.06.0"),
    ("25.02.0", "26.10.1", "helm", "refuse", "crosses 5 releases"),
    ("25.10.0", "26.10.0", "helm", "refuse", "upgrade to 26.10.1, not 26.10.0"),
    ("26.02.1", "26.10.0", "helm", "upgrade", "through helm"),
    ("26.02.1", "26.06.0", "preinstalled", "refuse", "install method is preinstalled"),
    ("26.06.0", "27.10.0", "helm", "upgrade", "26.06.0 -> 27.10.0"),
    ("26.06.0", "28.02.0", "helm", "refuse", "crosses 5 releases"),
    ("26.02.1", "latest", "helm", "refuse", "not a Trident release number"),
    ("v26.02.1", "26.02.1", "helm", "none", "as the model says"),
    ("26.10.0-rc.1+abc123", "26.10.0", "helm", "none", "as the model says"),
    ("22.07.0", "23.10.0", "helm", "refuse", "crosses 5 releases"),
    ("22.10.0", "23.10.0", "helm", "upgrade", "22.10.0 -> 23.10.0"),
    ("26.06.0", "26.02.1", "preinstalled", "refuse", "Set trident.version to the installed release"),
])
def test_version_step(installed, wanted, method, action, says):
    step = version_step(installed, wanted, method)
    assert step["action"] == action and says in step["reason"], step


def test_the_chart_version_of_a_release():
    assert chart_version_of("26.02.1") == "100.2602.1"
    assert chart_version_of("v25.10.0") == "100.2510.0"
    assert chart_version_of("latest") is None and chart_version_of(None) is None
