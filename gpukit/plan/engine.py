"""Run the gpukit Pulumi program in-process under the plan mocks and collect what it would build."""

import contextlib
import gc
import json
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pulumi
from pulumi.runtime import settings as runtime_settings

from gpukit.components.cluster import GpuCluster, declared
from gpukit.components.costs import CostEstimate, estimate
from gpukit.components.findings import Finding, Severity
from gpukit.components.handle import ClusterHandle
from gpukit.components.preflight import preflight
from gpukit.components.substrate import PlannedHost, ResolvedCluster
from gpukit.plan.fakes import PlanMocks, Recorded, RecordingMonitor
from gpukit.plan.stack_file import LoadedStack
from gpukit.program import Built, build, read_stack_config

SECRET_SIG = "4dabf18193072939515e22adb298388d"  # Pulumi's wire marker for secret values
MASK = "[secret]"


@dataclass
class PlanResult:
    stack: str
    cluster: ResolvedCluster
    findings: list[Finding]
    resources: list[Recorded]
    costs: CostEstimate
    handle: ClusterHandle
    """What the substrate built: the facts add-ons report from it (the default StorageClass)."""
    hosts: list[PlannedHost] = field(default_factory=list)
    """k3s over SSH: every host and what it joins as."""
    zones: dict[str, list[str]] = field(default_factory=dict)
    """Pool name -> the zones its nodes go to (empty: wherever the cluster's network reaches)."""

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == Severity.ERROR]


@dataclass
class ProgramPlan:
    """One's own Pulumi program, planned: everything it would create, and each GpuCluster's plan."""

    stack: str
    resources: list[Recorded]
    clusters: list[PlanResult]
    """One per GpuCluster the program declares, in order (pools, costs, preflight and so on)."""

    @property
    def errors(self) -> list[Finding]:
        return [f for c in self.clusters for f in c.errors]


def mask_secrets(value: Any) -> Any:
    """Replace every secret-wrapped value with MASK, recursively."""
    if isinstance(value, dict):
        if SECRET_SIG in value:
            return MASK
        return {k: mask_secrets(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mask_secrets(v) for v in value]
    return value


@contextlib.contextmanager
def _without_source_positions() -> Iterator[None]:
    """Skip the SDK's source position of each resource while mocked: it walks the Python stack for
    every registration (about a tenth of a mocked run) for the engine's diagnostics, which the mock
    monitor drops. Restored afterwards, so a real program in the same process keeps them."""
    from pulumi.runtime import resource
    from pulumi.runtime.proto import source_pb2

    original = getattr(resource, "_get_stack_trace", None)
    if original is None:  # another SDK version: nothing to skip
        yield
        return
    resource._get_stack_trace = source_pb2.StackTrace  # an empty trace: no source position
    try:
        yield
    finally:
        resource._get_stack_trace = original


def _freeze_survivors(phase: str, info: dict[str, int]) -> None:
    """gc callback: what survived a full collection is long-lived (modules the program imported)."""
    if phase == "stop" and info["generation"] == 2:
        gc.freeze()


@contextlib.contextmanager
def _long_lived_objects_frozen() -> Iterator[None]:
    """Keep the cyclic collector off the objects that outlive a mocked run: the modules loaded before
    it and those the program imports (the cloud SDKs: hundreds of thousands of objects).

    A mocked run allocates fast but leaves almost no cyclic garbage, and every full collection it
    triggers walks every tracked object, so most of its collector time went to re-walking the SDKs
    (about a fifth of a k3s plan's CPU time). Frozen on entry, and after each full collection during the
    run, those are skipped; only what the run made since is walked. Unfrozen afterwards, so the run's
    own garbage is still collected later when runs share a process. Left alone where something else
    froze objects already (before a fork, say): unfreezing would undo that."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    gc.callbacks.append(_freeze_survivors)
    try:
        yield
    finally:
        gc.callbacks.remove(_freeze_survivors)
        gc.unfreeze()


def run_mocked(
    program: Callable[[], object],
    config: dict[str, Any],
    secret_keys: list[str],
    *,
    project: str,
    stack: str,
    fakes_config: Mapping[str, Any] | None = None,
) -> list[Recorded]:
    """Run `program` under the plan mocks with `config` as the stack's config; returns every
    registration once all outputs have settled. Exceptions from the program propagate unchanged.

    The fakes take their region and project from `fakes_config` (default: `config`)."""
    monitor = RecordingMonitor(PlanMocks.for_config(config if fakes_config is None else fakes_config))
    # Values as the engine passes them to a program: strings, structured values JSON-encoded.
    runtime_config = {k: v if isinstance(v, str) else json.dumps(v) for k, v in config.items()}
    pulumi.runtime.set_all_config(runtime_config, secret_keys=secret_keys)
    runtime_settings.ROOT.set(None)  # a fresh root Stack per run, also when runs share a process
    pulumi.runtime.set_mocks(monitor.plan_mocks, project=project, stack=stack, preview=False, monitor=monitor)
    try:
        with _without_source_positions(), _long_lived_objects_frozen():
            pulumi.runtime.test(program)()  # type: ignore[no-untyped-call]
    finally:
        pulumi.runtime.set_all_config({}, secret_keys=[])
    return monitor.recorded


def run_plan(stack: LoadedStack) -> PlanResult:
    """Raises components.errors.ConfigError for invalid config, before anything is registered."""
    built: list[Built] = []

    def program() -> None:
        built.append(build(*read_stack_config(), enforce_preflight=False))

    resources = run_mocked(program, stack.config, stack.secret_keys, project="gpukit", stack=stack.name)
    return cluster_plan(stack.name, built[0].component, built[0].findings, resources)


def cluster_plan(
    stack: str, component: GpuCluster, findings: list[Finding], resources: list[Recorded]
) -> PlanResult:
    cluster = component.resolved
    return PlanResult(
        stack=stack,
        cluster=cluster,
        findings=findings,
        resources=resources,
        costs=estimate(cluster),
        handle=component.handle,
        hosts=cluster.substrate.planned_hosts(cluster),
        zones={pool.name: cluster.substrate.pool_zones(cluster, pool) for pool in cluster.pools},
    )


def plan_program(
    program: Callable[[], object],
    config: Mapping[str, Any] | None = None,
    *,
    secret_keys: Collection[str] = (),
    project: str = "program",
    stack: str = "plan",
) -> ProgramPlan:
    """Plan one's own Pulumi program offline, as `gpukit plan` plans gpukit's own.

    `program` runs in-process under gpukit's mock engine with `config` as its stack config (flat
    `namespace:key` values; `pulumi.Config` in the program reads them). gpukit's components get the
    fakes `gpukit plan` uses; any other resource gets a stable id and its inputs as its outputs; an
    invoke no fakes know fails loudly. Nothing is deployed and no cloud account is needed. Each
    GpuCluster the program declares is planned in full (pools, costs, preflight); its own validation
    errors raise ConfigError as under `pulumi up`.
    """
    found: list[GpuCluster] = []
    token = declared.set(found)
    try:
        resources = run_mocked(program, dict(config or {}), list(secret_keys), project=project, stack=stack)
    finally:
        declared.reset(token)
    return ProgramPlan(
        stack=stack,
        resources=resources,
        clusters=[cluster_plan(stack, c, preflight(c.resolved), resources) for c in found],
    )
