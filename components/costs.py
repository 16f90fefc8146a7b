"""Hourly cost of a planned cluster: per pool at idle (min nodes) and at max, plus fixed charges.

List prices only (see components/catalog/aws_instances.py for region, date and source). Spot pools
are priced at the on-demand list price: spot prices move hourly and per zone, so the on-demand
price is the honest upper bound, and the report says so.
"""

from dataclasses import dataclass
from typing import Any

from components.catalog.aws_instances import EKS_CONTROL_PLANE_PER_HOUR, NAT_GATEWAY_PER_HOUR
from components.node_pools import PoolFacts, pool_facts
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
class CostEstimate:
    pools: list[PoolCost]
    fixed: list[tuple[str, float]]
    """Charges that do not scale with nodes: (what, USD per hour)."""

    @property
    def fixed_total(self) -> float:
        return sum(price for _, price in self.fixed)

    @property
    def idle_total(self) -> float:
        return self.fixed_total + sum(p.idle or 0.0 for p in self.pools)

    @property
    def max_total(self) -> float:
        return self.fixed_total + sum(p.at_max or 0.0 for p in self.pools)

    @property
    def unpriced(self) -> list[str]:
        return [p.pool.name for p in self.pools if p.per_node is None]


def fixed_charges(args: Any) -> list[tuple[str, float]]:
    cluster = args["cluster"]
    charges: list[tuple[str, float]] = []
    if cluster["platform"] == Platform.EKS:
        charges.append(("EKS control plane", EKS_CONTROL_PLANE_PER_HOUR))
        network = cluster["network"]
        if "vpc_id" not in network:
            layout = network.get("nat_gateways", NatGateways.SINGLE)
            # Per zone: one per configured zone; a region with fewer zones than zoneCount gets fewer
            # (the plan cannot know the region's zones offline, so this is the upper bound).
            count = 1 if layout == NatGateways.SINGLE else network.get("zone_count", DEFAULT_ZONE_COUNT)
            charges.append((f"NAT gateway x{count}", NAT_GATEWAY_PER_HOUR * count))
    return charges


def estimate(args: Any) -> CostEstimate:
    """Cost estimate for validated GpuClusterArgs."""
    pools = [pool_facts(spec) for spec in args["node_pools"]]
    return CostEstimate(
        pools=[PoolCost(p, p.instance.price_per_hour) for p in pools],
        fixed=fixed_charges(args),
    )
