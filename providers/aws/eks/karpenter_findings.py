"""What the plan says about the pools Karpenter owns (cluster.autoscaler: karpenter). Pure."""

from gpukit.components.findings import Finding, Severity
from gpukit.components.pools import PoolFacts
from gpukit.components.substrate import ResolvedCluster
from gpukit.components.validate.common import POOLS
from gpukit.providers.aws.eks.karpenter_objects import CONSOLIDATE_AFTER, capacity_types, node_pool_limits
from gpukit.providers.aws.karpenter_validation import uses_karpenter


def _owned(i: int, pool: PoolFacts) -> Finding:
    zones = ", ".join(pool.zones) or "any zone of the cluster's private subnets"
    limits = node_pool_limits(pool)
    return Finding(
        Severity.INFO,
        f"{POOLS}[{i}]",
        f"Karpenter owns this pool: NodePool and EC2NodeClass {pool.name}, no node group. It launches "
        f"{', '.join(pool.instance_type_names)} ({' then '.join(capacity_types(pool))}) in {zones} when a "
        f"pending pod needs one, from zero, up to {limits['nodes']} nodes (cpu {limits['cpu']}), and "
        f"removes a node {CONSOLIDATE_AFTER} after its last GPU pod ends; it never evicts a pod annotated "
        'karpenter.sh/do-not-disrupt: "true" (EC2 still takes spot machines back)',
    )


def _sized_by_whole_gpus(i: int, pool: PoolFacts) -> Finding:
    units = pool.units_per_node
    return Finding(
        Severity.INFO,
        f"{POOLS}[{i}].sharing",
        f"Karpenter sizes a launch by the instance's {pool.gpus_per_node} GPU(s) per node, not the {units} "
        f"shared units a node offers once the device plugin runs: a burst of pending pods may start up to "
        f"{units // pool.gpus_per_node}x the nodes they need, and the extra ones, left empty, go "
        f"{CONSOLIDATE_AFTER} later",
    )


def karpenter_findings(cluster: ResolvedCluster) -> list[Finding]:
    if not uses_karpenter(cluster.spec):
        return []
    found: list[Finding] = []
    for i, pool in enumerate(cluster.pools):
        if not pool.is_gpu:
            continue
        found.append(_owned(i, pool))
        if pool.units_per_node > pool.gpus_per_node:
            found.append(_sized_by_whole_gpus(i, pool))
    return found
