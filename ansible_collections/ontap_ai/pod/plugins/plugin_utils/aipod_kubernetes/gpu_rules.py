"""Rules of the model's `gpu` section: the GPU Operator's place and each DGX's MIG layout."""
from __future__ import annotations

from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_kubernetes import gpu
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site import model as m
from ansible_collections.ontap_ai.pod.plugins.plugin_utils.aipod_site.rule_context import Context


def gpu_operator(ctx: Context) -> None:
    """The operator has DGX workers to serve, and a cluster the bundle can reach."""
    section = gpu.gpu_section(ctx.model)
    operator = m.as_dict(section.get("operator"))
    if operator.get("enabled") is True and not gpu.dgx_workers(ctx.model):
        ctx.warning("gpu", ("gpu", "operator", "enabled"), "the GPU Operator is on, but no DGX is a Kubernetes worker",
                    "list the DGX under kube_node, or set gpu.operator.enabled: false")
    if operator.get("chart_file") is not None and operator.get("chart_repo") is not None:
        ctx.error("gpu", ("gpu", "operator", "chart_file"), "gpu.operator names both a chart archive and a chart repository",
                  "keep chart_file (a copy beside the inventory) or chart_repo, not both")


def mig_layouts(ctx: Context) -> None:
    """Each layout names a DGX worker, and a layout its GPUs can take."""
    layouts = m.as_dict(m.as_dict(gpu.gpu_section(ctx.model).get("mig")).get("layouts"))
    workers = gpu.dgx_workers(ctx.model)
    for host, layout in layouts.items():
        path = ("gpu", "mig", "layouts", host)
        if host not in workers:
            listed = ", ".join(workers[:5]) + (f", ... ({len(workers)} in all)" if len(workers) > 5 else "")
            ctx.error("dangling-reference", path, f"MIG layout for {host}, which is not a DGX Kubernetes worker",
                      f"name a DGX listed under kube_node ({listed or 'none is'}), or remove the layout")
            continue
        if not isinstance(layout, str):
            continue  # the schema refuses it
        dgx = m.as_dict(ctx.dgx.get(host))
        kind = gpu.gpu_kind(dgx)
        refusal = gpu.mig_layout_refusal(kind, layout)
        if refusal:
            ctx.error("gpu", path, f"{host}: {refusal}",
                      "pick a layout of MIG Manager's default configuration that this GPU takes, or all-disabled")
        elif gpu.mig_profiles(kind) is None and layout != "all-disabled":
            ctx.warning("gpu", path, f"{host}: the bundle does not know the MIG profiles of "
                        + (f"{kind} GPUs" if kind else "this DGX's GPUs") + f", so layout {layout} is not checked",
                        "name the GPU in gpus.model as nvidia-smi does (e.g. NVIDIA H100 80GB HBM3)")


RULES = [gpu_operator, mig_layouts]
