"""K3sEc2NodeRole: the join secrets of one kind of k3s node (servers or agents) and the only
identity that can read them.

A node's user data names its secret but never holds it (any process on the machine can read user
data from the metadata service); the node reads the secret at first boot with its instance role
(scripts/fetch-secrets-aws.sh). Each role may call secretsmanager:GetSecretValue on its
own secret and nothing else: agents never see the CA keys that servers hold, and no node gets
Systems Manager, ECR or any wildcard permission. Once joined, an agent detaches its own instance
profile (scripts/release-identity-aws.sh): the only other thing the role may do, on the cluster's
instances that carry this very profile. Servers keep theirs: the Cluster Autoscaler runs on them with
it (`runs_autoscaler`: resize only this cluster's groups, iam_policies.py cluster_autoscaler_policy).
"""

import json
from pathlib import Path
from typing import NotRequired, Optional, TypedDict

import pulumi
import pulumi_aws as aws

from gpukit.components.k3s.cloud_init import provider_id_script as provider_id_script_for
from gpukit.components.k3s.host_scripts import MachineCheck, render_script
from gpukit.components.spec import NodeRole
from gpukit.providers.aws.iam_policies import assume_role_policy, cluster_autoscaler_policy

TYPE_TOKEN = "gpukit:index:K3sEc2NodeRole"
SCRIPTS = Path(__file__).parent / "scripts"
INSTANCE_ROLE = SCRIPTS / "instance-role.sh"
"""Functions both scripts below use: the IMDSv2 token, metadata, requests signed with the role."""
FETCH_SECRETS = SCRIPTS / "fetch-secrets-aws.sh"
RELEASE_IDENTITY = SCRIPTS / "release-identity-aws.sh"
PROVIDER_ID = SCRIPTS / "provider-id-aws.sh"
MACHINE_GONE = SCRIPTS / "machine-gone-aws.sh"
# The shortest window Secrets Manager offers. The secret's contents (token, CAs) also live in the
# stack's state, so a longer one buys nothing; a week still undoes a deletion by mistake, and the
# secrets are named by prefix, so a new stack never collides with one still pending deletion.
RECOVERY_WINDOW_DAYS = 7


def fetch_secrets_script(region: str, secret_id: str, version_id: str) -> str:
    """What a node runs at first boot to read its join secret with its instance role (curl and python3
    only, the credentials on curl's stdin): scripts/fetch-secrets-aws.sh next to this file. It reads
    the version the stack wrote (`version_id`), not whatever is current when the machine boots."""
    return render_script(
        INSTANCE_ROLE, FETCH_SECRETS, REGION=region, SECRET_ID=secret_id, VERSION_ID=version_id
    )


def release_identity_script(region: str) -> str:
    """What a machine runs once it has joined: detach its instance profile (a warning if it cannot)."""
    return render_script(INSTANCE_ROLE, RELEASE_IDENTITY, REGION=region)


def provider_id_script() -> str:
    """What a machine runs before k3s starts: register its node as aws:///<zone>/<instance id>."""
    return provider_id_script_for(PROVIDER_ID)


def machine_check(region: str) -> MachineCheck:
    """The servers' node sync asks EC2 whether a not-Ready node's instance is gone."""
    return MachineCheck((INSTANCE_ROLE, MACHINE_GONE), (("REGION", region),))


def node_cleanup_policy() -> str:
    """Servers: read instance states, so the node sync can delete the Node of a terminated instance
    (DescribeInstances has no resource-level permissions: `*`, read-only)."""
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Sid": "SeeWhetherNodesMachinesAreGone",
                    "Effect": "Allow",
                    "Action": "ec2:DescribeInstances",
                    "Resource": "*",
                }
            ],
        }
    )


