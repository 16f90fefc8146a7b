"""Helm values for the Kubernetes Cluster Autoscaler on EKS (chart kubernetes/autoscaler)."""

from typing import Any

from gpukit.components.autoscaler.chart import (
    CHART,
    CHART_REPOSITORY,
    CHART_VERSION,
    NAMESPACE,
    RELEASE_NAME,
    SERVICE_ACCOUNT,
    image_tag,
    scaling_args,
)

# Chart, image tags and shared flags live in components/autoscaler/chart.py (k3s runs the same chart).
__all__ = [
    "CHART",
    "CHART_REPOSITORY",
    "CHART_VERSION",
    "NAMESPACE",
    "RELEASE_NAME",
    "SERVICE_ACCOUNT",
    "cluster_autoscaler_values",
]


def cluster_autoscaler_values(cluster_name: str, region: str, kubernetes_version: str) -> dict[str, Any]:
    """Values for auto-discovery of this cluster's node groups (flags: components/autoscaler/chart.py
    scaling_args)."""
    return {
        "cloudProvider": "aws",
        "awsRegion": region,  # empty by default since kubernetes/autoscaler#7972: AWS_REGION unset
        "autoDiscovery": {"clusterName": cluster_name},
        "rbac": {"serviceAccount": {"create": True, "name": SERVICE_ACCOUNT}},
        "image": {"tag": image_tag(kubernetes_version)},
        "extraArgs": scaling_args(),
    }
