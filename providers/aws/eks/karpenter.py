"""Karpenter: the controller (Pod Identity, least privilege, interruption queue) and, per GPU pool, an
EC2NodeClass and a NodePool (providers/aws/eks/karpenter_objects.py says what they hold and why)."""

from collections.abc import Mapping, Sequence
from typing import Optional, TypedDict

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from gpukit.components.pools import PoolFacts
from gpukit.providers.aws.eks.karpenter_interruption import interruption_queue, interruption_queue_name
from gpukit.providers.aws.eks.karpenter_objects import KarpenterEfa, karpenter_objects
from gpukit.providers.aws.eks.karpenter_values import (
    CHART,
    CHART_VERSION,
    CRD_CHART,
    CRD_RELEASE_NAME,
    NAMESPACE,
    RELEASE_NAME,
    SERVICE_ACCOUNT,
    karpenter_values,
)
from gpukit.providers.aws.eks.pod_identity_role import pod_identity_role
from gpukit.providers.aws.iam_policies import (
    NODE_ROLE_POLICIES,
    assume_role_policy,
    karpenter_controller_policy,
)

TYPE_TOKEN = "gpukit:index:Karpenter"


class KarpenterArgs(TypedDict):
    cluster_name: str
    """The EKS cluster's name, known up front: it scopes IAM, the queue and the controller."""
    region: str
    account_id: str
    partition: str
    pools: Sequence[PoolFacts]
    """Every pool of the cluster (Python-only): the GPU pools become NodePools, the system pools host
    the controller."""
    subnet_ids: Sequence[pulumi.Input[str]]
    """The cluster's private subnets, where Karpenter launches nodes."""
    security_group_id: pulumi.Input[str]
    """The cluster security group (what EKS gives managed node group nodes)."""
    tags: Mapping[str, str]
    """Tags for the instances and volumes Karpenter launches (the provider's default tags do not reach
    them: Karpenter creates them, not Pulumi)."""
    efa: Mapping[str, KarpenterEfa]
    """The EFA pools' placement groups, security groups and zone, by pool name."""


class Karpenter(pulumi.ComponentResource):
    """Needs `opts.providers` with the cluster's aws and kubernetes providers."""

    release_name: pulumi.Output[Optional[str]]
    node_role_arn: pulumi.Output[str]
    interruption_queue_arn: pulumi.Output[str]

    def __init__(self, name: str, args: KarpenterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        cluster_name = args["cluster_name"]

        # --- the role of the nodes Karpenter launches, and their way into the cluster. Its own role:
        # EKS makes the managed node groups' role an access entry itself, and a second entry for the
        # same principal would be refused (EKS user guide, "Create access entries": node roles of
        # managed node groups get theirs automatically; other nodes need an EC2_LINUX entry).
        node_role = aws.iam.Role(
            f"{name}-node-role",
            assume_role_policy=assume_role_policy("ec2.amazonaws.com"),
            description=f"EKS nodes Karpenter launches for {cluster_name}",
            opts=child,
        )
        node_grants = [
            aws.iam.RolePolicyAttachment(
                f"{name}-node-{arn.rsplit('/', 1)[-1]}", role=node_role.name, policy_arn=arn, opts=child
            )
            for arn in NODE_ROLE_POLICIES
        ]
        access = aws.eks.AccessEntry(
            f"{name}-node-access",
            cluster_name=cluster_name,
            principal_arn=node_role.arn,
            type="EC2_LINUX",
            opts=child,
        )

        # --- the controller: its queue, its role and the releases
        queue = interruption_queue(name, cluster_name, self)
        policy = pulumi.Output.all(node_role.arn, queue.arn).apply(
            lambda a: karpenter_controller_policy(
                cluster_name=cluster_name,
                region=args["region"],
                account_id=args["account_id"],
                partition=args["partition"],
                node_role_arn=a[0],
                queue_arn=a[1],
            )
        )
        role, grants = pod_identity_role(
            f"{name}-ctrl",  # the role auto-name stays within IAM's 64 characters for 32-character clusters
            description=f"Karpenter controller of {cluster_name} (EKS Pod Identity)",
            parent=self,
            inline_policy=policy,
        )
        association = aws.eks.PodIdentityAssociation(
            f"{name}-identity",
            cluster_name=cluster_name,
            namespace=NAMESPACE,
            service_account=SERVICE_ACCOUNT,
            role_arn=role.arn,
            opts=pulumi.ResourceOptions(parent=self, depends_on=grants),
        )
        crds = k8s.helm.v3.Release(
            f"{name}-crd-release",
            name=CRD_RELEASE_NAME,
            chart=CRD_CHART,
            version=CHART_VERSION,
            namespace=NAMESPACE,
            opts=child,
        )
        system = [p for p in args["pools"] if not p.is_gpu and p.min_nodes >= 1]
        release = k8s.helm.v3.Release(
            f"{name}-release",
            name=RELEASE_NAME,
            chart=CHART,
            version=CHART_VERSION,
            namespace=NAMESPACE,
            skip_crds=True,  # from the karpenter-crd release, which Helm upgrades with the chart
            values=karpenter_values(
                cluster_name,
                interruption_queue_name(cluster_name),
                [p.name for p in system],
                sum(p.min_nodes for p in system),
            ),
            # Destroyed after every NodePool (they depend on it): the controller removes their nodes.
            opts=pulumi.ResourceOptions(parent=self, depends_on=[association, crds, access, *node_grants]),
        )

        # --- per GPU pool: its EC2NodeClass, then its NodePool
        node_classes: dict[str, k8s.apiextensions.CustomResource] = {}
        for obj in karpenter_objects(
            args["pools"],
            role=node_role.name,
            subnet_ids=args["subnet_ids"],
            security_group_ids=[args["security_group_id"]],
            tags=args["tags"],
            efa=args["efa"],
        ):
            pool = obj["metadata"]["name"]
            kind = obj["kind"]
            waits: list[pulumi.Resource] = [release]
            if kind == "NodePool":
                waits.append(node_classes[pool])  # deleted first, so its nodes go before their class
            resource = k8s.apiextensions.CustomResource(
                f"{name}-{pool}-{kind.lower()}",
                api_version=obj["apiVersion"],
                kind=kind,
                metadata=obj["metadata"],
                spec=obj["spec"],
                opts=pulumi.ResourceOptions(parent=self, depends_on=waits),
            )
            if kind == "EC2NodeClass":
                node_classes[pool] = resource

        self.release_name = release.name
        self.node_role_arn = node_role.arn
        self.interruption_queue_arn = queue.arn
        self.register_outputs(
            {
                "release_name": self.release_name,
                "node_role_arn": self.node_role_arn,
                "interruption_queue_arn": self.interruption_queue_arn,
            }
        )
