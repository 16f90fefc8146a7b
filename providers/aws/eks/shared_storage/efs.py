"""EksEfsVolume: one Amazon EFS file system for one shared volume, reachable from the cluster's nodes
in every zone, and the StorageClass that hands out its access points."""

from typing import NotRequired, Optional, TypedDict

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from gpukit.providers.aws.eks.shared_storage.facts import EFS_PERFORMANCE_MODE, NFS_PORT
from gpukit.providers.aws.eks.shared_storage.manifests import efs_storage_class
from gpukit.providers.aws.eks.shared_storage.node_access import FileSystemNodeAccess
from gpukit.providers.aws.eks.shared_storage.policies import efs_file_system_policy

TYPE_TOKEN = "gpukit:index:EksEfsVolume"


def efs_creation_token(cluster_name: str, volume: str) -> str:
    """`<cluster>-<volume>`: idempotent creation, and a name an operator recognises (EFS API
    CreateFileSystem CreationToken, at most 64 characters: validation.py checks it up front)."""
    return f"{cluster_name}-{volume}"


class EksEfsVolumeArgs(TypedDict):
    cluster_name: str
    volume: str
    """The volume's name in `gpukit:storage.shared`."""
    vpc_id: pulumi.Input[str]
    subnet_by_zone: dict[str, pulumi.Input[str]]
    """One private node subnet per AZ ID: EFS takes one mount target per zone."""
    node_security_group_id: pulumi.Input[str]
    node_role_arns: list[pulumi.Input[str]]
    """The IAM roles of every node (managed node groups', Karpenter's): the only clients the file
    system admits (policies.efs_file_system_policy)."""
    throughput_mode: str
    """elastic, provisioned or bursting (facts.EFS_MODES)."""
    provisioned_mibps: NotRequired[int]
    """Provisioned mode only: the throughput bought, MiB/s."""
    wait_for: NotRequired[list[pulumi.Resource]]
    """The EFS CSI add-on: the StorageClass is useless before it."""


class EksEfsVolume(pulumi.ComponentResource):
    """Needs `opts.providers` with the cluster's aws and kubernetes providers."""

    file_system_id: pulumi.Output[str]
    storage_class: pulumi.Output[str]

    def __init__(self, name: str, args: EksEfsVolumeArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        volume = args["volume"]
        what = f"EFS volume {volume} of {args['cluster_name']}"
        access = FileSystemNodeAccess(
            f"{name}-access",
            {
                "vpc_id": args["vpc_id"],
                "node_security_group_id": args["node_security_group_id"],
                "ports": [(NFS_PORT, NFS_PORT)],
                "what": what,
            },
            opts=child,
        )
        mode = args["throughput_mode"]
        file_system = aws.efs.FileSystem(
            f"{name}-fs",
            creation_token=efs_creation_token(args["cluster_name"], volume),
            # Encrypted at rest with the account's AWS-managed EFS key (EFS API CreateFileSystem
            # Encrypted; KmsKeyId unset: aws/elasticfilesystem).
            encrypted=True,
            performance_mode=EFS_PERFORMANCE_MODE,
            throughput_mode=mode,
            provisioned_throughput_in_mibps=args.get("provisioned_mibps") if mode == "provisioned" else None,
            tags={"Name": f"{args['cluster_name']}-{volume}"},
            opts=child,
        )
        # Only the nodes' roles, over TLS, through a mount target (policies.efs_file_system_policy).
        policy = aws.efs.FileSystemPolicy(
            f"{name}-policy",
            file_system_id=file_system.id,
            policy=pulumi.Output.all(file_system.arn, pulumi.Output.all(*args["node_role_arns"])).apply(
                lambda found: efs_file_system_policy(found[0], list(found[1]))
            ),
            opts=child,
        )
        targets = [
            aws.efs.MountTarget(
                f"{name}-mt-{zone}",
                file_system_id=file_system.id,
                subnet_id=subnet,
                security_groups=[access.security_group_id],
                opts=child,
            )
            for zone, subnet in sorted(args["subnet_by_zone"].items())
        ]
        storage_class = k8s.storage.v1.StorageClass(
            f"{name}-sc",
            **efs_storage_class(volume, file_system.id),
            opts=pulumi.ResourceOptions(
                parent=self, depends_on=[*targets, policy, *args.get("wait_for", [])]
            ),
        )
        self.file_system_id = file_system.id
        self.storage_class = storage_class.metadata["name"]
        self.register_outputs({"file_system_id": self.file_system_id, "storage_class": self.storage_class})
