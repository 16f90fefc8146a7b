"""A managed node group's scaling config across updates: who owns its desired size, and when gpukit
must set it.

After creation the Cluster Autoscaler owns a group's desired size, so gpukit leaves it alone
(ignore_changes). But EKS refuses a minSize above the current desired size, or a maxSize below it
(EKS API UpdateNodegroupConfig: "desiredSize ... must be greater than or equal to minSize" and less
than or equal to maxSize), so raising `minNodes` above what a group runs, or lowering `maxNodes`
below it, must carry a desired size too. gpukit reads the group's current size through the EKS API
(invokes, so `pulumi preview` shows it) and sets it only then.
"""

import re
from dataclasses import dataclass
from typing import Optional

import pulumi

# What the provider appends to a node_group_name_prefix: a 26-digit unique id (terraform-plugin-sdk
# helper/id PrefixedUniqueId: a timestamp and a counter, UniqueIDSuffixLength 26).
_UNIQUE_SUFFIX = r"[0-9]{26}"


@dataclass(frozen=True)
class Scaling:
    min_size: int
    max_size: int
    desired_size: int
    autoscaler_owns_desired: bool
    """True: ignore_changes on desiredSize (the autoscaler's value stands)."""


def scaling(min_size: int, max_size: int, current_desired: Optional[int]) -> Scaling:
    """The scaling config for a group that runs `current_desired` nodes now (None: a new group)."""
    if current_desired is None:
        return Scaling(min_size, max_size, min_size, True)  # created at min size
    if current_desired < min_size:
        return Scaling(min_size, max_size, min_size, False)
    if current_desired > max_size:
        return Scaling(min_size, max_size, max_size, False)
    return Scaling(min_size, max_size, current_desired, True)


def current_desired_size(name_prefix: str, sizes: dict[str, int]) -> Optional[int]:
    """The desired size of the existing group made from `name_prefix`, if there is one."""
    pattern = re.compile(re.escape(name_prefix) + _UNIQUE_SUFFIX)
    found = [size for name, size in sorted(sizes.items()) if pattern.fullmatch(name)]
    return found[0] if found else None


def current_desired_sizes(cluster_name: str, exists: bool, opts: pulumi.InvokeOptions) -> dict[str, int]:
    """Node group name -> desired size, for every group of the cluster if it `exists` already."""
    import pulumi_aws as aws

    if not exists:
        return {}
    sizes: dict[str, int] = {}
    for group in aws.eks.get_node_groups(cluster_name=cluster_name, opts=opts).names:
        found = aws.eks.get_node_group(cluster_name=cluster_name, node_group_name=group, opts=opts)
        configs = found.scaling_configs or []
        if configs and configs[0].desired_size is not None:
            sizes[group] = int(configs[0].desired_size)
    return sizes
