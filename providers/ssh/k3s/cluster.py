"""k3s on existing hosts: the hosts of every pool become one k3s cluster, joined over SSH (K3sCluster)."""

import pulumi

from gpukit.components.catalog.drivers import min_driver_branch
from gpukit.components.catalog.k3s import k3s_version_for
from gpukit.components.handle import ClusterHandle
from gpukit.components.k3s.cluster import K3sCluster
from gpukit.components.k3s.handle import k3s_cluster_handle
from gpukit.components.k3s.pool_sync import K3sPoolSync
from gpukit.components.spec import PodSecurityLevel
from gpukit.components.substrate import ResolvedCluster
from gpukit.providers.ssh.config import ssh_private_key
from gpukit.providers.ssh.k3s.hosts import k3s_hosts


def build_k3s_ssh(name: str, cluster: ResolvedCluster, parent: pulumi.Resource) -> ClusterHandle:
    """K3sSshSubstrate.build."""
    spec = cluster.spec
    # Secret from here on: in state, in every command that uses it, in plans.
    private_key = pulumi.Output.secret(ssh_private_key(cluster))
    hosts = k3s_hosts(cluster.pools, private_key)
    cuda = cluster.cuda_version
    k3s = K3sCluster(
        name,
        {
            "cluster_name": spec["name"],
            "k3s_version": k3s_version_for(spec["kubernetes_version"], spec.get("k3s_version")),
            "api_address": spec.get("api_address") or hosts[0]["address"],
            "hosts": hosts,
            "driver": cluster.driver,
            "min_driver_branch": min_driver_branch(cuda),
            "cuda_version": cuda or "",
            "traefik": spec.get("traefik", False),
            "k3s_sha256": spec.get("k3s_sha256", {}),
            "pod_security": spec.get("pod_security", PodSecurityLevel.BASELINE),
            "system_namespaces": list(cluster.system_namespaces),
        },
        opts=pulumi.ResourceOptions(parent=parent),
    )
    K3sPoolSync(
        f"{name}-pool-sync",
        {"pools": list(cluster.pools)},
        opts=pulumi.ResourceOptions(
            parent=parent, providers={"kubernetes": k3s.kubernetes}, depends_on=list(k3s.servers)
        ),
    )
    return k3s_cluster_handle(spec["name"], k3s.kubeconfig, k3s.kubernetes, list(k3s.servers))
