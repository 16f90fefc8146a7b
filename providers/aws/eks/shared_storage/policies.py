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
