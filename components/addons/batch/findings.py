"""What the plan flags about a stack's queues although Kueue would take them: a quota no pool can ever
fill, and a gang that no pool could run."""

import math

from gpukit.components.addons.batch.queues import Queue
from gpukit.components.findings import Finding, Severity
from gpukit.components.pools import PoolFacts
from gpukit.components.pricing import pool_quote
from gpukit.components.sharing import GPU_RESOURCE
from gpukit.components.substrate import ResolvedCluster

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


def queued_gang_findings(
    cluster: ResolvedCluster, gang_pools: list[str], gang_pods: int, timeout_minutes: int
) -> list[Finding]:
    """Per queued pool the gang check runs on: the nodes it asks for each time, how long `pulumi up`
    waits for them, and what happens if they never come (Kueue retries a failed ProvisioningRequest
    `retryStrategy.backoffLimitCount` times, 3 by default in the vendored ProvisioningRequestConfig CRD,
    then rejects the check and deactivates the workload: pkg/controller/admissionchecks/provisioning/
    controller.go @v0.19.2)."""
    found = []
    region = cluster.spec.get("region", "")
    for i, pool in enumerate(cluster.pools):
        if pool.name not in gang_pools or not pool.queued:
            continue
        nodes = math.ceil(gang_pods / max(pool.advertised_resources.get(GPU_RESOURCE, 1), 1))
        per_node = pool_quote(cluster.substrate.catalog, pool, region).per_node
        cost = (
            f"at most ${per_node * nodes * timeout_minutes / 60:,.2f} per run at on-demand list price"
            if per_node is not None
            else f"gpukit has no price for {pool.instance.name} in {region}"
        )
        found.append(
            Finding(
                Severity.INFO,
                f"gpukit:nodePools[{i}].provisioning",
                f"the batch gang check asks for {nodes} node(s) of queued pool {pool.name!r} through a "
                "ProvisioningRequest each time it runs (the first `pulumi up`, then whenever it changes), "
                f"and `pulumi up` waits up to {timeout_minutes} min for them: if the capacity does not come, "
                "Kueue retries the request (3 times) and then deactivates the check, and `pulumi up` fails "
                f"at the timeout; {cost}",
                fix="nothing to do; set gpukit:verification.enabled to false to deploy without it",
            )
        )
    return found
