"""Time-slicing and MPS: the fewest GPUs under one pool-wide replicas setting, exactly.

Both are set per pool as one number of replicas R per GPU (the device plugin's `replicas`), and the
scheduler sees only counts: any R of the pool's pods may land on one GPU. So a setting is safe only
when ANY R replicas fit one GPU, and the fewest GPUs for N replicas is ceil(N / R) for the largest
safe R. Per-GPU bin packing would promise placements nothing in Kubernetes enforces, so it is not
used here (components/sizing/bounds.py gives the packing-free lower bound instead).

- Time-slicing does not partition anything: any R replicas fit when the R largest memory needs sum to
  at most the GPU's memory and the R largest compute shares sum to at most 1. gpukit does NOT
  oversubscribe compute: time-slicing divides time, so past 1 every replica gets less than the share
  it asked for.
- MPS gives each of R clients 1/R of the memory and of the compute, enforced by its control daemon
  (k8s-device-plugin README, "MPS"), so every replica must fit 1/R.
- R <= 48 for both: GKE caps clients per GPU at 48 (GKE ComputeClass reference, 2..48; NVIDIA's MIG
  User Guide, "MIG with CUDA MPS": 48 MPS clients per GPU). A cap that holds on every substrate.
"""

from collections.abc import Sequence
from dataclasses import dataclass

MAX_CLIENTS_PER_GPU = 48
EPSILON = 1e-9  # shares like 0.1 * 10 sum to 0.9999999999999999 or 1.0000000000000002


@dataclass(frozen=True)
class Item:
    """One replica of a workload."""

    workload: str
    memory_gb: float
    compute: float


@dataclass(frozen=True)
class ReplicaPlan:
    replicas_per_gpu: int
    gpus: int


def _plan(count: int, largest_safe: int) -> ReplicaPlan | None:
    if largest_safe < 1:
        return None
    gpus = -(-count // largest_safe)
    # The smallest R that still needs no more GPUs: fewer replicas share each GPU.
    return ReplicaPlan(-(-count // gpus), gpus)


def time_slicing(items: Sequence[Item], gpu_memory_gb: float) -> ReplicaPlan | None:
    """None where not even one replica fits a GPU."""
    memory = sorted((i.memory_gb for i in items), reverse=True)
    compute = sorted((i.compute for i in items), reverse=True)
    safe, used_memory, used_compute = 0, 0.0, 0.0
    for r in range(min(len(items), MAX_CLIENTS_PER_GPU)):
        used_memory += memory[r]
        used_compute += compute[r]
        if used_memory > gpu_memory_gb + EPSILON or used_compute > 1 + EPSILON:
            break
        safe = r + 1
    return _plan(len(items), safe)


def mps(items: Sequence[Item], gpu_memory_gb: float) -> ReplicaPlan | None:
    """None where not even one replica fits a GPU."""
    largest_memory = max(i.memory_gb for i in items)
    largest_compute = max(i.compute for i in items)
    safe = 0
    for r in range(1, min(len(items), MAX_CLIENTS_PER_GPU) + 1):
        if largest_memory <= gpu_memory_gb / r + EPSILON and largest_compute <= 1 / r + EPSILON:
            safe = r
    return _plan(len(items), safe)
