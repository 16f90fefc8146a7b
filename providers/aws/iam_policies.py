"""IAM policy documents as pure functions: each role gets only what its one user needs."""

import json
from typing import Any

MANAGED = "arn:aws:iam::aws:policy"

# EKS cluster role: AWS's managed policy for the control plane (EKS user guide, "Amazon EKS cluster
# IAM role").
CLUSTER_ROLE_POLICIES = (f"{MANAGED}/AmazonEKSClusterPolicy",)

# Node role (EKS user guide, "Amazon EKS node IAM role"): join the cluster (AmazonEKSWorkerNodePolicy,
# which also lets the Pod Identity agent fetch pods' credentials) and pull images (the pull-only
# policy, not the older read-only one that can also list repositories). Not the VPC CNI's
# AmazonEKS_CNI_Policy, which that page lists as optional: on the node role, every hostNetwork pod
# could attach, detach and re-address any network interface in the region through the instance's
# credentials. The CNI gets it through its own Pod Identity role (VPC_CNI_POLICIES).
NODE_ROLE_POLICIES = (
    f"{MANAGED}/AmazonEKSWorkerNodePolicy",
    f"{MANAGED}/AmazonEC2ContainerRegistryPullOnly",
)

# The VPC CNI's own role, for its `aws-node` service account (EKS user guide, "Configure Amazon VPC
# CNI plugin to use IRSA": "also supports Amazon EKS Pod Identities"; "We recommend that you assign it
# to a separate role"). IPv4 clusters, which gpukit makes.
VPC_CNI_POLICIES = (f"{MANAGED}/AmazonEKS_CNI_Policy",)
VPC_CNI_SERVICE_ACCOUNT = "aws-node"

# EBS CSI controller (EKS user guide, "Store Kubernetes volumes with Amazon EBS").
EBS_CSI_POLICIES = (f"{MANAGED}/service-role/AmazonEBSCSIDriverPolicy",)

CLUSTER_ADMIN_ACCESS_POLICY = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"


def assume_role_policy(service: str, *, tag_session: bool = False) -> str:
    """Trust policy letting one AWS service assume the role."""
    actions: Any = ["sts:AssumeRole", "sts:TagSession"] if tag_session else "sts:AssumeRole"
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Principal": {"Service": service}, "Action": actions}],
        }
    )


def pod_identity_trust_policy() -> str:
    """Trust policy for EKS Pod Identity roles (principal pods.eks.amazonaws.com, with TagSession)."""
    return assume_role_policy("pods.eks.amazonaws.com", tag_session=True)


def in_region(region: str) -> dict[str, Any]:
    """A condition that admits calls to one region's endpoints only (the global key aws:RequestedRegion,
    IAM user guide "AWS global condition context keys"): what narrows a describe call, which takes no
    resource-level permission."""
    return {"StringEquals": {"aws:RequestedRegion": region}}


