"""Preflight findings about cost: pools with no price in the stack's region, and the budget guard.

The guard (`gpukit:budget.maxHourlyCost`) refuses a stack whose cost at max nodes is above the limit:
an error finding, so `gpukit plan` exits 1 and `pulumi up` stops before any resource is created
(program.build raises PreflightError first). The config is valid; the budget refuses it, which is why
this is a finding (exit 1), not a config problem (exit 2).

A pool with no price makes the cost at max nodes a lower bound. A lower bound above the limit refuses
(the real cost is higher still). A lower bound at or below it proves nothing, so it refuses too unless
`gpukit:budget.allowUnpriced` is true, which turns it into a warning naming the unpriced pools.
"""

from gpukit.components.addons.base import Unpriced
from gpukit.components.costs import CostEstimate, PoolCost, estimate
from gpukit.components.findings import Finding, Severity
from gpukit.components.substrate import ResolvedCluster

LIMIT_KEY = "gpukit:budget.maxHourlyCost"
ALLOW_KEY = "gpukit:budget.allowUnpriced"


def _usd(value: float) -> str:
    return f"${value:,.2f}/h"


def _unpriced_names(pools: list[PoolCost]) -> str:
    return ", ".join(f"{p.pool.name} ({p.pool.instance.name}: {p.note})" for p in pools)


def _unpriced_parts(pools: list[PoolCost], items: tuple[Unpriced, ...]) -> str:
    """What has no price, pools and what add-ons run: `pool(s) a (...) and shared volume(s) b`."""
    parts = [f"pool(s) {_unpriced_names(pools)}"] if pools else []
    parts += [f"{item.what} {', '.join(item.names)}" for item in items]
    return " and ".join(parts)


def unpriced_findings(cluster: ResolvedCluster, costs: CostEstimate) -> list[Finding]:
    """One info per pool with no list price here: its cost is left out of every total it adds to."""
    index = {p.name: i for i, p in enumerate(cluster.pools)}
    return [
        Finding(
            Severity.INFO,
            f"gpukit:nodePools[{index[pc.pool.name]}].instanceType",
            f"{pc.pool.instance.name} has no list price in gpukit's tables ({pc.note}); the cost totals "
            "that include its nodes are lower bounds",
        )
        for pc in costs.unpriced
    ]


def budget_findings(cluster: ResolvedCluster, costs: CostEstimate) -> list[Finding]:
    """The budget guard's verdict on `costs` (nothing when the stack sets no limit)."""
    budget = cluster.args.get("budget", {})
    limit = budget.get("max_hourly_cost")
    if limit is None:
        return []
    total = costs.max_total
    lower = costs.max_is_lower_bound
    unpriced = [p for p in costs.unpriced if p.pool.max_nodes > 0]
    unpriced_text = _unpriced_parts(unpriced, costs.unpriced_items)
    and_backends = "".join(f" and {item.instead}" for item in costs.unpriced_items)
    drivers = ", ".join(f"{what} {_usd(cost)}" for what, cost in costs.max_drivers()) or "nothing priced"
    cost_text = f"{'at least ' if lower else ''}{_usd(total)}"
    where = f"at list prices in {costs.basis.region}"
    if total > limit:
        missing = f"; no price for {unpriced_text}, so it costs more" if lower else ""
        return [
            Finding(
                Severity.ERROR,
                LIMIT_KEY,
                f"the stack costs {cost_text} at max nodes {where}, over the limit of {_usd(limit)}; "
                f"largest first: {drivers}{missing} (nothing is created)",
                fix=f"lower maxNodes or pick cheaper instance types, or raise {LIMIT_KEY}",
            )
        ]
    if lower and not budget.get("allow_unpriced", False):
        return [
            Finding(
                Severity.ERROR,
                LIMIT_KEY,
                f"cannot prove the stack stays within {_usd(limit)}: {unpriced_text} "
                f"have no price, so the cost at max nodes is only known to be {cost_text} {where}",
                fix=f"pick priced instance types{and_backends}, or set {ALLOW_KEY}: true to accept the "
                "lower bound",
            )
        ]
    if lower:
        return [
            Finding(
                Severity.WARNING,
                LIMIT_KEY,
                f"checked a lower bound only: the stack costs {cost_text} at max nodes {where}, within "
                f"{_usd(limit)}, but {unpriced_text} have no price and are not counted "
                f"({ALLOW_KEY} is true)",
            )
        ]
    return []


def price_findings(cluster: ResolvedCluster) -> list[Finding]:
    costs = estimate(cluster)
    return [*budget_findings(cluster, costs), *unpriced_findings(cluster, costs)]
