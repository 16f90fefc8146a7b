"""The explicit AWS provider every gpukit cluster on AWS builds with (EKS and k3s on EC2)."""

import pulumi
import pulumi_aws as aws

from gpukit.components.spec import ClusterSpec


def cluster_tags(spec: ClusterSpec) -> dict[str, str]:
    """What every AWS resource of the cluster is tagged with: its cluster, gpukit, and `tags`."""
    return {"gpukit:cluster": spec["name"], "managed-by": "gpukit", **spec.get("tags", {})}


def cluster_provider(name: str, spec: ClusterSpec, parent: pulumi.Resource) -> aws.Provider:
    """The region comes from the stack (never ambient AWS_REGION), and every resource carries
    `cluster_tags` as default tags."""
    return aws.Provider(
        f"{name}-aws",
        region=spec["region"],
        default_tags={"tags": cluster_tags(spec)},
        opts=pulumi.ResourceOptions(parent=parent),
    )
