"""What the deepops_cluster role writes into DeepOps' INI inventory is one token per value: no host
name, address, user or path can add a variable, a host or a group to it, whatever validation let by."""
from __future__ import annotations

import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes.deepops import ini_token

SAFE = ["~/.ssh/id_ed25519", "dgx01", "10.61.219.31", "k8s-cp01", "ubuntu", "2222", "/work/.lab/hosts/ssh/id_ed25519", "user@realm", "a_b+c~d:e"]
UNSAFE = ["dgx04 ansible_connection=local", "dgx04\nansible_connection=local", "a#b", "a;b", "a=b", "'quoted'",
          '"quoted"', "", "[group]", "-x", ".hidden", "tab\there", "ｄｇｘ01", "dgx\u202e01", "dgx\u200b01"]


@pytest.mark.parametrize("value", SAFE)
def test_plain_values_pass_unchanged(value):
    assert ini_token(value, "v") == value


@pytest.mark.parametrize("value", UNSAFE)
def test_a_value_that_would_be_more_than_one_token_is_refused_naming_it(value):
    with pytest.raises(ValueError, match="ansible_user of dgx04"):
        ini_token(value, "ansible_user of dgx04")


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1, max_size=30))
def test_whatever_passes_reads_back_as_one_token_of_its_line(value):
    try:
        token = ini_token(value, "v")
    except ValueError:
        return
    # Ansible's INI plugin splits a host line as a POSIX shell would (quotes, # comments), then key=value.
    assert shlex.split(f"{token} ip={token}", comments=True) == [token, f"ip={token}"]
