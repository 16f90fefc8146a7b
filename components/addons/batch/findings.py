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
    pools: tuple[PoolFacts, ...], verifies: bool, gang_pools: list[str], gang_pods: int
) -> list[Finding]:
    """Per GPU pool, the largest gang it can ever run (a gang needs all its units at once: one larger
    is admitted only where its quota exceeds the pool, then times out and requeues forever); where the
    stack verifies but no pool can hold the verification's gang, that it is skipped; and a pool whose
    nodes only ProvisioningRequests start that the gang cannot run on either, that nothing verifies it."""
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
    if not verifies:
        return found
    if not gang_pools:
        found.append(
            Finding(
                Severity.WARNING,
                "gpukit:verification.enabled",
                f"no GPU pool offers {gang_pods} nvidia.com/gpu units at maxNodes, so `pulumi up` cannot run "
                "the batch verification's gang: only the per-pool checks run",
                fix=f"give a GPU pool at least {gang_pods} whole GPUs or shares at maxNodes",
            )
        )
    found += [
        Finding(
            Severity.WARNING,
            f"gpukit:nodePools[{i}].provisioning",
            f"pool {pool.name!r} starts nodes only for ProvisioningRequests, so the per-pool check cannot "
            f"run there, and it cannot hold the batch verification's gang ({gang_pods} nvidia.com/gpu units "
            "at "
            "maxNodes): `pulumi up` verifies nothing on it",
            fix=f"give the pool at least {gang_pods} whole GPUs or shares at maxNodes",
        )
        for i, pool in enumerate(pools)
        if pool.is_gpu and not pool.pending_pods_scale and pool.name not in gang_pools
    ]
    return found
