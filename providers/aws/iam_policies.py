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


def cluster_autoscaler_policy(cluster_name: str, *, eks: bool = True) -> str:
    """Cluster Autoscaler on AWS, least privilege.

    From kubernetes/autoscaler cloudprovider/aws/README.md ("Full Cluster Autoscaler Features Policy"):
    describe calls on all resources (they cannot be scoped), and the two mutating calls only on
    autoscaling groups tagged as owned by this cluster, which EKS managed node groups are.
    eks:DescribeNodegroup lets it read a managed node group's labels and taints while the group is at
    zero nodes, which is what scale-from-zero of a GPU pool needs; `eks` False (k3s on EC2, whose groups
    are plain Auto Scaling groups that carry their own node-template tags) leaves it out.
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
