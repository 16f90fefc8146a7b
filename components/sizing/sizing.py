"""Size a mix of workloads on each target: the cheapest setting per sharing mode, and the pick."""

from collections.abc import Sequence
from dataclasses import dataclass, field

from gpukit.components.sharing import MIN_REPLICAS
from gpukit.components.sizing.bounds import lower_bound
from gpukit.components.sizing.mig_plan import mig
from gpukit.components.sizing.modes import Mode, allows, isolation_rank
from gpukit.components.sizing.replicas import Item, mps, time_slicing
from gpukit.components.sizing.target import Target
from gpukit.components.sizing.workloads import Workload


@dataclass(frozen=True)
class Option:
    target: Target
    mode: Mode
    gpus: int
    replicas_per_gpu: int | None = None
    """Time-slicing and MPS: the pool's `replicas`."""
    mig_layout: dict[str, int] | None = None
    mig_profiles: dict[str, str] | None = None
    """MIG: workload name -> the profile its pods request."""

    @property
    def nodes(self) -> int:
        return -(-self.gpus // self.target.gpus_per_node)

    @property
    def per_hour(self) -> float | None:
        price = self.target.price_per_hour
        return None if price is None else round(self.nodes * price, 4)

    @property
    def memory_per_replica_gb(self) -> float | None:
        """MPS: the memory limit each replica gets (1/R of the GPU)."""
        if self.mode is Mode.MPS and self.replicas_per_gpu:
            return round(self.target.gpu.memory_gb / self.replicas_per_gpu, 2)
        return None


@dataclass(frozen=True)
class Skipped:
    target: Target
    mode: Mode
    reason: str


@dataclass
class SizingResult:
    targets: list[Target] = field(default_factory=list)
    options: list[Option] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    lower_bounds: dict[str, float] = field(default_factory=dict)
    """GPU model -> the fractional lower bound in GPUs."""

    def whole_gpu(self) -> dict[str, Option]:
        """Per GPU model, the cheapest whole-GPU option: the baseline."""
        best: dict[str, Option] = {}
        for option in self.options:
            if option.mode is Mode.WHOLE_GPU:
                current = best.get(option.target.gpu.name)
                if current is None or _cost_key(option) < _cost_key(current):
                    best[option.target.gpu.name] = option
        return best

    def recommended(self) -> Option | None:
        return min(self.options, key=_cost_key, default=None)


def _cost_key(option: Option) -> tuple[bool, float, int, int]:
    """Cheapest known $/h first (an unknown price never beats a known one), then fewest GPUs, then the
    stronger isolation."""
    price = option.per_hour
    return (price is None, price or 0.0, option.gpus, -isolation_rank(option.mode))


def replicas_of(workloads: Sequence[Workload]) -> list[Item]:
    return [Item(w.name, w.gpu_memory_gb, w.compute_share) for w in workloads for _ in range(w.replicas)]


def _mode_option(target: Target, mode: Mode, items: list[Item]) -> Option | str:
    memory = target.gpu.memory_gb
    if mode is Mode.WHOLE_GPU:
        return Option(target, mode, len(items))
    if mode is Mode.TIME_SLICING or mode is Mode.MPS:
        plan = time_slicing(items, memory) if mode is Mode.TIME_SLICING else mps(items, memory)
        # One replica per GPU shares nothing, and the config takes 2 to 48 (components/sharing.py).
        if plan is None or plan.replicas_per_gpu < MIN_REPLICAS:
            return _nothing_to_share(target, mode, items)
        return Option(target, mode, plan.gpus, replicas_per_gpu=plan.replicas_per_gpu)
    if target.gpu.mig is None:
        return f"{target.gpu.name} has no MIG"
    planned = mig(items, target.gpu.mig)
    if isinstance(planned, str):
        return planned
    return Option(target, mode, planned.gpus, mig_layout=planned.layout, mig_profiles=planned.profiles)


def _nothing_to_share(target: Target, mode: Mode, items: list[Item]) -> str:
    if len(items) == 1:
        return "a single replica has no other to share a GPU with"
    why = (
        "their memory or compute would pass the GPU's"
        if mode is Mode.TIME_SLICING
        else f"MPS gives each of {MIN_REPLICAS} clients 1/{MIN_REPLICAS} of its memory and compute"
    )
    return f"no {MIN_REPLICAS} replicas fit one {target.gpu.name} together ({why})"


def size(workloads: Sequence[Workload], targets: Sequence[Target]) -> SizingResult:
    """Every feasible mode on every target; a target whose GPU is too small for a replica is skipped
    whole (a replica larger than one GPU needs model parallelism, which no sharing mode gives)."""
    items = replicas_of(workloads)
    result = SizingResult()
    for target in targets:
        result.targets.append(target)
        gpu = target.gpu
        too_big = [w.name for w in workloads if w.gpu_memory_gb > gpu.memory_gb]
        if too_big:
            reason = f"{', '.join(too_big)} need more than one {gpu.name}'s {gpu.memory_gb} GB"
            result.skipped.append(Skipped(target, Mode.WHOLE_GPU, reason))
            continue
        result.lower_bounds[gpu.name] = round(lower_bound(items, gpu.memory_gb), 3)
        for mode in Mode:
            refused = [w.name for w in workloads if not allows(mode, w.isolation)]
            if refused:
                verb = "needs" if len(refused) == 1 else "need"
                reason = f"{', '.join(refused)} {verb} more isolation than {mode.value} gives"
                result.skipped.append(Skipped(target, mode, reason))
                continue
            option = _mode_option(target, mode, items)
            if isinstance(option, str):
                result.skipped.append(Skipped(target, mode, option))
            else:
                result.options.append(option)
    return result
