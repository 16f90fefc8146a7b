"""Meaning checks of `gpukit:batch`, each naming its key: what Kueue or Kubernetes would refuse at
`pulumi up`, and quotas that name no pool, a resource the pool does not advertise, or borrow without a
cohort. Quotas above a pool's capacity are accepted (findings.py flags them): Kueue takes them, and
with Karpenter they are the documented way to let pending pods scale the pool."""

from collections.abc import Sequence

from gpukit.components.addons.base import ValidationScope, addon_variant
from gpukit.components.addons.batch.names import RESERVED_NAMESPACES, dns_label_problem
from gpukit.components.addons.batch.queues import batch_spec, model_pools, quota_pools, quota_resource
from gpukit.components.addons.batch.variant import BATCH, BatchVariant
from gpukit.components.catalog.lookup import suggest
from gpukit.components.config.schema import GANG_TIMEOUT_RANGE
from gpukit.components.errors import Problem
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import BatchSpec, Provisioning, QueueQuotaSpec, QueueSpec

KEY = "gpukit:batch"
POOLS_KEY = "gpukit:nodePools"
INT32_MAX = 2**31 - 1


def _did_you_mean(name: str, known: list[str]) -> str:
    close = suggest(name, known)
    return f" (did you mean {', '.join(close)}?)" if close else ""


def batch_problems(scope: ValidationScope) -> list[Problem]:
    spec = batch_spec(scope.args)
    queued = _queued_pool_problems(scope, spec.get("enabled", False))
    if not spec.get("enabled", False):
        return queued + [
            Problem(
                f"{KEY}.{camel}", f"takes effect only with `{KEY}.enabled: true`; set it, or remove the key"
            )
            for attr, camel in (
                ("queues", "queues"),
                ("priority_classes", "priorityClasses"),
                ("topology_aware", "topologyAware"),
            )
            if attr in spec
        ]
    problems = queued + _priority_class_problems(spec) + _gang_problems(spec)
    pools = scope.pools
    if pools is not None and not any(p.is_gpu for p in pools):
        problems.append(Problem(f"{KEY}.enabled", "needs a GPU pool: its queues hold GPU quotas; got none"))
        return problems
    if spec.get("topology_aware", False) and pools is not None:
        problems += _topology_problems(pools)
    queues = spec.get("queues")
    if queues is not None and not queues:
        problems.append(
            Problem(f"{KEY}.queues", "must list at least one queue, or be left out (one default queue)")
        )
    classes = [c["name"] for c in spec.get("priority_classes", [])]
    seen: set[str] = set()
    for i, queue in enumerate(queues or []):
        key = f"{KEY}.queues[{i}]"
        if queue["name"] in seen:
            problems.append(Problem(f"{key}.name", f"must be unique; {queue['name']!r} is used twice"))
        seen.add(queue["name"])
        problems += _queue_problems(key, queue, classes, pools)
    return problems


def _queued_pool_problems(scope: ValidationScope, enabled: bool) -> list[Problem]:
    """`nodePools[].provisioning: queued`: Kueue's ProvisioningRequest admission check is what asks for
    such a pool's nodes, so batch must be on, the pool must have GPUs (quotas and flavors are GPU pools'),
    and the substrate must take ProvisioningRequests (its variant says why not)."""
    if not scope.pools_ok:
        return []
    specs = scope.args["node_pools"]
    queued = [(i, p) for i, p in enumerate(specs) if p.get("provisioning") is Provisioning.QUEUED]
    if not queued:
        return []
    facts = {p.name: p for p in scope.pools or ()}
    variant = (
        addon_variant(scope.substrate, BATCH, BatchVariant, BatchVariant())
        if scope.substrate is not None and scope.substrate_checked
        else None
    )
    offered = variant.queued(scope.args) if variant is not None else None
    problems = []
    for i, pool in queued:
        key = f"{POOLS_KEY}[{i}].provisioning"
        fact = facts.get(pool["name"])
        if isinstance(offered, str):
            problems.append(Problem(key, f"`queued` is not possible here: {offered}; got 'queued'"))
        elif fact is not None and not fact.is_gpu:
            problems.append(
                Problem(
                    key,
                    f"`queued` is for GPU pools (Kueue's queues hold GPU quotas); {pool['name']!r} "
                    "has no GPUs",
                )
            )
        elif not enabled:
            problems.append(
                Problem(
                    key,
                    f"`queued` needs `{KEY}.enabled: true`: a queued pool's nodes are asked for by Kueue's "
                    "ProvisioningRequest admission check; set it, or use `standard`",
                )
            )
    return problems


