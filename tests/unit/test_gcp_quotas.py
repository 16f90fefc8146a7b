"""Compute Engine's GPU quotas for GPU pools (providers/gcp/quotas.py): the table, what each quota must
allow, which row of a QuotaInfo applies, and the decision; pure functions, and the plan fakes' answer."""

from typing import Any

import pytest

from gpukit.components.resolve.config import resolve_config
from gpukit.components.spec import Capacity, Provider
from gpukit.components.substrate import ResolvedCluster
from gpukit.providers.gcp.catalog import ATTACHABLE_GPUS, GCP_MACHINE_TYPES
from gpukit.providers.gcp.fakes import PLAN_GPU_QUOTA, QUOTA_INFO_TOKEN, GcpFakes
from gpukit.providers.gcp.quotas import (
    ALL_REGIONS,
    GPU_QUOTAS,
    DimensionsInfo,
    GpuQuota,
    QuotaNeed,
    check_quotas,
    gke_quota_needs,
    k3s_quota_needs,
    quota_needs,
    quota_value,
)
from harness import example_config, pool_facts

L4, SPOT_L4 = GPU_QUOTAS["nvidia-l4"]
H100_FAMILY, SPOT_H100 = GPU_QUOTAS["nvidia-h100-80gb"]


def pool(name: str, machine: str, low: int, high: int, **extra: Any):  # type: ignore[no-untyped-def]
    spec = {"name": name, "instance_type": machine, "min_nodes": low, "max_nodes": high, **extra}
    return pool_facts(spec, Provider.GCP)


def test_every_gpu_of_the_catalog_draws_on_an_on_demand_and_a_spot_quota() -> None:
    accelerators = {m.accelerator_type for m in GCP_MACHINE_TYPES.values() if m.has_gpu}
    accelerators |= {accelerator for accelerator, _ in ATTACHABLE_GPUS.values()}
    assert accelerators == set(GPU_QUOTAS)
    for on_demand, spot in GPU_QUOTAS.values():
        assert spot.quota_id.startswith("PREEMPTIBLE-NVIDIA-") and spot.regional
        assert on_demand.regional and not on_demand.quota_id.startswith("PREEMPTIBLE-")
    assert L4.quota_id == "NVIDIA-L4-GPUS-per-project-region" and L4.metric == "NVIDIA_L4_GPUS"
    assert SPOT_L4.quota_id == "PREEMPTIBLE-NVIDIA-L4-GPUS-per-project-region"
    assert (ALL_REGIONS.quota_id, ALL_REGIONS.regional) == ("GPUS-ALL-REGIONS-per-project", False)
    # The newest families are metered per family, an id no Google page confirmed: warnings only.
    assert H100_FAMILY.dimensions == (("gpu_family", "NVIDIA_H100"),) and not H100_FAMILY.confirmed


def test_needs_count_gpus_of_min_nodes_and_one_node_per_verified_pool() -> None:
    pools = [
        pool("system", "e2-standard-4", 1, 3),  # no GPU quota
        pool("l4", "g2-standard-24", 0, 4, capacity=Capacity.SPOT),  # 2 L4s a node
        pool("l4-od", "g2-standard-8", 2, 5),
        pool("t4", "n1-standard-8", 0, 3, gpu={"model": "T4", "count": 4}),  # attached: 4 T4s a node
        pool("h100", "a3-highgpu-8g", 0, 2),
    ]
    verified = {"l4", "h100"}
    needs = {n.quota: n for n in quota_needs(pools, lambda p: max(p.min_nodes, int(p.name in verified)))}
    assert list(needs) == [L4, SPOT_L4, GPU_QUOTAS["nvidia-tesla-t4"][0], H100_FAMILY, ALL_REGIONS]
    assert (needs[SPOT_L4].at_start, needs[SPOT_L4].at_max, needs[SPOT_L4].pools) == (2, 8, ("l4",))
    assert needs[SPOT_L4].fallback == L4 and needs[L4].fallback is None
    assert (needs[L4].at_start, needs[L4].at_max) == (2, 5)
    t4 = needs[GPU_QUOTAS["nvidia-tesla-t4"][0]]
    assert (t4.at_start, t4.at_max) == (0, 12)
    assert (needs[H100_FAMILY].at_start, needs[H100_FAMILY].at_max) == (8, 16)
    # Every GPU of the project, whatever the model or the capacity.
    assert needs[ALL_REGIONS].pools == ("l4", "l4-od", "t4", "h100")
    assert (needs[ALL_REGIONS].at_start, needs[ALL_REGIONS].at_max) == (12, 41)
    assert quota_needs([pools[0]], lambda p: p.min_nodes) == []


def resolved(stack: str, **l4: Any) -> ResolvedCluster:
    config = example_config(stack)
    config["gpukit:nodePools"][1].update(l4)
    config["gpukit:verification"] = {"enabled": False}
    return resolve_config(config)


