"""EC2's vCPU quotas for GPU pools, and the spot pools without an on-demand fallback: pure functions."""

from typing import Any

import pytest

from gpukit.components.autoscaler.fallback import spot_fallback_findings
from gpukit.components.findings import Severity
from gpukit.components.spec import Capacity, Provider
from gpukit.providers.aws.quotas import VCPU_QUOTAS, VcpuQuota, check_quotas, family_class, quota_needs
from harness import pool_facts


def pool(name: str, instance: str, low: int, high: int, **extra: Any):  # type: ignore[no-untyped-def]
    spec = {"name": name, "instanceType": instance, "minNodes": low, "maxNodes": high, **extra}
    return pool_facts(
        {**spec, "instance_type": instance, "min_nodes": low, "max_nodes": high, **extra}, Provider.AWS
    )


@pytest.mark.parametrize(
    ("instance", "kind"),
    [
        ("g6.xlarge", "g"),
        ("g6e.48xlarge", "g"),
        ("vt1.3xlarge", "g"),
        ("p5.48xlarge", "p"),
        ("m7i.large", None),
    ],
)
def test_each_gpu_family_draws_on_its_quota(instance: str, kind: str | None) -> None:
    assert family_class(instance) == kind


def test_needs_count_min_nodes_and_one_node_per_verified_pool() -> None:
    pools = [
        pool("system", "m7i.large", 1, 3),  # no GPU quota
        pool("l4", "g6.xlarge", 0, 8, capacity=Capacity.SPOT),  # 4 vCPUs a node
        pool("l40s", "g6e.xlarge", 2, 4),
        pool("h100", "p5.48xlarge", 0, 2),  # 192 vCPUs a node
    ]
    needs = {n.quota.code: n for n in quota_needs(pools, frozenset({"l4", "h100"}))}
    g_spot, g_on_demand, p_on_demand = (
        VCPU_QUOTAS[k].code for k in (("g", True), ("g", False), ("p", False))
    )
    assert sorted(needs) == sorted([g_spot, g_on_demand, p_on_demand])
    assert (needs[g_spot].at_start, needs[g_spot].at_max, needs[g_spot].pools) == (4, 32, ("l4",))
    assert (needs[g_on_demand].at_start, needs[g_on_demand].at_max) == (8, 16)
    assert (needs[p_on_demand].at_start, needs[p_on_demand].at_max) == (192, 384)
    # Not verified: nothing starts until a pod asks.
    assert {n.quota.code: n.at_start for n in quota_needs(pools)}[p_on_demand] == 0


def test_a_quota_below_what_starts_fails_below_max_warns_unreadable_warns() -> None:
    pools = [pool("h100", "p5.48xlarge", 0, 2), pool("l4", "g6.xlarge", 1, 8)]
    needs = quota_needs(pools, frozenset({"h100"}))
    values: dict[str, float | None] = {"L-417A185B": 0.0, "L-DB2E81BA": 8.0}

    def value_of(quota: VcpuQuota) -> float | None:
        return values.get(quota.code)

    result = check_quotas(needs, value_of)
    (error,) = result.errors
    assert error.startswith("EC2 quota Running On-Demand P instances (L-417A185B) is 0 vCPUs")
    assert "start 192 vCPUs right away" in error and "--quota-code L-417A185B" in error
    (warning,) = result.warnings
    assert (
        "Running On-Demand G and VT instances (L-DB2E81BA) is 8 vCPUs; pools l4 need 32 at maxNodes"
        in warning
    )
    values["L-417A185B"] = None
    (_, unreadable) = check_quotas(needs, value_of).warnings
    assert "could not be read" in unreadable
    assert check_quotas(needs, lambda q: 1000.0) == check_quotas([], value_of)


def test_a_spot_gpu_pool_without_an_on_demand_one_of_its_gpus_is_warned() -> None:
    spot = pool("l4", "g6.xlarge", 0, 8, capacity=Capacity.SPOT)
    (finding,) = spot_fallback_findings([pool("system", "m7i.large", 1, 3), spot])
    assert finding.severity is Severity.WARNING
    assert finding.key == "gpukit:nodePools[1].capacity"
    assert "add an on-demand pool of the same instance type (g6.xlarge)" in finding.fix
    # An on-demand pool of another GPU is no fallback; one of the same GPU is.
    assert spot_fallback_findings([spot, pool("h100", "p5.48xlarge", 0, 2)])
    assert spot_fallback_findings([spot, pool("l4-od", "g6.2xlarge", 0, 2)]) == []
