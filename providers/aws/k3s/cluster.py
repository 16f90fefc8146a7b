"""K3sEc2Cluster: k3s on EC2 GPU instances (platform k3s, provider aws), for GpuCluster.

Nothing here logs in to a machine: every instance bootstraps itself at first boot from its user
data (components/k3s/cloud_init.py) and reads its join secrets from Secrets Manager with its own
instance role. Pulumi makes the PKI (components/k3s/pki.py), so the kubeconfig is built without
reading anything back, and waits for the API through its load balancer (K3sCloudAccess).

Layout: every instance in private subnets without a public address; a Network Load Balancer on
6443 in front of the servers is the API address (internet-facing only when apiAccessCidrs has a
public range); servers are fixed instances with stable addresses; agent pools are Auto Scaling
groups.
"""

from typing import Any, Optional, TypedDict

import pulumi

from gpukit.components.catalog.k3s import k3s_version_for
from gpukit.components.k3s.cloud_access import K3sCloudAccess
from gpukit.components.k3s.host_scripts import API_PORT, secrets_bundle
from gpukit.components.k3s.pki import K3sPki
from gpukit.components.pools import PoolFacts, cluster_pool_facts
from gpukit.components.spec import DEFAULT_ZONE_COUNT, ClusterSpec, DriverMode, NatGateways, NodeRole
from gpukit.components.substrate import ClusterHandle
from gpukit.providers.aws.k3s.agent_pool import K3sEc2AgentPool
from gpukit.providers.aws.k3s.api_lb import K3sEc2ApiLoadBalancer
from gpukit.providers.aws.k3s.iam import K3sEc2NodeRole
from gpukit.providers.aws.k3s.security import Group, K3sEc2SecurityGroups
from gpukit.providers.aws.k3s.servers import K3sEc2Servers
from gpukit.providers.aws.network import AwsNetwork
from gpukit.providers.aws.provider import cluster_provider, cluster_tags
from gpukit.providers.ssh.k3s.hosts import min_driver_branch

TYPE_TOKEN = "gpukit:index:K3sEc2Cluster"


class K3sEc2ClusterArgs(TypedDict):
    cluster: ClusterSpec
    pools: list[PoolFacts]
    """Pool facts from components.node_pools (this component is built by GpuCluster, in Python)."""
    driver: DriverMode
    cuda_version: str
    """Newest CUDA version the workloads need ("" when not set): checked by each GPU node."""


