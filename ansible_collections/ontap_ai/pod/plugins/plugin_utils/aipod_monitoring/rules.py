"""Rules of the model's `monitoring` section: where Prometheus keeps its data, how often it scrapes,
and Harvest's accounts on the cluster and the switches."""
from __future__ import annotations

import os
import re

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_monitoring import alerts, dashboards, harvest
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.rule_context import Context

HARVEST_ACCOUNT = "harvest"
# NX-OS's own accounts and the names it reserves for the system (Cisco's security configuration guide):
# a Harvest user by one of these names would take over, or be refused by, the switch.
NXOS_RESERVED_USERS = frozenset({"admin", "adm", "bin", "daemon", "ftp", "ftpuser", "games", "gdm", "gopher", "halt", "lp", "mail",
                                 "mailnull", "man", "mtsuser", "news", "nobody", "nscd", "operator", "root", "rpc", "rpcuser",
                                 "shutdown", "sync", "sys", "uucp", "xfs"})
# Below this, a scrape of every DCGM exporter and Harvest poller costs more than it tells (DeepOps' 1 s).
MIN_SCRAPE_SECONDS = 10
_INTERVAL = re.compile(r"^([0-9]+)(s|m)$")


def storage_class(ctx: Context) -> None:
    """Prometheus's volume is on a StorageClass the model declares."""
    section = alerts.monitoring_section(ctx.model)
    wanted = m.as_str(m.as_dict(section.get("storage")).get("class"))
    if wanted is None:
        if alerts.enabled(ctx.model):
            ctx.warning("monitoring", ("monitoring", "enabled"), "Prometheus keeps its samples on no volume: they go with its pod",
                        "give monitoring.storage.class (a StorageClass of trident.storage_classes) and a size")
        return
    classes = [m.as_str(m.as_dict(c).get("name")) for c in m.as_list(m.as_dict(ctx.model.get("trident")).get("storage_classes"))]
    if wanted not in classes:
        ctx.error("dangling-reference", ("monitoring", "storage", "class"), f"StorageClass {wanted} is not one the model declares",
                  f"name one of trident.storage_classes ({', '.join(c for c in classes if c) or 'none is declared'})")


def scrape_interval(ctx: Context) -> None:
    interval = m.as_str(alerts.monitoring_section(ctx.model).get("scrape_interval"))
    match = _INTERVAL.match(interval or "")
    if match and int(match[1]) * (60 if match[2] == "m" else 1) < MIN_SCRAPE_SECONDS:
        ctx.error("monitoring", ("monitoring", "scrape_interval"),
                  f"a scrape every {interval} loads every exporter and the ONTAP cluster for nothing",
                  f"scrape every {MIN_SCRAPE_SECONDS}s or more (30s is the default)")


def harvest_account(ctx: Context) -> None:
    """Harvest's read-only account is its own: not ONTAP's built-in account or role, not the account
    the bundle runs as, and not the name of another tool's account (the run would reconfigure it)."""
    account = m.as_dict(m.as_dict(alerts.monitoring_section(ctx.model).get("harvest")).get("account"))
    name = m.as_str(account.get("username")) or HARVEST_ACCOUNT
    path = ("monitoring", "harvest", "account")
    admin = m.as_str(m.as_dict(ctx.model.get("ontap")).get("admin_user")) or "admin"
    for key, value, built_in, what in (("username", name, m.ONTAP_BUILT_IN_USERS | {admin.lower()}, "account"),
                                       ("role", m.as_str(account.get("role")) or "", m.ONTAP_BUILT_IN_ROLES, "role")):
        if value and value.lower() in built_in:
            mine = "the account the storage layer runs as (ontap.admin_user)" if value.lower() == admin.lower() \
                else f"ONTAP's built-in {what}"
            ctx.error("monitoring", path + (key,) if account.get(key) else ("monitoring",),
                      f"Harvest's {what} {value!r} is {mine}; the run would make it Harvest's read-only {what}",
                      f"name an {what} of the pod's own, e.g. {key}: {'harvest' if key == 'username' else 'harvest-rest-role'}")
    for index, svm in enumerate(m.svms(ctx.model)):
        for key, tool in (("trident_account", "Trident"), ("dataops_account", "the DataOps Toolkit")):
            if m.as_str(m.as_dict(svm.get(key)).get("username")) == name:
                ctx.error("monitoring", path + ("username",) if account else ("monitoring",),
                          f"Harvest's account {name} is the name of {tool}'s account on SVM {svm.get('name')}",
                          "give Harvest a name of its own (monitoring.harvest.account.username): its role is read-only "
                          f"across the cluster, and one account cannot hold both roles (ontap.svms[{index}].{key})")


