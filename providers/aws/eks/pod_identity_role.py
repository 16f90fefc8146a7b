"""An IAM role assumable by one Kubernetes service account through EKS Pod Identity."""

import pulumi
import pulumi_aws as aws

from gpukit.providers.aws.iam_policies import pod_identity_trust_policy


def pod_identity_role(
    name: str,
    *,
    description: str,
    parent: pulumi.Resource,
    managed_policy_arns: tuple[str, ...] = (),
    inline_policy: pulumi.Input[str] | None = None,
    provider: pulumi.ProviderResource | None = None,
) -> tuple[aws.iam.Role, list[pulumi.Resource]]:
    """The role plus the attachments that must exist before a pod uses it (`provider`: where `parent`
    does not pass the cluster's AWS provider down)."""
    child = pulumi.ResourceOptions(parent=parent, provider=provider)
    role = aws.iam.Role(
        f"{name}-role", assume_role_policy=pod_identity_trust_policy(), description=description, opts=child
    )
    grants: list[pulumi.Resource] = [
        aws.iam.RolePolicyAttachment(
            f"{name}-{arn.rsplit('/', 1)[-1]}", role=role.name, policy_arn=arn, opts=child
        )
        for arn in managed_policy_arns
    ]
    if inline_policy is not None:
        grants.append(aws.iam.RolePolicy(f"{name}-policy", role=role.id, policy=inline_policy, opts=child))
    return role, grants