class K3sEc2Cluster(pulumi.ComponentResource):
    kubeconfig: pulumi.Output[str]
    """Secret: admin kubeconfig with a client certificate, for https://<load balancer>:6443."""
    api_url: pulumi.Output[str]
    handle: ClusterHandle

    def __init__(self, name: str, args: K3sEc2ClusterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        spec = args["cluster"]
        cluster_name = spec["name"]
        region = spec["region"]
        driver = args["driver"]
        cuda = args["cuda_version"]
        k3s_version = k3s_version_for(spec["kubernetes_version"], spec.get("k3s_version"))
        access_cidrs = spec.get("api_access_cidrs", [])
        tags = cluster_tags(spec)  # also on what launch templates start (default tags do not reach it)
        provider = cluster_provider(name, spec, self)
        aws_children = pulumi.ResourceOptions(parent=self, providers={"aws": provider})

        # --- network: instances only ever in private subnets
        network = spec["network"]
        public_subnet_ids: Optional[pulumi.Input[list[str]]]
        if "vpc_id" in network:
            vpc_id: pulumi.Input[str] = network["vpc_id"]
            private_subnet_ids: pulumi.Input[list[str]] = network["subnet_ids"]
            public_subnet_ids = network.get("public_subnet_ids")
        else:
            vpc = AwsNetwork(
                f"{name}-network",
                {
                    "cluster_name": cluster_name,
                    "cidr": network["cidr"],
                    "zone_count": network.get("zone_count", DEFAULT_ZONE_COUNT),
                    "nat_gateways": network.get("nat_gateways", NatGateways.SINGLE),
                },
                opts=aws_children,
            )
            vpc_id, private_subnet_ids, public_subnet_ids = (
                vpc.vpc_id,
                vpc.private_subnet_ids,
                vpc.public_subnet_ids,
            )

        groups = K3sEc2SecurityGroups(
            f"{name}-sg",
            {"cluster_name": cluster_name, "vpc_id": vpc_id, "api_access_cidrs": access_cidrs},
            opts=aws_children,
        )
        api = K3sEc2ApiLoadBalancer(
            f"{name}-api",
            {
                "cluster_name": cluster_name,
                "vpc_id": vpc_id,
                "api_access_cidrs": access_cidrs,
                "private_subnet_ids": private_subnet_ids,
                "public_subnet_ids": public_subnet_ids,
                "security_group_id": groups.ids[Group.API_LB],
            },
            opts=aws_children,
        )

        # --- join secrets, one per node role, each readable by that role's instances only
        pki = K3sPki(f"{name}-pki", {"cluster_name": cluster_name}, opts=pulumi.ResourceOptions(parent=self))
        roles = {
            role: K3sEc2NodeRole(
                f"{name}-{role.value}",
                {"cluster_name": cluster_name, "role": role, "bundle": files.apply(secrets_bundle)},
                opts=aws_children,
            )
            for role, files in ((NodeRole.SERVER, pki.server_files), (NodeRole.AGENT, pki.agent_files))
        }

        # --- servers, then agent pools joining the first server
        server_pool = next(p for p in args["pools"] if p.role == NodeRole.SERVER)
        servers = K3sEc2Servers(
            f"{name}-{server_pool.name}",
            {
                "cluster_name": cluster_name,
                "pool": server_pool,
                "k3s_version": k3s_version,
                "driver": driver,
                "traefik": spec.get("traefik", False),
                "region": region,
                "subnet_ids": private_subnet_ids,
                "security_group_ids": [groups.ids[Group.NODES], groups.ids[Group.SERVERS]],
                "instance_profile_arn": roles[NodeRole.SERVER].instance_profile_arn,
                "secret_arn": roles[NodeRole.SERVER].secret_arn,
                "api_dns_name": api.dns_name,
                "target_group_arn": api.target_group_arn,
                "tags": {**tags, "gpukit:pool": server_pool.name},
                "boot_after": [roles[NodeRole.SERVER]],
            },
            opts=aws_children,
        )
        for pool in args["pools"]:
            if pool.role == NodeRole.SERVER:
                continue
            K3sEc2AgentPool(
                f"{name}-{pool.name}",
                {
                    "cluster_name": cluster_name,
                    "pool": pool,
                    "k3s_version": k3s_version,
                    "driver": driver,
                    "min_driver_branch": min_driver_branch(cuda or None),
                    "cuda_version": cuda,
                    "region": region,
                    "server_url": servers.join_url,
                    "secret_arn": roles[NodeRole.AGENT].secret_arn,
                    "instance_profile_arn": roles[NodeRole.AGENT].instance_profile_arn,
                    "security_group_id": groups.ids[Group.NODES],
                    "subnet_ids": private_subnet_ids,
                    "tags": {**tags, "gpukit:pool": pool.name},
                    # Agents registering before the first server answers retry; starting them after
                    # the servers only keeps the first boot's logs quiet.
                    "boot_after": [roles[NodeRole.AGENT], *servers.instances],
                },
                opts=aws_children,
            )

        # --- access from Pulumi, through the load balancer
        self.api_url = pulumi.Output.concat("https://", api.dns_name, f":{API_PORT}")
        access = K3sCloudAccess(
            f"{name}-access",
            {
                "cluster_name": cluster_name,
                "api_url": self.api_url,
                "pki": pki,
                "driver": driver,
                "servers": list(servers.instances),
            },
            opts=pulumi.ResourceOptions(parent=self),
        )

        self.kubeconfig = access.kubeconfig
        self.handle = access.handle
        self.register_outputs({"kubeconfig": self.kubeconfig, "api_url": self.api_url})


def build_k3s_ec2(name: str, args: Any, parent: pulumi.Resource) -> ClusterHandle:
    """providers.base.ClusterBackend for platform k3s, provider aws."""
    cluster = K3sEc2Cluster(
        name,
        {
            "cluster": args["cluster"],
            "pools": cluster_pool_facts(args),
            "driver": args["gpu_operator"]["driver"],
            "cuda_version": args.get("workloads", {}).get("cuda_version", ""),
        },
        opts=pulumi.ResourceOptions(parent=parent),
    )
    return cluster.handle
