"""The max $/h guard, and the hourly cost of an ephemeral stack, both from the offline plan.

Nothing here prices anything itself: `gpukit plan`'s engine runs the copy's config (gpukit/plan/
engine.py run_plan), its cost model (components/costs.py) prices the pools, and the budget guard
(components/budget.py) judges the cost at max nodes against `gpukit:budget.maxHourlyCost`, which
`ephemeral_config` set to the lower of the source stack's limit and `--max-hourly-cost`. So the limit
is checked before any Pulumi call, and again by `pulumi up` itself (the program's preflight). The
user's own program (`--program`) builds its GpuClusters from its own args, budget included, so there
plan_program_copy compares their planned totals with the limit itself (before any Pulumi call only).
"""

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpukit.components.budget import LIMIT_KEY
from gpukit.components.findings import Finding, Severity
from gpukit.plan.stack_file import LoadedStack, Project

MAX_HOURLY_ENV = "GPUKIT_EPHEMERAL_MAX_HOURLY"
DEFAULT_MAX_HOURLY = 50.0
"""USD per hour at max nodes: room for a small GPU dev cluster (`gpukit plan --stack eks-dev`: $6.68/h
at max, 8 L4 nodes and a system node) while refusing a training cluster by default (eks-train: $117.56/h
at max; one p5.48xlarge lists at $55.04/h, providers/aws/catalog.py). A choice, not a sourced fact:
raise it per run with --max-hourly-cost or $GPUKIT_EPHEMERAL_MAX_HOURLY."""


class GuardError(ValueError):
    """The flag or environment value is not a positive number."""


def max_hourly_limit(flag: float | None) -> float:
    """--max-hourly-cost, else $GPUKIT_EPHEMERAL_MAX_HOURLY, else DEFAULT_MAX_HOURLY."""
    if flag is not None:
        value, where = flag, "--max-hourly-cost"
    elif os.environ.get(MAX_HOURLY_ENV):
        where = MAX_HOURLY_ENV
        try:
            value = float(os.environ[MAX_HOURLY_ENV])
        except ValueError:
            raise GuardError(
                f"{where} must be a number of USD per hour; got {os.environ[MAX_HOURLY_ENV]!r}"
            ) from None
    else:
        return DEFAULT_MAX_HOURLY
    if not 0 < value < float("inf"):
        raise GuardError(f"{where} must be a positive number of USD per hour; got {value!r}")
    return value


@dataclass(frozen=True)
class PlannedCost:
    idle: float
    at_max: float
    lower_bound: bool
    """A pool has no list price: the totals leave it out."""


@dataclass(frozen=True)
class Verdict:
    cost: PlannedCost
    refusals: list[Finding]
    """The budget guard's errors (the stack costs more than the limit, or cannot be priced)."""
    errors: list[Finding]
    """Every other preflight error: `pulumi up` would stop on them too."""


def plan_copy(name: str, path: Path, config: dict[str, Any]) -> Verdict:
    """Plan the copy offline. Raises ConfigError (invalid config) and ResourceNameError as `gpukit
    plan` does."""
    from gpukit.plan.engine import run_plan

    plan = run_plan(LoadedStack(name, path, config, []))
    costs = plan.costs
    cost = PlannedCost(costs.idle_total, costs.max_total, costs.max_is_lower_bound)
    refusals = [f for f in plan.errors if f.key == LIMIT_KEY]
    return Verdict(cost, refusals, [f for f in plan.errors if f.key != LIMIT_KEY])


def _usd(value: float) -> str:
    return f"${value:,.2f}/h"


def plan_program_copy(
    program: Project,
    name: str,
    path: Path,
    config: dict[str, Any],
    *,
    max_hourly_cost: float,
    allow_unpriced: bool,
) -> Verdict:
    """Plan a copy of the user's own program (`--program`) offline, as `gpukit plan --program` does,
    and judge the cost at max nodes of all its GpuClusters together against the limit: the program's
    clusters take their budget from its own args, not from the copy's config, so the limit is checked
    here. Clusters on machines you own (k3s over SSH) have no list price and no guard, as for gpukit's
    program. Raises ConfigError, ResourceNameError, ProgramError and StackFileError as the plan does."""
    from gpukit.plan.program import plan_project

    plan = plan_project(program, LoadedStack(name, path, config, []))
    priced = [c for c in plan.clusters if "budget" in c.cluster.substrate.accepts]
    cost = PlannedCost(
        sum(c.costs.idle_total for c in plan.clusters),
        sum(c.costs.max_total for c in plan.clusters),
        any(c.costs.max_is_lower_bound for c in priced),
    )
    # A cluster's own budget (the program passes one) refuses as it would under `pulumi up`.
    refusals = [f for f in plan.errors if f.key == LIMIT_KEY]
    at_max = f"{'at least ' if cost.lower_bound else ''}{_usd(cost.at_max)}"
    if priced and cost.at_max > max_hourly_cost:
        refusals.insert(
            0,
            Finding(
                Severity.ERROR,
                "--max-hourly-cost",
                f"the program's GpuClusters cost {at_max} at max nodes at list prices, over the limit "
                f"of {_usd(max_hourly_cost)}; lower their maxNodes, or raise --max-hourly-cost",
            ),
        )
    elif priced and cost.lower_bound and not allow_unpriced:
        refusals.insert(
            0,
            Finding(
                Severity.ERROR,
                "--max-hourly-cost",
                f"cannot prove the program stays within {_usd(max_hourly_cost)}: a pool or shared volume "
                f"has no list price, so its cost at max nodes is only known to be {at_max} (`gpukit plan "
                "--program` names it); pass --allow-unpriced to accept the lower bound",
            ),
        )
    return Verdict(cost, refusals, [f for f in plan.errors if f.key != LIMIT_KEY])
