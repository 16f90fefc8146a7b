"""What every k3s substrate shares, and what those on cloud VMs share, whatever the machines are.

Substrates in providers/ subclass these: k3s over SSH `K3sSubstrate`, k3s on EC2 and on Compute Engine
`K3sCloudSubstrate`. Pure (no Pulumi import): the registry imports them with gpukit.
"""

from dataclasses import replace

from gpukit.components.config.schema import CLOUD_MACHINE_KEYS, CLOUD_MACHINE_REQUIRED, K3S_KEYS
from gpukit.components.findings import Finding, Severity
from gpukit.components.k3s.software import k3s_gpu_node_software
from gpukit.components.node_software import GpuNodeSoftware
from gpukit.components.pools import GPU_TAINT_VALUE, SERVER_TAINT, PoolFacts
from gpukit.components.spec import NodePoolSpec, NodeRole, Platform
from gpukit.components.substrate import ResolvedCluster, Substrate


class K3sSubstrate(Substrate):
    platform = Platform.K3S
    gpu_taint_value = GPU_TAINT_VALUE
    # Shared storage is NFS (components/addons/storage/nfs/variant.py): each substrate declares its
    # variant in `addon_variants`.

    def gpu_node_software(self, cluster: ResolvedCluster) -> GpuNodeSoftware:
        return k3s_gpu_node_software(cluster.driver)

    def cluster_pool_facts(self, pools: list[NodePoolSpec]) -> tuple[PoolFacts, ...]:
        """Servers carry CriticalAddonsOnly=true:NoExecute while the cluster has agents (unless the
        server pool says `schedulable: true`): the control plane and etcd keep their machines."""
        facts = super().cluster_pool_facts(pools)
        has_agents = any(f.role == NodeRole.AGENT for f in facts)
        return tuple(
            replace(fact, taints=(*fact.taints, SERVER_TAINT))
            if fact.role == NodeRole.SERVER and has_agents and not spec.get("schedulable", False)
            else fact
            for fact, spec in zip(facts, pools, strict=True)
        )


class K3sCloudSubstrate(K3sSubstrate):
    """k3s on machines gpukit creates from a cloud's catalog (EC2, Compute Engine)."""

    builds_machines = True
    accepts: frozenset[str] = CLOUD_MACHINE_KEYS | K3S_KEYS
    requires = CLOUD_MACHINE_REQUIRED
    autoscaler_provider: str = ""
    """The Cluster Autoscaler's name for the cloud (its --cloud-provider: aws, gce)."""

    def findings(self, cluster: ResolvedCluster) -> list[Finding]:
        """What minNodes and maxNodes do: the Cluster Autoscaler on the servers owns each agent group's
        size between them (components/autoscaler/k3s_values.py)."""
        return [
            Finding(
                Severity.INFO,
                f"gpukit:nodePools[{i}].minNodes",
                f"pool {pool.name!r} scales between {pool.min_nodes} and {pool.max_nodes} node(s): the "
                f"Cluster Autoscaler on the servers ({self.autoscaler_provider} provider) adds "
                "machines for "
                "pending pods that fit the pool and removes nodes idle for 10 minutes"
                + (", so it costs nothing while idle" if pool.min_nodes == 0 else ""),
            )
            for i, pool in enumerate(cluster.pools)
            if pool.role == NodeRole.AGENT and pool.min_nodes < pool.max_nodes
        ]

    def next_steps(self, cluster: ResolvedCluster) -> list[str]:
        return [
            "# the kubeconfig is built from the CA Pulumi made: no SSH to the machines is needed; agents "
            "join a few minutes after their machines boot"
        ]
