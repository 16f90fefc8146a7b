"""FilestoreClass: a ReadWriteMany StorageClass whose claims the GKE Filestore CSI driver provisions as
Filestore instances in the cluster's VPC, and an example claim."""

from typing import Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from gpukit.providers.gcp.gke.shared_storage.claims import class_name, example_claim
from gpukit.providers.gcp.gke.shared_storage.tables import FILESTORE_CSI_TIER, FILESTORE_DRIVER
from gpukit.providers.gcp.gke.storage import DEFAULT_CLASS_ANNOTATION

TYPE_TOKEN = "gpukit:index:FilestoreClass"
RWX = "ReadWriteMany"


class FilestoreClassArgs(TypedDict):
    volume: str
    size_gb: int
    tier: str
    """gpukit's tier name (components/storage/backends.py)."""
    network: pulumi.Input[str]
    """The cluster's VPC (`projects/P/global/networks/N`, which Shared VPC needs too)."""
    reserved_range: pulumi.Input[str]
    """The private services access range's name (private_access.py)."""


def filestore_parameters(tier: str, network: str, reserved_range: str) -> dict[str, str]:
    """The StorageClass parameters (gcp-filestore-csi-driver controller.go CreateVolume parameters:
    `tier`, `network`, `connect-mode`, `reserved-ip-range`, which under PRIVATE_SERVICE_ACCESS must name
    an allocated range, not a CIDR)."""
    return {
        "tier": FILESTORE_CSI_TIER[tier],
        "network": network,
        "connect-mode": "PRIVATE_SERVICE_ACCESS",
        "reserved-ip-range": reserved_range,
    }


class FilestoreClass(pulumi.ComponentResource):
    """Needs `opts.providers` with the cluster's kubernetes provider."""

    def __init__(self, name: str, args: FilestoreClassArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        tier = args["tier"]
        parameters = pulumi.Output.all(args["network"], args["reserved_range"]).apply(
            lambda a: filestore_parameters(tier, a[0], a[1])
        )
        storage_class = k8s.storage.v1.StorageClass(
            f"{name}-class",
            # Never a default: a claim without a class must not get a billed shared instance.
            metadata={"name": class_name(args["volume"]), "annotations": {DEFAULT_CLASS_ANNOTATION: "false"}},
            provisioner=FILESTORE_DRIVER,
            parameters=parameters,
            # Retain: deleting a claim never deletes the checkpoints on it (the instance stays, and is
            # billed, until deleted in Filestore).
            reclaim_policy="Retain",
            # Zonal tiers land in the zone of the first pod, not one the cluster's GPUs may lack.
            volume_binding_mode="WaitForFirstConsumer",
            allow_volume_expansion=True,
            opts=pulumi.ResourceOptions(parent=self),
        )
        example_claim(f"{name}-claim", args["volume"], args["size_gb"], RWX, self, depends_on=[storage_class])
        self.register_outputs({})
