"""Meaning checks of `gpukit:nodePools[i].sharing`, shared by every substrate: what the GPU model and the
setting allow. What each substrate and driver mode supports is the substrate's own check."""

from gpukit.components.catalog.gpus import GPU_MODELS, GpuModel, fits, max_layouts
from gpukit.components.errors import Problem
from gpukit.components.sharing import MAX_REPLICAS, MIN_REPLICAS
from gpukit.components.spec import MigStrategy, SharingMode, SharingSpec
from gpukit.components.validate.common import POOLS


def validate_pool_sharing(
    index: int, sharing: SharingSpec, gpu: GpuModel | None, problems: list[Problem]
) -> None:
    """One pool's setting against its GPU model (None: a pool without GPUs)."""
    key = f"{POOLS}[{index}].sharing"
    mode = sharing["mode"]
    if gpu is None:
        problems.append(
            Problem(
                key, f"only GPU pools share GPUs: this pool's machines have none; got mode {mode.value!r}"
            )
        )
        return
    replicas = sharing.get("replicas")
    if mode in (SharingMode.TIME_SLICING, SharingMode.MPS):
        if replicas is None:
            problems.append(
                Problem(
                    f"{key}.replicas",
                    f"required for mode {mode.value}: pods per GPU, {MIN_REPLICAS} to {MAX_REPLICAS}",
                )
            )
        elif not MIN_REPLICAS <= replicas <= MAX_REPLICAS:
            problems.append(
                Problem(
                    f"{key}.replicas",
                    f"must be {MIN_REPLICAS} to {MAX_REPLICAS} pods per GPU; got {replicas}",
                )
            )
        if "mig" in sharing:
            problems.append(
                Problem(
                    f"{key}.mig",
                    f"only for mode mig; mode {mode.value} shares whole GPUs "
                    "(MPS is not supported on GPUs with MIG enabled)"
                    if mode is SharingMode.MPS
                    else f"only for mode mig; got mode {mode.value}",
                )
            )
        return
    if replicas is not None:
        problems.append(
            Problem(f"{key}.replicas", f"only for modes time-slicing and mps; got mode {mode.value}")
        )
    if mode is SharingMode.NONE:
        if "mig" in sharing:
            problems.append(Problem(f"{key}.mig", "only for mode mig; got mode none"))
        return
    # mode mig
    if not gpu.mig_capable:
        capable = ", ".join(sorted(name for name, m in GPU_MODELS.items() if m.mig_capable))
        problems.append(
            Problem(f"{key}.mode", f"mig needs a MIG-capable GPU ({capable}); this pool has {gpu.name}")
        )
        return
    mig = sharing.get("mig")
    if mig is None:
        problems.append(
            Problem(
                f"{key}.mig",
                f"required for mode mig: {{profile}} or {{layout}}, profiles {', '.join(gpu.mig_profiles)}",
            )
        )
        return
    profile, layout = mig.get("profile"), mig.get("layout")
    if (profile is None) == (layout is None):
        problems.append(
            Problem(
                f"{key}.mig",
                "set exactly one of profile (one profile on every GPU) and layout (instances per profile); "
                f"got {'both' if profile is not None else 'neither'}",
            )
        )
        return
    if profile is not None and profile not in gpu.mig_profiles:
        problems.append(
            Problem(
                f"{key}.mig.profile",
                f"must be a MIG profile of {gpu.name}: {', '.join(gpu.mig_profiles)}; got {profile!r}",
            )
        )
    if layout is not None:
        _validate_layout(f"{key}.mig", layout, mig.get("strategy", MigStrategy.SINGLE), gpu, problems)


def _validate_layout(
    key: str, layout: dict[str, int], strategy: MigStrategy, gpu: GpuModel, problems: list[Problem]
) -> None:
    known = True
    for name, count in layout.items():
        if name not in gpu.mig_profiles:
            known = False
            problems.append(
                Problem(
                    f"{key}.layout.{name}",
                    f"not a MIG profile of {gpu.name}: {', '.join(gpu.mig_profiles)}",
                )
            )
        elif count < 1:
            known = False
            problems.append(Problem(f"{key}.layout.{name}", f"must be at least 1 instance; got {count}"))
    if not layout:
        problems.append(Problem(f"{key}.layout", "must name at least one profile"))
        return
    if known and not fits(gpu, layout):
        best = "; ".join(
            "{" + ", ".join(f"{p}: {c}" for p, c in option.items()) + "}" for option in max_layouts(gpu)[:6]
        )
        problems.append(
            Problem(
                f"{key}.layout",
                f"does not fit one {gpu.name}'s compute and memory slices; layouts that fill one "
                f"include {best}",
            )
        )
    if len(layout) > 1 and strategy is not MigStrategy.MIXED:
        problems.append(
            Problem(
                f"{key}.strategy",
                "a layout of several profiles needs strategy mixed (single advertises every instance as "
                f"nvidia.com/gpu, which needs them all alike); got {strategy.value}",
            )
        )


def validate_cluster_mig_strategy(strategies: list[tuple[int, MigStrategy]], problems: list[Problem]) -> None:
    """The GPU Operator's `mig.strategy` is one per cluster: every MIG pool must take the same."""
    if not strategies:
        return
    first_index, first = strategies[0]
    for index, strategy in strategies[1:]:
        if strategy is not first:
            problems.append(
                Problem(
                    f"{POOLS}[{index}].sharing.mig.strategy",
                    "every MIG pool of a cluster takes the same strategy (the GPU Operator's mig.strategy "
                    f"is cluster-wide): gpukit:nodePools[{first_index}] has {first.value}; "
                    f"got {strategy.value}",
                )
            )
