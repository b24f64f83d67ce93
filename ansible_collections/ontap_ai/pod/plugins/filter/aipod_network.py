"""Switch-layer filters: a switch plan in NX-OS or NVUE terms, and the pod's cabling plan (docs: aipod_*.yml)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ansible.errors import AnsibleFilterError

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import cabling, ipplan, nvue, nxos, nxos_users
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_network import model as network_model

PLAN_KEYS = ("switch", "platform", "mtu", "vlans", "ports", "port_channels", "member_ports", "peer_link", "vpc")


def _require_plan(plan: Any, name: str) -> Mapping:
    if not isinstance(plan, Mapping) or any(key not in plan for key in PLAN_KEYS):
        raise AnsibleFilterError(f"{name}: expected a switch plan (model | ontap_ai.pod.aipod_switch_plan(host)), got {type(plan).__name__}")
    return plan


def _require_options(options: Any, name: str) -> Mapping:
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise AnsibleFilterError(f"{name}: options must be a mapping, got {options!r}")
    return options


def aipod_nxos_intent(plan: Mapping, options: Mapping | None = None) -> dict[str, Any]:
    try:
        return nxos.intent(_require_plan(plan, "aipod_nxos_intent"), _require_options(options, "aipod_nxos_intent"))
    except ValueError as error:
        raise AnsibleFilterError(f"aipod_nxos_intent: {error}") from error


def aipod_nxos_unrendered(intent: Mapping) -> list[str]:
    if not isinstance(intent, Mapping) or "features" not in intent:
        raise AnsibleFilterError(f"aipod_nxos_unrendered: expected the output of aipod_nxos_intent, got {type(intent).__name__}")
    return nxos.unrendered_lines(intent)


def aipod_nxos_missing_lines(candidate: Any, running: Any) -> list[str]:
    if not isinstance(candidate, str) or not isinstance(running, str):
        raise AnsibleFilterError("aipod_nxos_missing_lines: expected configuration text on both sides "
                                 f"(got {type(candidate).__name__} and {type(running).__name__})")
    return nxos.missing_lines(candidate, running)


def aipod_nxos_pending(intent: Mapping, gathered: Mapping) -> list[dict]:
    if not isinstance(intent, Mapping) or "interfaces" not in intent:
        raise AnsibleFilterError(f"aipod_nxos_pending: expected the output of aipod_nxos_intent, got {type(intent).__name__}")
    if not isinstance(gathered, Mapping):
        raise AnsibleFilterError(f"aipod_nxos_pending: gathered must map resource names to gathered lists, got {gathered!r}")
    return nxos.pending(intent, gathered)


def aipod_nxos_compare(intent: Mapping, gathered: Mapping, running: Any, vpc_domain_commands: Any = None) -> dict[str, Any]:
    if not isinstance(intent, Mapping) or "interfaces" not in intent:
        raise AnsibleFilterError(f"aipod_nxos_compare: expected the output of aipod_nxos_intent, got {type(intent).__name__}")
    if not isinstance(gathered, Mapping):
        raise AnsibleFilterError(f"aipod_nxos_compare: gathered must map resource names to gathered lists, got {gathered!r}")
    if not isinstance(running, str):
        raise AnsibleFilterError(f"aipod_nxos_compare: running must be the running configuration as text, got {type(running).__name__}")
    if vpc_domain_commands is not None and not isinstance(vpc_domain_commands, list):
        raise AnsibleFilterError(f"aipod_nxos_compare: vpc_domain_commands must be a list, got {vpc_domain_commands!r}")
    return nxos.compare(intent, gathered, running, vpc_domain_commands)


def aipod_nvue_commands(plan: Mapping, options: Mapping | None = None) -> list[str]:
    return nvue.commands(_require_plan(plan, "aipod_nvue_commands"), _require_options(options, "aipod_nvue_commands"))


def aipod_nvue_release_commands(plan: Mapping) -> list[str]:
    return nvue.release_commands(_require_plan(plan, "aipod_nvue_release_commands"))


def aipod_cabling_plan(model: Mapping) -> list[dict]:
    if not isinstance(model, Mapping) or "hosts" not in model:
        raise AnsibleFilterError(f"aipod_cabling_plan: expected the site model (hostvars | ontap_ai.pod.aipod_model(groups)), got {type(model).__name__}")
    return network_model.cabling_plan(dict(model))


IP_PLAN_KINDS = ("ip-markdown", "ip-csv")


def aipod_cabling_document(model: Mapping, kind: str) -> str:
    if not isinstance(model, Mapping) or "hosts" not in model:
        raise AnsibleFilterError(f"aipod_cabling_document: expected the site model (hostvars | ontap_ai.pod.aipod_model(groups)), got {type(model).__name__}")
    if kind in IP_PLAN_KINDS:
        title = str(dict(model.get("pod") or {}).get("name") or "pod")
        plan = ipplan.ip_plan(model)
        return ipplan.markdown(plan, title) if kind == "ip-markdown" else ipplan.csv_text(plan)
    try:
        return cabling.document(model, kind, network_model.cabling_plan(dict(model)))
    except ValueError as error:
        raise AnsibleFilterError(f"aipod_cabling_document: {error}") from error


def aipod_nxos_password_hash(password: Any, salt: str | None = None) -> str:
    if not isinstance(password, str) or not password:
        raise AnsibleFilterError("aipod_nxos_password_hash: expected a password (a non-empty string from the vault)")
    try:
        return nxos_users.sha256_crypt(password, salt or nxos_users.new_salt())
    except ValueError as error:
        raise AnsibleFilterError(f"aipod_nxos_password_hash: {error}") from error


class FilterModule:
    """Switch-layer filters."""

    def filters(self):
        return {
            "aipod_nxos_intent": aipod_nxos_intent,
            "aipod_nxos_unrendered": aipod_nxos_unrendered,
            "aipod_nxos_pending": aipod_nxos_pending,
            "aipod_nxos_compare": aipod_nxos_compare,
            "aipod_nxos_missing_lines": aipod_nxos_missing_lines,
            "aipod_nxos_password_hash": aipod_nxos_password_hash,
            "aipod_nvue_commands": aipod_nvue_commands,
            "aipod_nvue_release_commands": aipod_nvue_release_commands,
            "aipod_cabling_plan": aipod_cabling_plan,
            "aipod_cabling_document": aipod_cabling_document,
        }
