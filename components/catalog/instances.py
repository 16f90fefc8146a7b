"""Machine shapes a node pool can use, whichever cloud sells them, and the look-up per cloud.

AWS calls them instance types, Google Cloud machine types; gpukit's config calls both
`instanceType`. The tables live in aws_instances.py and gcp_machines.py.
"""

from dataclasses import dataclass, replace
from enum import Enum

from gpukit.components.catalog.gpus import GPU_MODELS, GpuModel
from gpukit.components.catalog.lookup import UnknownNameError


class CpuArch(str, Enum):
    X86_64 = "x86_64"
    ARM64 = "arm64"


@dataclass(frozen=True)
class InstanceType:
    name: str
    vcpu: int
    memory_gib: int
    price_per_hour: float | None
    """On-demand list price (the table's module says region and date); None where none is published."""
    gpu_model: str | None = None
    gpu_count: int = 0
    efa_interfaces: int | None = 0
    """AWS: EFA interfaces (None where no source gives a number)."""
    arch: CpuArch = CpuArch.X86_64
    min_driver_branch: int | None = None
    """Oldest driver branch this machine family works with, where the cloud states one."""
    accelerator_type: str | None = None
    """Google Cloud: the accelerator type GKE attaches (`nvidia-l4`)."""
    hyperdisk_only: bool = False
    """Google Cloud: the family boots from and attaches Hyperdisk only (no Persistent Disk)."""
    price_note: str = ""
    """Why `price_per_hour` is None, for plans."""

    @property
    def family(self) -> str:
        return self.name.split(".", 1)[0] if "." in self.name else self.name.rsplit("-", 1)[0]

    @property
    def gpu(self) -> GpuModel | None:
        return GPU_MODELS[self.gpu_model] if self.gpu_model else None

    @property
    def has_gpu(self) -> bool:
        return self.gpu_count > 0

    def with_attached_gpus(
        self, model: str, count: int, accelerator_type: str, price_each: float | None
    ) -> "InstanceType":
        """This machine with `count` GPUs attached (Google Cloud N1 + T4): price is machine + GPUs."""
        price = (
            None
            if self.price_per_hour is None or price_each is None
            else self.price_per_hour + count * price_each
        )
        return replace(
            self,
            name=f"{self.name}+{count}x{model}",
            gpu_model=model,
            gpu_count=count,
            accelerator_type=accelerator_type,
            price_per_hour=price,
        )


class UnknownInstanceTypeError(UnknownNameError):
    pass
