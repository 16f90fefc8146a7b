"""The GPUs of an SSH host pool: a catalog model in any spelling nvidia-smi or people use, or a model
gpukit does not know, declared with its memory and architecture (`gpu: {model, count, memoryGb,
architecture, computeCapability?}`)."""

import re

from gpukit.components.catalog.gpu_names import (
    AmbiguousGpuModelError,
    UnknownGpuNameError,
    canonical_gpu_name,
    label_safe,
)
from gpukit.components.catalog.gpus import GPU_MODELS
from gpukit.components.errors import Problem
from gpukit.components.spec import GpuArchitecture, GpuSpec

MAX_GPUS_PER_HOST = 16
MAX_MEMORY_GB = 1024
_CC_RE = re.compile(r"[1-9][0-9]?\.[0-9]")
_DECLARED_KEYS = ("memory_gb", "architecture", "compute_capability")
_CAMEL = {"memory_gb": "memoryGb", "architecture": "architecture", "compute_capability": "computeCapability"}


def _known_models() -> str:
    return ", ".join(GPU_MODELS)


def _declare_hint() -> str:
    archs = ", ".join(a.value for a in GpuArchitecture)
    return f"; a model gpukit does not know can be declared with gpu.memoryGb and gpu.architecture ({archs})"


def validate_pool_gpu(key: str, gpu: GpuSpec, problems: list[Problem]) -> None:
    """Problems of one SSH pool's `gpu` (key: `gpukit:nodePools[i].gpu`)."""
    declared = [k for k in _DECLARED_KEYS if k in gpu]
    try:
        canonical = canonical_gpu_name(gpu["model"])
    except AmbiguousGpuModelError as err:
        problems.append(
            Problem(
                f"{key}.model",
                f"{gpu['model']!r} could be {', '.join(err.candidates)}: write one of them",
            )
        )
        return
    except UnknownGpuNameError as err:
        if declared:
            _validate_declared(key, gpu, problems)
            return
        hint = f"; did you mean {', '.join(err.suggestions)}?" if err.suggestions else ""
        problems.append(
            Problem(
                f"{key}.model",
                f"unknown GPU model {gpu['model']!r}{hint} Known models: {_known_models()}{_declare_hint()}",
            )
        )
        return
    if declared:
        known = GPU_MODELS[canonical]
        problems.append(
            Problem(
                f"{key}.{_CAMEL[declared[0]]}",
                f"gpukit knows {gpu['model']!r} as {canonical} ({known.memory_gb} GB, "
                f"{known.architecture.value}, compute capability {known.compute_capability}): remove "
                f"{', '.join('gpu.' + _CAMEL[k] for k in declared)}",
            )
        )


def _validate_declared(key: str, gpu: GpuSpec, problems: list[Problem]) -> None:
    if not label_safe(gpu["model"]):
        problems.append(
            Problem(f"{key}.model", f"needs a letter or digit to name the model; got {gpu['model']!r}")
        )
    if "memory_gb" not in gpu:
        problems.append(
            Problem(f"{key}.memoryGb", f"required for a model gpukit does not know ({gpu['model']!r})")
        )
    elif not 1 <= gpu["memory_gb"] <= MAX_MEMORY_GB:
        problems.append(Problem(f"{key}.memoryGb", f"must be 1 to {MAX_MEMORY_GB}; got {gpu['memory_gb']}"))
    if "architecture" not in gpu:
        archs = ", ".join(a.value for a in GpuArchitecture)
        problems.append(
            Problem(
                f"{key}.architecture",
                f"required for a model gpukit does not know ({gpu['model']!r}): one of {archs}",
            )
        )
    cc = gpu.get("compute_capability")
    if cc is not None and not _CC_RE.fullmatch(cc):
        problems.append(Problem(f"{key}.computeCapability", f"must be major.minor like 8.9; got {cc!r}"))
