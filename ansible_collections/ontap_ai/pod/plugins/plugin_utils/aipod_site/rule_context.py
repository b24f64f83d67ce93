"""What every rule gets: the Context (the site, shortcuts into the model, the finding sink) and host_path."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.findings import Finding
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import Site


class Context:
    """What rules need: the site, shortcuts into the model, and the finding sink."""

    def __init__(self, site: Site, check_files: bool = True):
        self.site = site
        self.model = site.model
        self.check_files = check_files
        self.findings: list[Finding] = []
        self.networks = m.networks_by_name(self.model)
        self.lifs = m.data_lifs(self.model)
        self.node_names = [node["name"] for node in m.ontap_nodes(self.model)]
        self.aggregates = {
            m.as_str(aggr.get("name")): node["name"]
            for node in m.ontap_nodes(self.model)
            for aggr in m.as_list(node.get("aggregates"))
            if isinstance(aggr, dict) and m.as_str(aggr.get("name"))
        }
        self.dgx = m.hosts_of_kind(self.model, "dgx")
        self.servers = m.hosts_of_kind(self.model, "server")
        self.switches = m.hosts_of_kind(self.model, "switch")
        self.svms = m.svms(self.model)
        self._mount_plans: dict[str, list[dict]] = {}
        self._derived: dict[str, Any] = {}

    def mount_plan(self, host: str) -> list[dict]:
        if not self._mount_plans:
            self._mount_plans = m.mount_plans(self.model)
        if host not in self._mount_plans:
            self._mount_plans[host] = m.mount_plan(self.model, host)
        return self._mount_plans[host]

    def derived(self, key: str, compute: Callable[[dict], Any]) -> Any:
        """What a layer derives from the model for its rules, computed once per validation (the
        layer names it by key; this floor knows nothing of it)."""
        if key not in self._derived:
            self._derived[key] = compute(self.model)
        return self._derived[key]

    def error(self, rule: str, path: Iterable[Any], message: str, hint: str = "") -> None:
        self._add(rule, "error", tuple(path), message, hint)

    def warning(self, rule: str, path: Iterable[Any], message: str, hint: str = "") -> None:
        self._add(rule, "warning", tuple(path), message, hint)

    def _add(self, rule, severity, path, message, hint) -> None:
        self.findings.append(Finding(rule, severity, path, message, hint, self.site.locate(path)))

    def svm_index(self, name: Any) -> int | None:
        for index, svm in enumerate(m.as_list(m.as_dict(self.model.get("ontap")).get("svms"))):
            if isinstance(svm, dict) and svm.get("name") == name:
                return index
        return None

    def network_of(self, name: Any) -> dict | None:
        return self.networks.get(name) if isinstance(name, str) else None


Rule = Callable[[Context], None]


def host_path(host: str, kind: str, *rest: Any) -> tuple:
    return ("hosts", host, kind) + rest
