"""ClusterAutoscaler: the Kubernetes Cluster Autoscaler for EKS with its own Pod Identity role."""

from typing import NotRequired, Optional, TypedDict

import pulumi
import pulumi_aws as aws

from gpukit.components.autoscaler.k3s_release import autoscaler_release
from gpukit.providers.aws.eks.autoscaler_values import (
    NAMESPACE,
    SERVICE_ACCOUNT,
    asg_pattern,
    cluster_autoscaler_values,
)
from gpukit.providers.aws.eks.pod_identity_role import pod_identity_role
from gpukit.providers.aws.iam_policies import cluster_autoscaler_policy

TYPE_TOKEN = "gpukit:index:ClusterAutoscaler"


class ClusterAutoscalerArgs(TypedDict):
    cluster_name: str
    """The EKS cluster's name, known up front: it scopes both IAM and auto-discovery."""
    region: str
    kubernetes_version: str
    spot_gpu_groups: list[pulumi.Input[str]]
    """The Auto Scaling groups of spot GPU pools' node groups, by name (preferred by the expander)."""
    other_gpu_groups: int
    """How many node groups of GPU pools are not spot (what a spot pool falls back to)."""
    provisioning_requests: NotRequired[bool]
    """Serve ProvisioningRequests (a pool is queued: components/autoscaler/provisioning.py)."""


class ClusterAutoscaler(pulumi.ComponentResource):
    """Needs `opts.providers` with the cluster's aws and kubernetes providers."""

    release_name: pulumi.Output[Optional[str]]

    def __init__(self, name: str, args: ClusterAutoscalerArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        role, grants = pod_identity_role(
            name,
            description="Cluster Autoscaler (EKS Pod Identity), scoped to this cluster's groups",
            parent=self,
            inline_policy=cluster_autoscaler_policy(args["cluster_name"]),
        )
        association = aws.eks.PodIdentityAssociation(
            f"{name}-identity",
            cluster_name=args["cluster_name"],
            namespace=NAMESPACE,
            service_account=SERVICE_ACCOUNT,
            role_arn=role.arn,
            opts=pulumi.ResourceOptions(parent=self, depends_on=grants),
        )
        release = autoscaler_release(
            f"{name}-release",
            cluster_autoscaler_values(
                args["cluster_name"],
                args["region"],
                args["kubernetes_version"],
                [pulumi.Output.from_input(group).apply(asg_pattern) for group in args["spot_gpu_groups"]],
                args["other_gpu_groups"],
            ),
            pulumi.ResourceOptions(parent=self, depends_on=[association]),
            args.get("provisioning_requests", False),
        )
        self.release_name = release.name
        self.register_outputs({"release_name": self.release_name})