def harvest_switches(ctx: Context) -> None:
    """Switch metrics (monitoring.harvest.switches): TLS verified against a CA the model names, a user of
    Harvest's own, and Nexus switches to poll (CiscoRest reads NX-OS only)."""
    section = harvest.switches_section(ctx.model)
    if section.get("enabled") is not True:
        return
    path = ("monitoring", "harvest", "switches")
    if not alerts.enabled(ctx.model):
        ctx.warning("monitoring", path + ("enabled",), "switch metrics are asked for while monitoring.enabled is not true",
                    "turn on monitoring.enabled, or leave monitoring.harvest.switches out")
        return
    if not m.as_str(section.get("ca_file")):
        ctx.error("monitoring", path + ("enabled",), "Harvest would poll the switches' NX-API without a CA to verify their certificates",
                  "give monitoring.harvest.switches.ca_file: the PEM CA that signed each switch's NX-API certificate")
    name = m.as_str(section.get("username")) or harvest.SWITCH_ACCOUNT
    if name.lower() in NXOS_RESERVED_USERS:
        ctx.error("monitoring", path + ("username",) if section.get("username") else path + ("enabled",),
                  f"Harvest's switch user {name!r} is NX-OS's own account or a name it reserves; the run would make it a read-only user",
                  "name a user of the pod's own, e.g. monitoring.harvest.switches.username: harvest")
    platforms = {m.as_str(m.as_dict(data).get("platform")) for data in m.hosts_of_kind(ctx.model, "switch").values()}
    if "nxos" not in platforms:
        ctx.warning("monitoring", path + ("enabled",),
                    f"no switch of the model runs NX-OS ({', '.join(sorted(p for p in platforms if p)) or 'none'}): "
                    "Harvest's CiscoRest collector polls none",
                    "leave monitoring.harvest.switches out; docs/monitoring.md (Switches) says how Cumulus Linux exports its own telemetry")


def dashboard_files(ctx: Context) -> None:
    """monitoring.dashboards: each entry inside the site's files, a .json file or a directory holding some;
    each file a Grafana dashboard a ConfigMap can hold; no two with one name. Described, never quoted."""
    entries = m.as_list(alerts.monitoring_section(ctx.model).get("dashboards"))
    allow_outside = m.as_dict(m.as_dict(ctx.model.get("pod")).get("security")).get("allow_files_outside_inventory") is True
    seen: dict[str, str] = {}
    for index, entry in enumerate(entries):
        path = ("monitoring", "dashboards", index)
        if not isinstance(entry, str) or not entry:
            continue
        outside = ctx.site.site_file_outside(entry)
        if outside and not allow_outside:
            ctx.error("file", path, f"dashboard {entry} {outside}", "put it under the inventory (e.g. files/dashboards/) and name it relative to it")
            continue
        if not ctx.check_files:
            continue
        target = ctx.site.site_file(entry)
        if os.path.isdir(target):
            files = sorted(name for name in os.listdir(target) if name.lower().endswith(".json"))
            if not files:
                ctx.error("file", path, f"dashboard directory {entry} holds no .json file", "copy the dashboards' JSON files there")
            targets = [(f"{entry.rstrip('/')}/{name}", os.path.join(target, name)) for name in files]
        elif os.path.isfile(target):
            targets = [(entry, target)]
        else:
            ctx.error("file", path, f"dashboard {entry} does not exist (looked at {target})",
                      "copy the dashboard there (Harvest's are in its release's grafana/dashboards)")
            continue
        for shown, file_path in targets:
            try:
                with open(file_path, encoding="utf-8") as handle:
                    problem = dashboards.dashboard_problem(handle.read(dashboards.MAX_DASHBOARD_BYTES + 1))
            except (OSError, UnicodeDecodeError):
                problem = "cannot be read as UTF-8 text"
            if problem:
                ctx.error("file", path, f"dashboard {shown} {problem}", "give a dashboard as Grafana exports it (JSON)")
            slug = dashboards.dashboard_slug(shown)
            if slug in seen:
                ctx.error("file", path, f"dashboards {seen[slug]} and {shown} would both be loaded as {slug}",
                          "rename one of them")
            seen.setdefault(slug, shown)


RULES = [storage_class, scrape_interval, harvest_account, harvest_switches, dashboard_files]
