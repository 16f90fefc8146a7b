"""K3sEc2JoinKey: the customer managed KMS key that encrypts the k3s servers' join secret.

The servers' join secret holds every private key of the cluster's CAs. Under Secrets Manager's default
key, `aws/secretsmanager`, whose policy the account cannot change, every principal of the account that
may call GetSecretValue on the secret can decrypt it ("Allow access through AWS Secrets Manager for all
principals in the account that are authorized to use AWS Secrets Manager": Secrets Manager user guide,
"Key policy of the AWS managed key"). With a key of its own, the key policy decides too: only the
servers' role decrypts, only the deployer administers and writes, and no IAM policy alone reaches it
(iam_policies.py `join_secret_key_policy` says which statement is for what). The agents' secret (their
join token only) stays under the default key: their role is named nowhere in this key's policy.

- Rotation: KMS's automatic rotation, a new backing key every year (enable_key_rotation; the default
  period is 365 days); Secrets Manager decrypts older versions with the backing key they were written
  with, which KMS keeps.
- Deletion: `pulumi destroy` schedules the key's deletion after DELETION_WINDOW_DAYS; a key pending
  deletion costs nothing and the deletion can be cancelled (AWS KMS pricing; AWS KMS developer guide,
  "Deleting AWS KMS keys"). The window outlives the secret's own recovery window (iam.py), so a secret
  restored by mistake can still be decrypted.
- Alias: `alias/gpukit/<cluster>/k3s-server-join`, to find the key in the console. Aliases are unique in
  an account and region; the alias goes with the stack (its deletion is immediate), so a stack made
  again takes the name again.
- Cost: $1 a month, each automatic rotation's backing key $1 a month more (AWS KMS pricing); priced in
  the plan (providers/aws/charges.py).
"""

from typing import Optional, TypedDict

import pulumi
import pulumi_aws as aws

from gpukit.providers.aws.iam_policies import join_secret_key_policy

TYPE_TOKEN = "gpukit:index:K3sEc2JoinKey"
# KMS takes 7 to 30 days (AWS KMS API reference, ScheduleKeyDeletion PendingWindowInDays); the longest,
# as the EKS secrets key does (providers/aws/eks/cluster.py).
DELETION_WINDOW_DAYS = 30


def alias_name(cluster_name: str) -> str:
    """`alias/gpukit/<cluster>/k3s-server-join`: a cluster name is lowercase letters, digits and '-'
    (validated), which an alias takes; never `alias/aws/`, which KMS keeps for AWS managed keys."""
    return f"alias/gpukit/{cluster_name}/k3s-server-join"


def secret_arns(partition: str, region: str, account_id: str, name_prefix: str) -> str:
    """The ARNs the servers' join secret can have: Secrets Manager appends `-` and six random characters
    to the name (its name here is `name_prefix` and the provider's unique id), so the key policy matches
    every secret whose name starts with the prefix, in this account and region (a StringLike pattern)."""
    return f"arn:{partition}:secretsmanager:{region}:{account_id}:secret:{name_prefix}*"


class K3sEc2JoinKeyArgs(TypedDict):
    cluster_name: str
    region: str
    account_id: str
    partition: str
    deployer_arns: list[str]
    """The IAM roles and users that deploy the stack: the one running `pulumi up` (an assumed role's
    session resolved to its role) and `cluster.adminPrincipalArns`."""
    reader_arn: pulumi.Input[str]
    """The servers' instance role: the only principal that decrypts the secret on a machine."""
    secret_name_prefix: str
    """The servers' join secret's name_prefix (iam.py)."""


class K3sEc2JoinKey(pulumi.ComponentResource):
    key_arn: pulumi.Output[str]

    def __init__(self, name: str, args: K3sEc2JoinKeyArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        cluster, region = args["cluster_name"], args["region"]
        arns = secret_arns(args["partition"], region, args["account_id"], args["secret_name_prefix"])

        def policy(reader_arn: str) -> str:
            return join_secret_key_policy(
                account_id=args["account_id"],
                partition=args["partition"],
                region=region,
                deployer_arns=args["deployer_arns"],
                reader_arn=reader_arn,
                secret_arns=arns,
            )

        # A role made moments before may not be a valid principal yet: the provider retries the key
        # policy while IAM propagates (terraform-provider-aws kms key create, propagation timeout).
        key = aws.kms.Key(
            f"{name}-key",
            description=f"k3s server join secret of {cluster} (gpukit): the cluster's CA keys",
            enable_key_rotation=True,
            deletion_window_in_days=DELETION_WINDOW_DAYS,
            policy=pulumi.Output.from_input(args["reader_arn"]).apply(policy),
            opts=child,
        )
        aws.kms.Alias(f"{name}-alias", name=alias_name(cluster), target_key_id=key.key_id, opts=child)
        self.key_arn = key.arn
        self.register_outputs({"key_arn": self.key_arn})
