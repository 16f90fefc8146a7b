"""Helm values for the Kubernetes Cluster Autoscaler on EKS (chart kubernetes/autoscaler)."""

import re
from collections.abc import Sequence
from typing import Any

from gpukit.components.autoscaler.chart import (
    CHART,
    CHART_REPOSITORY,
    CHART_VERSION,
    NAMESPACE,
    RELEASE_NAME,
    SERVICE_ACCOUNT,
    expander_values,
    image_tag,
    priority_ranking,
)

# Chart, image tags and shared flags live in components/autoscaler/chart.py (k3s runs the same chart).
__all__ = [
    "CHART",
    "CHART_REPOSITORY",
    "CHART_VERSION",
    "NAMESPACE",
    "RELEASE_NAME",
    "SERVICE_ACCOUNT",
    "asg_pattern",
    "cluster_autoscaler_values",
]


def asg_pattern(asg_name: str) -> str:
    """The priority expander's pattern for one Auto Scaling group (the id the AWS provider gives a node
    group), anchored: the expander searches a pattern anywhere in the id (priority.go,
    groupIDMatchesList). EKS names a managed node group's group itself (`eks-<node group>-<uuid>`,
    aws/containers-roadmap#1304), so gpukit reads the name from the node group, not a guess."""
    return f"^{re.escape(asg_name)}$"


def cluster_autoscaler_values(
    cluster_name: str,
    region: str,
    kubernetes_version: str,
    spot_groups: Sequence[Any] = (),
    other_gpu_groups: int = 0,
) -> dict[str, Any]:
    """Values for auto-discovery of this cluster's node groups (flags: components/autoscaler/chart.py
    scaling_args).

    Spot GPU pools fall back to on-demand GPU pools: with both, the priority expander ranks the spot
    groups' patterns (`spot_groups`, from asg_pattern; Pulumi inputs, since EKS names the groups) above
    every other group (chart.py priority_ranking)."""
    return {
        "cloudProvider": "aws",
        "awsRegion": region,  # empty by default since kubernetes/autoscaler#7972: AWS_REGION unset
        "autoDiscovery": {"clusterName": cluster_name},
        "rbac": {"serviceAccount": {"create": True, "name": SERVICE_ACCOUNT}},
        "image": {"tag": image_tag(kubernetes_version)},
        **expander_values(priority_ranking(spot_groups, other_gpu_groups)),
    }
