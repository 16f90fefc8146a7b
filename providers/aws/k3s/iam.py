"""K3sEc2NodeRole: the join secrets of one kind of k3s node (servers or agents) and the only
identity that can read them.

A node's user data names its secret but never holds it (any process on the machine can read user
data from the metadata service); the node reads the secret at first boot with its instance role
(scripts/fetch-secrets-aws.sh). Each role may call secretsmanager:GetSecretValue on its
own secret and nothing else: agents never see the CA keys that servers hold, and no node gets
Systems Manager, ECR or any wildcard permission. The servers' secret is encrypted with a key of its own
(join_key.py), which only the servers' role may decrypt with. Once joined, an agent detaches its own
instance profile (scripts/release-identity-aws.sh): the only other thing the agents' role may do, on
the very instance that calls and only for this profile. Servers keep theirs, and may detach none: the
Cluster Autoscaler runs on them with it (resize only this cluster's groups, iam_policies.py
cluster_autoscaler_policy), and their node sync asks EC2 about nodes' instances.
"""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NotRequired, Optional, TypedDict

import pulumi
import pulumi_aws as aws

from gpukit.components.k3s.cloud_init import provider_id_script as provider_id_script_for
from gpukit.components.k3s.host_scripts import MachineCheck, render_script
from gpukit.components.spec import NodeRole
from gpukit.providers.aws.iam_policies import assume_role_policy, cluster_autoscaler_policy, in_region
from gpukit.providers.aws.k3s.join_key import K3sEc2JoinKey

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


def node_cleanup_policy(region: str) -> str:
    """Servers: read instance states, so the node sync can delete the Node of a terminated instance.
    ec2:DescribeInstances takes no resource-level permission (EC2 user guide, "Supported resource-level
    permissions for Amazon EC2 API actions": such an action needs `*`), so `*`, read-only, and in the
    cluster's region only (aws:RequestedRegion)."""
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Sid": "SeeWhetherNodesMachinesAreGone",
                    "Effect": "Allow",
                    "Action": "ec2:DescribeInstances",
                    "Resource": "*",
                    "Condition": in_region(region),
                }
            ],
        }
    )


def read_secret_statement(secret_arn: str) -> dict[str, Any]:
    return {
        "Sid": "ReadOwnJoinSecret",
        "Effect": "Allow",
        "Action": "secretsmanager:GetSecretValue",
        "Resource": secret_arn,
    }


def server_policy(secret_arn: str) -> str:
    """Servers: read their own secret (decrypting it takes the join key's policy too, join_key.py)."""
    return json.dumps({"Version": "2012-10-17", "Statement": [read_secret_statement(secret_arn)]})


def agent_policy(secret_arn: str, profile_arn: str, cluster_name: str, region: str, partition: str) -> str:
    """Agents: read their own secret; then detach the instance profile, from the calling instance only.

    - FindOwnProfileAssociation: DescribeIamInstanceProfileAssociations takes no resource-level
      permission (`*`), read-only, in the cluster's region only.
    - DetachOwnProfileOnceJoined: DisassociateIamInstanceProfile on an instance whose ARN is the
      caller's own. `ec2:SourceInstanceARN` is the ARN of the instance a request comes from, present
      when it is signed with that instance's profile credentials (IAM user guide, "IAM policy elements:
      Variables and tags", information available in all requests); `${ec2:InstanceId}` is the instance
      the action is on (the `ec2:InstanceID` condition key of the instance resource type, Service
      Authorization Reference, Amazon EC2). The pair is AWS's own pattern for "an instance acts on
      itself only" (AWS managed policy AWSEC2VssSnapshotPolicy: ArnLike ec2:SourceInstanceARN
      arn:aws:ec2:*:*:instance/${ec2:InstanceId}). Without it one agent could detach every other
      agent's profile, including one still booting, before it has read its secret. Where either value
      is missing the condition is false: the detach is refused, which release-identity-aws.sh reports
      as a warning. Kept: only this profile (ec2:InstanceProfile) and only the cluster's instances
      (aws:ResourceTag).
    """
    itself = f"arn:{partition}:ec2:{region}:*:instance/${{ec2:InstanceId}}"
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                read_secret_statement(secret_arn),
                {
                    "Sid": "FindOwnProfileAssociation",
                    "Effect": "Allow",
                    "Action": "ec2:DescribeIamInstanceProfileAssociations",
                    "Resource": "*",
                    "Condition": in_region(region),
                },
                {
                    "Sid": "DetachOwnProfileOnceJoined",
                    "Effect": "Allow",
                    "Action": "ec2:DisassociateIamInstanceProfile",
                    "Resource": f"arn:{partition}:ec2:{region}:*:instance/*",
                    "Condition": {
                        "ArnLike": {"ec2:SourceInstanceARN": itself},
                        "ArnEquals": {"ec2:InstanceProfile": profile_arn},
                        "StringEquals": {"aws:ResourceTag/gpukit:cluster": cluster_name},
                    },
                },
            ],
        }
    )


