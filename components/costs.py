"""Hourly cost of a planned cluster: per pool at idle (min nodes) and at max, plus cluster charges.

List prices only (each catalog's PriceBasis names its region, date and source; each substrate adds
its own charges). Spot pools are
priced at the on-demand list price: spot prices move hourly and per zone, so the on-demand price is
the honest upper bound, and the report says so.
"""

from dataclasses import dataclass

from gpukit.components.pools import PoolFacts
from gpukit.components.resolved import ResolvedCluster
from gpukit.components.spec import Capacity


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


def estimate(cluster: ResolvedCluster) -> CostEstimate:
    """Cost estimate of a validated cluster: its pools' machines and its substrate's charges."""
    return CostEstimate(
        pools=[PoolCost(p, p.instance.price_per_hour) for p in cluster.pools],
        charges=cluster.substrate.charges(cluster),
    )
