"""The plan's "GPU models" lines: what gpukit knows of each GPU model the pools use."""

from collections.abc import Iterable

from gpukit.components.catalog.gpus import GpuModel


def describe_gpu_model(gpu: GpuModel) -> str:
    """`RTX-4090: 24 GB, Ada, compute capability 8.9, no MIG`."""
    parts = [f"{gpu.memory_gb} GB", gpu.architecture.value]
    if gpu.compute_capability:
        parts.append(f"compute capability {gpu.compute_capability}")
    if gpu.declared:
        return (
            f"{gpu.name}: {', '.join(parts)} (declared in the stack, not in gpukit's catalog: its driver "
            "minimum and MIG support are unknown, so the plan checks CUDA and driver support by "
            "architecture only, and the host preflight matches nvidia-smi's name against the model's)"
        )
    parts.append(f"MIG {', '.join(gpu.mig_profiles)}" if gpu.mig_capable else "no MIG")
    if gpu.min_driver_branch is not None:
        parts.append(f"driver R{gpu.min_driver_branch} or newer")
    return f"{gpu.name}: {', '.join(parts)}"


def gpu_model_lines(models: Iterable[GpuModel | None]) -> list[str]:
    """One line per distinct model, in pool order; empty when no pool has GPUs."""
    seen: dict[str, GpuModel] = {}
    for gpu in models:
        if gpu is not None:
            seen.setdefault(gpu.name, gpu)
    if not seen:
        return []
    return ["", "GPU models:", *(f"  {describe_gpu_model(g)}" for g in seen.values())]
