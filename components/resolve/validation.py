"""Meaning checks on typed cluster args: each problem names the stack config key to edit.

Runs on `ClusterConfig` whether they came from a stack file or from Python code (both go through
components/resolve/config.py), so a component used from another infra repo rejects bad input the same
way `gpukit plan` does. The checks here hold on every substrate; each substrate adds its own
(Substrate.validate, in providers/<cloud>/validation.py), resolve/keys.py refuses keys a substrate
does not take, and each add-on checks the section it owns (resolve/config.py addon_problems).
"""

import math
from collections import Counter
from dataclasses import dataclass

from gpukit.components.api_access import public_cidrs
from gpukit.components.catalog.drivers import CUDA_MIN_DRIVER
from gpukit.components.catalog.gpu_names import pool_gpu_model
from gpukit.components.catalog.gpus import GpuModel, UnknownGpuModelError
from gpukit.components.catalog.instances import MachineCatalog, UnknownInstanceTypeError
from gpukit.components.config.schema import TOP_LEVEL_FIELDS
from gpukit.components.ephemeral import EXPIRES_AT_KEY, expiry_problem
from gpukit.components.errors import Problem
from gpukit.components.resolve.keys import key_problems
from gpukit.components.spec import (
    BudgetSpec,
    ClusterConfig,
    ClusterSpec,
    EphemeralSpec,
    MigStrategy,
    NodePoolSpec,
    SharingMode,
    WorkloadsSpec,
)
from gpukit.components.substrate import Substrate, registry
from gpukit.components.validate.common import CLUSTER, POOLS, check_cidr_list, check_name
from gpukit.components.validate.limits import list_size_problem, node_count_problem
from gpukit.components.validate.sharing import validate_cluster_mig_strategy, validate_pool_sharing

# The longest cluster and pool names: every cloud name gpukit composes from them fits its cloud's
# limit, cut and hashed where needed (components/names.py), as tests/program/test_name_limits.py
# checks with names this long.
CLUSTER_NAME_MAX = 32
POOL_NAME_MAX = 24
_MIN_DISK_GB, _MAX_DISK_GB = 20, 16384

# The config sections meaning checks are per: the top-level keys that hold fields.
SECTIONS = tuple(f.key for f in TOP_LEVEL_FIELDS if f.fields and f.planned is None)


def substrate_of(cluster: ClusterSpec, problems: list[Problem] | None = None) -> Substrate | None:
    """The cluster's substrate, from its platform and (for platforms on several providers) provider.

    None where a platform on several providers names none. With `problems`, what is wrong with the
    provider is appended to it.
    """
    problems = [] if problems is None else problems
    found = registry()
    platform, provider = cluster["platform"], cluster.get("provider")
    implied = found.implied_provider(platform)
    if implied is None:
        if provider is None:
            choices = ", ".join(p.value for p in found.providers_of(platform))
            problems.append(
                Problem(f"{CLUSTER}.provider", f"required for platform {platform.value}: one of {choices}")
            )
            return None
        return found.get(platform, provider)
    if provider is not None and provider != implied:
        problems.append(
            Problem(
                f"{CLUSTER}.provider",
                f"platform {platform.value} implies provider {implied.value}; remove the key (it is for "
                f"platform k3s), got {provider.value!r}",
            )
        )
    elif provider is not None:
        # Refused even when it agrees: a key that changes nothing is refused, never ignored.
        problems.append(
            Problem(
                f"{CLUSTER}.provider",
                f"platform {platform.value} implies provider {implied.value}; remove the key (it changes "
                "nothing there: it is for platform k3s)",
            )
        )
    return found.get(platform, implied)


def _validate_cluster(cluster: ClusterSpec, problems: list[Problem]) -> Substrate | None:
    """Checks every cluster section gets; the substrate, or None where it cannot be known."""
    check_name(f"{CLUSTER}.name", cluster["name"], CLUSTER_NAME_MAX, problems)
    substrate = substrate_of(cluster, problems)
    if substrate is not None and "cluster.apiAccessCidrs" in substrate.accepts:
        key, cidrs = f"{CLUSTER}.apiAccessCidrs", cluster.get("api_access_cidrs", [])
        check_cidr_list(key, cidrs, problems)
        limits = substrate.limits
        too_many = (
            list_size_problem(key, public_cidrs(cidrs), limits.api_access_cidrs, "public ranges")
            if limits.api_access_public_only
            else list_size_problem(key, cidrs, limits.api_access_cidrs)
        )
        if too_many is not None:
            problems.append(too_many)
    return substrate


def _is_machine_pool(pool: NodePoolSpec) -> bool:
    """The pool names the machines gpukit creates (missing keys are reported as such)."""
    return all(attr in pool for attr in ("instance_type", "min_nodes", "max_nodes"))


