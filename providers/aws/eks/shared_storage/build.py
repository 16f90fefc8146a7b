"""EKS's storage variant's `build` (variant.py): each planned volume's file system and StorageClass, and
the CSI add-on of each backend in use, once."""

import pulumi

from gpukit.components.addons.storage.built import BuiltVolume
from gpukit.components.addons.storage.volume import PlannedVolume
from gpukit.components.spec import StorageKind, StorageRole
from gpukit.providers.aws.eks.shared_storage.context import EksStorageContext, lustre_zone
from gpukit.providers.aws.eks.shared_storage.csi_addon import EksCsiAddon, EksCsiAddonArgs
from gpukit.providers.aws.eks.shared_storage.efs import EksEfsVolume
from gpukit.providers.aws.eks.shared_storage.facts import (
    EFS_CSI,
    EFS_DEFAULT_MODE,
    FSX_CSI,
    S3_CSI,
    CsiAddon,
)
from gpukit.providers.aws.eks.shared_storage.fsx_lustre import EksLustreVolume
from gpukit.providers.aws.eks.shared_storage.policies import (
    lustre_static_controller_policy,
    mountpoint_bucket_policy,
)
from gpukit.providers.aws.eks.shared_storage.s3_mount import EksS3Volume


def s3_read_only(volume: PlannedVolume) -> bool:
    """A datasets bucket is mounted read-only: training reads it, nothing in the cluster may overwrite or
    delete the data (model caches and other roles write)."""
    return volume.role is StorageRole.DATASETS


def _addon(
    key: str,
    spec: CsiAddon,
    ctx: EksStorageContext,
    opts: pulumi.ResourceOptions,
    policy: pulumi.Input[str] | None = None,
) -> EksCsiAddon:
    args: EksCsiAddonArgs = {"cluster_name": ctx.eks_cluster_name, "addon": spec, "wait_for": ctx.wait_for}
    if policy is not None:
        args["inline_policy"] = policy
    return EksCsiAddon(key, args, opts=opts)


def _addons(
    name: str, volumes: list[PlannedVolume], ctx: EksStorageContext, opts: pulumi.ResourceOptions
) -> dict[StorageKind, EksCsiAddon]:
    """One add-on per backend in use. The S3 driver's role reaches exactly the buckets the volumes name."""
    kinds = {v.kind for v in volumes}
    addons: dict[StorageKind, EksCsiAddon] = {}
    if StorageKind.EFS in kinds:
        addons[StorageKind.EFS] = _addon(f"{name}-efs-csi", EFS_CSI, ctx, opts)
    if StorageKind.FSX_LUSTRE in kinds:
        addons[StorageKind.FSX_LUSTRE] = _addon(
            f"{name}-fsx-csi", FSX_CSI, ctx, opts, lustre_static_controller_policy()
        )
    if StorageKind.S3 in kinds:
        addons[StorageKind.S3] = _addon(f"{name}-s3-csi", S3_CSI, ctx, opts, _s3_policy(volumes, ctx))
    return addons


def _s3_policy(volumes: list[PlannedVolume], ctx: EksStorageContext) -> pulumi.Input[str]:
    """The S3 driver's policy on the volumes' buckets, rendered once their names are known: a bucket
    given from Python as an Output (the user's own bucket resource) is known only at up."""
    s3 = [v for v in volumes if v.kind is StorageKind.S3]
    writable = [v.spec["bucket"] for v in s3 if not s3_read_only(v)]
    read_only = [v.spec["bucket"] for v in s3 if s3_read_only(v)]
    return pulumi.Output.all(pulumi.Output.all(*writable), pulumi.Output.all(*read_only)).apply(
        lambda names: mountpoint_bucket_policy(
            list(names[0]), partition=ctx.partition, read_only=list(names[1])
        )
    )


def build_eks_shared_storage(
    name: str,
    volumes: list[PlannedVolume],
    ctx: EksStorageContext,
    kubernetes: pulumi.ProviderResource,
    parent: pulumi.Resource,
) -> list[BuiltVolume]:
    """One component per volume, children of `parent`, on the cluster's aws and kubernetes providers."""
    opts = pulumi.ResourceOptions(
        parent=parent, providers={"aws": ctx.aws_provider, "kubernetes": kubernetes}
    )
    addons = _addons(f"{name}-shared", volumes, ctx, opts)
    built: list[BuiltVolume] = []
    for volume in volumes:
        key = f"{name}-shared-{volume.name}"
        wait_for: list[pulumi.Resource] = [addons[volume.kind].addon]
        component: EksEfsVolume | EksLustreVolume | EksS3Volume
        if volume.kind is StorageKind.EFS:
            component = EksEfsVolume(
                key,
                {
                    "cluster_name": ctx.cluster_name,
                    "volume": volume.name,
                    "vpc_id": ctx.vpc_id,
                    "subnet_by_zone": ctx.subnet_by_zone,
                    "node_security_group_id": ctx.node_security_group_id,
                    "node_role_arns": ctx.node_role_arns,
                    "throughput_mode": EFS_DEFAULT_MODE,
                    "wait_for": wait_for,
                },
                opts=opts,
            )
        elif volume.kind is StorageKind.FSX_LUSTRE:
            # The config's zone (validated: a zone a pool pins, so one with a node subnet), else the
            # computed one, which the plan warns may move (a moved file system is a new, empty one).
            zone = volume.spec.get("zone") or lustre_zone(ctx.gpu_zones, list(ctx.subnet_by_zone))
            component = EksLustreVolume(
                key,
                {
                    "cluster_name": ctx.cluster_name,
                    "volume": volume.name,
                    "vpc_id": ctx.vpc_id,
                    "subnet_id": ctx.subnet_by_zone[zone],
                    "node_security_group_id": ctx.node_security_group_id,
                    "size_gb": volume.size_gb,
                    "per_unit_throughput": int(volume.tier.name),
                    "wait_for": wait_for,
                    "final_backup": not ctx.ephemeral,
                    "tags": ctx.tags,
                },
                opts=opts,
            )
        elif volume.kind is StorageKind.S3:
            component = EksS3Volume(
                key,
                {
                    "volume": volume.name,
                    "bucket": volume.spec["bucket"],
                    "region": ctx.region,
                    "size_gb": volume.size_gb,
                    "read_only": s3_read_only(volume),
                    "wait_for": wait_for,
                },
                opts=opts,
            )
        else:  # validation refuses kinds EKS's storage variant does not list (variant.py EksSharedStorage)
            raise ValueError(f"EKS builds no {volume.kind.value} volume")
        built.append(BuiltVolume(volume.name, volume.storage_class, [component]))
    return built
