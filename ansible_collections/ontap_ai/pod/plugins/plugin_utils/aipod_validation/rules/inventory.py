"""Rules of the inventory: every host is of one kind, and names are distinct."""
from __future__ import annotations

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.inventory import KIND_GROUPS
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.rule_context import Context


def host_kinds(ctx: Context) -> None:
    """Every host is of one kind (group switches, ontap, dgx or servers) and carries that kind's model."""
    groups = ctx.site.groups
    for host, body in sorted(ctx.model["hosts"].items(), key=lambda item: m.natural_key(item[0])):
        kinds = [group for group in KIND_GROUPS if group in m.as_list(body.get("groups"))]
        if not kinds:
            ctx.error("host-kind", ("hosts", host), f"host '{host}' is in none of the groups {', '.join(KIND_GROUPS)}",
                      "add it to the group of its kind in hosts.yml")
        elif len(kinds) > 1:
            ctx.error("host-kind", ("hosts", host), f"host '{host}' is in several kind groups: {', '.join(kinds)}",
                      "a host is exactly one of switch, ontap, dgx or server")
        for key, group in (("switch", "switches"), ("dgx", "dgx"), ("server", "servers")):
            if group in kinds and key not in body:
                ctx.error("host-kind", ("hosts", host), f"host '{host}' is in group {group} but has no '{key}' model",
                          f"add '{key}:' to host_vars/{host}.yml")
            if key in body and group not in kinds:
                ctx.error("host-kind", ("hosts", host, key), f"host '{host}' has a '{key}' model but is not in group {group}",
                          f"add {host} to group {group} in hosts.yml")
    clusters = groups.get("ontap", [])
    if len(clusters) != 1:
        ctx.error("host-kind", ("groups", "ontap"),
                  f"group ontap must hold exactly one host (the cluster), it holds {len(clusters)}",
                  "list the cluster once under ontap: hosts:")


def unique_names(ctx: Context) -> None:
    """Host names, ONTAP node names and the cluster name are distinct (case-insensitive)."""
    seen: dict[str, tuple] = {}
    cluster = m.as_str(m.as_dict(ctx.model.get("ontap")).get("cluster_name"))
    # The inventory host of group ontap stands for the cluster and may carry its name.
    entries = [(host, ("hosts", host)) for host in ctx.model["hosts"]
               if not (host == cluster and "ontap" in m.as_list(ctx.model["hosts"][host].get("groups")))]
    for index, node in enumerate(m.as_list(m.as_dict(ctx.model.get("ontap")).get("nodes"))):
        if isinstance(node, dict) and m.as_str(node.get("name")):
            entries.append((node["name"], ("ontap", "nodes", index, "name")))
    if cluster:
        entries.append((cluster, ("ontap", "cluster_name")))
    for name, path in entries:
        key = name.lower()
        if key in seen and seen[key] != path:
            if path[0] == "hosts" and seen[key][0] == "hosts":
                continue  # the inventory itself keeps host names unique
            ctx.error("unique-name", path, f"name '{name}' is also used at {ctx.site.locate(seen[key])}",
                      "give every host, ONTAP node and the cluster its own name")
        seen.setdefault(key, path)
