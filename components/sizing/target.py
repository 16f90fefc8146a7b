"""Where workloads could run: one GPU model on one machine shape, with its price."""

from dataclasses import dataclass

from gpukit.components.catalog.gpus import GpuModel


@dataclass(frozen=True)
class Target:
    gpu: GpuModel
    machine: str
    """The machine (instance type) whose nodes carry the GPUs."""
    gpus_per_node: int
    price_per_hour: float | None
    """The machine's $/h; None where no list price is known."""
    price_note: str = ""
    """Why the price is unknown."""
    pool: str | None = None
    """The stack's pool, where the target comes from a stack."""
