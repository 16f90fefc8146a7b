"""IAM policy documents as pure functions: each role gets only what its one user needs."""

import json
from typing import Any

MANAGED = "arn:aws:iam::aws:policy"

# EKS cluster role: AWS's managed policy for the control plane (EKS user guide, "Amazon EKS cluster
# IAM role").
CLUSTER_ROLE_POLICIES = (f"{MANAGED}/AmazonEKSClusterPolicy",)

# Node role (EKS user guide, "Amazon EKS node IAM role"): join the cluster, pull images (the
# pull-only policy, not the older read-only one that can also list repositories), and let the VPC CNI
# that EKS bootstraps on every node assign pod addresses.
NODE_ROLE_POLICIES = (
    f"{MANAGED}/AmazonEKSWorkerNodePolicy",
    f"{MANAGED}/AmazonEC2ContainerRegistryPullOnly",
    f"{MANAGED}/AmazonEKS_CNI_Policy",
)

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
