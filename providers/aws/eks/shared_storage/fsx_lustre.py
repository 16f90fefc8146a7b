"""EksLustreVolume: one FSx for Lustre file system for one shared volume, as a statically provisioned
PersistentVolume with its StorageClass and an example claim.

Static, not the driver's dynamic provisioning: the file system, its throughput tier and its cost are in
the plan; Pulumi owns its deletion (a dynamically made file system outlives `pulumi destroy` of the
cluster that asked for it, and keeps its security group and subnet from being deleted); and the CSI
controller needs no right to create or delete file systems (policies.py).
"""

from typing import NotRequired, Optional, TypedDict

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from gpukit.providers.aws.eks.shared_storage.facts import LUSTRE_DEPLOYMENT_TYPE, LUSTRE_PORTS
from gpukit.providers.aws.eks.shared_storage.manifests import (
    example_claim,
    lustre_volume,
    static_storage_class,
)
from gpukit.providers.aws.eks.shared_storage.node_access import FileSystemNodeAccess

TYPE_TOKEN = "gpukit:index:EksLustreVolume"


class EksLustreVolumeArgs(TypedDict):
    cluster_name: str
    volume: str
    vpc_id: pulumi.Input[str]
    subnet_id: pulumi.Input[str]
    """A Lustre file system lives in one subnet, so one AZ (PERSISTENT_2 is single-AZ)."""
    node_security_group_id: pulumi.Input[str]
    size_gb: int
    per_unit_throughput: int
    """MB/s per TiB: 125, 250, 500 or 1000 (components/addons/storage/backends.py)."""
    wait_for: NotRequired[list[pulumi.Resource]]
    final_backup: NotRequired[bool]
    """Keep a backup when the file system is deleted or replaced (default true; false on ephemeral
    stacks, whose teardowns would each leave one, billed until deleted by hand)."""
    tags: NotRequired[dict[str, str]]
    """The cluster's tags, for the final backup (the provider's default tags do not reach it)."""


# New file systems run Lustre 2.15: the FSx API creates 2.12 unless told (FSx API CreateFileSystem
# FileSystemTypeVersion: "2.12 ... is the default" without a metadata configuration; pulumi_aws 7.x
# `file_system_type_version`: 2.10, 2.12 or 2.15). Existing ones keep theirs (a higher version would
# upgrade them in place on the next `pulumi up`): the version is ignored after creation.
LUSTRE_VERSION = "2.15"


class EksLustreVolume(pulumi.ComponentResource):
    """Needs `opts.providers` with the cluster's aws and kubernetes providers."""

    file_system_id: pulumi.Output[str]
    storage_class: pulumi.Output[str]

    def __init__(self, name: str, args: EksLustreVolumeArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        volume = args["volume"]
        final_backup = args.get("final_backup", True)
        access = FileSystemNodeAccess(
            f"{name}-access",
            {
                "vpc_id": args["vpc_id"],
                "node_security_group_id": args["node_security_group_id"],
                "ports": list(LUSTRE_PORTS),
                "what": f"FSx for Lustre volume {volume} of {args['cluster_name']}",
                "between_servers": True,
            },
            opts=child,
        )
        file_system = aws.fsx.LustreFileSystem(
            f"{name}-fs",
            deployment_type=LUSTRE_DEPLOYMENT_TYPE,
            storage_type="SSD",
            storage_capacity=args["size_gb"],
            per_unit_storage_throughput=args["per_unit_throughput"],
            subnet_ids=args["subnet_id"],  # one subnet (this provider takes it as a string)
            security_group_ids=[access.security_group_id],
            # Encrypted at rest always (FSx Lustre guide, encryption-at-rest.html: "automatically
            # enabled"); in transit from EC2 instances that support it (encryption-in-transit-fsxl.html).
            tags={"Name": f"{args['cluster_name']}-{volume}"},
            file_system_type_version=LUSTRE_VERSION,
            # A final backup when the file system is deleted or replaced (a new zone or name replaces
            # it): checkpoints survive a mistaken change. FSx skips it by default (FSx API
            # DeleteFileSystemLustreConfiguration SkipFinalBackup, "Default = true"; pulumi_aws 7.x
            # `skip_final_backup` "Defaults to `true`"); scratch file systems never take one, persistent
            # ones do. The backup is kept (and billed) until deleted by hand, and deleting needs
            # fsx:CreateBackup (same API page). Tagged with the cluster's tags (its name, its expiry)
            # so an operator finds it: FinalBackupTags. None on ephemeral stacks.
            skip_final_backup=not final_backup,
            final_backup_tags=(
                {**args.get("tags", {}), "Name": f"{args['cluster_name']}-{volume}-final"}
                if final_backup
                else None
            ),
            opts=pulumi.ResourceOptions(
                parent=self, depends_on=[access], ignore_changes=["fileSystemTypeVersion"]
            ),
        )
        in_cluster = pulumi.ResourceOptions(parent=self, depends_on=args.get("wait_for", []))
        storage_class = k8s.storage.v1.StorageClass(
            f"{name}-sc", **static_storage_class(volume), opts=in_cluster
        )
        persistent_volume = k8s.core.v1.PersistentVolume(
            f"{name}-pv",
            **lustre_volume(
                volume, args["size_gb"], file_system.id, file_system.dns_name, file_system.mount_name
            ),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[storage_class, *args.get("wait_for", [])]),
        )
        k8s.core.v1.PersistentVolumeClaim(
            f"{name}-claim",
            **example_claim(volume, args["size_gb"]),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[persistent_volume]),
        )
        self.file_system_id = file_system.id
        self.storage_class = storage_class.metadata["name"]
        self.register_outputs({"file_system_id": self.file_system_id, "storage_class": self.storage_class})
