"""A stack's queues as Kueue will enforce them: every quota resolved to one pool and one resource, in the
units pods request (PoolFacts.advertised_resources, the same facts the device plugin config and the
autoscaler templates come from). Pure; reads config that validate.py has checked.

One ResourceFlavor per GPU pool (objects.py): a quota on a GPU model is split over the model's pools in
proportion to their capacity at `maxNodes` (largest remainder, ties to the earlier pool), because Kueue
quotas are per flavor and a ClusterQueue has no cap over several flavors together.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from gpukit.components.pools import PoolFacts
from gpukit.components.spec import BatchSpec, ClusterConfig, QueueQuotaSpec, QueueSpec

DEFAULT_QUEUE = "gpus"
"""Not `default`: Kueue (its default LocalQueue, GA since v0.17) puts every job that names no queue into
its namespace's LocalQueue named `default`, CPU-only jobs included."""
DEFAULT_NAMESPACE = "default"


@dataclass(frozen=True)
class Quota:
    pool: str
    resource: str
    count: int
    borrowing_limit: int | None = None
    capacity: int = 0
    """What the pool offers of `resource` at maxNodes: a count above it can never be used."""


@dataclass(frozen=True)
class Queue:
    name: str
    namespaces: tuple[str, ...]
    quotas: tuple[Quota, ...]
    cohort: str | None = None
    priority_class: str | None = None


def batch_spec(args: ClusterConfig) -> BatchSpec:
    return args.get("batch", {})


def batch_enabled(args: ClusterConfig) -> bool:
    return bool(batch_spec(args).get("enabled", False))


def capacity_at_max(pool: PoolFacts, resource: str) -> int:
    """Units of `resource` the pool offers with every node up."""
    return pool.advertised_resources.get(resource, 0) * pool.max_nodes


def model_pools(pools: Sequence[PoolFacts], model: str) -> list[PoolFacts]:
    """The GPU pools of `model` (as the catalog names it, any case), in config order."""
    return [p for p in pools if p.is_gpu and p.gpu is not None and p.gpu.name.lower() == model.lower()]


def quota_pools(quota: QueueQuotaSpec, pools: Sequence[PoolFacts]) -> list[PoolFacts]:
    """The pools a quota entry names: its pool, or every pool of its GPU model."""
    if "pool" in quota:
        return [p for p in pools if p.name == quota["pool"] and p.is_gpu]
    return model_pools(pools, quota.get("gpu_model", ""))


def quota_resource(quota: QueueQuotaSpec, pool: PoolFacts) -> str | None:
    """The resource a quota counts on `pool`: the one named, or the pool's only one (None: ambiguous)."""
    if "resource" in quota:
        return quota["resource"]
    offered = list(pool.advertised_resources)
    return offered[0] if len(offered) == 1 else None


def split(count: int, weights: Sequence[int]) -> list[int]:
    """`count` split in proportion to `weights` (largest remainder; ties to the earlier), summing to
    `count`. All-zero weights split evenly."""
    if not weights:
        return []
    weights = list(weights) if any(weights) else [1] * len(weights)
    total = sum(weights)
    shares = [count * w // total for w in weights]
    remainders = sorted(range(len(weights)), key=lambda i: (-(count * weights[i] % total), i))
    for i in remainders[: count - sum(shares)]:
        shares[i] += 1
    return shares


def _resolved(quota: QueueQuotaSpec, pools: Sequence[PoolFacts]) -> list[Quota]:
    named = quota_pools(quota, pools)
    resources = [quota_resource(quota, p) or "" for p in named]
    counts = split(quota["count"], [capacity_at_max(p, r) for p, r in zip(named, resources, strict=True)])
    limit = quota.get("borrowing_limit")
    limits = split(limit, [1] * len(named)) if limit is not None and len(named) > 1 else [limit] * len(named)
    return [
        Quota(p.name, r, n, b, capacity_at_max(p, r))
        for p, r, n, b in zip(named, resources, counts, limits, strict=True)
    ]


def whole_capacity(pools: Sequence[PoolFacts]) -> tuple[Quota, ...]:
    """Every GPU pool's every resource at maxNodes: the default queue's quotas."""
    return tuple(
        Quota(p.name, r, capacity_at_max(p, r), None, capacity_at_max(p, r))
        for p in pools
        if p.is_gpu
        for r in p.advertised_resources
    )


def covering(quotas: Sequence[Quota], pools: Sequence[PoolFacts]) -> tuple[Quota, ...]:
    """The quotas, plus 0 of every GPU resource of every GPU pool they leave out. Kueue runs with
    quotaCheckStrategy IgnoreUndeclared (values.py), under which a resource a ClusterQueue does not
    cover costs a workload nothing: uncovered, a queue could take any amount of it."""
    quoted = {(q.pool, q.resource) for q in quotas}
    missing = tuple(
        Quota(p.name, r, 0, None, capacity_at_max(p, r))
        for p in pools
        if p.is_gpu
        for r in p.advertised_resources
        if (p.name, r) not in quoted
    )
    return (*quotas, *missing)


def planned_queue(spec: QueueSpec, pools: Sequence[PoolFacts]) -> Queue:
    quotas = spec.get("quotas")
    resolved = covering(
        whole_capacity(pools) if quotas is None else tuple(q for e in quotas for q in _resolved(e, pools)),
        pools,
    )
    return Queue(
        name=spec["name"],
        namespaces=tuple(dict.fromkeys(spec["namespaces"])),
        quotas=resolved,
        cohort=spec.get("cohort"),
        priority_class=spec.get("priority_class"),
    )


def planned_queues(args: ClusterConfig, pools: Sequence[PoolFacts]) -> tuple[Queue, ...]:
    """The stack's queues (the default one where `queues` is unset), resolved against the pools."""
    specs = batch_spec(args).get("queues")
    if specs is None:
        specs = [{"name": DEFAULT_QUEUE, "namespaces": [DEFAULT_NAMESPACE]}]
    return tuple(planned_queue(s, pools) for s in specs)
