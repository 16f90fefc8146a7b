"""Run the gpukit Pulumi program in-process under the plan mocks and collect what it would build."""

from dataclasses import dataclass, field
from typing import Any

import pulumi
from pulumi.runtime import settings as runtime_settings

from gpukit.components.catalog.k3s import k3s_version_for
from gpukit.components.cluster import GpuClusterArgs
from gpukit.components.config.stack import cluster_args_from_config
from gpukit.components.costs import CostEstimate, estimate
from gpukit.components.gpu_operator.values import Operand, operands
from gpukit.components.pools import cluster_pool_facts
from gpukit.components.preflight import Finding, Severity, preflight
from gpukit.components.spec import is_ssh
from gpukit.plan.fakes import PlanMocks, Recorded, RecordingMonitor
from gpukit.plan.stack_file import LoadedStack
from gpukit.program import build, read_stack_config

SECRET_SIG = "4dabf18193072939515e22adb298388d"  # Pulumi's wire marker for secret values
MASK = "[secret]"


@dataclass(frozen=True)
class PlannedHost:
    node: str
    role: str
    address: str
    k3s_version: str
    labels: list[str]
    taints: list[str]


def planned_hosts(args: GpuClusterArgs) -> list[PlannedHost]:
    """The hosts of a k3s-over-SSH stack, as the backend will join them."""
    if not is_ssh(args["cluster"]):
        return []
    from gpukit.providers.ssh.k3s.hosts import k3s_hosts

    version = k3s_version_for(args["cluster"]["kubernetes_version"], args["cluster"].get("k3s_version"))
    return [
        PlannedHost(
            h["node_name"],
            h["role"].value,
            h["address"],
            version,
            [f"{k}={v}" for k, v in sorted(h["labels"].items())],
            list(h["taints"]),
        )
        for h in k3s_hosts(args["node_pools"], cluster_pool_facts(args), "")
    ]


@dataclass
class PlanResult:
    stack: str
    args: GpuClusterArgs
    findings: list[Finding]
    resources: list[Recorded]
    costs: CostEstimate
    operands: list[Operand] = field(default_factory=list)
    storage: str = ""
    hosts: list[PlannedHost] = field(default_factory=list)
    """k3s over SSH: every host and what it joins as."""

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == Severity.ERROR]


def mask_secrets(value: Any) -> Any:
    """Replace every secret-wrapped value with MASK, recursively."""
    if isinstance(value, dict):
        if SECRET_SIG in value:
            return MASK
        return {k: mask_secrets(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mask_secrets(v) for v in value]
    return value


def run_plan(stack: LoadedStack) -> PlanResult:
    """Raises components.errors.ConfigError for invalid config, before anything is registered."""
    args = cluster_args_from_config(stack.config, stack.secret_keys)
    findings = preflight(args)

    mocks = PlanMocks(region=args["cluster"]["region"], project=args["cluster"].get("project", "gpukit-plan"))
    monitor = RecordingMonitor(mocks)
    pulumi.runtime.set_all_config(stack.runtime_config(), secret_keys=stack.secret_keys)
    runtime_settings.ROOT.set(None)  # a fresh root Stack per plan, also when plans share a process
    pulumi.runtime.set_mocks(mocks, project="gpukit", stack=stack.name, preview=False, monitor=monitor)

    built: dict[str, Any] = {}

    def program() -> None:
        built["args"], built["cluster"] = build(*read_stack_config(), enforce_preflight=False)

    try:
        pulumi.runtime.test(program)()  # type: ignore[no-untyped-call]
    finally:
        pulumi.runtime.set_all_config({}, secret_keys=[])

    cluster = built["cluster"]
    return PlanResult(
        stack=stack.name,
        args=args,
        findings=findings,
        resources=monitor.recorded,
        costs=estimate(args),
        operands=operands(cluster.gpu_node_software),
        storage=cluster.storage,
        hosts=planned_hosts(args),
    )
