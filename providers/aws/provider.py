"""The explicit AWS provider every gpukit cluster on AWS builds with (EKS and k3s on EC2)."""

import pulumi
import pulumi_aws as aws

from gpukit.components.ephemeral import EXPIRY_TAG, expiry_label
from gpukit.components.spec import ClusterSpec

CLUSTER_TAG = "gpukit:cluster"


def expiry_tags(spec: ClusterSpec) -> dict[str, str]:
    """An ephemeral stack's expiry tag (`gpukit-expires-at`, so a forgotten cluster is found in the
    console and by its tag); nothing for an ordinary stack."""
    return {EXPIRY_TAG: expiry_label(spec["expires_at"])} if "expires_at" in spec else {}


def cluster_tags(spec: ClusterSpec) -> dict[str, str]:
    """What every AWS resource of the cluster is tagged with: its cluster, gpukit, `tags`, and an
    ephemeral stack's expiry."""
    return {
        CLUSTER_TAG: spec["name"],
        "managed-by": "gpukit",
        **spec.get("tags", {}),
        **expiry_tags(spec),
    }


def cluster_provider(name: str, spec: ClusterSpec, parent: pulumi.Resource) -> aws.Provider:
    """The region comes from the stack (never ambient AWS_REGION), and every resource carries
    `cluster_tags` as default tags."""
    return aws.Provider(
        f"{name}-aws",
        region=spec["region"],
        default_tags={"tags": cluster_tags(spec)},
        opts=pulumi.ResourceOptions(parent=parent),
    )
