"""The k3s-over-SSH backend: existing hosts become one k3s cluster (providers.base.ClusterBackend)."""

from typing import Any

import pulumi

from gpukit.components.catalog.k3s import k3s_version_for
from gpukit.components.k3s.cluster import K3sCluster
from gpukit.components.k3s.software import k3s_cluster_handle
from gpukit.components.pools import cluster_pool_facts
from gpukit.components.substrate import ClusterHandle
from gpukit.providers.ssh.k3s.hosts import k3s_hosts, min_driver_branch


def build_k3s_ssh(name: str, args: Any, parent: pulumi.Resource) -> ClusterHandle:
    spec = args["cluster"]
    hosts = k3s_hosts(args["node_pools"], cluster_pool_facts(args), args["ssh_private_key"])
    driver = args["gpu_operator"]["driver"]
    cuda = args.get("workloads", {}).get("cuda_version")
    cluster = K3sCluster(
        name,
        {
            "cluster_name": spec["name"],
            "k3s_version": k3s_version_for(spec["kubernetes_version"], spec.get("k3s_version")),
            "api_address": spec.get("api_address") or hosts[0]["address"],
            "hosts": hosts,
            "driver": driver,
            "min_driver_branch": min_driver_branch(cuda),
            "cuda_version": cuda or "",
            "traefik": spec.get("traefik", False),
        },
        opts=pulumi.ResourceOptions(parent=parent),
    )
    return k3s_cluster_handle(
        spec["name"], cluster.kubeconfig, cluster.kubernetes, driver, list(cluster.servers)
    )
