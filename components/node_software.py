"""What a platform's GPU nodes get from the platform, a fact each substrate declares
(Substrate.gpu_node_software): the GPU Operator add-on decides from it what the Operator runs, and the
plan report what the nodes run (components/addons/gpu_operator/)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Operand:
    name: str
    runs: bool
    note: str


@dataclass(frozen=True)
class GpuNodeSoftware:
    """What a platform's GPU nodes get from the platform, which decides what the Operator runs."""

    driver_preinstalled: bool
    toolkit_preinstalled: bool
    summary: str
    """One line for the plan: which image ships what."""
    runs_gpu_operator: bool = True
    """False where the platform runs the whole GPU stack itself (GKE-managed GPU nodes)."""
    toolkit_env: tuple[tuple[str, str], ...] = ()
    """Extra environment for the Operator's container toolkit (GKE 1.33+ needs RUNTIME_CONFIG_SOURCE)."""
    needs_priority_quota: bool = False
    """GKE admits system-node/cluster-critical pods outside kube-system only under a ResourceQuota."""
    platform_operands: tuple[Operand, ...] = ()
    """What the platform runs instead of the Operator, for plans (when runs_gpu_operator is False)."""