def _topology_problems(pools: Sequence[PoolFacts]) -> list[Problem]:
    """Kueue's TAS counts only nodes that exist (Ready, schedulable: topology_aware_scheduling.md,
    "Capacity calculation"), and every flavor of a queue is a TAS one: a pool that scales on pending pods
    would admit nothing beyond the nodes it has (none, at 0). Only pools whose nodes exist before a gang
    is admitted qualify: queued ones (the ProvisioningRequest brings them first) and fixed ones."""
    problems = []
    for i, pool in enumerate(pools):
        if not pool.is_gpu or pool.queued or pool.min_nodes == pool.max_nodes:
            continue
        problems.append(
            Problem(
                f"{KEY}.topologyAware",
                f"pool {pool.name!r} ({POOLS_KEY}[{i}]) scales on pending pods "
                f"({pool.min_nodes}..{pool.max_nodes} nodes), and Kueue's topology-aware scheduling counts "
                "only nodes that exist, so nothing would be admitted there beyond the nodes it has; give it "
                "`provisioning: queued` or minNodes equal to "
                "maxNodes, or set topologyAware to false",
            )
        )
    return problems


def _priority_class_problems(spec: BatchSpec) -> list[Problem]:
    problems = []
    seen: set[str] = set()
    for i, pc in enumerate(spec.get("priority_classes", [])):
        key = f"{KEY}.priorityClasses[{i}]"
        if (why := dns_label_problem(pc["name"])) is not None:
            problems.append(Problem(f"{key}.name", why))
        elif pc["name"] in seen:
            problems.append(Problem(f"{key}.name", f"must be unique; {pc['name']!r} is used twice"))
        seen.add(pc["name"])
        if not -INT32_MAX - 1 <= pc["value"] <= INT32_MAX:
            problems.append(
                Problem(f"{key}.value", f"must be a 32-bit integer (Kueue's type); got {pc['value']}")
            )
    return problems


def _gang_problems(spec: BatchSpec) -> list[Problem]:
    timeout = spec.get("gang_scheduling", {}).get("timeout_minutes")
    low, high = GANG_TIMEOUT_RANGE
    if timeout is not None and not low <= timeout <= high:
        return [
            Problem(
                f"{KEY}.gangScheduling.timeoutMinutes",
                f"must be {low} to {high} minutes (a gang's nodes may start from zero); got {timeout}",
            )
        ]
    return []


def _queue_problems(
    key: str, queue: QueueSpec, classes: list[str], pools: Sequence[PoolFacts] | None
) -> list[Problem]:
    problems = []
    if (why := dns_label_problem(queue["name"])) is not None:
        problems.append(Problem(f"{key}.name", why))
    if not queue["namespaces"]:
        problems.append(Problem(f"{key}.namespaces", "must list at least one namespace"))
    for j, namespace in enumerate(queue["namespaces"]):
        nkey = f"{key}.namespaces[{j}]"
        if (why := dns_label_problem(namespace)) is not None:
            problems.append(Problem(nkey, why))
        elif namespace.startswith("kube-") or namespace in RESERVED_NAMESPACES:
            taken = sorted(RESERVED_NAMESPACES)
            problems.append(
                Problem(
                    nkey,
                    "must be a namespace of your own, not Kubernetes' (kube-*) or gpukit's "
                    f"({', '.join(taken)}); got {namespace!r}",
                )
            )
    priority = queue.get("priority_class")
    for camel, value in (("cohort", queue.get("cohort")), ("priorityClass", priority)):
        if value is not None and (why := dns_label_problem(value)) is not None:
            problems.append(Problem(f"{key}.{camel}", why))
    if priority is not None and priority not in classes:
        known = ", ".join(classes) or "none are defined"
        problems.append(
            Problem(
                f"{key}.priorityClass", f"must name one of {KEY}.priorityClasses ({known}); got {priority!r}"
            )
        )
    if pools is None:
        return problems  # the pools have problems of their own: quota checks wait for them
    for j, quota in enumerate(queue.get("quotas", [])):
        problems += _quota_problems(f"{key}.quotas[{j}]", quota, "cohort" in queue, pools)
    problems += _duplicate_quota_problems(key, queue.get("quotas", []), pools)
    return problems


