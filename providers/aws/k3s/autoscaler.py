"""The Cluster Autoscaler of a k3s cluster on EC2: its AWS provider over the agent pools' Auto Scaling
groups, found by the discovery tags they carry (providers/aws/autoscaling.py). Pure."""

import re
from collections.abc import Sequence
from typing import Any

from gpukit.components.autoscaler.k3s_values import ScalingGroup, k3s_autoscaler_values
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import Capacity

# What the provider appends to an Auto Scaling group's name_prefix: a 26-digit unique id
# (terraform-plugin-sdk helper/id PrefixedUniqueId: a timestamp and a counter, UniqueIDSuffixLength 26).
_UNIQUE_SUFFIX = "[0-9]{26}"


def group_name_prefix(cluster_name: str, pool: PoolFacts) -> str:
    """The agent pool's Auto Scaling group is named this plus a unique suffix."""
    return f"{cluster_name}-{pool.name}-"


def scaling_groups(cluster_name: str, pools: Sequence[PoolFacts]) -> list[ScalingGroup]:
    """Each agent pool's group, as a pattern that matches its name only (pool `l4` never matches the
    group of a pool `l4-big`)."""
    return [
        ScalingGroup(
            # Anchored: the priority expander searches a pattern anywhere in the group's name.
            f"^{re.escape(group_name_prefix(cluster_name, p))}{_UNIQUE_SUFFIX}$",
            p.capacity == Capacity.SPOT,
        )
        for p in pools
    ]


def ec2_autoscaler_values(
    cluster_name: str, region: str, kubernetes_version: str, pools: Sequence[PoolFacts]
) -> dict[str, Any]:
    """AWS provider, auto-discovery of the groups tagged `k8s.io/cluster-autoscaler/enabled` and
    `k8s.io/cluster-autoscaler/<cluster>` (the chart's default autoDiscovery.tags; the groups carry
    both, and the IAM policy lets it resize only those), in the stack's region. Credentials: the
    server's instance profile, from the metadata service (hostNetwork; IMDSv2, one hop)."""
    cloud = {
        "cloudProvider": "aws",
        "awsRegion": region,
        "autoDiscovery": {"clusterName": cluster_name},
    }
    return k3s_autoscaler_values(cloud, kubernetes_version, scaling_groups(cluster_name, pools))
