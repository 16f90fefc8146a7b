"""A cluster after validation: its typed args, its substrate, and each pool's facts, computed once.

Everything downstream (preflight, costs, the build, the plan report) reads this one object, so a run
parses, validates and derives pool facts exactly once (components/config/resolve.py makes it).
"""

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpukit.components.pools import PoolFacts
from gpukit.components.spec import ClusterSpec, DriverMode, GpuOperatorSpec, VerificationSpec
from gpukit.components.substrate import Substrate

if TYPE_CHECKING:
    from gpukit.components.cluster import GpuClusterArgs


@dataclass(frozen=True)
class ResolvedCluster:
    args: "GpuClusterArgs"
    """Validated args; enums are enum members, defaults applied where the schema has them."""
    substrate: Substrate
    pools: tuple[PoolFacts, ...]
    """In config order: pools[i] is gpukit:nodePools[i]."""

    @property
    def spec(self) -> ClusterSpec:
        return self.args["cluster"]

    @property
    def name(self) -> str:
        return self.spec["name"]

    @property
    def operator(self) -> GpuOperatorSpec:
        return self.args["gpu_operator"]

    @property
    def driver(self) -> DriverMode:
        return self.operator["driver"]

    @property
    def cuda_version(self) -> str | None:
        """The newest CUDA the workloads use, where the stack says."""
        return self.args.get("workloads", {}).get("cuda_version")

    @property
    def verification(self) -> VerificationSpec:
        """`gpukit:verification`, defaults filled in by the parser (a library caller may omit it)."""
        return self.args.get("verification", {})

    @property
    def verifies_gpus(self) -> bool:
        """Whether `pulumi up` runs a verification Job per GPU pool (and there are GPU pools)."""
        return bool(self.verification.get("enabled", False)) and bool(self.gpu_pools)

    @property
    def gpu_pools(self) -> tuple[PoolFacts, ...]:
        return tuple(p for p in self.pools if p.is_gpu)
