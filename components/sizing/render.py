"""`gpukit size` output: a text report and the same as JSON data."""

from typing import Any

from gpukit.components.sizing.modes import Mode
from gpukit.components.sizing.sizing import Option, SizingResult
from gpukit.components.sizing.snippet import stack_snippet


def _setting(option: Option) -> str:
    if option.mode is Mode.MIG:
        return "layout " + ", ".join(f"{n}x{p}" for p, n in (option.mig_layout or {}).items())
    if option.replicas_per_gpu is not None:
        limit = option.memory_per_replica_gb
        extra = f", {limit:g} GB each" if limit is not None else ""
        return f"{option.replicas_per_gpu} replicas/GPU{extra}"
    return "1 replica/GPU"


def _price(option: Option) -> str:
    if option.per_hour is None:
        return f"unknown ({option.target.price_note or 'no list price'})"
    return f"${option.per_hour:,.2f}/h"


def option_data(option: Option) -> dict[str, Any]:
    data: dict[str, Any] = {
        "gpuModel": option.target.gpu.name,
        "machine": option.target.machine,
        "mode": option.mode.value,
        "gpus": option.gpus,
        "gpusPerNode": option.target.gpus_per_node,
        "nodes": option.nodes,
        "perHour": option.per_hour,
    }
    if option.target.pool is not None:
        data["pool"] = option.target.pool
    if option.replicas_per_gpu is not None:
        data["replicasPerGpu"] = option.replicas_per_gpu
    if option.memory_per_replica_gb is not None:
        data["memoryPerReplicaGb"] = option.memory_per_replica_gb
    if option.mig_layout is not None:
        data["migLayout"] = option.mig_layout
        data["migProfiles"] = option.mig_profiles
    if option.per_hour is None:
        data["priceNote"] = option.target.price_note or "no list price"
    return data


def sizing_document(result: SizingResult) -> dict[str, Any]:
    best = result.recommended()
    recommended: dict[str, Any] = {}
    if best is not None:
        recommended = {**option_data(best), "stackSnippet": stack_snippet(best)}
    return {
        "options": [option_data(o) for o in result.options],
        "wholeGpu": {model: option_data(o) for model, o in result.whole_gpu().items()},
        "lowerBound": result.lower_bounds,
        "recommended": recommended,
        "skipped": [
            {
                "gpuModel": s.target.gpu.name,
                "machine": s.target.machine,
                "mode": s.mode.value,
                "reason": s.reason,
            }
            for s in result.skipped
        ],
    }


def render_text(result: SizingResult) -> str:
    lines: list[str] = []
    whole = result.whole_gpu()
    for target in result.targets:
        gpu = target.gpu
        where = f"{gpu.name} on {target.machine} ({target.gpus_per_node} GPU/node"
        where += f", pool {target.pool})" if target.pool else ")"
        skipped = [s for s in result.skipped if s.target is target]
        if gpu.name not in result.lower_bounds or not any(o.target is target for o in result.options):
            lines.append(f"{where}: skipped: {'; '.join(s.reason for s in skipped)}")
            continue
        lines.append(f"{where}: lower bound {result.lower_bounds[gpu.name]:g} GPUs")
        baseline = whole.get(gpu.name)
        for option in (o for o in result.options if o.target is target):
            ratio = ""
            if baseline is not None and option.mode is not Mode.WHOLE_GPU:
                ratio = f"  {baseline.gpus / option.gpus:.1f}x fewer GPUs than whole"
            lines.append(
                f"  {option.mode.value:<13}{_setting(option):<32}{option.gpus:>4} GPUs{option.nodes:>4} "
                f"nodes  {_price(option)}{ratio}"
            )
        lines.extend(f"  {s.mode.value:<13}not possible: {s.reason}" for s in skipped)
    best = result.recommended()
    if best is None:
        lines.append("")
        lines.append("No GPU model here fits every workload.")
        return "\n".join(lines) + "\n"
    lines.append("")
    lines.append(
        f"Recommended: {best.target.gpu.name} with {best.mode.value} ({_setting(best)}): "
        f"{best.gpus} GPUs on {best.nodes} x {best.target.machine}, {_price(best)}"
    )
    return "\n".join(lines) + "\n" + stack_snippet(best)
