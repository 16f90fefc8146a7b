"""GkeSharedStorage: every shared volume of a GKE cluster, the private services access its Filestore and
Managed Lustre volumes share, and what the plan says of each."""

from dataclasses import dataclass
from typing import Optional, TypedDict

import pulumi
import pulumi_gcp as gcp

from gpukit.components.addons.storage.built import BuiltVolume, StorageServer
from gpukit.components.addons.storage.plan import planned_volumes
from gpukit.components.addons.storage.volume import PlannedVolume
from gpukit.components.substrate import ResolvedCluster
from gpukit.providers.gcp.gke.shared_storage.claims import class_name
from gpukit.providers.gcp.gke.shared_storage.filestore import FilestoreVolume
from gpukit.providers.gcp.gke.shared_storage.gcs_fuse import GcsFuseVolume
from gpukit.providers.gcp.gke.shared_storage.lustre import ManagedLustreClass
from gpukit.providers.gcp.gke.shared_storage.private_access import GkeStoragePrivateAccess
from gpukit.providers.gcp.gke.shared_storage.tables import (
    FILESTORE,
    FILESTORE_ZONAL_TIERS,
    GCS_FUSE,
    MANAGED_LUSTRE,
)

TYPE_TOKEN = "gpukit:index:GkeSharedStorage"


@dataclass(frozen=True)
class GkeSharedVolume:
    """One validated shared volume, its kind resolved (never auto)."""

    name: str
    kind: str
    role: str
    size_gb: int
    tier: str
    """The tier the plan chose or the config named (components/addons/storage/plan.py)."""
    bucket: pulumi.Input[str] | None = None
    """The existing bucket of a gcs-fuse volume (validation requires it)."""
    location: str = ""
    """Where a Filestore instance lives: its zone (zonal tiers) or the region (filestore_location)."""


class GkeSharedStorageArgs(TypedDict):
    cluster_name: str
    project: str
    region: str
    network_id: pulumi.Input[str]
    node_service_account: pulumi.Input[str]
    volumes: list[GkeSharedVolume]
    after: list[pulumi.Resource]
    """What the Kubernetes objects wait for (the system node pools, the CSI add-ons on the cluster)."""


class GkeSharedStorage(pulumi.ComponentResource):
    """Needs `opts.providers` with the stack's gcp provider and the cluster's kubernetes provider."""

    storage_classes: dict[str, str]
    """Volume name -> the class name its claims use."""

    def __init__(self, name: str, args: GkeSharedStorageArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        volumes = args["volumes"]
        kinds = {v.kind for v in volumes}
        after = pulumi.ResourceOptions(parent=self, depends_on=args["after"])
        reserved_range: pulumi.Output[str] | None = None
        connection: pulumi.Resource | None = None
        waits = list(args["after"])
        if kinds & {FILESTORE, MANAGED_LUSTRE}:
            access = GkeStoragePrivateAccess(
                f"{name}-private-access",
                {
                    "cluster_name": args["cluster_name"],
                    "network_id": args["network_id"],
                    "node_service_account": args["node_service_account"],
                    "kinds": sorted(kinds & {FILESTORE, MANAGED_LUSTRE}),
                },
                opts=pulumi.ResourceOptions(parent=self),
            )
            reserved_range = access.range_name
            connection = access.connection
            waits.append(connection)
        project_number: pulumi.Output[str] | None = None
        if GCS_FUSE in kinds:
            project_number = gcp.organizations.get_project_output(
                project_id=args["project"], opts=pulumi.InvokeOutputOptions(parent=self)
            ).number
        self.built: list[BuiltVolume] = []
        for volume in volumes:
            child = f"{name}-{volume.name}"
            built: pulumi.Resource | None = None
            opts = pulumi.ResourceOptions(parent=self, depends_on=waits)
            if volume.kind == FILESTORE and reserved_range is not None and connection is not None:
                built = FilestoreVolume(
                    child,
                    {
                        "cluster_name": args["cluster_name"],
                        "volume": volume.name,
                        "size_gb": volume.size_gb,
                        "tier": volume.tier,
                        "location": volume.location,
                        "network": args["network_id"],
                        "reserved_range": reserved_range,
                        "connection": connection,
                    },
                    opts=opts,
                )
            elif volume.kind == MANAGED_LUSTRE:
                built = ManagedLustreClass(
                    child,
                    {
                        "volume": volume.name,
                        "size_gb": volume.size_gb,
                        "tier": volume.tier,
                        "network": args["network_id"],
                    },
                    opts=opts,
                )
            elif volume.kind == GCS_FUSE and project_number is not None and volume.bucket is not None:
                built = GcsFuseVolume(
                    child,
                    {
                        "project": args["project"],
                        "project_number": project_number,
                        "volume": volume.name,
                        "role": volume.role,
                        "size_gb": volume.size_gb,
                        "bucket": volume.bucket,
                    },
                    opts=after,
                )
            if built is not None:
                servers = [StorageServer(built.address)] if isinstance(built, FilestoreVolume) else []
                self.built.append(BuiltVolume(volume.name, class_name(volume.name), [built], servers))
        self.storage_classes = {v.name: class_name(v.name) for v in volumes}
        self.register_outputs({})


def gke_shared_volumes(cluster: ResolvedCluster) -> list[GkeSharedVolume]:
    """The cluster's planned shared volumes (kind and tier chosen: components/addons/storage/plan.py)."""
    return [
        GkeSharedVolume(
            name=v.name,
            kind=v.kind.value,
            role=v.role.value,
            size_gb=v.size_gb,
            tier=v.tier.name,
            bucket=v.spec.get("bucket"),
            location=filestore_location(v, cluster.spec["region"]) if v.kind.value == FILESTORE else "",
        )
        for v in planned_volumes(cluster)
        if v.kind.value in (FILESTORE, GCS_FUSE, MANAGED_LUSTRE)
    ]


def filestore_location(volume: PlannedVolume, region: str) -> str:
    """A zonal tier's instance lives in the zone the plan gives it (variant.py volume_zones: the
    config's `zone`, else the first zone of the GPU pools); regional and enterprise ones in the region."""
    if volume.tier.name in FILESTORE_ZONAL_TIERS and volume.zones:
        return volume.zones[0]
    return region