def node_policy(secret_arn: str, profile_arn: str, cluster_name: str) -> str:
    """Read one secret; then detach the instance profile, from the cluster's instances only and only
    this profile (the EC2 condition keys ec2:InstanceProfile and aws:ResourceTag; the association list
    has no resource-level permissions, so `*`, and it is read-only)."""
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Sid": "ReadOwnJoinSecret",
                    "Effect": "Allow",
                    "Action": "secretsmanager:GetSecretValue",
                    "Resource": secret_arn,
                },
                {
                    "Sid": "FindOwnProfileAssociation",
                    "Effect": "Allow",
                    "Action": "ec2:DescribeIamInstanceProfileAssociations",
                    "Resource": "*",
                },
                {
                    "Sid": "DetachOwnProfileOnceJoined",
                    "Effect": "Allow",
                    "Action": "ec2:DisassociateIamInstanceProfile",
                    "Resource": "arn:aws:ec2:*:*:instance/*",
                    "Condition": {
                        "ArnEquals": {"ec2:InstanceProfile": profile_arn},
                        "StringEquals": {"aws:ResourceTag/gpukit:cluster": cluster_name},
                    },
                },
            ],
        }
    )


class K3sEc2NodeRoleArgs(TypedDict):
    cluster_name: str
    role: NodeRole
    bundle: pulumi.Input[str]
    """Secret: what install.sh reads on stdin (components/k3s/host_scripts.py `secrets_bundle`)."""
    runs_autoscaler: NotRequired[bool]
    """Servers: the Cluster Autoscaler runs on them with this role (their machines keep it), and their
    node sync asks EC2 about nodes' instances."""


class K3sEc2NodeRole(pulumi.ComponentResource):
    """Instances depend on this component: they boot once the secret has its value and the role
    may read it."""

    secret_arn: pulumi.Output[str]
    secret_version_id: pulumi.Output[str]
    instance_profile_arn: pulumi.Output[str]

    def __init__(self, name: str, args: K3sEc2NodeRoleArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        cluster = args["cluster_name"]
        kind = args["role"].value

        secret = aws.secretsmanager.Secret(
            f"{name}-secret",
            name_prefix=f"gpukit/{cluster}/k3s-{kind}-join-",
            description=f"k3s join secrets of the {kind}s of {cluster} (read at first boot)",
            recovery_window_in_days=RECOVERY_WINDOW_DAYS,
            opts=child,
        )
        version = aws.secretsmanager.SecretVersion(
            f"{name}-secret-version",
            secret_id=secret.id,
            secret_string=pulumi.Output.secret(args["bundle"]),
            opts=child,
        )
        role = aws.iam.Role(
            f"{name}-role",
            assume_role_policy=assume_role_policy("ec2.amazonaws.com"),
            description=f"k3s {kind}s of {cluster}: read their join secret, nothing else",
            opts=child,
        )
        profile = aws.iam.InstanceProfile(f"{name}-profile", role=role.name, opts=child)
        aws.iam.RolePolicy(
            f"{name}-read-secret",
            role=role.id,
            policy=pulumi.Output.all(secret.arn, profile.arn).apply(
                lambda a: node_policy(a[0], a[1], cluster)
            ),
            opts=child,
        )
        if args.get("runs_autoscaler", False):
            # The Cluster Autoscaler's AWS provider, on the servers, with their instance role: describe
            # calls, and resizing only the groups tagged as this cluster's (iam_policies.py).
            aws.iam.RolePolicy(
                f"{name}-cluster-autoscaler",
                role=role.id,
                policy=cluster_autoscaler_policy(cluster, eks=False),
                opts=child,
            )
            aws.iam.RolePolicy(f"{name}-node-cleanup", role=role.id, policy=node_cleanup_policy(), opts=child)

        self.secret_arn = secret.arn
        self.secret_version_id = version.version_id
        self.instance_profile_arn = profile.arn
        self.register_outputs(
            {"secret_arn": self.secret_arn, "instance_profile_arn": self.instance_profile_arn}
        )
