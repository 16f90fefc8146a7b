"""k3s on EC2: what AWS builds in the shared k3s-on-cloud flow (components/k3s/cloud_flow.py).

Every instance sits in private subnets without a public address. A Network Load Balancer on 6443 in
front of the servers is the API address (internet-facing only when apiAccessCidrs has a public range).
Servers are fixed instances with stable addresses; agent pools are Auto Scaling groups. Join secrets
sit in Secrets Manager, one per node role, each readable by that role's instance role only; the
servers' (every CA key) under a KMS key of its own (join_key.py).
"""

from dataclasses import dataclass, replace
from typing import Any

import pulumi
import pulumi_aws as aws

from gpukit.components.addons.inference.settings import gateway_node_port_ranges
from gpukit.components.k3s.cloud_flow import K3sServers
from gpukit.components.k3s.cloud_init import CloudNode
from gpukit.components.k3s.host_scripts import secrets_bundle
from gpukit.components.k3s.pki import K3sPki
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import NodeRole
from gpukit.components.substrate import ResolvedCluster
from gpukit.providers.aws.k3s.agent_pool import K3sEc2AgentPool
from gpukit.providers.aws.k3s.api_lb import K3sEc2ApiLoadBalancer
from gpukit.providers.aws.k3s.autoscaler import ec2_autoscaler_values
from gpukit.providers.aws.k3s.iam import K3sEc2NodeRole, K3sEc2NodeRoleArgs, KeyOwner, machine_check
from gpukit.providers.aws.k3s.nfs_server import K3sEc2NfsServer
from gpukit.providers.aws.k3s.security import Group, K3sEc2SecurityGroups
from gpukit.providers.aws.k3s.servers import K3sEc2Servers
from gpukit.providers.aws.provider import cluster_tags, expiry_tags
from gpukit.providers.aws.quotas import enforce_quotas
from gpukit.providers.aws.vpc import ClusterVpc, cluster_vpc


@dataclass(frozen=True)
class Ec2Network:
    vpc: ClusterVpc
    groups: K3sEc2SecurityGroups
    api: K3sEc2ApiLoadBalancer


JoinRoles = dict[NodeRole, K3sEc2NodeRole]


