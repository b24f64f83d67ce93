"""The one pending item shape every layer's compare entry point hands on."""
from __future__ import annotations

import pytest

from ansible_collections.ontap_ai.pod.plugins.filter.aipod_pending import aipod_pending_lines
from ansible_collections.ontap_ai.pod.plugins.module_utils import aipod_pending as p


def test_an_item_has_every_key_and_nothing_else():
    assert p.item("Ethernet1/2", "mtu", 1500, 9216) == {
        "object": "Ethernet1/2", "field": "mtu", "before": 1500, "after": 9216, "action": "modify", "reason": None}
    assert p.problems([p.item("Ethernet1/2", "mtu", 1500, 9216)]) == []


def test_an_unknown_action_is_a_programming_error():
    with pytest.raises(ValueError, match="one of create"):
        p.item("vol1", action="remove")


@pytest.mark.parametrize("value, why", [
    ("Ethernet1/2: mtu is 1500", "expected a list"),
    (["Ethernet1/2: mtu is 1500"], "expected the keys"),
    ([{**p.item("x"), "extra": 1}], "expected the keys"),
    ([{**p.item("x"), "action": "remove"}], "action one of"),
    ([{**p.item("x"), "object": ""}], "object must be a name"),
    ([p.item("svm1", action="refuse")], "says why in reason"),
])
def test_what_is_not_a_pending_list_is_named(value, why):
    assert why in " ".join(p.problems(value))


def test_changes_gives_one_modify_item_per_field_in_field_order():
    found = p.changes("lif data1", {"mtu": {"before": 1500, "after": 9000}, "address": {"before": "a", "after": "b"}})
    assert [(i["field"], i["before"], i["after"], i["action"]) for i in found] == [("address", "a", "b", "modify"), ("mtu", 1500, 9000, "modify")]


@pytest.mark.parametrize("entry, sentence", [
    (p.item("Ethernet1/2", "mtu", 1500, 9216), "Ethernet1/2: mtu is 1500, the model says 9216"),
    (p.item("VLAN 3111", "name", None, "nfs", action="create"), "VLAN 3111: missing, the model sets name nfs"),
    (p.item("Ethernet1/3", "description", "spare port", None), 'Ethernet1/3: description is "spare port", the model says none'),
    (p.item("rule 1", "clients", ["0.0.0.0/0"], ["10.0.0.0/8"]), 'rule 1: clients is ["0.0.0.0/0"], the model says ["10.0.0.0/8"]'),
    (p.item("volume old", action="delete"), "volume old: present, the model no longer has it"),
    (p.item("volume data", action="refuse", reason="it would shrink"), "volume data: left to an operator: it would shrink"),
    (p.item("file /etc/x", action="unread", reason="no answer"), "file /etc/x: not read (no answer)"),
    (p.item("file /etc/x", "content", reason="differs from the model"), "file /etc/x: differs from the model"),
])
def test_each_item_reads_as_one_sentence(entry, sentence):
    assert p.describe(entry) == sentence


def test_the_filter_refuses_what_is_not_a_pending_list():
    from ansible.errors import AnsibleFilterError
    assert aipod_pending_lines([p.item("a", "b", 1, 2)]) == ["a: b is 1, the model says 2"]
    with pytest.raises(AnsibleFilterError, match="expected the keys"):
        aipod_pending_lines(["a sentence"])


def test_the_difference_is_the_sentence_without_its_object():
    entry = p.item("Ethernet1/2", "mtu", 1500, 9216)
    assert p.difference(entry) == "mtu is 1500, the model says 9216"
    assert p.describe(entry) == "Ethernet1/2: " + p.difference(entry)
