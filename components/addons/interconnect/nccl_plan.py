"""Which pools the NCCL check runs on (`gpukit:verification.nccl`), what it costs, and what the plan
says of it: the interconnect add-on's side of the check (nccl_check.py renders it)."""

from gpukit.components.addons.interconnect.nccl_check import (
    MAX_BYTES_LABEL,
    NcclPoolCheck,
    nccl_expectation,
)
from gpukit.components.addons.interconnect.variant import interconnect_variant
from gpukit.components.autoscaler.chart import IDLE_NODE_MINUTES
from gpukit.components.catalog.fabrics import FabricKind
from gpukit.components.config.schema import VERIFICATION_TIMEOUT_DEFAULT
from gpukit.components.errors import Problem
from gpukit.components.findings import Finding, Severity
from gpukit.components.pools import POOL_LABEL, PoolFacts
from gpukit.components.pricing import money, pool_quote
from gpukit.components.spec import ClusterConfig
from gpukit.components.substrate import ResolvedCluster

NODES = 2
KEY = "gpukit:verification.nccl"
NCCL_CHECKED_FABRICS = frozenset({FabricKind.EFA})
"""The fabrics the check runs over: its image and launcher are EFA's (nccl_check.py); GKE's GPUDirect
stacks need Google's NCCL plugins in the image, which gpukit does not pin yet (docs/interconnect.md)."""


def nccl_asked(args: ClusterConfig) -> bool:
    """Whether the stack asks for the check."""
    return bool(args.get("verification", {}).get("nccl", False))


def nccl_problems(args: ClusterConfig, pools: tuple[PoolFacts, ...]) -> list[Problem]:
    """Asked for where no pool can have it: refused, so a stack never believes its fabric was proven."""
    if not nccl_asked(args) or any(checkable(pool) for pool in pools):
        return []
    return [
        Problem(
            KEY,
            "`true` asks for an NCCL check of a fabric, and no pool here can have one: it needs a pool "
            "gpukit sets a fabric up for and checks (EFA on EKS), with whole GPUs (no `sharing`) and "
            f"maxNodes {NODES} or more; set it to false, or add such a pool",
        )
    ]


def nccl_timeout_minutes(cluster: ResolvedCluster) -> int:
    """The check Job's deadline: `gpukit:verification.timeoutMinutes`, or its default."""
    return int(cluster.args.get("verification", {}).get("timeout_minutes", VERIFICATION_TIMEOUT_DEFAULT))


def checkable(pool: PoolFacts) -> bool:
    """A pool the check can run on: gpukit sets its fabric up, it may have two nodes, and its nodes offer
    whole GPUs (a shared pool's advertise slices or replicas, which all_reduce_perf's ranks cannot use
    one per GPU)."""
    return (
        pool.fabric is not None
        and pool.fabric.kind in NCCL_CHECKED_FABRICS
        and pool.max_nodes >= NODES
        and not pool.sharing.shares
    )


def pool_check(cluster: ResolvedCluster, pool: PoolFacts) -> NcclPoolCheck:
    """One fabric pool's check: on its nodes (its pool label, its taints tolerated), every GPU and what
    a pod per node requests and sets to use the fabric (the substrate's interconnect variant says)."""
    use = interconnect_variant(cluster.substrate).use(cluster, pool)
    return NcclPoolCheck(
        pool=pool.name,
        node_selector=((POOL_LABEL, pool.name),),
        tolerations=tuple((t.key, "Exists", t.effect) for t in pool.taints),
        gpus_per_node=pool.gpus_per_node,
        requests=tuple(sorted(use.requests.items())),
        env=tuple(sorted(use.env.items())),
        expectation=nccl_expectation(pool, use.gpudirect),
    )


def nccl_checks(cluster: ResolvedCluster) -> list[NcclPoolCheck]:
    """The checks `pulumi up` runs: none unless the stack asks."""
    if not nccl_asked(cluster.args):
        return []
    return [pool_check(cluster, pool) for pool in cluster.pools if checkable(pool)]


def nccl_findings(cluster: ResolvedCluster) -> list[Finding]:
    """What each check costs: the nodes it starts, for its deadline plus the autoscaler's idle delay."""
    if not nccl_asked(cluster.args):
        return []
    found = [(i, pool) for i, pool in enumerate(cluster.pools) if checkable(pool)]
    minutes = nccl_timeout_minutes(cluster) + IDLE_NODE_MINUTES
    region = cluster.spec.get("region", "")
    findings = []
    for index, pool in found:
        started = max(0, NODES - pool.min_nodes)
        per_node = pool_quote(cluster.substrate.catalog, pool, region).per_node
        if started == 0:
            cost = "it runs on the pool's standing nodes (their GPUs are busy while it runs)"
        elif per_node is None:
            cost = f"gpukit has no price for {pool.instance.name} in {region}"
        else:
            cost = (
                f"at most {money(started * per_node * minutes / 60)} per check ({started} x "
                f"{money(per_node)}/h x {minutes} min, list price)"
            )
        findings.append(
            Finding(
                Severity.INFO,
                f"gpukit:nodePools[{index}].maxNodes",
                f"the NCCL check runs on {NODES} nodes of pool {pool.name!r} ({pool.instance.name}) each "
                "time it runs (the first `pulumi up`, then whenever the pool or the check changes), for at "
                f"most timeoutMinutes plus the autoscaler's {IDLE_NODE_MINUTES}-minute idle delay; {cost}",
                fix=f"nothing to do; set {KEY} to false to deploy without it",
            )
        )
    return findings


def nccl_report_line(cluster: ResolvedCluster, pool: PoolFacts) -> str | None:
    """The plan's line for a fabric pool's check, or None where it has none."""
    if not nccl_asked(cluster.args) or pool.fabric is None:
        return None
    if pool.fabric.kind not in NCCL_CHECKED_FABRICS:
        return f"NCCL check: none (gpukit runs it over EFA only so far, not {pool.fabric.kind.display})"
    if pool.sharing.shares:
        return (
            f"NCCL check: none (the GPUs are shared, sharing: {pool.sharing.mode.value}; it needs whole GPUs)"
        )
    if not checkable(pool):
        return f"NCCL check: none (maxNodes {pool.max_nodes}: it needs {NODES} nodes)"
    expect = pool_check(cluster, pool).expectation
    over = f"over {' or '.join(expect.networks)}" if expect.networks else "not over sockets"
    gdr = " with GPUDirect RDMA" if expect.gpudirect else ""
    gate = (
        f"at least {expect.gate.gbs:g} GB/s bus bandwidth at {MAX_BYTES_LABEL} ({expect.gate.source})"
        if expect.gate is not None
        else "bandwidth reported, not judged (no published gate for this machine)"
    )
    return f"NCCL check: {NODES} nodes, all_reduce_perf 8 B to {MAX_BYTES_LABEL}, {over}{gdr}; {gate}"
