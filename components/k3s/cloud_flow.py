"""k3s on cloud VMs, one flow for every cloud: network, firewall, PKI, join secrets, servers, agent pools,
access. Each cloud contributes a small adapter (providers/<cloud>/k3s/adapter.py) that makes its own
network, firewall and join secrets and starts its machines; everything else is decided here once.

Nothing here logs in to a machine: every machine bootstraps itself at first boot (cloud_init.py) and
reads its join secrets with its own cloud identity. Pulumi makes the PKI (pki.py), so the kubeconfig
is built without reading anything back, and waits for the API before in-cluster releases install
(cloud_access.py).
"""

from collections.abc import Sequence
from typing import Any, Generic, Protocol, TypeVar

import pulumi

from gpukit.components.autoscaler.k3s_release import K3sClusterAutoscaler
from gpukit.components.autoscaler.provisioning import takes_provisioning_requests
from gpukit.components.catalog.drivers import min_driver_branch
from gpukit.components.catalog.k3s import k3s_version_for
from gpukit.components.handle import ClusterHandle
from gpukit.components.k3s.cloud_access import K3sCloudAccess
from gpukit.components.k3s.cloud_init import CloudNode, NodeSettings, pool_node
from gpukit.components.k3s.cloud_state import K3sCloudState, NfsVm
from gpukit.components.k3s.host_scripts import k3s_download
from gpukit.components.k3s.pki import K3sPki
from gpukit.components.k3s.pool_sync import K3sPoolSync
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import NodeRole, PodSecurityLevel
from gpukit.components.substrate import ResolvedCluster

Network = TypeVar("Network")
Secrets = TypeVar("Secrets")


class K3sServers(Protocol):
    """The server machines of a cluster, as the rest of the flow needs them."""

    @property
    def instances(self) -> Sequence[pulumi.Resource]:
        """The machines: agent pools and the API wait start once they exist."""
        ...

    @property
    def join_urls(self) -> pulumi.Output[list[str]]:
        """https://<server's stable private address>:6443 of every server, in server order: a joining
        machine registers through the first that answers (k3s agents then learn every server)."""
        ...

    @property
    def api_url(self) -> pulumi.Output[str]:
        """https://<the cluster's stable API address>:6443, an address in every server's TLS SANs."""
        ...


class K3sCloudAdapter(Protocol, Generic[Network, Secrets]):
    """What one cloud builds for a k3s cluster; the flow calls these in order, once each (agent_pool
    once per agent pool). Every resource is a child of the cluster component the adapter was made for."""

    def network(self) -> Network:
        """The VPC or network (new or reused), its firewall rules and whatever fronts the API."""
        ...

    def join_secrets(self, pki: K3sPki) -> Secrets:
        """The servers' and the agents' join secrets, each readable by its own role's identity only."""
        ...

    def servers(self, pool: PoolFacts, node: CloudNode, network: Network, secrets: Secrets) -> K3sServers:
        """The server pool's machines, each running `node` (its join and TLS SANs set per server:
        `server_join` says how)."""
        ...

    def agent_pool(
        self, pool: PoolFacts, node: CloudNode, network: Network, secrets: Secrets, servers: K3sServers
    ) -> None:
        """One agent pool: a group of machines that each run `node`, joining through `servers.join_urls`."""
        ...

    def nfs_server(self, volume: str, size_gb: int, network: Network) -> NfsVm:
        """The small VM serving one NFS shared volume from a disk of its own (`size_gb`), reachable on
        NFS from the cluster's nodes only, in `network`."""
        ...

    def autoscaler_values(self) -> pulumi.Input[dict[str, Any]]:
        """Cluster Autoscaler chart values over the agent pools made so far: the cloud's provider and
        its groups (components/autoscaler/k3s_values.py). Called once, after the agent pools; a cloud
        whose servers' identity needs a grant naming the groups makes it here (Compute Engine)."""
        ...


def node_settings(cluster: ResolvedCluster) -> NodeSettings:
    cuda = cluster.cuda_version
    spec = cluster.spec
    return NodeSettings(
        download=k3s_download(
            k3s_version_for(spec["kubernetes_version"], spec.get("k3s_version")), spec.get("k3s_sha256")
        ),
        driver=cluster.driver,
        min_driver_branch=min_driver_branch(cuda),
        cuda_version=cuda or "",
        traefik=spec.get("traefik", False),
        pod_security=spec.get("pod_security", PodSecurityLevel.BASELINE),
        system_namespaces=cluster.system_namespaces,
    )


def build_k3s_on_cloud(
    component: pulumi.ComponentResource,
    name: str,
    cluster: ResolvedCluster,
    adapter: K3sCloudAdapter[Network, Secrets],
) -> tuple[ClusterHandle, pulumi.Output[str]]:
    """The whole cluster under `component`; returns its handle and its API URL."""
    network = adapter.network()
    pki = K3sPki(f"{name}-pki", {"cluster_name": cluster.name}, opts=pulumi.ResourceOptions(parent=component))
    secrets = adapter.join_secrets(pki)

    settings = node_settings(cluster)
    server_pool = next(p for p in cluster.pools if p.role == NodeRole.SERVER)
    servers = adapter.servers(server_pool, pool_node(server_pool, settings), network, secrets)
    for pool in cluster.pools:
        if pool.role != NodeRole.SERVER:
            adapter.agent_pool(pool, pool_node(pool, settings), network, secrets, servers)

    access = K3sCloudAccess(
        f"{name}-access",
        {
            "cluster_name": cluster.name,
            "api_url": servers.api_url,
            "pki": pki,
            "servers": list(servers.instances),
        },
        opts=pulumi.ResourceOptions(parent=component),
    )
    in_cluster = pulumi.ResourceOptions(
        parent=component, providers={"kubernetes": access.kubernetes}, depends_on=[access.api_ready]
    )
    K3sPoolSync(f"{name}-pool-sync", {"pools": list(cluster.pools)}, opts=in_cluster)
    if any(pool.role == NodeRole.AGENT for pool in cluster.pools):
        # Agent pools scale between minNodes and maxNodes; the autoscaler runs on the servers.
        queued = takes_provisioning_requests(cluster.pools)
        autoscaler = K3sClusterAutoscaler(
            f"{name}-cluster-autoscaler",
            {"values": adapter.autoscaler_values(), "provisioning_requests": queued},
            opts=in_cluster,
        )
        if queued:
            access.handle.api_extensions.append(autoscaler)
    # Shared NFS volumes are the storage add-on's (components/addons/storage/nfs/variant.py): a VM
    # serving one needs this cluster's network and the adapter that starts machines in it.
    access.handle.substrate_state = K3sCloudState(
        component, lambda volume, size_gb: adapter.nfs_server(volume, size_gb, network)
    )
    return access.handle, servers.api_url
