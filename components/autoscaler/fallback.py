"""Whether a spot GPU pool has an on-demand pool to fall back to under the Cluster Autoscaler, and the
plan's warning where it has none.

The autoscaler's priority expander (components/autoscaler/chart.py) tries spot groups first and moves
on to on-demand ones when spot capacity is short, but only to groups whose nodes the pending pod fits:
an on-demand pool of the same GPU model. Without one, a spot shortage leaves GPU pods pending until
spot capacity comes back (Karpenter mixes capacity types itself, and is not meant here).
"""

from collections.abc import Sequence

from gpukit.components.findings import Finding, Severity
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import Capacity


def has_on_demand_fallback(pool: PoolFacts, pools: Sequence[PoolFacts]) -> bool:
    """An on-demand GPU pool of the same GPU model exists (what the expander can fall back to)."""
    model = pool.gpu.name if pool.gpu else None
    return any(
        other.is_gpu and other.capacity != Capacity.SPOT and other.gpu is not None and other.gpu.name == model
        for other in pools
    )


def spot_fallback_findings(pools: Sequence[PoolFacts]) -> list[Finding]:
    return [
        Finding(
            Severity.WARNING,
            f"gpukit:nodePools[{i}].capacity",
            f"spot GPU pool {pool.name} has no on-demand pool of {pool.gpu.name if pool.gpu else 'its'} "
            "GPUs to fall back to: when spot capacity is short, its pods wait until some comes back (the "
            "Cluster Autoscaler tries spot first, then on-demand pools their pods fit)",
            fix=f"add an on-demand pool of the same instance type ({pool.instance.name}) with minNodes 0",
        )
        for i, pool in enumerate(pools)
        if pool.is_gpu and pool.capacity == Capacity.SPOT and not has_on_demand_fallback(pool, pools)
    ]
