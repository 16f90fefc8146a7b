"""What Google Cloud allows a gpukit cluster on GKE, as gpukit enforces it
(components/validate/limits.py).

GKE quotas and limits (cloud.google.com/kubernetes-engine/quotas, "Limits per cluster", Standard):
"Nodes per node pool zone: 1,000" and "Nodes per cluster: 15,000". Authorized networks: "You can add
up to 50 authorized networks (allowed CIDR blocks) in a project" (GKE docs, creating a regional
cluster; hashicorp/terraform-provider-google#3396: "GKE Master Authorized Networks Limit is now 50").
k3s on Compute Engine has no entry: no sourced limit a config could reach first.
"""

from gpukit.components.validate.limits import Limit, SubstrateLimits

GKE_LIMITS = SubstrateLimits(
    nodes_per_pool_zone=Limit(
        1000, "nodes per node pool in each zone", "GKE quotas and limits, 'Nodes per node pool zone'"
    ),
    nodes_per_cluster=Limit(
        15000, "nodes per cluster", "GKE quotas and limits, 'Nodes per cluster' (Standard)"
    ),
    api_access_cidrs=Limit(
        50, "authorized networks", "GKE docs: 'up to 50 authorized networks (allowed CIDR blocks)'"
    ),
)
