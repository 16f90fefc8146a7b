"""Hourly cost of a planned cluster: per pool at idle (min nodes) and at max, plus cluster charges.

List prices for the stack's region only (MachineCatalog.quote: the catalog's home region, or the
sourced per-region table; PriceBasis names the region, date and source; each substrate adds its own
charges). A pool with no price there is never dropped silently: it is listed, and every total it
would add to is a lower bound. Spot pools are priced at the on-demand list price: spot prices move
hourly and per zone and no dated spot figure is vendored, so the on-demand price is the honest upper
bound, and the report says so. A pool whose group may launch several instance types
(`alternativeInstanceTypes`) is priced at its most expensive one: the group picks among them by spot
capacity, not by price, so only the dearest is a ceiling the budget guard can hold to.
"""

from dataclasses import dataclass

from gpukit.components.addons import registry as addons
from gpukit.components.addons.base import Unpriced
from gpukit.components.catalog.instances import PriceBasis
from gpukit.components.pools import PoolFacts
from gpukit.components.pricing import Charge, pool_quote
from gpukit.components.spec import Capacity
from gpukit.components.substrate import ResolvedCluster


@dataclass(frozen=True)
class PoolCost:
    pool: PoolFacts
    per_node: float | None
    note: str = ""
    """Why `per_node` is None (`no price for eu-west-3`, Capacity Blocks only, own hosts)."""

    @property
    def idle(self) -> float | None:
        """No node at idle costs nothing, priced or not (an unpriced pool at `minNodes: 0` idles at $0)."""
        if self.pool.min_nodes == 0:
            return 0.0
        return None if self.per_node is None else self.per_node * self.pool.min_nodes

    @property
    def at_max(self) -> float | None:
        return None if self.per_node is None else self.per_node * self.pool.max_nodes

    @property
    def spot_upper_bound(self) -> bool:
        return self.pool.capacity == Capacity.SPOT

    @property
    def missing_price(self) -> bool:
        """A cloud machine gpukit has no list price for here (own hosts are not priced at all)."""
        return self.per_node is None and not self.pool.instance.own_host


@dataclass(frozen=True)
class CostEstimate:
    pools: list[PoolCost]
    charges: list[Charge]
    basis: PriceBasis
    """Where the pools' prices come from: the stack's region, its table's date and source."""
    charges_region: str = ""
    """The region the cluster charges are list prices of (the catalog's home region)."""
    unpriced_items: tuple[Unpriced, ...] = ()
    """What add-ons run with no sourced list price (shared volumes): not in the totals (the report says
    so)."""

    @property
    def idle_total(self) -> float:
        return sum(c.idle for c in self.charges) + sum(p.idle or 0.0 for p in self.pools)

    @property
    def max_total(self) -> float:
        return sum(c.at_max for c in self.charges) + sum(p.at_max or 0.0 for p in self.pools)

    @property
    def unpriced(self) -> list[PoolCost]:
        return [p for p in self.pools if p.missing_price]

    @property
    def idle_is_lower_bound(self) -> bool:
        """An unpriced pool runs nodes at idle, and an unpriced shared volume exists at idle: the idle total
        leaves them out."""
        return any(p.pool.min_nodes > 0 for p in self.unpriced) or bool(self.unpriced_items)

    @property
    def max_is_lower_bound(self) -> bool:
        return any(p.pool.max_nodes > 0 for p in self.unpriced) or bool(self.unpriced_items)

    def max_drivers(self) -> list[tuple[str, float]]:
        """What the cost at max nodes is made of, largest first: priced pools, then charges."""
        items = [(f"pool {p.pool.name}", p.at_max) for p in self.pools if p.at_max]
        items += [(c.what, c.at_max) for c in self.charges if c.at_max]
        return sorted(items, key=lambda item: -item[1])


def estimate(cluster: ResolvedCluster) -> CostEstimate:
    """Cost estimate of a validated cluster in its region: its pools' machines, its substrate's charges
    and its add-ons'."""
    catalog = cluster.substrate.catalog
    region = cluster.spec.get("region", "")
    pools = []
    for p in cluster.pools:
        quote = pool_quote(catalog, p, region)
        pools.append(PoolCost(p, quote.per_node, quote.note))
    # Only what is built costs anything: the add-ons the cluster wants.
    built = [addon for addon in addons.ADDONS if addon.wanted(cluster)]
    return CostEstimate(
        pools=pools,
        charges=[
            *cluster.substrate.charges(cluster),
            *(c for addon in built for c in addon.charges(cluster)),
        ],
        unpriced_items=tuple(u for addon in built if (u := addon.unpriced(cluster)) is not None),
        basis=catalog.price_basis_in(region),
        charges_region=catalog.price_basis.region,
    )
