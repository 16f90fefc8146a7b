"""K3sGceCluster: k3s on Compute Engine GPU VMs (platform k3s, provider gcp).

Network (new VPC with Cloud NAT, or a reused one), firewall rules, the cluster PKI made by Pulumi,
join secrets in Secret Manager, servers at static addresses, one managed instance group per agent
pool, and the kubeconfig with a wait until the API answers. Every machine bootstraps itself from its
startup script; nothing is run on a machine by Pulumi.
"""

from typing import Any, Optional, TypedDict

import pulumi
import pulumi_gcp as gcp

from gpukit.components.api_access import needs_public_endpoint
from gpukit.components.catalog.k3s import k3s_version_for
from gpukit.components.k3s.cloud_access import K3sCloudAccess
from gpukit.components.k3s.cloud_init import pool_node
from gpukit.components.k3s.pki import K3sPki
from gpukit.components.pools import PoolFacts, cluster_pool_facts
from gpukit.components.spec import ClusterSpec, GpuOperatorSpec, NodeRole
from gpukit.components.substrate import ClusterHandle
from gpukit.providers.gcp.k3s.agent_pool import K3sGceAgentPool
from gpukit.providers.gcp.k3s.firewall import firewall_rules, node_tag, server_tag
from gpukit.providers.gcp.k3s.iam import K3sGceJoinSecrets
from gpukit.providers.gcp.k3s.servers import K3sGceServers, server_zones
from gpukit.providers.gcp.network import GcpNetwork
from gpukit.providers.gcp.placement import pool_zones
from gpukit.providers.gcp.provider import cluster_provider
from gpukit.providers.ssh.k3s.hosts import min_driver_branch

TYPE_TOKEN = "gpukit:index:K3sGceCluster"


class K3sGceClusterArgs(TypedDict):
    cluster: ClusterSpec
    pools: list[PoolFacts]
    gpu_operator: GpuOperatorSpec
    cuda_version: str
    """Newest CUDA the workloads use ("" when not set): each GPU machine checks its driver for it."""


class K3sGceCluster(pulumi.ComponentResource):
    handle: ClusterHandle

    def __init__(self, name: str, args: K3sGceClusterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        spec = args["cluster"]
        cluster_name, project, region = spec["name"], spec.get("project", ""), spec["region"]
        driver = args["gpu_operator"]["driver"]

        provider = cluster_provider(name, spec, self)
        child = pulumi.ResourceOptions(parent=self, provider=provider)
        with_gcp = pulumi.ResourceOptions(parent=self, providers={"gcp": provider})

        network = spec["network"]
        if "network_id" in network:
            network_id: pulumi.Input[str] = network["network_id"]
            subnetwork_id: pulumi.Input[str] = network["subnetwork_id"]
        else:
            vpc = GcpNetwork(
                f"{name}-network",
                {"cluster_name": cluster_name, "region": region, "cidr": network["cidr"]},
                opts=with_gcp,
            )
            network_id, subnetwork_id = vpc.network_id, vpc.subnetwork_id

        cidrs = spec.get("api_access_cidrs", [])
        for rule in firewall_rules(cluster_name, cidrs):
            gcp.compute.Firewall(
                f"{name}-{rule.name}",
                name=f"{cluster_name}-{rule.name}",
                network=network_id,
                description=f"{rule.description} (gpukit)",
                direction="INGRESS",
                allows=[{"protocol": rule.protocol, "ports": list(rule.ports)}],
                target_tags=[rule.target_tag],
                source_tags=[rule.source_tag] if rule.source_tag else None,
                source_ranges=list(rule.source_ranges) or None,
                opts=child,
            )

        pki = K3sPki(f"{name}-pki", {"cluster_name": cluster_name}, opts=pulumi.ResourceOptions(parent=self))
        secrets = K3sGceJoinSecrets(
            f"{name}-join",
            {
                "cluster_name": cluster_name,
                "project": project,
                "server_files": pki.server_files,
                "agent_files": pki.agent_files,
            },
            opts=with_gcp,
        )

        node_settings: dict[str, Any] = {
            "k3s_version": k3s_version_for(spec["kubernetes_version"], spec.get("k3s_version")),
            "driver": driver,
            "min_driver_branch": min_driver_branch(args["cuda_version"] or None),
            "cuda_version": args["cuda_version"],
            "traefik": spec.get("traefik", False),
        }
        server_pool = next(p for p in args["pools"] if p.role == NodeRole.SERVER)
        servers = K3sGceServers(
            f"{name}-{server_pool.name}",
            {
                "cluster_name": cluster_name,
                "region": region,
                "pool": server_pool,
                "node": pool_node(server_pool, **node_settings),
                "zones": server_zones(spec, server_pool),
                "subnetwork": subnetwork_id,
                # Static external addresses only when a client outside private address space may call
                # the API (203.0.113.0/24 in the example stack counts as public).
                "external": needs_public_endpoint(cidrs),
                "service_account": secrets.service_accounts[NodeRole.SERVER],
                "secret_version": secrets.secret_versions[NodeRole.SERVER],
                "tags": [node_tag(cluster_name), server_tag(cluster_name)],
                "waits": secrets.ready,
            },
            opts=with_gcp,
        )
        for pool in args["pools"]:
            if pool.role == NodeRole.SERVER:
                continue
            K3sGceAgentPool(
                f"{name}-{pool.name}",
                {
                    "cluster_name": cluster_name,
                    "region": region,
                    "pool": pool,
                    "node": pool_node(pool, **node_settings),
                    # GPU pools: only the zones that offer their accelerator.
                    "zones": pool_zones(spec, pool),
                    "subnetwork": subnetwork_id,
                    "service_account": secrets.service_accounts[NodeRole.AGENT],
                    "server_url": servers.join_url,
                    "secret_version": secrets.secret_versions[NodeRole.AGENT],
                    "tags": [node_tag(cluster_name)],
                    "waits": [*secrets.ready, *servers.instances],
                },
                opts=with_gcp,
            )

        access = K3sCloudAccess(
            f"{name}-access",
            {
                "cluster_name": cluster_name,
                "api_url": servers.api_url,
                "pki": pki,
                "driver": driver,
                "servers": list(servers.instances),
            },
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.handle = access.handle
        self.register_outputs({"kubeconfig": access.kubeconfig, "api_url": servers.api_url})


def build_k3s_gce(name: str, args: Any, parent: pulumi.Resource) -> ClusterHandle:
    """providers.base.ClusterBackend for platform k3s, provider gcp."""
    cluster = K3sGceCluster(
        name,
        {
            "cluster": args["cluster"],
            "pools": cluster_pool_facts(args),
            "gpu_operator": args["gpu_operator"],
            "cuda_version": args.get("workloads", {}).get("cuda_version", ""),
        },
        opts=pulumi.ResourceOptions(parent=parent),
    )
    return cluster.handle
