"""What AWS allows a gpukit cluster on EKS, as gpukit enforces it (components/validate/limits.py).

Amazon EKS service quotas (EKS user guide, "View and manage Amazon EKS and Fargate service quotas",
docs.aws.amazon.com/eks/latest/userguide/service-quotas.html): "Nodes per managed node group: 450"
(adjustable) and "Public endpoint access CIDR ranges per cluster: 40" (not adjustable).
k3s on EC2 has no entry: its Auto Scaling groups and security group rules have no limit gpukit has a
source for that a config could reach first.
"""

from gpukit.components.validate.limits import Limit, SubstrateLimits

EKS_LIMITS = SubstrateLimits(
    nodes_per_group=Limit(
        450,
        "nodes per managed node group",
        "EKS service quotas, 'Nodes per managed node group'",
        adjustable=True,
    ),
    api_access_cidrs=Limit(
        40,
        "public access CIDR ranges",
        "EKS service quotas, 'Public endpoint access CIDR ranges per cluster'",
    ),
    api_access_public_only=True,  # private ranges become security group rules (eks/cluster.py)
)
