"""IAM policies of the shared-storage CSI controllers, as pure functions (least privilege)."""

import json


def lustre_static_controller_policy() -> str:
    """The FSx CSI controller over statically provisioned volumes: it only describes file systems.

    With a PersistentVolume that names an existing file system, the controller calls DescribeFileSystems
    (ValidateVolumeCapabilities; ControllerExpandVolume too) and never CreateFileSystem or
    DeleteFileSystem, which only dynamic provisioning uses (aws-fsx-csi-driver pkg/driver/controller.go
    @5b227125: CreateVolume, DeleteVolume, ValidateVolumeCapabilities, ControllerExpandVolume). Mounts
    happen on the node with the Lustre client and need no AWS credentials. Resizing is Pulumi's
    (sizeGb), so UpdateFileSystem is left out. DescribeFileSystems is a list call: Resource "*"."""
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Sid": "DescribeFileSystems",
                    "Effect": "Allow",
                    "Action": "fsx:DescribeFileSystems",
                    "Resource": "*",
                }
            ],
        }
    )


def mountpoint_bucket_policy(
    buckets: list[str], *, partition: str = "aws", read_only: list[str] | tuple[str, ...] = ()
) -> str:
    """Mountpoint for Amazon S3 on the named buckets only: list each bucket and read its objects; write
    and delete them only in `buckets`, never in the `read_only` ones (datasets volumes). A bucket in both
    lists is writable: one volume that writes it is enough.

    The actions are Mountpoint's recommendation as the EKS user guide lists them (s3-csi.adoc, "Create an
    IAM policy": s3:ListBucket on the bucket; s3:GetObject, s3:PutObject, s3:AbortMultipartUpload,
    s3:DeleteObject on its objects; awslabs/mountpoint-s3 doc/CONFIGURATION.md "IAM permissions": reading
    needs s3:ListBucket and s3:GetObject only, writing s3:PutObject and s3:AbortMultipartUpload, deleting
    s3:DeleteObject)."""
    writable = sorted(dict.fromkeys(buckets))
    reader_only = sorted(set(read_only) - set(writable))
    statements: list[dict[str, object]] = [
        {
            "Sid": "MountpointListBuckets",
            "Effect": "Allow",
            "Action": "s3:ListBucket",
            "Resource": [f"arn:{partition}:s3:::{b}" for b in sorted([*writable, *reader_only])],
        }
    ]
    if writable:
        statements.append(
            {
                "Sid": "MountpointObjects",
                "Effect": "Allow",
                "Action": ["s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload", "s3:DeleteObject"],
                "Resource": [f"arn:{partition}:s3:::{b}/*" for b in writable],
            }
        )
    if reader_only:
        statements.append(
            {
                "Sid": "MountpointReadObjects",
                "Effect": "Allow",
                "Action": ["s3:GetObject"],
                "Resource": [f"arn:{partition}:s3:::{b}/*" for b in reader_only],
            }
        )
    return json.dumps({"Version": "2012-10-17", "Statement": statements})


EFS_NODE_ACTIONS = ("elasticfilesystem:ClientMount", "elasticfilesystem:ClientWrite")
"""What the nodes' roles may do as NFS clients: mount and write. Not elasticfilesystem:ClientRootAccess:
every claim mounts through its own access point, which enforces the POSIX identity it was made with
(EFS guide, efs-access-points.html, "Enforcing a user identity"), so no mount needs root, and with no
principal granted it EFS squashes root to nobody for every client."""


def efs_file_system_policy(file_system_arn: str, node_role_arns: list[str]) -> str:
    """An EFS file system policy that admits only the nodes' IAM roles, only through a mount target,
    only over TLS.

    Without a policy of its own, a file system runs EFS's default one, which "grants full access to any
    anonymous client that can connect to the file system using a mount target" (EFS guide,
    iam-access-control-nfs-efs.html, "Default EFS file system policy"): any pod that reaches a mount
    target on 2049, and pods on the VPC CNI carry their node's security groups, could read and write as
    root with a userspace NFS client. This policy replaces it: ClientMount and ClientWrite for the node
    roles only, so a client must mount with IAM authorization (efs-utils' `iam` option, which the
    StorageClass sets: manifests.efs_storage_class) and sign with a node role's credentials, which the
    CSI node plugin gets from instance metadata on the host network and no pod reaches (IMDS answers one
    hop only: node_group.py and karpenter_objects.py). The console's "Enforce in-transit encryption for
    all clients" statement denies every action when aws:SecureTransport is false (EFS guide,
    create-file-system-policy.html). The AccessedViaMountTarget condition keeps the policy non-public,
    which EFS's block public access requires (access-control-block-public-access.html). The
    AccessPointArn condition (it must be present: EFS guide, access-points-iam-policy.html) admits
    mounts through an access point only: a node role's credentials alone cannot mount the file
    system's root and read every claim's directory as whatever uid it sends."""
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Sid": "NodesThroughAccessPoints",
                    "Effect": "Allow",
                    "Principal": {"AWS": sorted(dict.fromkeys(node_role_arns))},
                    "Action": list(EFS_NODE_ACTIONS),
                    "Resource": file_system_arn,
                    "Condition": {
                        "Bool": {"elasticfilesystem:AccessedViaMountTarget": "true"},
                        "Null": {"elasticfilesystem:AccessPointArn": "false"},
                    },
                },
                {
                    "Sid": "DenyWithoutTls",
                    "Effect": "Deny",
                    "Principal": {"AWS": "*"},
                    "Action": "*",
                    "Resource": file_system_arn,
                    "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                },
            ],
        }
    )
