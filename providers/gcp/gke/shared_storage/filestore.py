"""FilestoreVolume: a Filestore instance that Pulumi owns (statically provisioned), in the cluster's VPC
through private services access, as a PersistentVolume reserved for an example claim.

Static, not the CSI driver's dynamic provisioning: a dynamically made instance is the driver's, kept
(reclaim policy Retain) after `pulumi destroy`, still billed, and blocking the deletion of the private
services range and the VPC. Here `pulumi destroy` deletes the instance with the rest of the stack, and
deleting a claim still never deletes the data (the volume's reclaim policy stays Retain).
"""

from collections.abc import Sequence
from typing import Any, Optional, TypedDict

import pulumi
import pulumi_gcp as gcp
import pulumi_kubernetes as k8s

from gpukit.components.addons.storage.static import RWX, static_storage_class, static_volume
from gpukit.components.names import fit_name
from gpukit.providers.gcp.gke.shared_storage.claims import CLAIM_NAMESPACE, class_name, example_claim
from gpukit.providers.gcp.gke.shared_storage.tables import (
    FILESTORE_API_TIER,
    FILESTORE_DRIVER,
    FILESTORE_SHARE,
)
from gpukit.providers.gcp.gke.storage import DEFAULT_CLASS_ANNOTATION

TYPE_TOKEN = "gpukit:index:FilestoreVolume"
# Filestore instance ids (Filestore REST v1beta1 instances.create `instanceId`: "[a-z](?:[-a-z0-9]{0,61}
# [a-z0-9])?"), checked under `gpukit plan` by providers/gcp/names.py.
INSTANCE_NAME_MAX = 63


class FilestoreVolumeArgs(TypedDict):
    cluster_name: str
    volume: str
    size_gb: int
    tier: str
    """gpukit's tier name (components/addons/storage/backends.py)."""
    location: str
    """A zone for the zonal tiers, the region for regional and enterprise (tables.FILESTORE_ZONAL_TIERS)."""
    network: pulumi.Input[str]
    """The cluster's VPC (`projects/P/global/networks/N`, which Shared VPC needs too)."""
    reserved_range: pulumi.Input[str]
    """The private services access range's name (private_access.py)."""
    connection: pulumi.Resource
    """The private services access connection: an instance in the range needs the peering first."""


def instance_name(cluster_name: str, volume: str) -> str:
    return fit_name(cluster_name, f"-{volume}", INSTANCE_NAME_MAX)


def volume_handle(location: str, instance: str, share: str) -> str:
    """The CSI volume handle of an existing instance's share (GKE "Access pre-existing Filestore instances
    using the Filestore CSI driver": `volumeHandle: "modeInstance/FILESTORE_INSTANCE_LOCATION/
    FILESTORE_INSTANCE_NAME/FILESTORE_SHARE_NAME"`)."""
    return f"modeInstance/{location}/{instance}/{share}"


def filestore_csi(handle: str, ip: pulumi.Input[str], share: str) -> dict[str, Any]:
    """The PersistentVolume's `csi` (same page: `volumeAttributes: ip: FILESTORE_INSTANCE_IP, volume:
    FILESTORE_SHARE_NAME`)."""
    return {
        "driver": FILESTORE_DRIVER,
        "volume_handle": handle,
        "volume_attributes": {"ip": ip, "volume": share},
    }


def instance_networks(
    network: pulumi.Input[str], reserved_range: pulumi.Input[str]
) -> list[gcp.filestore.InstanceNetworkArgs]:
    """Private services access: the instance gets a private address from the range gpukit allocated,
    reachable from the VPC only. Under PRIVATE_SERVICE_ACCESS the reserved range is the allocated
    range's name, not a CIDR (gcp-filestore-csi-driver controller.go, `reserved-ip-range`)."""
    return [
        gcp.filestore.InstanceNetworkArgs(
            network=network,
            modes=["MODE_IPV4"],
            connect_mode="PRIVATE_SERVICE_ACCESS",
            reserved_ip_range=reserved_range,
        )
    ]


def first_address(networks: "Sequence[gcp.filestore.outputs.InstanceNetwork]") -> str:
    """The instance's address on its one network (Filestore gives one IPv4 address under MODE_IPV4)."""
    addresses = networks[0].ip_addresses if networks else None
    if not addresses:
        raise ValueError("the Filestore instance reports no IP address")
    return addresses[0]


class FilestoreVolume(pulumi.ComponentResource):
    """Needs `opts.providers` with the stack's gcp provider and the cluster's kubernetes provider."""

    instance: gcp.filestore.Instance
    address: pulumi.Output[str]
    """The instance's IP: its NFS export admits the whole VPC, so any pod (components/addons/storage/
    isolation.py keeps them off)."""

    def __init__(self, name: str, args: FilestoreVolumeArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        instance = instance_name(args["cluster_name"], args["volume"])
        self.instance = gcp.filestore.Instance(
            f"{name}-instance",
            name=instance,
            tier=FILESTORE_API_TIER[args["tier"]],
            location=args["location"],
            file_shares=gcp.filestore.InstanceFileSharesArgs(
                name=FILESTORE_SHARE, capacity_gb=args["size_gb"]
            ),
            networks=instance_networks(args["network"], args["reserved_range"]),
            description=f"Shared volume {args['volume']} of {args['cluster_name']} (gpukit)",
            opts=pulumi.ResourceOptions(parent=self, depends_on=[args["connection"]]),
        )
        ip = self.instance.networks.apply(first_address)
        self.address = ip
        klass = class_name(args["volume"])
        # Never a default: a claim without a class must not bind to the shared volume.
        storage_class = static_storage_class(klass)
        storage_class["metadata"]["annotations"] = {DEFAULT_CLASS_ANNOTATION: "false"}
        created_class = k8s.storage.v1.StorageClass(f"{name}-class", **storage_class, opts=child)
        handle = volume_handle(args["location"], instance, FILESTORE_SHARE)
        csi = filestore_csi(handle, ip, FILESTORE_SHARE)
        pv = static_volume(klass, CLAIM_NAMESPACE, args["size_gb"], csi=csi, mount_options=[])
        persistent_volume = k8s.core.v1.PersistentVolume(
            f"{name}-volume",
            **pv,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[created_class]),
        )
        example_claim(
            f"{name}-claim",
            args["volume"],
            args["size_gb"],
            RWX,
            self,
            volume_name=klass,
            depends_on=[persistent_volume],
        )
        self.register_outputs({})
