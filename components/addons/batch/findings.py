"""What the plan flags about a stack's queues although Kueue would take them: a quota no pool can ever
fill, and a gang that no pool could run."""

from gpukit.components.addons.batch.queues import Queue
from gpukit.components.findings import Finding, Severity
from gpukit.components.pools import PoolFacts

KEY = "gpukit:batch.queues"


def quota_findings(
    queues: tuple[Queue, ...], pools: tuple[PoolFacts, ...], configured: bool
) -> list[Finding]:
    """A warning per quota above its pool's capacity at maxNodes: Kueue admits workloads up to it, whose
    pods then wait for GPUs that never come (with an autoscaler that scales on pending pods that can be
    the intent: the fix says what keeps it)."""
    findings = []
    for i, queue in enumerate(queues):
        key = f"{KEY}[{i}].quotas" if configured else KEY
        for quota in queue.quotas:
            if quota.count > quota.capacity:
                findings.append(
                    Finding(
                        Severity.WARNING,
                        key,
                        f"queue {queue.name!r} may admit {quota.count} {quota.resource} on pool "
                        f"{quota.pool!r}, which has at most {quota.capacity} at maxNodes: workloads admitted "
                        "beyond that wait with pending pods for GPUs the pool can never start",
                        fix=f"lower the count to {quota.capacity}, or raise the pool's maxNodes",
                    )
                )
    return findings


def gang_findings(
    pools: tuple[PoolFacts, ...], verifies: bool, gang_pool: str | None, gang_pods: int
) -> list[Finding]:
    """Per GPU pool, the largest gang it can ever run (a gang needs all its units at once: one larger
    is admitted only where its quota exceeds the pool, then times out and requeues forever); and where
    the stack verifies but no pool can hold the verification's gang, that it is skipped."""
    found = [
        Finding(
            Severity.INFO,
            f"gpukit:nodePools[{i}].maxNodes",
            f"pool {pool.name!r} offers {pool.units_per_node * pool.max_nodes} GPU unit(s) at maxNodes: "
            "no gang needing more can ever run there",
            fix="raise maxNodes for larger gangs",
        )
        for i, pool in enumerate(pools)
        if pool.is_gpu and pool.units_per_node * pool.max_nodes < gang_pods
    ]
    if verifies and gang_pool is None:
        found.append(
            Finding(
                Severity.WARNING,
                "gpukit:verification.enabled",
                f"no GPU pool offers {gang_pods} nvidia.com/gpu units at maxNodes, so `pulumi up` cannot run "
                "the batch verification's gang: only the per-pool checks run",
                fix=f"give a GPU pool at least {gang_pods} whole GPUs or shares at maxNodes",
            )
        )
    return found
