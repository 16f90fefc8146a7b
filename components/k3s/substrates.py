"""What every k3s substrate shares, and what those on cloud VMs share, whatever the machines are.

Substrates in providers/ subclass these: k3s over SSH `K3sSubstrate`, k3s on EC2 and on Compute Engine
`K3sCloudSubstrate`. Pure (no Pulumi import): the registry imports them with gpukit.
"""

from gpukit.components.config.schema import CLOUD_MACHINE_KEYS, CLOUD_MACHINE_REQUIRED, K3S_KEYS
from gpukit.components.gpu_operator.values import GpuNodeSoftware
from gpukit.components.k3s.software import k3s_gpu_node_software
from gpukit.components.pools import GPU_TAINT_VALUE
from gpukit.components.preflight import Finding, Severity
from gpukit.components.resolved import ResolvedCluster
from gpukit.components.spec import NodeRole, Platform
from gpukit.components.substrate import Substrate


class K3sSubstrate(Substrate):
    platform = Platform.K3S
    gpu_taint_value = GPU_TAINT_VALUE

    def gpu_node_software(self, cluster: ResolvedCluster) -> GpuNodeSoftware:
        return k3s_gpu_node_software(cluster.driver)


class K3sCloudSubstrate(K3sSubstrate):
    """k3s on machines gpukit creates from a cloud's catalog (EC2, Compute Engine)."""

    builds_machines = True
    accepts: frozenset[str] = CLOUD_MACHINE_KEYS | K3S_KEYS
    requires = CLOUD_MACHINE_REQUIRED

    def findings(self, cluster: ResolvedCluster) -> list[Finding]:
        """gpukit installs no cluster autoscaler on k3s yet: say what minNodes and maxNodes do today."""
        return [
            Finding(
                Severity.INFO,
                f"gpukit:nodePools[{i}].minNodes",
                f"pool {pool.name!r} starts with {pool.min_nodes} node(s) and stays there: k3s on "
                f"{self.provider.value} has no cluster autoscaler in gpukit yet (maxNodes {pool.max_nodes} "
                "bounds the group; resize its desired capacity to scale by hand)",
            )
            for i, pool in enumerate(cluster.pools)
            if pool.role == NodeRole.AGENT and pool.min_nodes < pool.max_nodes
        ]

    def next_steps(self, cluster: ResolvedCluster) -> list[str]:
        return [
            "# the kubeconfig is built from the CA Pulumi made: no SSH to the machines is needed; agents "
            "join a few minutes after their machines boot"
        ]