def test_a_gke_pool_starts_its_first_node_in_each_of_its_zones() -> None:
    """GKE's initialNodeCount is per zone: minNodes 1 over the three L4 zones of us-central1 starts three
    nodes when the pool is created; k3s's groups split minNodes over the zones instead."""
    gke = {n.quota: n for n in gke_quota_needs(resolved("gke-dev", minNodes=1))}
    assert gke[SPOT_L4].at_start == 3
    assert {n.quota: n for n in gke_quota_needs(resolved("gke-dev", minNodes=4))}[SPOT_L4].at_start == 4
    assert {n.quota: n for n in gke_quota_needs(resolved("gke-dev"))}[SPOT_L4].at_start == 0
    k3s = {n.quota: n for n in k3s_quota_needs(resolved("k3s-gcp", minNodes=1))}
    assert k3s[SPOT_L4].at_start == 1


def test_verification_scales_one_node_of_each_verified_pool() -> None:
    config = example_config("gke-dev")
    config["gpukit:verification"] = {"enabled": True}
    assert {n.quota: n for n in gke_quota_needs(resolve_config(config))}[SPOT_L4].at_start == 1


def test_gke_queued_pools_are_flex_start_and_start_nothing() -> None:
    cluster = resolve_config(example_config("gke-train"))
    queued = [p.name for p in cluster.pools if p.queued]
    assert queued, "gke-train has a queued pool"
    (h100,) = [n for n in gke_quota_needs(cluster) if n.quota == H100_FAMILY]
    assert (h100.flex_start, h100.at_start) == (tuple(queued), 0)
    assert all(not n.flex_start for n in k3s_quota_needs(cluster))


@pytest.mark.parametrize(
    ("rows", "region", "expected"),
    [
        # One row for every region it lists, as Cloud Quotas gives a project it never granted more.
        ([DimensionsInfo({}, "1", ("us-central1", "europe-west4"))], "us-central1", 1.0),
        ([DimensionsInfo({}, "1", ("europe-west4",))], "us-central1", None),
        # A region granted more has its own row, before the catch-all one.
        ([DimensionsInfo({"region": "us-central1"}, "8"), DimensionsInfo({}, "1")], "us-central1", 8.0),
        ([DimensionsInfo({"region": "us-east4"}, "8"), DimensionsInfo({}, "1")], "us-central1", 1.0),
        ([DimensionsInfo({}, None, ("us-central1",))], "us-central1", None),  # unset: not read as 0
        ([DimensionsInfo({}, "-1")], "us-central1", float("inf")),
        ([DimensionsInfo({}, "lots")], "us-central1", None),
        ([], "us-central1", None),
    ],
)
def test_the_value_is_the_first_row_that_applies_to_the_region(
    rows: list[DimensionsInfo], region: str, expected: float | None
) -> None:
    assert quota_value(rows, region, L4) == expected


def test_a_family_quota_reads_its_familys_row_and_a_global_one_its_global_row() -> None:
    rows = [
        DimensionsInfo({"gpu_family": "NVIDIA_B200", "region": "us-central1"}, "16"),
        DimensionsInfo({"gpu_family": "NVIDIA_H100"}, "8", ("us-central1",)),
    ]
    assert quota_value(rows, "us-central1", H100_FAMILY) == 8.0
    assert quota_value(rows[:1], "us-central1", H100_FAMILY) is None
    assert quota_value([DimensionsInfo({}, "4", ("global",))], None, ALL_REGIONS) == 4.0


def need(quota: GpuQuota, at_start: int, at_max: int, fallback: GpuQuota | None = None) -> QuotaNeed:
    return QuotaNeed(quota, ("l4",), at_start, at_max, fallback)


@pytest.mark.parametrize(
    ("quota", "fallback", "values", "outcome"),
    [
        (L4, None, {L4: 8.0}, "ok"),
        (L4, None, {L4: 4.0}, "warning"),  # enough for what starts, not for maxNodes
        (L4, None, {L4: 0.0}, "error"),
        (L4, None, {}, "warning"),  # unreadable
        (H100_FAMILY, None, {H100_FAMILY: 0.0}, "warning"),  # unconfirmed id: never a refusal
        # Spot: the standard quota where the project has no preemptible one.
        (SPOT_L4, L4, {SPOT_L4: 8.0}, "ok"),
        (SPOT_L4, L4, {SPOT_L4: 0.0, L4: 2.0}, "warning"),
        (SPOT_L4, L4, {SPOT_L4: 0.0, L4: 0.0}, "error"),
        (SPOT_L4, L4, {SPOT_L4: 1.0, L4: 1.0}, "error"),
        (SPOT_L4, L4, {SPOT_L4: 0.0}, "warning"),  # the standard one unreadable
        (SPOT_H100, H100_FAMILY, {SPOT_H100: 0.0, H100_FAMILY: 0.0}, "warning"),
    ],
)
def test_the_decision(
    quota: GpuQuota, fallback: GpuQuota | None, values: dict[GpuQuota, float], outcome: str
) -> None:
    result = check_quotas([need(quota, 2, 8, fallback)], values.get, "us-central1", "acme")
    assert (bool(result.errors), bool(result.warnings)) == {
        "ok": (False, False),
        "warning": (False, True),
        "error": (True, False),
    }[outcome]


