"""What a resolved cluster verifies: a check per GPU pool, and the GPU stack the checks vouch for.

`pulumi up` (the verification add-on's build) and `gpukit verify` (its CheckSuite, suite.py) both start
here, so both render the same Jobs for the same stack config."""

from gpukit.components.addons.verification.checks import PoolCheck, pool_check
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import VerificationSpec
from gpukit.components.substrate import ResolvedCluster


def verification_spec(cluster: ResolvedCluster) -> VerificationSpec:
    """`gpukit:verification`, defaults filled in by the parser (a library caller may omit it)."""
    return cluster.args.get("verification", {})


def checkable_pools(cluster: ResolvedCluster) -> list[PoolFacts]:
    """The GPU pools a verification pod can get a node of: not those whose nodes only ProvisioningRequests
    start (GKE's queued provisioning), where the check's pod would pend forever."""
    return [p for p in cluster.gpu_pools if p.pending_pods_scale]


def verifies_gpus(cluster: ResolvedCluster) -> bool:
    """Whether `pulumi up` runs a verification Job per GPU pool (and there are pools it can run on)."""
    return bool(verification_spec(cluster).get("enabled", False)) and bool(checkable_pools(cluster))


def verified_pools(cluster: ResolvedCluster) -> frozenset[str]:
    """The GPU pools `pulumi up` verifies: each one's Job scales a node up (a pool at zero included)."""
    return frozenset(p.name for p in checkable_pools(cluster)) if verifies_gpus(cluster) else frozenset()


def nodes_at_up(pool: PoolFacts, verified: frozenset[str]) -> int:
    """The nodes of `pool` that `pulumi up` starts right away: its minNodes, or the one node its
    verification Job's pod scales up where the pool is verified and may have one. What a cloud's quota
    preflight must allow before anything is created (providers/aws/quotas.py, providers/gcp/quotas.py)."""
    return max(pool.min_nodes, 1 if pool.name in verified and pool.max_nodes else 0)


def cluster_checks(cluster: ResolvedCluster) -> list[PoolCheck]:
    """One check per GPU pool whose nodes a pending pod starts, in config order. A pool whose nodes
    only ProvisioningRequests start (GKE's queued provisioning) would leave the check's pod pending
    forever: the batch add-on's gang check runs there instead, through Kueue (batch/gang_check.py)."""
    platform_shares = not cluster.substrate.operator_shares_gpus(cluster.args)
    return [pool_check(pool, platform_shares) for pool in checkable_pools(cluster)]


def fingerprint(cluster: ResolvedCluster) -> dict[str, str]:
    """The GPU stack a verification vouches for, as annotations of its pods: a new GPU Operator chart
    or driver mode gives the Jobs new names, and so a new verification."""
    operator = cluster.operator
    return {
        "gpukit.dev/gpu-operator-chart": str(operator.get("chart_version", "")),
        "gpukit.dev/driver": cluster.driver.value,
    }
