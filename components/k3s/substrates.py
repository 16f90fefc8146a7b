"""What every k3s substrate shares, and what those on cloud VMs share, whatever the machines are.

Substrates in providers/ subclass these: k3s over SSH `K3sSubstrate`, k3s on EC2 and on Compute Engine
`K3sCloudSubstrate`. Pure (no Pulumi import): the registry imports them with gpukit.
"""

from dataclasses import replace
from typing import TYPE_CHECKING

from gpukit.components.config.schema import CLOUD_MACHINE_KEYS, CLOUD_MACHINE_REQUIRED, K3S_KEYS
from gpukit.components.findings import Finding, Severity
from gpukit.components.gpu_operator.values import GpuNodeSoftware
from gpukit.components.k3s.nfs_network import nfs_address_findings
from gpukit.components.k3s.software import k3s_gpu_node_software
from gpukit.components.pools import GPU_TAINT_VALUE, SERVER_TAINT, PoolFacts
from gpukit.components.resolved import ResolvedCluster
from gpukit.components.spec import NodePoolSpec, NodeRole, Platform, StorageKind
from gpukit.components.substrate import Substrate

if TYPE_CHECKING:
    import pulumi

    from gpukit.components.handle import ClusterHandle
    from gpukit.components.storage.built import BuiltVolume
    from gpukit.components.storage.plan import PlannedVolume


class K3sSubstrate(Substrate):
    platform = Platform.K3S
    gpu_taint_value = GPU_TAINT_VALUE
    # NFS through the NFS CSI driver (components/k3s/nfs_*.py): an export the user names on every k3s,
    # a server on one of the hosts over SSH (K3sSshSubstrate).
    shared_storage_kinds = frozenset({StorageKind.NFS})

    def build_shared_storage(
        self,
        name: str,
        cluster: ResolvedCluster,
        volumes: list["PlannedVolume"],
        handle: "ClusterHandle",
        parent: "pulumi.Resource",
    ) -> list["BuiltVolume"]:
        """Exports the user names (`nfs: {server, path}`): the driver and a class per volume."""
        from gpukit.components.k3s.nfs_storage import build_nfs_driver, built_volumes

        targets = [
            {"volume": v.name, "server": v.spec["nfs"]["server"], "share": v.spec["nfs"]["path"]}
            for v in volumes
        ]
        driver = build_nfs_driver(name, targets, [], handle.kubernetes, parent, ready=handle.system_ready)  # type: ignore[arg-type]
        return built_volumes(volumes, driver)

    def shared_volume_zones(self, cluster: ResolvedCluster, volume: "PlannedVolume") -> list[str]:
        """Where an NFS volume lives, for the plan: the SSH host that serves it, the user's own export, or
        the zone of the VM gpukit makes (where the plan knows it)."""
        nfs = volume.spec.get("nfs") or {}
        if "host" in nfs:
            return [f"host {nfs['host']}"]
        if "server" in nfs:
            return ["your server"]
        server = self.shared_volume_server(cluster, volume)
        if server is None:
            return []
        # One zone, the VM's and its disk's (chosen at `pulumi up` where the plan does not know it yet).
        return [server.zone or "the VM's zone"]

    def findings(self, cluster: ResolvedCluster) -> list[Finding]:
        """NFS servers and nodes named by DNS: whether they are private is known only once they resolve."""
        hosts = [host["address"] for pool in cluster.pools for host in pool.hosts]
        return nfs_address_findings(cluster.args.get("storage"), hosts)

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

    def build_shared_storage(
        self,
        name: str,
        cluster: ResolvedCluster,
        volumes: list["PlannedVolume"],
        handle: "ClusterHandle",
        parent: "pulumi.Resource",
    ) -> list["BuiltVolume"]:
        """Built with the cluster (components/k3s/cloud_flow.py: an export the user names, else a small
        VM in the cluster's network), handed back here."""
        return handle.built_volumes

    def findings(self, cluster: ResolvedCluster) -> list[Finding]:
        """What minNodes and maxNodes do: the Cluster Autoscaler on the servers owns each agent group's
        size between them (components/autoscaler/k3s_values.py)."""
        return super().findings(cluster) + [
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
