"""Hourly cost of a planned cluster: per pool at idle (min nodes) and at max, plus cluster charges.

List prices only (each catalog table's module names its region, date and source). Spot pools are
priced at the on-demand list price: spot prices move hourly and per zone, so the on-demand price is
the honest upper bound, and the report says so.
"""

from dataclasses import dataclass
from typing import Any

from components.catalog.aws_instances import EKS_CONTROL_PLANE_PER_HOUR, NAT_GATEWAY_PER_HOUR
from components.catalog.gcp_machines import (
    CLOUD_NAT_MAX_BILLED_VMS,
    CLOUD_NAT_PER_VM_HOUR,
    GKE_MANAGEMENT_PER_HOUR,
)
from components.node_pools import PoolFacts, cluster_pool_facts
from components.spec import DEFAULT_ZONE_COUNT, Capacity, NatGateways, Platform


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


def cluster_charges(args: Any, pools: list[PoolFacts]) -> list[Charge]:
    cluster = args["cluster"]
    network = cluster.get("network", {})
    if cluster["platform"] == Platform.EKS:
        charges = [Charge("EKS control plane", EKS_CONTROL_PLANE_PER_HOUR, EKS_CONTROL_PLANE_PER_HOUR)]
        if "vpc_id" not in network:
            layout = network.get("nat_gateways", NatGateways.SINGLE)
            # Per zone: one per configured zone; a region with fewer zones than zoneCount gets fewer
            # (the plan cannot know the region's zones offline, so this is the upper bound).
            count = 1 if layout == NatGateways.SINGLE else network.get("zone_count", DEFAULT_ZONE_COUNT)
            nat = NAT_GATEWAY_PER_HOUR * count
            charges.append(Charge(f"NAT gateway x{count}", nat, nat))
        return charges
    if cluster["platform"] == Platform.GKE:
        charges = [Charge("GKE cluster management", GKE_MANAGEMENT_PER_HOUR, GKE_MANAGEMENT_PER_HOUR)]
        if "network_id" not in network:
            # Cloud NAT bills per VM using it, for the first 32 VMs of a gateway.
            idle = min(sum(p.min_nodes for p in pools), CLOUD_NAT_MAX_BILLED_VMS)
            peak = min(sum(p.max_nodes for p in pools), CLOUD_NAT_MAX_BILLED_VMS)
            charges.append(
                Charge("Cloud NAT (per VM)", idle * CLOUD_NAT_PER_VM_HOUR, peak * CLOUD_NAT_PER_VM_HOUR)
            )
        return charges
    return []


def estimate(args: Any) -> CostEstimate:
    """Cost estimate for validated GpuClusterArgs."""
    pools = cluster_pool_facts(args)
    return CostEstimate(
        pools=[PoolCost(p, p.instance.price_per_hour) for p in pools],
        charges=cluster_charges(args, pools),
    )
