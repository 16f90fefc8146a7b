"""The EC2 vCPU quotas GPU pools draw on, checked when `pulumi up` runs (not by `gpukit plan`, which
has no account to ask).

EC2 meters instances by vCPUs per quota, per region and account, and a new account often has 0 for
GPU families, on demand and spot alike (EC2 User Guide, "Spot Instance quotas": default 0 for "All G
and VT Spot Instance Requests" and the P ones). With a 0 quota, `pulumi up` creates every resource and
then waits: the autoscaler retries its groups in silence, and verification's Jobs time out after their
timeout. So before anything is created, the quotas of the GPU pools' families are read from Service
Quotas (with the deployer's credentials): a quota below what the stack starts right away (its GPU
pools' `minNodes`, and the one node each verification Job scales up) fails the run, naming the quota
and the pools; one below what `maxNodes` needs is a warning.

Quota codes: EC2's, as the Service Quotas console and `aws service-quotas list-service-quotas
--service-code ec2` list them; the names are what this module prints. Only the GPU families gpukit's
catalog holds (G, P); a quota that cannot be read (a code the account does not list, a missing
`servicequotas:GetServiceQuota` right) is a warning, never a refusal.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpukit.components.addons.verification.cluster_checks import nodes_at_up, verified_pools
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import Capacity

if TYPE_CHECKING:
    import pulumi

    from gpukit.components.findings import Finding
    from gpukit.components.substrate import ResolvedCluster


@dataclass(frozen=True)
class VcpuQuota:
    code: str
    name: str


# (family class, spot) -> the quota. G covers G and VT instances, P every P generation.
VCPU_QUOTAS: dict[tuple[str, bool], VcpuQuota] = {
    ("g", False): VcpuQuota("L-DB2E81BA", "Running On-Demand G and VT instances"),
    ("g", True): VcpuQuota("L-3819A6DF", "All G and VT Spot Instance Requests"),
    ("p", False): VcpuQuota("L-417A185B", "Running On-Demand P instances"),
    ("p", True): VcpuQuota("L-7212CCBC", "All P Spot Instance Requests"),
}


def family_class(instance_type: str) -> str | None:
    """`g` for G and VT instances (`g6.xlarge`, `vt1.3xlarge`), `p` for P ones, None for the rest."""
    family = instance_type.split(".", 1)[0]
    if family.startswith(("g", "vt")):
        return "g"
    if family.startswith("p"):
        return "p"
    return None


@dataclass(frozen=True)
class QuotaNeed:
    quota: VcpuQuota
    pools: tuple[str, ...]
    at_start: int
    """vCPUs the stack starts right away: `minNodes`, and one node per pool verification checks."""
    at_max: int
    """vCPUs at every pool's `maxNodes`."""


def quota_needs(pools: Sequence[PoolFacts], verified: frozenset[str] = frozenset()) -> list[QuotaNeed]:
    """What each quota must allow, from the GPU pools (in the order of VCPU_QUOTAS)."""
    found: dict[tuple[str, bool], list[PoolFacts]] = {}
    for pool in pools:
        kind = family_class(pool.instance.name)
        if pool.is_gpu and kind is not None:
            found.setdefault((kind, pool.capacity == Capacity.SPOT), []).append(pool)
    needs = []
    for key, quota in VCPU_QUOTAS.items():
        members = found.get(key, [])
        if not members:
            continue
        at_start = sum(nodes_at_up(p, verified) * p.instance.vcpu for p in members)
        at_max = sum(p.max_nodes * p.instance.vcpu for p in members)
        needs.append(QuotaNeed(quota, tuple(p.name for p in members), at_start, at_max))
    return needs


@dataclass(frozen=True)
class QuotaCheck:
    errors: list[str]
    warnings: list[str]


def check_quotas(needs: Sequence[QuotaNeed], value_of: Callable[[VcpuQuota], float | None]) -> QuotaCheck:
    """The needs against the account's quotas (`value_of`: the quota's value, None where it could not be
    read)."""
    errors, warnings = [], []
    for need in needs:
        value = value_of(need.quota)
        pools = ", ".join(need.pools)
        about = f"EC2 quota {need.quota.name} ({need.quota.code})"
        raise_it = (
            "request an increase in the Service Quotas console (or `aws service-quotas "
            f"request-service-quota-increase --service-code ec2 --quota-code {need.quota.code}`)"
        )
        if value is None:
            warnings.append(f"{about} could not be read: check that it allows {need.at_max} vCPUs ({pools})")
        elif value < need.at_start:
            errors.append(
                f"{about} is {value:g} vCPUs in this account and region; pools {pools} start "
                f"{need.at_start} vCPUs right away (minNodes, and one node per verified pool): "
                f"{raise_it} to {need.at_max}, or lower minNodes"
            )
        elif value < need.at_max:
            warnings.append(
                f"{about} is {value:g} vCPUs; pools {pools} need {need.at_max} at maxNodes, so they stop "
                f"scaling before it: {raise_it}"
            )
    return QuotaCheck(errors, warnings)


def enforce_quotas(cluster: "ResolvedCluster", invoke: "pulumi.InvokeOptions") -> None:
    """At `pulumi up`, before anything is created: read the GPU pools' quotas, fail on one too low for
    what starts right away, warn on one below maxNodes (the module docstring)."""
    import pulumi
    import pulumi_aws as aws

    def value_of(quota: VcpuQuota) -> float | None:
        try:
            return float(
                aws.servicequotas.get_service_quota(
                    service_code="ec2", quota_code=quota.code, opts=invoke
                ).value
            )
        except Exception:
            return None

    result = check_quotas(quota_needs(cluster.pools, verified_pools(cluster)), value_of)
    for warning in result.warnings:
        pulumi.log.warn(f"gpukit: {warning}")
    if result.errors:
        raise pulumi.RunError("; ".join(result.errors))


def quota_findings(cluster: "ResolvedCluster") -> list["Finding"]:
    """What the plan says of the quotas: which ones `pulumi up` reads, and what each must allow."""
    from gpukit.components.findings import Finding, Severity

    return [
        Finding(
            Severity.INFO,
            "gpukit:nodePools",
            f"EC2 quota {need.quota.name} ({need.quota.code}) must allow {need.at_max} vCPUs at maxNodes "
            f"({', '.join(need.pools)}); "
            + (
                f"{need.at_start} start when `pulumi up` runs, which reads the quota before creating "
                "anything and stops if it is lower (the plan has no account to ask)"
                if need.at_start
                else "none start before a pod asks; `pulumi up` reads the quota and warns if it is lower "
                "(the plan has no account to ask)"
            ),
        )
        for need in quota_needs(cluster.pools, verified_pools(cluster))
    ]