def cluster_autoscaler_policy(cluster_name: str, *, eks: bool = True, region: str | None = None) -> str:
    """Cluster Autoscaler on AWS, least privilege.

    From kubernetes/autoscaler cloudprovider/aws/README.md ("Full Cluster Autoscaler Features Policy"):
    describe calls on all resources (they cannot be scoped), and the two mutating calls only on
    autoscaling groups tagged as owned by this cluster, which EKS managed node groups are.
    eks:DescribeNodegroup lets it read a managed node group's labels and taints while the group is at
    zero nodes, which is what scale-from-zero of a GPU pool needs; `eks` False (k3s on EC2, whose groups
    are plain Auto Scaling groups that carry their own node-template tags) leaves it out.

    The describe calls stay on `*`: none of them takes a resource-level permission. The EC2 user guide
    says so for ec2:DescribeLaunchTemplateVersions (which the autoscaler calls to read a group's launch
    template, for its node at zero) and every other EC2 Describe action ("If an Amazon EC2 API action
    does not support resource-level permissions ... you have to specify a * for the resource element",
    "Supported resource-level permissions for Amazon EC2 API actions"), and the Auto Scaling user guide
    for its own ("Because Describe actions do not support resource-level permissions, you must specify
    them in a separate statement without conditions", "Launch template support"). A tag condition
    (aws:ResourceTag) cannot narrow them either: the request names no resource to read a tag from, so
    the condition would refuse every call. `region` (k3s on EC2) narrows what can be narrowed: the
    describe calls to the cluster's region only (`in_region`).
    """
    describe = [
        "autoscaling:DescribeAutoScalingGroups",
        "autoscaling:DescribeAutoScalingInstances",
        "autoscaling:DescribeLaunchConfigurations",
        "autoscaling:DescribeScalingActivities",
        "autoscaling:DescribeTags",
        "ec2:DescribeImages",
        "ec2:DescribeInstanceTypes",
        "ec2:DescribeLaunchTemplateVersions",
        "ec2:GetInstanceTypesFromInstanceRequirements",
        *(["eks:DescribeNodegroup"] if eks else []),
    ]
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Sid": "Describe",
                    "Effect": "Allow",
                    "Action": describe,
                    "Resource": "*",
                    **({"Condition": in_region(region)} if region is not None else {}),
                },
                {
                    "Sid": "ScaleOwnGroupsOnly",
                    "Effect": "Allow",
                    "Action": [
                        "autoscaling:SetDesiredCapacity",
                        "autoscaling:TerminateInstanceInAutoScalingGroup",
                    ],
                    "Resource": "*",
                    "Condition": {
                        "StringEquals": {
                            "aws:ResourceTag/k8s.io/cluster-autoscaler/enabled": "true",
                            f"aws:ResourceTag/k8s.io/cluster-autoscaler/{cluster_name}": "owned",
                        },
                    },
                },
            ],
        }
    )


def kms_key_policy(account_id: str, partition: str = "aws") -> str:
    """Key policy: the account administers the key; use is granted through IAM (the cluster role)."""
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Sid": "AccountAdministers",
                    "Effect": "Allow",
                    "Principal": {"AWS": f"arn:{partition}:iam::{account_id}:root"},
                    "Action": "kms:*",
                    "Resource": "*",
                }
            ],
        }
    )


# What a key administrator may do, and nothing cryptographic: the "key administrators statement" of the
# default key policy the KMS console writes (AWS KMS developer guide, "Default key policy", "Allows key
# administrators to administer the KMS key"). kms:Create* is CreateAlias and CreateGrant.
KEY_ADMIN_ACTIONS = (
    "kms:Create*",
    "kms:Describe*",
    "kms:Enable*",
    "kms:List*",
    "kms:Put*",
    "kms:Update*",
    "kms:Revoke*",
    "kms:Disable*",
    "kms:Get*",
    "kms:Delete*",
    "kms:TagResource",
    "kms:UntagResource",
    "kms:ScheduleKeyDeletion",
    "kms:CancelKeyDeletion",
)
# The same without kms:Create*: the account's own statement below grants no grants (a grant can hand out
# kms:Decrypt without a policy change; Secrets Manager does not use grants with a customer managed key,
# Secrets Manager user guide "Secret encryption and decryption").
ACCOUNT_KEY_ACTIONS = tuple(a for a in KEY_ADMIN_ACTIONS if a != "kms:Create*")


def through_secrets_manager(region: str, secret_arns: str) -> dict[str, Any]:
    """The key used only by Secrets Manager in `region` (kms:ViaService) and only for the secrets whose
    ARN matches `secret_arns` (kms:EncryptionContext:SecretARN: Secrets Manager puts the secret's ARN
    in the encryption context of every GenerateDataKey and Decrypt it calls, including the calls that
    validate a caller's access when a secret is given a key; Secrets Manager user guide, "Secret
    encryption and decryption", "Permissions for the KMS key" and "Secrets Manager encryption
    context")."""
    return {
        "StringEquals": {"kms:ViaService": f"secretsmanager.{region}.amazonaws.com"},
        "StringLike": {"kms:EncryptionContext:SecretARN": secret_arns},
    }


