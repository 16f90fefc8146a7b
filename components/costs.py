"""Hourly cost of a planned cluster: per pool at idle (min nodes) and at max, plus cluster charges.

List prices only (each catalog table's module names its region, date and source). Spot pools are
priced at the on-demand list price: spot prices move hourly and per zone, so the on-demand price is
the honest upper bound, and the report says so.
"""

from dataclasses import dataclass
from typing import Any

from gpukit.components.api_access import needs_public_endpoint
from gpukit.components.pools import PoolFacts, cluster_pool_facts
from gpukit.components.spec import (
    DEFAULT_ZONE_COUNT,
    Capacity,
    NatGateways,
    NetworkSpec,
    NodeRole,
    Platform,
    Provider,
)
from gpukit.providers.aws.catalog import (
    EKS_CONTROL_PLANE_PER_HOUR,
    NAT_GATEWAY_PER_HOUR,
    NETWORK_LOAD_BALANCER_PER_HOUR,
    SECRET_PER_HOUR,
)
from gpukit.providers.gcp.catalog import (
    CLOUD_NAT_MAX_BILLED_VMS,
    CLOUD_NAT_PER_VM_HOUR,
    EXTERNAL_IP_PER_HOUR,
    GKE_MANAGEMENT_PER_HOUR,
)


@dataclass(frozen=True)
class PoolCost:
    pool: PoolFacts
    per_node: float | None

    @property
    def idle(self) -> float | None:
        return None if self.per_node is None else self.per_node * self.pool.min_nodes

    @property
    def at_max(self) -> float | None:
        return None if self.per_node is None else self.per_node * self.pool.max_nodes

    @property
    def spot_upper_bound(self) -> bool:
        return self.pool.capacity == Capacity.SPOT


@dataclass(frozen=True)
class Charge:
    """A cluster-level charge: the same at idle and max, or growing with the node count."""

    what: str
    idle: float
    at_max: float


@dataclass(frozen=True)
class CostEstimate:
    pools: list[PoolCost]
    charges: list[Charge]

    @property
    def idle_total(self) -> float:
        return sum(c.idle for c in self.charges) + sum(p.idle or 0.0 for p in self.pools)

    @property
    def max_total(self) -> float:
        return sum(c.at_max for c in self.charges) + sum(p.at_max or 0.0 for p in self.pools)

    @property
    def unpriced(self) -> list[str]:
        return [p.pool.name for p in self.pools if p.per_node is None]


def _nat_gateways(network: NetworkSpec) -> list[Charge]:
    """A new VPC's NAT gateways (a reused VPC's are already paid for)."""
    if "vpc_id" in network:
        return []
    layout = network.get("nat_gateways", NatGateways.SINGLE)
    # Per zone: one per configured zone; a region with fewer zones than zoneCount gets fewer
    # (the plan cannot know the region's zones offline, so this is the upper bound).
    count = 1 if layout == NatGateways.SINGLE else network.get("zone_count", DEFAULT_ZONE_COUNT)
    nat = NAT_GATEWAY_PER_HOUR * count
    return [Charge(f"NAT gateway x{count}", nat, nat)]


def _cloud_nat(network: NetworkSpec, pools: list[PoolFacts]) -> list[Charge]:
    """A new network's Cloud NAT, billed per VM using it, for the first 32 VMs of a gateway."""
    if "network_id" in network:
        return []
    idle = min(sum(p.min_nodes for p in pools), CLOUD_NAT_MAX_BILLED_VMS)
    peak = min(sum(p.max_nodes for p in pools), CLOUD_NAT_MAX_BILLED_VMS)
    return [Charge("Cloud NAT (per VM)", idle * CLOUD_NAT_PER_VM_HOUR, peak * CLOUD_NAT_PER_VM_HOUR)]


def cluster_charges(args: Any, pools: list[PoolFacts]) -> list[Charge]:
    cluster = args["cluster"]
    network = cluster.get("network", {})
    platform, provider = cluster["platform"], cluster.get("provider")
    if platform == Platform.EKS:
        control_plane = Charge("EKS control plane", EKS_CONTROL_PLANE_PER_HOUR, EKS_CONTROL_PLANE_PER_HOUR)
        return [control_plane, *_nat_gateways(network)]
    if platform == Platform.GKE:
        management = Charge("GKE cluster management", GKE_MANAGEMENT_PER_HOUR, GKE_MANAGEMENT_PER_HOUR)
        return [management, *_cloud_nat(network, pools)]
    # k3s: the control plane runs on the server pool's machines, priced with the pools.
    if provider == Provider.AWS:
        secrets = 2 * SECRET_PER_HOUR
        return [
            Charge(
                "Network Load Balancer (k3s API)",
                NETWORK_LOAD_BALANCER_PER_HOUR,
                NETWORK_LOAD_BALANCER_PER_HOUR,
            ),
            Charge("Secrets Manager x2 (join secrets)", secrets, secrets),
            *_nat_gateways(network),
        ]
    if provider == Provider.GCP:
        charges = _cloud_nat(network, pools)
        if needs_public_endpoint(cluster.get("api_access_cidrs", [])):
            servers = sum(p.min_nodes for p in pools if p.role == NodeRole.SERVER)
            ips = servers * EXTERNAL_IP_PER_HOUR
            charges.append(Charge(f"external IPv4 x{servers} (k3s API)", ips, ips))
        return charges
    return []


def estimate(args: Any) -> CostEstimate:
    """Cost estimate for validated GpuClusterArgs."""
    pools = cluster_pool_facts(args)
    return CostEstimate(
        pools=[PoolCost(p, p.instance.price_per_hour) for p in pools],
        charges=cluster_charges(args, pools),
    )