def _validate_pool(i: int, pool: NodePoolSpec, catalog: MachineCatalog, problems: list[Problem]) -> None:
    key = f"{POOLS}[{i}]"
    for attr, camel in (("min_nodes", "minNodes"), ("max_nodes", "maxNodes")):
        if pool[attr] < 0:  # type: ignore[literal-required]
            problems.append(Problem(f"{key}.{camel}", f"must be >= 0; got {pool[attr]}"))  # type: ignore[literal-required]
    if pool["max_nodes"] == 0:
        problems.append(Problem(f"{key}.maxNodes", "must be >= 1 (a pool that can never have a node)"))
    if pool["min_nodes"] > pool["max_nodes"] >= 0:
        problems.append(
            Problem(f"{key}.minNodes", f"must be <= maxNodes ({pool['max_nodes']}); got {pool['min_nodes']}")
        )
    disk = pool.get("disk_size_gb")
    if disk is not None and not _MIN_DISK_GB <= disk <= _MAX_DISK_GB:
        problems.append(
            Problem(f"{key}.diskSizeGb", f"must be {_MIN_DISK_GB} to {_MAX_DISK_GB} GiB; got {disk}")
        )
    try:
        machine = catalog.machine(pool["instance_type"])
    except UnknownInstanceTypeError as err:
        hint = (
            f"did you mean {', '.join(err.suggestions)}?"
            if err.suggestions
            else f"`gpukit catalog --cloud {catalog.cloud}` lists the types gpukit knows"
        )
        problems.append(
            Problem(
                f"{key}.instanceType",
                f"unknown {catalog.cloud} instance type {pool['instance_type']!r}; {hint}",
            )
        )
        return
    gpu = pool.get("gpu")
    if gpu is None or catalog.can_attach_gpus(machine):
        if gpu is not None and gpu["count"] < 1:
            problems.append(Problem(f"{key}.gpu.count", f"must be >= 1; got {gpu['count']}"))
        return
    if not machine.has_gpu:
        problems.append(
            Problem(f"{key}.gpu", f"{machine.name} has no GPUs and takes none attached; remove the key")
        )
    elif (gpu["model"], gpu["count"]) == (machine.gpu_model, machine.gpu_count):
        # Refused even when it agrees: the machine fixes its GPUs, so the key would change nothing.
        problems.append(
            Problem(
                f"{key}.gpu",
                f"{machine.name} comes with {machine.gpu_count}x {machine.gpu_model} already: the key "
                "changes nothing there (it is for machines that take attached GPUs, and own hosts); "
                "remove it",
            )
        )
    else:
        problems.append(
            Problem(
                f"{key}.gpu",
                f"{machine.name} comes with {machine.gpu_count}x {machine.gpu_model}; got "
                f"{gpu['count']}x {gpu['model']} (leave the key out, or match the machine)",
            )
        )


def _hosts_system_pods(pool: NodePoolSpec, catalog: MachineCatalog) -> bool:
    if not _is_machine_pool(pool):
        return False
    machine = catalog.machines.get(pool["instance_type"])
    return machine is not None and not machine.has_gpu and "gpu" not in pool and pool["min_nodes"] >= 1


def _groups(pool: NodePoolSpec, catalog: MachineCatalog) -> int:
    """How many groups share a pool's maxNodes, as far as the config says: a GPU pool that pins its
    zones is one group per zone (EKS: providers/aws/eks/zone_groups.py splits maxNodes evenly); any
    other pool counts as one group (a GPU pool whose zones EC2 picks at build time may get more, so
    one is the safe count)."""
    machine = catalog.machines.get(pool["instance_type"])
    zones = set(pool.get("zones", []))
    return len(zones) if zones and machine is not None and machine.has_gpu else 1


def _validate_pools(pools: list[NodePoolSpec], substrate: Substrate, problems: list[Problem]) -> None:
    if not pools:
        problems.append(Problem(POOLS, "needs at least one pool"))
        return
    for i, pool in enumerate(pools):
        check_name(f"{POOLS}[{i}].name", pool["name"], POOL_NAME_MAX, problems)
        if substrate.builds_machines and _is_machine_pool(pool):
            _validate_pool(i, pool, substrate.catalog, problems)
            too_big = node_count_problem(
                f"{POOLS}[{i}].maxNodes",
                pool["max_nodes"],
                substrate.limits.nodes_per_group,
                _groups(pool, substrate.catalog),
            )
            if too_big is not None:
                problems.append(too_big)
    cluster_limit = substrate.limits.nodes_per_cluster
    total = sum(p["max_nodes"] for p in pools if _is_machine_pool(p))
    if cluster_limit is not None and total > cluster_limit.most:
        problems.append(Problem(POOLS, f"the pools' maxNodes add up to {total}: {cluster_limit.describe()}"))
    names = Counter(p["name"] for p in pools)
    for i, pool in enumerate(pools):
        if names[pool["name"]] > 1:
            problems.append(Problem(f"{POOLS}[{i}].name", f"duplicate pool name {pool['name']!r}"))
    if substrate.builds_machines and not any(_hosts_system_pods(p, substrate.catalog) for p in pools):
        problems.append(
            Problem(
                POOLS,
                "no pool can host system pods (CoreDNS, the GPU Operator, the autoscaler): add a pool of a "
                "non-GPU instance type with minNodes >= 1",
            )
        )


