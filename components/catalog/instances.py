"""Machine shapes a node pool can use, whichever cloud sells them, and a substrate's machine catalog.

AWS calls them instance types, Google Cloud machine types; gpukit's config calls both
`instanceType`. The tables live with their cloud: providers/aws/catalog.py, providers/gcp/catalog.py.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum

from gpukit.components.catalog.gpus import GPU_MODELS, GpuModel
from gpukit.components.catalog.lookup import UnknownNameError, lookup
from gpukit.components.spec import GpuSpec

OWN_HOSTS_NOTE = "your own hosts: no cloud list price"


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

    @property
    def own_host(self) -> bool:
        """An existing machine of the user's (k3s over SSH): no list price, nothing gpukit creates."""
        return self.price_note == OWN_HOSTS_NOTE

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


@dataclass(frozen=True)
class PriceBasis:
    """Where a catalog's prices come from: region, date and source, as plans print them."""

    region: str
    as_of: str
    source: str
    listed: bool = True
    """False for machines gpukit knows no price for (existing hosts): no cost totals are printed."""


@dataclass(frozen=True)
class MachineCatalog:
    """The machines one substrate can put in a pool, with their prices and attachable GPUs."""

    cloud: str
    """The cloud's name in messages: "unknown aws instance type"."""
    source: str
    """Where the table lives, for messages: `providers/aws/catalog.py`."""
    price_basis: PriceBasis
    machines: Mapping[str, InstanceType] = field(default_factory=dict)
    attachable_gpus: Mapping[str, tuple[str, float]] = field(default_factory=dict)
    """GPU model -> (accelerator type, price per GPU-hour), for machines that take GPUs attached."""
    attach_families: frozenset[str] = frozenset()
    """Machine families that take attached GPUs (Google Cloud N1)."""

    def machine(self, name: str) -> InstanceType:
        """Raises UnknownInstanceTypeError (with close matches from this table)."""
        return lookup(self.machines, name, UnknownInstanceTypeError)

    def can_attach_gpus(self, machine: InstanceType) -> bool:
        return machine.family in self.attach_families and not machine.has_gpu

    def pool_instance(self, name: str, gpu: GpuSpec | None = None) -> InstanceType:
        """The machine a pool runs, with `gpu` attached where the machine takes attached GPUs.

        Assumes validated input (components/validate/ reports a mismatched or unattachable `gpu`).
        """
        machine = self.machine(name)
        if gpu is not None and self.can_attach_gpus(machine):
            accelerator, price_each = self.attachable_gpus[gpu["model"]]
            return machine.with_attached_gpus(gpu["model"], gpu["count"], accelerator, price_each)
        return machine
