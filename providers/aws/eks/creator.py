"""Who created an EKS cluster: the principal whose cluster-admin access entry EKS made itself.

`bootstrap_cluster_creator_admin_permissions` gives the identity that creates the cluster an access
entry, which gpukit does not manage. A second entry for that principal fails (ResourceInUseException),
so gpukit must skip it in `adminPrincipalArns`, and it must skip the *creator*, not whoever runs
`pulumi up` today: judged by the current caller, a teammate's run would delete the creator-listed
entry it had made, or try to make the creator's. So the creator is written once into a cluster tag
(never updated afterwards: ignore_changes) and read back from the cluster on every later run.
"""

from typing import Optional

import pulumi

CREATOR_TAG = "gpukit:creator"


def cluster_creator(cluster_name: str, exists: bool, caller_arn: str, opts: pulumi.InvokeOptions) -> str:
    """The creator's ARN: the existing cluster's tag, else (a new cluster, or one made before gpukit
    wrote the tag) the current caller."""
    return existing_creator(cluster_name, exists, opts) or caller_arn


def existing_creator(cluster_name: str, exists: bool, opts: pulumi.InvokeOptions) -> Optional[str]:
    import pulumi_aws as aws

    if not exists:
        return None
    tags = aws.eks.get_cluster(name=cluster_name, opts=opts).tags or {}
    return tags.get(CREATOR_TAG)
