"""List prices of what a cluster runs: one node of a pool, and the charges beyond its machines.

Pure data and look-ups, below everything that prices (components/costs.py adds them up for the plan and
the budget guard; the substrates and add-ons declare their charges with `Charge`).
"""

from dataclasses import dataclass

from gpukit.components.catalog.instances import MachineCatalog, Quote
from gpukit.components.pools import PoolFacts

HOURS_PER_MONTH = 730
"""The month AWS and Google Cloud price monthly storage over (AWS pricing pages: "730 hours in a month";
Google Cloud pricing calculator likewise)."""


@dataclass(frozen=True)
class Charge:
    """A cluster-level charge: the same at idle and max, or growing with the node count."""

    what: str
    idle: float
    at_max: float


def pool_quote(catalog: MachineCatalog, pool: PoolFacts, region: str) -> Quote:
    """The price of one node of `pool`: its dearest instance type's, since its group may launch any of
    them (a g6.xlarge pool with a g6.16xlarge alternative can run 4x the price per node); no price when
    any type has none here (the note names that type when it is an alternative)."""
    primary = catalog.quote(pool.instance, region)
    if primary.per_node is None:
        return primary
    per_node = primary.per_node
    for machine in pool.alternative_instances:
        quote = catalog.quote(machine, region)
        if quote.per_node is None:
            return Quote(None, f"alternative {machine.name}: {quote.note}")
        per_node = max(per_node, quote.per_node)
    return Quote(per_node, primary.note)


def money(value: float) -> str:
    """A cost as findings state it: `$1,234.56`."""
    return f"${value:,.2f}"