def _pool_gpu(pool: NodePoolSpec, catalog: MachineCatalog) -> tuple[bool, GpuModel | None]:
    """(known, GPU model) of a pool: its machine's, or over SSH its `gpu` key's; unknown where the
    machine or model is itself refused (that problem is reported where it belongs)."""
    try:
        if "instance_type" in pool:
            instance = catalog.pool_instance(pool["instance_type"], pool.get("gpu"))
            return True, instance.gpu if instance.has_gpu else None
        gpu = pool.get("gpu")
        return True, pool_gpu_model(gpu) if gpu else None
    except (UnknownInstanceTypeError, UnknownGpuModelError, KeyError):
        return False, None


def _validate_sharing(pools: list[NodePoolSpec], substrate: Substrate, problems: list[Problem]) -> None:
    strategies: list[tuple[int, MigStrategy]] = []
    for i, pool in enumerate(pools):
        sharing = pool.get("sharing")
        if sharing is None:
            continue
        known, gpu = _pool_gpu(pool, substrate.catalog)
        if known:
            validate_pool_sharing(i, sharing, gpu, problems)
        if sharing["mode"] is SharingMode.MIG and "mig" in sharing:
            strategies.append((i, sharing["mig"].get("strategy", MigStrategy.SINGLE)))
    validate_cluster_mig_strategy(strategies, problems)


def _validate_workloads(workloads: WorkloadsSpec, problems: list[Problem]) -> None:
    cuda = workloads.get("cuda_version")
    if cuda is not None and cuda not in CUDA_MIN_DRIVER:
        problems.append(
            Problem(
                "gpukit:workloads.cudaVersion",
                f"must be a CUDA release gpukit knows ({', '.join(CUDA_MIN_DRIVER)}); got {cuda!r}",
            )
        )


def _validate_budget(budget: BudgetSpec, problems: list[Problem]) -> None:
    limit = budget.get("max_hourly_cost")
    if limit is not None and not (0 < limit < math.inf):
        problems.append(
            Problem(
                "gpukit:budget.maxHourlyCost",
                f"must be a positive number of USD per hour (for example 25.5); got {limit!r}",
            )
        )


def _validate_ephemeral(ephemeral: EphemeralSpec, problems: list[Problem]) -> None:
    expires_at = ephemeral.get("expires_at")
    why = expiry_problem(expires_at) if expires_at is not None else None
    if why is not None:
        problems.append(Problem(EXPIRES_AT_KEY, why))


@dataclass(frozen=True)
class CoreChecks:
    """What the checks before the add-ons' found."""

    substrate: Substrate | None
    """The cluster's substrate; None where the cluster section names none gpukit knows."""
    problems: list[Problem]
    substrate_checked: bool
    """Whether the substrate's own checks ran: the cluster section parsed and no key it requires is
    missing (checks that read those keys run only then)."""


def validate_cluster_args(args: ClusterConfig, sections: tuple[str, ...] = SECTIONS) -> CoreChecks:
    """The cluster's substrate and every problem the checks every cluster gets find in `args`: the
    cluster, its pools and their sharing, the substrate's keys and its own checks, workloads, budget and
    ephemeral (each add-on then checks the section it owns: resolve/config.py).

    `sections` limits the checks to config sections whose structure parsed cleanly. Pool checks need the
    substrate, so a cluster section with no known substrate skips them.
    """
    problems: list[Problem] = []
    cluster = args["cluster"]
    substrate: Substrate | None = None
    cluster_ok = "cluster" in sections
    if cluster_ok:
        substrate = _validate_cluster(cluster, problems)
    elif "platform" in cluster and "provider" not in cluster:
        # A broken cluster section must not hide pool problems where the platform alone says where.
        implied = registry().implied_provider(cluster["platform"])
        substrate = registry().get(cluster["platform"], implied) if implied else None
    pools_ok = "nodePools" in sections
    checked = False
    if substrate is not None:
        if pools_ok:
            _validate_pools(args["node_pools"], substrate, problems)
            _validate_sharing(args["node_pools"], substrate, problems)
        if cluster_ok:
            found, missing = key_problems(args, substrate, pools_ok)
            problems.extend(found)
            if not missing:
                problems.extend(substrate.validate(args, pools_ok))
                checked = True
    if "workloads" in sections:
        _validate_workloads(args.get("workloads", {}), problems)
    if "budget" in sections:
        _validate_budget(args.get("budget", {}), problems)
    if "ephemeral" in sections:
        _validate_ephemeral(args.get("ephemeral", {}), problems)
    return CoreChecks(substrate, problems, checked)