def _quota_problems(
    key: str, quota: QueueQuotaSpec, has_cohort: bool, pools: Sequence[PoolFacts]
) -> list[Problem]:
    problems = []
    gpu_pools = [p for p in pools if p.is_gpu]
    if ("pool" in quota) == ("gpu_model" in quota):
        return [Problem(key, "must name exactly one of `pool` and `gpuModel`")]
    if "pool" in quota and not quota_pools(quota, pools):
        names = [p.name for p in gpu_pools]
        problems.append(
            Problem(
                f"{key}.pool",
                f"must be a GPU pool of gpukit:nodePools ({', '.join(names)}); got {quota['pool']!r}"
                + _did_you_mean(quota["pool"], names),
            )
        )
    if "gpu_model" in quota and not model_pools(pools, quota["gpu_model"]):
        models = sorted({p.gpu.name for p in gpu_pools if p.gpu is not None})
        problems.append(
            Problem(
                f"{key}.gpuModel",
                f"must be the GPU model of a pool ({', '.join(models)}); got {quota['gpu_model']!r}"
                + _did_you_mean(quota["gpu_model"], models),
            )
        )
    for pool in quota_pools(quota, pools):
        offered = list(pool.advertised_resources)
        resource = quota_resource(quota, pool)
        if resource is None:
            problems.append(
                Problem(
                    f"{key}.resource",
                    f"is required: pool {pool.name!r} advertises {', '.join(offered)} (mixed MIG); name one",
                )
            )
        elif resource not in offered:
            problems.append(
                Problem(
                    f"{key}.resource",
                    f"must be what pool {pool.name!r} advertises to pods ({', '.join(offered)}, from its "
                    f"sharing: {pool.sharing.description}); got {resource!r}",
                )
            )
    if quota["count"] < 0:
        problems.append(Problem(f"{key}.count", f"must be 0 or more; got {quota['count']}"))
    limit = quota.get("borrowing_limit")
    if limit is not None:
        if not has_cohort:
            problems.append(
                Problem(
                    f"{key}.borrowingLimit",
                    "needs the queue's `cohort`: a queue borrows only from its cohort (Kueue refuses a "
                    "borrowingLimit without one)",
                )
            )
        if limit < 0:
            problems.append(Problem(f"{key}.borrowingLimit", f"must be 0 or more; got {limit}"))
    return problems


def _duplicate_quota_problems(
    key: str, quotas: Sequence[QueueQuotaSpec], pools: Sequence[PoolFacts]
) -> list[Problem]:
    """A pool's resource quoted twice in one queue (by pool and by model, say): Kueue takes one quota per
    flavor and resource."""
    problems = []
    seen: dict[tuple[str, str], int] = {}
    for j, quota in enumerate(quotas):
        for pool in quota_pools(quota, pools):
            resource = quota_resource(quota, pool)
            if resource is None:
                continue
            first = seen.setdefault((pool.name, resource), j)
            if first != j:
                problems.append(
                    Problem(
                        f"{key}.quotas[{j}]",
                        f"quotes {resource} on pool {pool.name!r} again (quotas[{first}] does): one "
                        "quota per pool and resource",
                    )
                )
    return problems