class Ec2Adapter:
    """components.k3s.cloud_flow.K3sCloudAdapter for EC2."""

    def __init__(
        self, parent: pulumi.ComponentResource, name: str, cluster: ResolvedCluster, provider: aws.Provider
    ) -> None:
        self.name, self.cluster = name, cluster
        self.spec = cluster.spec
        self.tags = cluster_tags(self.spec)  # also on what launch templates start (default tags do not)
        self.children = pulumi.ResourceOptions(parent=parent, providers={"aws": provider})
        self.invoke = pulumi.InvokeOptions(parent=parent, provider=provider)
        self.agent_pools: list[PoolFacts] = []

    def network(self) -> Ec2Network:
        """Instances only ever in private subnets; public subnets only for an internet-facing API."""
        name, cluster_name = self.name, self.cluster.name
        # Before anything: a GPU quota of 0 would leave the groups retrying in silence.
        enforce_quotas(self.cluster, self.invoke)
        vpc = cluster_vpc(name, self.spec, self.children)
        access_cidrs = self.spec.get("api_access_cidrs", [])
        groups = K3sEc2SecurityGroups(
            f"{name}-sg",
            {
                "cluster_name": cluster_name,
                "vpc_id": vpc.vpc_id,
                "api_access_cidrs": access_cidrs,
                "gateway_ranges": gateway_node_port_ranges(self.cluster),
            },
            opts=self.children,
        )
        api = K3sEc2ApiLoadBalancer(
            f"{name}-api",
            {
                "cluster_name": cluster_name,
                "vpc_id": vpc.vpc_id,
                "api_access_cidrs": access_cidrs,
                "private_subnet_ids": vpc.private_subnet_ids,
                "public_subnet_ids": vpc.public_subnet_ids,
                "security_group_id": groups.ids[Group.API_LB],
            },
            opts=self.children,
        )
        return Ec2Network(vpc, groups, api)

    def join_secrets(self, pki: K3sPki) -> JoinRoles:
        """The servers' secret (every CA key) under a key of its own that the deployer administers
        (iam.py KeyOwner, join_key.py); the agents' under Secrets Manager's default key."""
        region = self.spec["region"]
        partition = aws.get_partition(opts=self.invoke).partition
        caller = aws.get_caller_identity(opts=self.invoke)
        deployers = (deployer_arn(caller.arn, self.invoke), *self.spec.get("admin_principal_arns", []))
        owner = KeyOwner(account_id=caller.account_id, deployer_arns=tuple(dict.fromkeys(deployers)))
        roles: JoinRoles = {}
        for role, files in ((NodeRole.SERVER, pki.server_files), (NodeRole.AGENT, pki.agent_files)):
            args: K3sEc2NodeRoleArgs = {
                "cluster_name": self.cluster.name,
                "region": region,
                "partition": partition,
                "role": role,
                "bundle": files.apply(secrets_bundle),
            }
            if role == NodeRole.SERVER:
                args["key_owner"] = owner
            roles[role] = K3sEc2NodeRole(f"{self.name}-{role.value}", args, opts=self.children)
        return roles

    def servers(
        self, pool: PoolFacts, node: CloudNode, network: Ec2Network, secrets: JoinRoles
    ) -> K3sServers:
        role = secrets[NodeRole.SERVER]
        return K3sEc2Servers(
            f"{self.name}-{pool.name}",
            {
                "cluster_name": self.cluster.name,
                "pool": pool,
                # Servers have no GPUs (validated): their preflight checks no driver, so EC2 servers
                # have always been rendered without the CUDA floor (plans stay byte-identical).
                "node": replace(
                    node,
                    min_driver_branch=0,
                    cuda_version="",
                    machine_check=machine_check(self.spec["region"]),
                ),
                "region": self.spec["region"],
                "subnet_ids": network.vpc.private_subnet_ids,
                "security_group_ids": [network.groups.ids[Group.NODES], network.groups.ids[Group.SERVERS]],
                "instance_profile_arn": role.instance_profile_arn,
                "secret_arn": role.secret_arn,
                "secret_version_id": role.secret_version_id,
                "api_dns_name": network.api.dns_name,
                "target_group_arn": network.api.target_group_arn,
                "tags": {**self.tags, "gpukit:pool": pool.name},
                "boot_after": [role],
            },
            opts=self.children,
        )

    def agent_pool(
        self, pool: PoolFacts, node: CloudNode, network: Ec2Network, secrets: JoinRoles, servers: K3sServers
    ) -> None:
        role = secrets[NodeRole.AGENT]
        self.agent_pools.append(pool)
        K3sEc2AgentPool(
            f"{self.name}-{pool.name}",
            {
                "cluster_name": self.cluster.name,
                "pool": pool,
                "node": node,
                "region": self.spec["region"],
                "server_urls": servers.join_urls,
                "secret_arn": role.secret_arn,
                "secret_version_id": role.secret_version_id,
                "instance_profile_arn": role.instance_profile_arn,
                "security_group_id": network.groups.ids[Group.NODES],
                "subnet_ids": network.vpc.private_subnet_ids,
                "tags": {**self.tags, "gpukit:pool": pool.name},
                "expiry_tags": expiry_tags(self.spec),
                # Agents registering before the first server answers retry; starting them after the
                # servers only keeps the first boot's logs quiet.
                "boot_after": [role, *servers.instances],
            },
            opts=self.children,
        )

    def nfs_server(self, volume: str, size_gb: int, network: Ec2Network) -> K3sEc2NfsServer:
        """A small VM in the first private subnet, NFS open to the nodes' group only (nfs_server.py)."""
        return K3sEc2NfsServer(
            f"{self.name}-nfs-{volume}",
            {
                "cluster_name": self.cluster.name,
                "volume": volume,
                "size_gb": size_gb,
                "vpc_id": network.vpc.vpc_id,
                "subnet_ids": network.vpc.private_subnet_ids,
                "nodes_security_group_id": network.groups.ids[Group.NODES],
                "tags": self.tags,
            },
            opts=self.children,
        )

    def autoscaler_values(self) -> pulumi.Input[dict[str, Any]]:
        """The Cluster Autoscaler's AWS provider over the agent pools' groups (autoscaler.py)."""
        return ec2_autoscaler_values(
            self.cluster.name, self.spec["region"], self.spec["kubernetes_version"], self.agent_pools
        )


def deployer_arn(caller_arn: str, invoke: pulumi.InvokeOptions) -> str:
    """The IAM role or user running `pulumi up`: an assumed role's session ARN
    (arn:aws:sts::A:assumed-role/R/session) resolved to the role's ARN, path included, which is what a
    key policy may name (pulumi-aws iam.get_session_context: "these arguments often do not allow
    assumed-role (i.e., STS, temporary credential) principals"; a user's ARN passes through). A session
    name changes with every sign-in; the role does not, so the key policy stays put between runs of
    the same role. The look-up reads the role (iam:GetRole), which a deployer that creates roles may."""
    return aws.iam.get_session_context(arn=caller_arn, opts=invoke).issuer_arn
