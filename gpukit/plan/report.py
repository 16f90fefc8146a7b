"""The text report of a plan: the verdict and a one-line summary first, then the resource tree, pools,
GPU software, preflight and cost.

Plain text only: the CLI colours it on a terminal (gpukit/plan/colour.py). How long the plan took is not
part of the report (the CLI prints it on stderr), so the same stack always renders the same text.
"""

from collections import defaultdict

from gpukit.components.addons import registry as addons
from gpukit.components.costs import CostEstimate, PoolCost
from gpukit.components.findings import Finding
from gpukit.components.text_table import text_table
from gpukit.plan.engine import PlanResult, ProgramPlan
from gpukit.plan.fakes import Recorded
from gpukit.plan.gpu_models import gpu_model_lines


def _money(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"${value:,.3f}" if 0 < value < 1 else f"${value:,.2f}"


_table = text_table


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


def _zones_cell(zones: list[str]) -> str:
    """A pool's zones: pinned or derived ones, "cluster's" where the cloud picks among the cluster's."""
    if not zones:
        return "cluster's"
    # Zones of one region share its name: us-central1-a,b,c reads faster than the names in full.
    prefix = zones[0].rpartition("-")[0] + "-"
    if len(zones) > 1 and all(z.startswith(prefix) for z in zones):
        return zones[0] + "," + ",".join(z.removeprefix(prefix) for z in zones[1:])
    return ",".join(zones)


def _pool_rows(
    pools: list[PoolCost], gpu: bool, region: str, zones: dict[str, list[str]] | None
) -> list[list[str]]:
    """The rows of the GPU pools' or the other pools' table; a zones column unless `zones` is None."""
    rows = []
    for pc in pools:
        p = pc.pool
        if p.is_gpu != gpu:
            continue
        own = p.instance.own_host
        zones_cell = [] if zones is None else ["-" if own else _zones_cell(zones.get(p.name, []))]
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
                    *zones_cell,
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
                    *zones_cell,
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
    """Platform, region (none for own hosts) and Kubernetes version."""
    spec = plan.cluster.spec
    parts = [spec["platform"].value, spec["region"], f"Kubernetes {spec['kubernetes_version']}"]
    return ", ".join(part for part in parts if part)


def verdict(errors: int) -> str:
    """The plan's verdict: the line it opens and closes with."""
    return f"Result: {errors} preflight error(s)" if errors else "Result: ready to `pulumi up`"


def _per_hour(value: float, lower_bound: bool) -> str:
    return f"{'at least ' if lower_bound else ''}{_money(value)}/h"


def summary_line(resources: int, clusters: list[PlanResult]) -> str:
    """`N resources, M GPU pools, idle $x/h, max $y/h`, with "at least" where a total is a lower bound
    (a pool with no price); own hosts, which gpukit knows no price for, say so instead of a total."""
    gpu_pools = sum(1 for c in clusters for pc in c.costs.pools if pc.pool.is_gpu)
    parts = [f"{resources} resources", f"{gpu_pools} GPU pool{'' if gpu_pools == 1 else 's'}"]
    priced = [c.costs for c in clusters if c.costs.basis.listed]
    if priced:
        parts += [
            "idle "
            + _per_hour(sum(c.idle_total for c in priced), any(c.idle_is_lower_bound for c in priced)),
            "max " + _per_hour(sum(c.max_total for c in priced), any(c.max_is_lower_bound for c in priced)),
        ]
    if len(priced) < len(clusters):
        parts.append("own hosts: no $/h")
    return ", ".join(parts)


def _opening(title: str, resources: int, clusters: list[PlanResult], errors: int) -> list[str]:
    return [title, verdict(errors), summary_line(resources, clusters)]


def render_text(plan: PlanResult) -> str:
    """The report of a stack's plan."""
    out = [
        *_opening(
            f"gpukit plan: stack {plan.stack} ({_describe(plan)})",
            len(plan.resources),
            [plan],
            len(plan.errors),
        ),
        "",
        f"Resources ({len(plan.resources)}):",
        *resource_tree(plan.resources),
        *cluster_sections(plan),
    ]
    return _closing(out, len(plan.errors))


def render_program(plan: ProgramPlan, project: str) -> str:
    """The report of one's own program's plan: everything it creates, then each GpuCluster in it."""
    out = [
        *_opening(
            f"gpukit plan: program {project}, stack {plan.stack}",
            len(plan.resources),
            plan.clusters,
            len(plan.errors),
        ),
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
    # Machines gpukit makes have zones; own hosts (k3s over SSH) have none to show.
    own_hosts_only = all(pc.pool.instance.own_host for pc in plan.costs.pools)
    zones_header, zones = ([], None) if own_hosts_only else (["zones"], plan.zones)
    gpu_rows = _pool_rows(plan.costs.pools, gpu=True, region=plan.costs.basis.region, zones=zones)
    out += (
        _table(
            [
                "pool",
                "instance",
                "GPUs/node",
                "GPU mem/node",
                "nodes",
                "capacity",
                *zones_header,
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
        ["pool", "instance", "size", "nodes", "capacity", *zones_header, "$/h idle", "$/h max"],
        _pool_rows(plan.costs.pools, gpu=False, region=plan.costs.basis.region, zones=zones),
    )
    gpu_pools = [pc.pool for pc in plan.costs.pools if pc.pool.is_gpu]
    by_taints: dict[tuple[tuple[str, ...], bool], list[str]] = {}
    for pool in gpu_pools:
        key = (tuple(sorted(t.spec() for t in pool.taints)), pool.pending_pods_scale)
        by_taints.setdefault(key, []).append(pool.name)
    if len(by_taints) == 1 and next(iter(by_taints))[1]:
        taints = next(iter(by_taints))[0]
        out += ["", f"GPU nodes are tainted {', '.join(taints)}; GPU pods need the matching toleration."]
    elif by_taints:  # pools differ (a queued pool's extra taint): say which carries which
        out += [""]
        out += [
            f"GPU nodes of {', '.join(names)} are tainted {', '.join(taints)}; GPU pods need the matching "
            + (
                "toleration."
                if scales
                else "toleration, and come only through a ProvisioningRequest: only jobs submitted to a "
                "Kueue queue get them."
            )
            for (taints, scales), names in by_taints.items()
        ]
    for pool in (pc.pool for pc in plan.costs.pools if not pc.pool.is_gpu and pc.pool.taints):
        specs = ", ".join(t.spec() for t in pool.taints)
        out += [f"Nodes of pool {pool.name!r} are tainted {specs}: they run system pods only."]
    out += [line for addon in addons.ADDONS for line in addon.report(plan.cluster, plan.handle)]
    out += ["", "Preflight:"]
    out += [line for f in plan.findings for line in finding_lines(f)] or ["  no findings"]
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


def finding_lines(finding: Finding) -> list[str]:
    """A preflight finding, and under it its fix where it has one."""
    return [f"  {finding}", *([f"      fix: {finding.fix}"] if finding.fix else [])]


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
    out += [
        f"  ! NO PRICE for {item.what} {', '.join(item.names)}: {item.why}; they are left out, so the "
        'totals are lower bounds ("at least")'
        for item in costs.unpriced_items
    ]
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
    out += ["", verdict(errors)]
    return "\n".join(out) + "\n"
