"""Rule of sizing: the GPUs' ingest demand against the storage supply."""
from __future__ import annotations

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.rule_context import Context


def sizing(ctx: Context) -> None:
    """GPU ingest demand against storage supply (a warning: sizing is a judgement, not a fault)."""
    figures = m.sizing(ctx.model)
    if figures["ratio"] is not None and figures["ratio"] < 1:
        ctx.warning("sizing", ("pod", "sizing"),
                    f"storage supply {figures['supply_mb_s']:.0f} MB/s is below the GPUs' demand {figures['demand_mb_s']:.0f} MB/s "
                    f"({figures['gpus']} GPUs x {figures['gpu_ingest_mb_s']} MB/s); ratio {figures['ratio']}",
                    "add storage ports or HA pairs, or confirm the per-GPU demand")
    if figures["platform_limit_mb_s"] is None and figures["platform"]:
        ctx.warning("sizing", ("ontap", "platform"), f"no throughput figure for platform {figures['platform']}; supply counts port line rate only",
                    "set pod.sizing.platform_limit_mb_s")