def join_secret_key_policy(
    *,
    account_id: str,
    partition: str,
    region: str,
    deployer_arns: list[str],
    reader_arn: str,
    secret_arns: str,
) -> str:
    """The key policy of the customer managed key that encrypts the k3s servers' join secret (every CA
    private key of the cluster). Only principals named here use the key: a key policy is the primary
    control of a KMS key, and IAM policies count only where the key policy lets the account delegate
    (AWS KMS developer guide, "Default key policy", "Allows access to the AWS account and enables IAM
    policies").

    - AccountAdministersOnly: the account may manage the key through IAM policies, without any
      cryptographic operation. KMS's default statement gives the account `kms:*`; without one for the
      account at all, the key becomes unmanageable once the principals it names are gone ("If you then
      delete that user, the key becomes unmanageable and you must contact AWS Support", same page). This
      is the trade-off: an IAM principal allowed kms:PutKeyPolicy can still rewrite this policy (a
      logged, visible change), but no IAM policy, however broad (AdministratorAccess, PowerUserAccess:
      `kms:*` on `*`), can decrypt the bundle by itself.
    - DeployerAdministers: whoever deploys the stack (`deployer_arns`: the caller's IAM role or user,
      and `cluster.adminPrincipalArns`, so that a teammate's or CI's run does not rewrite the others
      out of the policy and leave their next `pulumi refresh` unable to read the secret) manages the
      key: the console's key administrators statement. Also what KMS's policy lockout safety check
      wants, that the principal putting a policy can put one again (AWS KMS API reference,
      PutKeyPolicy, BypassPolicyLockoutSafetyCheck).
    - DeployerWritesThroughSecretsManager: the deployer writes the bundle (PutSecretValue:
      GenerateDataKey), gives the secret this key (CreateSecret, UpdateSecret: GenerateDataKey and
      Decrypt, to validate its access) and Pulumi reads a version back on refresh (GetSecretValue:
      Decrypt), "acting on behalf of the user who is creating or changing the secret value" (Secrets
      Manager user guide, "Permissions for the KMS key"); only through Secrets Manager and only for
      this cluster's server join secrets. The deployer holds the bundle in its stack state anyway.
    - ServersDecryptThroughSecretsManager: the servers' instance role (`reader_arn`) may decrypt, only
      through Secrets Manager and only for those secrets: what GetSecretValue needs. Agents are not
      named: their role cannot decrypt the bundle even if an IAM policy let it read the secret.
    """
    account = f"arn:{partition}:iam::{account_id}:root"
    through = through_secrets_manager(region, secret_arns)
    found = list(dict.fromkeys(deployer_arns))
    deployers: str | list[str] = found[0] if len(found) == 1 else sorted(found)
    statements: list[dict[str, Any]] = [
        {
            "Sid": "AccountAdministersOnly",
            "Effect": "Allow",
            "Principal": {"AWS": account},
            "Action": list(ACCOUNT_KEY_ACTIONS),
            "Resource": "*",
        },
        {
            "Sid": "DeployerAdministers",
            "Effect": "Allow",
            "Principal": {"AWS": deployers},
            "Action": list(KEY_ADMIN_ACTIONS),
            "Resource": "*",
        },
        {
            "Sid": "DeployerWritesThroughSecretsManager",
            "Effect": "Allow",
            "Principal": {"AWS": deployers},
            "Action": ["kms:GenerateDataKey", "kms:Decrypt"],
            "Resource": "*",
            "Condition": through,
        },
        {
            "Sid": "ServersDecryptThroughSecretsManager",
            "Effect": "Allow",
            "Principal": {"AWS": reader_arn},
            "Action": "kms:Decrypt",
            "Resource": "*",
            "Condition": through,
        },
    ]
    return json.dumps({"Version": "2012-10-17", "Statement": statements})


def secrets_encryption_policy(key_arn: str) -> str:
    """What the EKS cluster role needs to envelope-encrypt Secrets with the cluster's key."""
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Action": ["kms:Encrypt", "kms:Decrypt", "kms:ListGrants", "kms:DescribeKey"],
                    "Resource": key_arn,
                }
            ],
        }
    )


