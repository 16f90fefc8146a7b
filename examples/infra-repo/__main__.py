"""A GPU cluster from gpukit next to the team's own resources (offline: gpukit plan --program .)."""

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
from gpukit.components import GpuCluster

from components.naming import team_name  # this repository's own components package

team = pulumi.Config().require("team")
# The team's own bucket, mounted read-only on every node as the `datasets` volume: GpuCluster takes
# its name as an Output (the keys that do: docs/own-program.md).
datasets = aws.s3.Bucket(team_name(team, "datasets"))
cluster = GpuCluster(
    team_name(team, "gpu"),
    {
        "cluster": {
            "name": team_name(team, "gpu"),
            "platform": "eks",
            "region": aws.config.region or "us-west-2",
            "kubernetes_version": "1.35",
            "network": {"cidr": "10.80.0.0/16"},
            "api_access_cidrs": ["203.0.113.0/24"],
        },
        "node_pools": [
            {"name": "system", "instance_type": "m7i.large", "min_nodes": 1, "max_nodes": 1},
            # No zones: Karpenter picks the zones of the cluster's subnets that offer the type.
            {"name": "l4", "instance_type": "g6.xlarge", "min_nodes": 0, "max_nodes": 4, "capacity": "spot"},
        ],
        "storage": {
            "shared": [
                {
                    "name": "datasets",
                    "kind": "s3",
                    "role": "datasets",
                    "size_gb": 1000,
                    "bucket": datasets.bucket,
                }
            ]
        },
    },
)
in_cluster = k8s.Provider("team-k8s", kubeconfig=cluster.kubeconfig)
k8s.core.v1.Namespace("team", metadata={"name": team}, opts=pulumi.ResourceOptions(provider=in_cluster))
pulumi.export("kubeconfig", cluster.kubeconfig)
