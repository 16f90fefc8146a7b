"""What a resolved cluster verifies: a check per GPU pool, and the GPU stack the checks vouch for.

`pulumi up` (GpuCluster) and `gpukit verify` both start here, so both render the same Jobs for the same
stack config."""

from gpukit.components.resolved import ResolvedCluster
from gpukit.components.verification.checks import PoolCheck, pool_check, timeout_minutes
from gpukit.components.verification.component import GpuVerificationArgs, pool_check_args


def cluster_checks(cluster: ResolvedCluster) -> list[PoolCheck]:
    """One check per GPU pool, in config order."""
    platform_shares = not cluster.substrate.operator_shares_gpus(cluster.args)
    return [pool_check(pool, platform_shares) for pool in cluster.gpu_pools]


def fingerprint(cluster: ResolvedCluster) -> dict[str, str]:
    """The GPU stack a verification vouches for, as annotations of its pods: a new GPU Operator chart
    or driver mode gives the Jobs new names, and so a new verification."""
    operator = cluster.operator
    return {
        "gpukit.dev/gpu-operator-chart": str(operator.get("chart_version", "")),
        "gpukit.dev/driver": cluster.driver.value,
    }


def verification_args(cluster: ResolvedCluster) -> GpuVerificationArgs:
    """GpuVerification's args for a cluster whose stack enables verification."""
    return {
        "checks": [pool_check_args(c) for c in cluster_checks(cluster)],
        "timeout_minutes": timeout_minutes(cluster.verification),
        "fingerprint": fingerprint(cluster),
    }