def test_a_refusal_names_the_quota_region_project_pools_and_numbers() -> None:
    result = check_quotas(
        [need(SPOT_L4, 2, 8, L4), need(ALL_REGIONS, 2, 8)],
        {SPOT_L4: 0.0, L4: 0.0, ALL_REGIONS: 1.0}.get,
        "us-central1",
        "acme",
    )
    spot, everywhere = result.errors
    assert spot.startswith(
        "Compute Engine quota PREEMPTIBLE_NVIDIA_L4_GPUS (PREEMPTIBLE-NVIDIA-L4-GPUS-per-project-region) in "
        "region us-central1 of project acme is 0 GPUs and the standard quota NVIDIA_L4_GPUS "
        "(NVIDIA-L4-GPUS-per-project-region) Spot VMs fall back on is 0; pools l4 start 2 GPUs right away"
    )
    assert "--quota-id=PREEMPTIBLE-NVIDIA-L4-GPUS-per-project-region --dimensions=region=us-central1" in spot
    assert "--preferred-value=8" in spot and spot.endswith("or lower minNodes")
    assert everywhere.startswith(
        "Compute Engine quota GPUS_ALL_REGIONS (GPUS-ALL-REGIONS-per-project) in project acme (all regions) "
        "is 1 GPUs"
    )
    assert "--dimensions" not in everywhere
    (warning,) = check_quotas([need(L4, 2, 8)], {L4: 4.0}.get, "us-central1", "acme").warnings
    assert "is 4 GPUs; pools l4 need 8 at maxNodes" in warning
    (unreadable,) = check_quotas([need(L4, 2, 8)], {}.get, "us-central1", "acme").warnings
    assert "could not be read: check that it allows 8 GPUs (l4)" in unreadable


def test_the_plan_fakes_answer_the_quota_read_and_refuse_wrong_arguments() -> None:
    fakes = GcpFakes({"gcp:project": "acme-ml", "gcp:region": "us-central1"})
    args = {"parent": "projects/acme-ml", "service": "compute.googleapis.com", "quotaId": L4.quota_id}
    info = fakes.invoke(QUOTA_INFO_TOKEN, args)
    assert info is not None and info["quotaId"] == L4.quota_id
    rows = [
        DimensionsInfo(r["dimensions"], r["details"][0]["value"], tuple(r["applicableLocations"]))
        for r in info["dimensionsInfos"]
    ]
    assert quota_value(rows, "us-central1", L4) == PLAN_GPU_QUOTA
    family = fakes.invoke(QUOTA_INFO_TOKEN, {**args, "quotaId": H100_FAMILY.quota_id})
    assert family is not None
    assert {"gpu_family": "NVIDIA_H100"} in [r["dimensions"] for r in family["dimensionsInfos"]]
    for wrong in (
        {**args, "parent": "acme-ml"},  # not a resource name
        {**args, "parent": "projects/Acme_ML"},
        {**args, "service": "container.googleapis.com"},
        {**args, "quotaId": "NVIDIA_L4_GPUS"},  # the metric, not the Cloud Quotas id
    ):
        with pytest.raises(ValueError, match="getSQuotaInfo takes parent projects/<project id or number>"):
            fakes.invoke(QUOTA_INFO_TOKEN, wrong)


def test_a_read_right_after_enabling_the_api_is_retried_for_two_minutes() -> None:
    """The stack enables Cloud Quotas in the same run: a new project's first read may meet
    SERVICE_DISABLED, which must not turn the check into a mere warning."""
    from gpukit.providers.gcp.quotas import ENABLE_WAIT_S, read_after_enabling

    answers: list[object] = [
        Exception("invoke failed: 403 SERVICE_DISABLED"),
        Exception("SERVICE_DISABLED"),
        7,
    ]
    slept: list[float] = []

    def read() -> object:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert read_after_enabling(read, slept.append) == 7 and len(slept) == 2
    never = Exception("403 SERVICE_DISABLED: Cloud Quotas API has not been used in project 1")
    slept.clear()
    with pytest.raises(Exception, match="SERVICE_DISABLED"):
        read_after_enabling(lambda: (_ for _ in ()).throw(never), slept.append)
    assert sum(slept) == ENABLE_WAIT_S
    with pytest.raises(Exception, match="PERMISSION_DENIED"):
        read_after_enabling(lambda: (_ for _ in ()).throw(Exception("PERMISSION_DENIED")), slept.append)