def karpenter_controller_policy(
    *, cluster_name: str, region: str, account_id: str, partition: str, node_role_arn: str, queue_arn: str
) -> str:
    """The Karpenter controller (chart 1.14.1), least privilege.

    Written after Karpenter's own reference, the getting-started CloudFormation template at v1.14.1
    (website/content/en/docs/getting-started/getting-started-with-karpenter/cloudformation.yaml,
    vendored in tests/reference/karpenter-v1.14.1/; explained in docs "Reference > CloudFormation"):
    its NodeLifecycle, IAMIntegration, EKSIntegration, Interruption and ResourceDiscovery policies in
    one document. Every action that creates, tags or deletes is scoped to resources tagged as this
    cluster's (`kubernetes.io/cluster/<name>: owned`, `eks:eks-cluster-name`, a Karpenter NodePool or
    EC2NodeClass tag) in this region; iam:PassRole reaches only the Karpenter node role, and the queue
    actions only the interruption queue. Left out: the ZonalShift policy (gpukit does not enable
    zonal-shift handling) and SSM GetParameter beyond the public /aws/service/ parameters.
    """
    ec2 = f"arn:{partition}:ec2:{region}"
    owned = f"kubernetes.io/cluster/{cluster_name}"
    created = [
        f"{ec2}:*:fleet/*",
        f"{ec2}:*:instance/*",
        f"{ec2}:*:volume/*",
        f"{ec2}:*:network-interface/*",
        f"{ec2}:*:launch-template/*",
        f"{ec2}:*:spot-instances-request/*",
    ]
    profiles = f"arn:{partition}:iam::{account_id}:instance-profile/*"
    statements: list[dict[str, Any]] = [
        {
            "Sid": "AllowScopedEC2InstanceAccessActions",
            "Effect": "Allow",
            "Resource": [
                f"{ec2}::image/*",
                f"{ec2}::snapshot/*",
                f"{ec2}:*:security-group/*",
                f"{ec2}:*:subnet/*",
                f"{ec2}:*:capacity-reservation/*",
                f"{ec2}:*:placement-group/*",
            ],
            "Action": ["ec2:RunInstances", "ec2:CreateFleet"],
        },
        {
            "Sid": "AllowScopedEC2LaunchTemplateAccessActions",
            "Effect": "Allow",
            "Resource": f"{ec2}:*:launch-template/*",
            "Action": ["ec2:RunInstances", "ec2:CreateFleet"],
            "Condition": {
                "StringEquals": {f"aws:ResourceTag/{owned}": "owned"},
                "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"},
            },
        },
        {
            "Sid": "AllowScopedEC2InstanceActionsWithTags",
            "Effect": "Allow",
            "Resource": created,
            "Action": ["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"],
            "Condition": {
                "StringEquals": {
                    f"aws:RequestTag/{owned}": "owned",
                    "aws:RequestTag/eks:eks-cluster-name": cluster_name,
                },
                "StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"},
            },
        },
        {
            "Sid": "AllowScopedResourceCreationTagging",
            "Effect": "Allow",
            "Resource": created,
            "Action": "ec2:CreateTags",
            "Condition": {
                "StringEquals": {
                    f"aws:RequestTag/{owned}": "owned",
                    "aws:RequestTag/eks:eks-cluster-name": cluster_name,
                    "ec2:CreateAction": ["RunInstances", "CreateFleet", "CreateLaunchTemplate"],
                },
                "StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"},
            },
        },
        {
            "Sid": "AllowScopedResourceTagging",
            "Effect": "Allow",
            "Resource": f"{ec2}:*:instance/*",
            "Action": "ec2:CreateTags",
            "Condition": {
                "StringEquals": {f"aws:ResourceTag/{owned}": "owned"},
                "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"},
                "StringEqualsIfExists": {"aws:RequestTag/eks:eks-cluster-name": cluster_name},
                "ForAllValues:StringEquals": {
                    "aws:TagKeys": ["eks:eks-cluster-name", "karpenter.sh/nodeclaim", "Name"]
                },
            },
        },
        {
            "Sid": "AllowScopedDeletion",
            "Effect": "Allow",
            "Resource": [f"{ec2}:*:instance/*", f"{ec2}:*:launch-template/*"],
            "Action": ["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"],
            "Condition": {
                "StringEquals": {f"aws:ResourceTag/{owned}": "owned"},
                "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"},
            },
        },
        {
            "Sid": "AllowPassingInstanceRole",
            "Effect": "Allow",
            "Resource": node_role_arn,
            "Action": "iam:PassRole",
            "Condition": {"StringEquals": {"iam:PassedToService": "ec2.amazonaws.com"}},
        },
        {
            "Sid": "AllowScopedInstanceProfileCreationActions",
            "Effect": "Allow",
            "Resource": profiles,
            "Action": "iam:CreateInstanceProfile",
            "Condition": {
                "StringEquals": {
                    f"aws:RequestTag/{owned}": "owned",
                    "aws:RequestTag/eks:eks-cluster-name": cluster_name,
                    "aws:RequestTag/topology.kubernetes.io/region": region,
                },
                "StringLike": {"aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"},
            },
        },
        {
            "Sid": "AllowScopedInstanceProfileTagActions",
            "Effect": "Allow",
            "Resource": profiles,
            "Action": "iam:TagInstanceProfile",
            "Condition": {
                "StringEquals": {
                    f"aws:ResourceTag/{owned}": "owned",
                    "aws:ResourceTag/topology.kubernetes.io/region": region,
                    f"aws:RequestTag/{owned}": "owned",
                    "aws:RequestTag/eks:eks-cluster-name": cluster_name,
                    "aws:RequestTag/topology.kubernetes.io/region": region,
                },
                "StringLike": {
                    "aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*",
                    "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*",
                },
            },
        },
        {
            "Sid": "AllowScopedInstanceProfileActions",
            "Effect": "Allow",
            "Resource": profiles,
            "Action": [
                "iam:AddRoleToInstanceProfile",
                "iam:RemoveRoleFromInstanceProfile",
                "iam:DeleteInstanceProfile",
            ],
            "Condition": {
                "StringEquals": {
                    f"aws:ResourceTag/{owned}": "owned",
                    "aws:ResourceTag/topology.kubernetes.io/region": region,
                },
                "StringLike": {"aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*"},
            },
        },
        {
            "Sid": "AllowAPIServerEndpointDiscovery",
            "Effect": "Allow",
            "Resource": f"arn:{partition}:eks:{region}:{account_id}:cluster/{cluster_name}",
            "Action": "eks:DescribeCluster",
        },
        {
            "Sid": "AllowInterruptionQueueActions",
            "Effect": "Allow",
            "Resource": queue_arn,
            "Action": ["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"],
        },
        {
            "Sid": "AllowRegionalReadActions",
            "Effect": "Allow",
            "Resource": "*",
            "Action": [
                "ec2:DescribeCapacityReservations",
                "ec2:DescribeImages",
                "ec2:DescribeInstances",
                "ec2:DescribeInstanceStatus",
                "ec2:DescribeInstanceTypeOfferings",
                "ec2:DescribeInstanceTypes",
                "ec2:DescribeLaunchTemplates",
                "ec2:DescribePlacementGroups",
                "ec2:DescribeSecurityGroups",
                "ec2:DescribeSpotPriceHistory",
                "ec2:DescribeSubnets",
            ],
            "Condition": {"StringEquals": {"aws:RequestedRegion": region}},
        },
        {
            "Sid": "AllowSSMReadActions",
            "Effect": "Allow",
            "Resource": f"arn:{partition}:ssm:{region}::parameter/aws/service/*",
            "Action": "ssm:GetParameter",
        },
        {
            "Sid": "AllowPricingReadActions",
            "Effect": "Allow",
            "Resource": "*",
            "Action": "pricing:GetProducts",
        },
        {
            "Sid": "AllowUnscopedInstanceProfileListAction",
            "Effect": "Allow",
            "Resource": "*",
            "Action": "iam:ListInstanceProfiles",
        },
        {
            "Sid": "AllowInstanceProfileReadActions",
            "Effect": "Allow",
            "Resource": profiles,
            "Action": "iam:GetInstanceProfile",
        },
    ]
    return json.dumps({"Version": "2012-10-17", "Statement": statements})


def interruption_queue_policy(queue_arn: str) -> str:
    """Who may send to Karpenter's interruption queue: EventBridge (and SQS itself), over TLS only
    (Karpenter's CloudFormation reference at v1.14.1, KarpenterInterruptionQueuePolicy)."""
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Id": "EC2InterruptionPolicy",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Principal": {"Service": ["events.amazonaws.com", "sqs.amazonaws.com"]},
                    "Action": "sqs:SendMessage",
                    "Resource": queue_arn,
                },
                {
                    "Sid": "DenyHTTP",
                    "Effect": "Deny",
                    "Principal": "*",
                    "Action": "sqs:*",
                    "Resource": queue_arn,
                    "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                },
            ],
        }
    )
