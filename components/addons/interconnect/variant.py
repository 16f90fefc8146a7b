"""What a substrate does for the pools it sets a fabric up for: the interconnect add-on's variant.

A substrate names the fabric kinds it builds in `Substrate.fabrics` (pools get them in their facts,
components/pools.py) and declares `addon_variants = {INTERCONNECT: <an InterconnectVariant>}` for what
workloads on those pools need and the checks only it can make (EKS's in
providers/aws/eks/interconnect_variant.py). A substrate without one builds no fabric: its pools run on
the ordinary network, and the plan says so for machines that have one.
"""

from dataclasses import dataclass, field

from gpukit.components.addons.base import ValidationScope, addon_variant
from gpukit.components.errors import Problem
from gpukit.components.findings import Finding
from gpukit.components.pools import PoolFacts
from gpukit.components.substrate import ResolvedCluster, Substrate

INTERCONNECT = "interconnect"
"""The add-on's name: its key in Substrate.addon_variants."""


@dataclass(frozen=True)
class FabricUse:
    """What a pod on one node of a fabric pool asks for and sets to use the fabric (the `pools` stack
    output and the plan carry it, so a training job can copy it)."""

    requests: dict[str, str]
    """Resources one pod per node requests (`vpc.amazonaws.com/efa: 32`), as Kubernetes quantities."""
    annotations: dict[str, str] = field(default_factory=dict)
    """Annotations the pod carries to attach the fabric's NICs (GKE multi-network)."""
    env: dict[str, str] = field(default_factory=dict)
    """The NCCL / libfabric environment the fabric needs in the training container."""
    placement: str = ""
    """Where the pool's nodes are held: `one zone, a cluster placement group`."""
    notes: tuple[str, ...] = ()
    """What a job must know beyond the requests (a resource the autoscaler cannot plan for)."""
    gpudirect: bool = False
    """Whether NCCL's channels between two nodes read and write GPU memory directly on this machine
    (GPUDirect RDMA): the NCCL check then requires it of the run."""


class InterconnectVariant:
    """A substrate's fabric set-up. Subclass it; `use` must be implemented for every kind the substrate
    lists in `fabrics`."""

    def use(self, cluster: ResolvedCluster, pool: PoolFacts) -> FabricUse:
        """What a pod on `pool` (which has a fabric) requests and sets."""
        raise NotImplementedError(f"{type(self).__name__} builds fabrics but says nothing of their use")

    def problems(self, scope: ValidationScope) -> list[Problem]:
        """Checks of the fabric pools only this substrate makes (the one-zone and one-layout rules are
        every fabric's: components/pools.py fabric_conflicts)."""
        return []

    def findings(self, cluster: ResolvedCluster) -> list[Finding]:
        return []


def interconnect_variant(substrate: Substrate) -> InterconnectVariant:
    return addon_variant(substrate, INTERCONNECT, InterconnectVariant, InterconnectVariant())
