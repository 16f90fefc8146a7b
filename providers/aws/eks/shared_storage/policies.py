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


EFS_CLIENT_ACTIONS = (
    "elasticfilesystem:ClientRootAccess",
    "elasticfilesystem:ClientWrite",
    "elasticfilesystem:ClientMount",
)


def efs_file_system_policy(file_system_arn: str) -> str:
    """An EFS file system policy that refuses every connection without TLS and otherwise grants what
    EFS's default policy grants.

    Without a policy of its own, a file system runs EFS's default one: "grants full access to any
    anonymous client that can connect to the file system using a mount target", TLS or not (EFS guide,
    iam-access-control-nfs-efs.html, "Default EFS file system policy"). A policy of gpukit's replaces it,
    so it keeps that grant (the three client actions, through a mount target: the EFS CSI driver mounts
    the mount targets gpukit makes, with its access points) and adds the console's "Enforce in-transit
    encryption for all clients" statement: Deny every action when aws:SecureTransport is false (EFS guide,
    create-file-system-policy.html; the console writes Principal {"AWS": "*"} with these conditions). The
    AccessedViaMountTarget condition also keeps the policy non-public, which EFS's block public access
    requires (access-control-block-public-access.html: a grant to elasticfilesystem:AccessedViaMountTarget
    is non-public). The driver mounts with TLS by default (manifests.efs_storage_class)."""
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Sid": "ClientsThroughMountTargets",
                    "Effect": "Allow",
                    "Principal": {"AWS": "*"},
                    "Action": list(EFS_CLIENT_ACTIONS),
                    "Resource": file_system_arn,
                    "Condition": {"Bool": {"elasticfilesystem:AccessedViaMountTarget": "true"}},
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