@dataclass(frozen=True)
class KeyOwner:
    """Who holds the servers' join key (join_key.py): the account, and the deployers that administer it
    (whoever runs `pulumi up`, and `cluster.adminPrincipalArns`: every teammate or CI role that deploys
    the stack, so that one's run does not lock the others out of the secret)."""

    account_id: str
    deployer_arns: tuple[str, ...]


class K3sEc2NodeRoleArgs(TypedDict):
    cluster_name: str
    region: str
    partition: str
    role: NodeRole
    bundle: pulumi.Input[str]
    """Secret: what install.sh reads on stdin (components/k3s/host_scripts.py `secrets_bundle`)."""
    key_owner: NotRequired[KeyOwner]
    """Servers: encrypt the secret with a key of its own that only this role decrypts with
    (join_key.py); without it, Secrets Manager's default key (the agents' token)."""


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

        region, partition = args["region"], args["partition"]
        role = aws.iam.Role(
            f"{name}-role",
            assume_role_policy=assume_role_policy("ec2.amazonaws.com"),
            description=f"k3s {kind}s of {cluster}: read their join secret, nothing else",
            opts=child,
        )
        profile = aws.iam.InstanceProfile(f"{name}-profile", role=role.name, opts=child)
        name_prefix = f"gpukit/{cluster}/k3s-{kind}-join-"
        key_arn: pulumi.Output[str] | None = None
        if "key_owner" in args:
            owner = args["key_owner"]
            key_arn = K3sEc2JoinKey(
                f"{name}-join-key",
                {
                    "cluster_name": cluster,
                    "region": region,
                    "account_id": owner.account_id,
                    "partition": partition,
                    "deployer_arns": list(owner.deployer_arns),
                    "reader_arn": role.arn,
                    "secret_name_prefix": name_prefix,
                },
                opts=child,
            ).key_arn
        secret = aws.secretsmanager.Secret(
            f"{name}-secret",
            name_prefix=name_prefix,
            description=f"k3s join secrets of the {kind}s of {cluster} (read at first boot)",
            recovery_window_in_days=RECOVERY_WINDOW_DAYS,
            kms_key_id=key_arn,
            opts=child,
        )
        version = aws.secretsmanager.SecretVersion(
            f"{name}-secret-version",
            secret_id=secret.id,
            secret_string=pulumi.Output.secret(args["bundle"]),
            opts=child,
        )
        if args["role"] == NodeRole.SERVER:
            policy = secret.arn.apply(server_policy)
        else:
            policy = pulumi.Output.all(secret.arn, profile.arn).apply(
                lambda a: agent_policy(a[0], a[1], cluster, region, partition)
            )
        aws.iam.RolePolicy(f"{name}-read-secret", role=role.id, policy=policy, opts=child)
        if args["role"] == NodeRole.SERVER:
            # The Cluster Autoscaler's AWS provider runs on the servers with their instance role
            # (their machines keep it): describe calls in the cluster's region, and resizing only the
            # groups tagged as this cluster's (iam_policies.py); and their node sync asks EC2 whether a
            # node's instance is gone.
            aws.iam.RolePolicy(
                f"{name}-cluster-autoscaler",
                role=role.id,
                policy=cluster_autoscaler_policy(cluster, eks=False, region=region),
                opts=child,
            )
            aws.iam.RolePolicy(
                f"{name}-node-cleanup", role=role.id, policy=node_cleanup_policy(region), opts=child
            )

        self.secret_arn = secret.arn
        self.secret_version_id = version.version_id
        self.instance_profile_arn = profile.arn
        self.register_outputs(
            {"secret_arn": self.secret_arn, "instance_profile_arn": self.instance_profile_arn}
        )
