"""The text report of a plan: resource tree, pools, GPU software, preflight, cost."""

from collections import defaultdict

from gpukit.components.costs import CostEstimate, PoolCost
from gpukit.plan.engine import PlanResult, ProgramPlan
from gpukit.plan.fakes import Recorded
from gpukit.plan.gpu_models import gpu_model_lines


def _money(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"${value:,.3f}" if 0 < value < 1 else f"${value:,.2f}"


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    out = [line.rstrip(), "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return out


def resource_tree(resources: list[Recorded]) -> list[str]:
    """Resources nested under their parents, as `type  name` lines."""
    known = {r.urn for r in resources}
    children: dict[str, list[Recorded]] = defaultdict(list)
    for r in sorted(resources, key=lambda r: (r.custom, r.type, r.name)):
        children[r.parent if r.parent in known else ""].append(r)
    lines: list[str] = []

    def walk(urn: str, prefix: str) -> None:
        kids = children.get(urn, [])
        for i, r in enumerate(kids):
            last = i == len(kids) - 1
            branch = "└─ " if last else "├─ "
            lines.append(f"{prefix}{branch}{r.type}  {r.name}")
            walk(r.urn, prefix + ("   " if last else "│  "))

    walk("", "")
    return lines


def _cost_cell(pc: PoolCost, value: float | None, region: str) -> str:
    """A pool's $/h: the amount, or "no price for <region>" (the cost section says why)."""
    return f"no price for {region}" if pc.missing_price and value is None else _money(value)


def _pool_rows(pools: list[PoolCost], gpu: bool, region: str) -> list[list[str]]:
    rows = []
    for pc in pools:
        p = pc.pool
        if p.is_gpu != gpu:
            continue
        own = p.instance.own_host
        capacity = "own" if own else p.capacity.value + ("*" if pc.spot_upper_bound else "")
        if gpu:
            assert p.gpu is not None
            rows.append(
                [
                    p.name,
                    p.instance.name,
                    f"{p.gpu.name} x{p.gpus_per_node}",
                    f"{p.gpu_memory_gb_per_node} GB",
                    f"{p.min_nodes}..{p.max_nodes}",
                    capacity,
                    str(p.gpus_at_max),
                    _cost_cell(pc, pc.idle, region),
                    _cost_cell(pc, pc.at_max, region),
                ]
            )
        else:
            rows.append(
                [
                    p.name,
                    p.instance.name,
                    "own host" if own else f"{p.instance.vcpu} vCPU / {p.instance.memory_gib} GiB",
                    f"{p.min_nodes}..{p.max_nodes}",
                    capacity,
                    _cost_cell(pc, pc.idle, region),
                    _cost_cell(pc, pc.at_max, region),
                ]
            )
    return rows


def _sharing_rows(pools: list[PoolCost]) -> list[list[str]]:
    """Per GPU pool: how it shares, the units a node offers, what a pod requests, each unit's memory
    and its price when the pool runs at max."""
    rows = []
    for pc in pools:
        p = pc.pool
        if not p.is_gpu:
            continue
        memory = p.memory_gb_per_unit
        if not memory:
            memory_text = "shared, not isolated"
        elif len(memory) == 1:
            memory_text = f"{next(iter(memory.values())):g} GB"
        else:
            memory_text = ", ".join(
                f"{r.removeprefix('nvidia.com/mig-')}: {gb:g} GB" for r, gb in memory.items()
            )
        per_unit = None if pc.per_node is None else pc.per_node / p.units_per_node
        rows.append(
            [
                p.name,
                p.sharing.description(),
                str(p.units_per_node),
                ("one of " if len(p.advertised_resources) > 1 else "")
                + ", ".join(f"{name}: 1" for name in p.advertised_resources),
                memory_text,
                # Units of several sizes (a MIG layout): the node's price over all of them.
                _money(per_unit) + (" avg" if len(p.advertised_resources) > 1 else ""),
            ]
        )
    return rows


def _describe(plan: PlanResult) -> str:
    spec = plan.cluster.spec
    return f"{spec['platform'].value}, {spec['region']}, Kubernetes {spec['kubernetes_version']}"


def render_text(plan: PlanResult) -> str:
    """The report of a stack's plan."""
    out = [
        f"gpukit plan: stack {plan.stack} ({_describe(plan)})",
        "",
        f"Resources ({len(plan.resources)}):",
        *resource_tree(plan.resources),
        *cluster_sections(plan),
    ]
    return _closing(out, len(plan.errors))


def render_program(plan: ProgramPlan, project: str) -> str:
    """The report of one's own program's plan: everything it creates, then each GpuCluster in it."""
    out = [
        f"gpukit plan: program {project}, stack {plan.stack}",
        "",
        f"Resources ({len(plan.resources)}):",
        *resource_tree(plan.resources),
    ]
    for cluster in plan.clusters:
        out += [
            "",
            f"GpuCluster {cluster.cluster.name} ({_describe(cluster)}):",
            *cluster_sections(cluster)[1:],
        ]
    return _closing(out, len(plan.errors))


def cluster_sections(plan: PlanResult) -> list[str]:
    """Pools, GPU software, storage, preflight, hosts and cost of one cluster."""
    out = ["", "GPU pools:"]
    gpu_rows = _pool_rows(plan.costs.pools, gpu=True, region=plan.costs.basis.region)
    out += (
        _table(
            [
                "pool",
                "instance",
                "GPUs/node",
                "GPU mem/node",
                "nodes",
                "capacity",
                "GPUs@max",
                "$/h idle",
                "$/h max",
            ],
            gpu_rows,
        )
        if gpu_rows
        else ["  (none)"]
    )
    out += gpu_model_lines(pc.pool.gpu for pc in plan.costs.pools if pc.pool.is_gpu)
    sharing_rows = _sharing_rows(plan.costs.pools)
    if sharing_rows:
        out += ["", "GPU units (what a pod requests):"]
        out += _table(
            ["pool", "sharing", "units/node", "a pod requests", "memory/unit", "$/h per unit"], sharing_rows
        )
    out += ["", "Other pools:"]
    out += _table(
        ["pool", "instance", "size", "nodes", "capacity", "$/h idle", "$/h max"],
        _pool_rows(plan.costs.pools, gpu=False, region=plan.costs.basis.region),
    )
    gpu_pools = [pc.pool for pc in plan.costs.pools if pc.pool.is_gpu]
    if gpu_pools:
        taints = sorted({t.spec() for p in gpu_pools for t in p.taints})
        out += ["", f"GPU nodes are tainted {', '.join(taints)}; GPU pods need the matching toleration."]
    for pool in (pc.pool for pc in plan.costs.pools if not pc.pool.is_gpu and pc.pool.taints):
        specs = ", ".join(t.spec() for t in pool.taints)
        out += [f"Nodes of pool {pool.name!r} are tainted {specs}: they run system pods only."]
    out += ["", "GPU software:"]
    out += [f"  {o.name}: {o.note}" for o in plan.operands]
    out += ["", f"Storage: {plan.storage}"]
    out += ["", "Preflight:"]
    out += [f"  {f}" for f in plan.findings] or ["  no findings"]
    if plan.hosts:
        out += ["", "Hosts:"]
        out += _table(
            ["node", "role", "address", "host key", "k3s", "labels", "taints"],
            [
                [
                    h.node,
                    h.role,
                    h.address,
                    h.host_key or "-",
                    h.k3s_version,
                    ",".join(h.labels),
                    ",".join(h.taints) or "-",
                ]
                for h in plan.hosts
            ],
        )
    return out + cost_lines(plan.costs, plan.cluster.args.get("budget", {}).get("max_hourly_cost"))


def _total(value: float, lower_bound: bool) -> str:
    return f"at least {_money(value)}" if lower_bound else _money(value)


def cost_lines(costs: CostEstimate, limit: float | None = None) -> list[str]:
    """The cost section: list prices for the stack's region with their date and source, totals (marked
    as lower bounds where a pool has no price), and the budget limit where the stack sets one."""
    basis = costs.basis
    if not basis.listed:
        return ["", f"Cost: {basis.region}; gpukit adds no cloud charges and knows no price for them."]
    out = ["", f"Cost (list prices in {basis.region}, {basis.as_of}; USD per hour):"]
    out.append(f"  price source: {basis.source}")
    if costs.charges and costs.charges_region and costs.charges_region != basis.region:
        out.append(
            f"  cluster charges below are {costs.charges_region} list prices "
            f"(gpukit has none for {basis.region})"
        )
    out += [
        f"  {c.what}: {_money(c.idle)}"
        if c.idle == c.at_max
        else f"  {c.what}: {_money(c.idle)} at idle, {_money(c.at_max)} at max"
        for c in costs.charges
    ]
    out += [
        f"  total at idle (min nodes): {_total(costs.idle_total, costs.idle_is_lower_bound)}",
        f"  total at max (max nodes):  {_total(costs.max_total, costs.max_is_lower_bound)}",
    ]
    if costs.unpriced:
        pools = ", ".join(f"{pc.pool.name} ({pc.pool.instance.name})" for pc in costs.unpriced)
        reasons = sorted({pc.note for pc in costs.unpriced})
        out.append(
            f"  ! NO PRICE for pool(s) {pools}: {'; '.join(reasons)}. They are left out, so a total that "
            'includes their nodes is a lower bound ("at least")'
        )
    if any(pc.spot_upper_bound for pc in costs.pools):
        out.append(
            "  * spot pools are priced at the on-demand list price, an upper bound (no dated spot price)"
        )
    if limit is not None:
        verdict = "over it" if costs.max_total > limit else "within it"
        if costs.max_is_lower_bound and costs.max_total <= limit:
            verdict = "not provable: the total at max is a lower bound"
        out.append(f"  budget (gpukit:budget.maxHourlyCost): {_money(limit)} at max nodes; {verdict}")
    out.append("  not included: data transfer, NAT data processing, disks, Service load balancers, NLB usage")
    return out


def _closing(out: list[str], errors: int) -> str:
    out += ["", f"Result: {errors} preflight error(s)" if errors else "Result: ready to `pulumi up`"]
    return "\n".join(out) + "\n"
