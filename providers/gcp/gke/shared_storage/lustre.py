"""ManagedLustreClass: a ReadWriteMany StorageClass whose claims the GKE Managed Lustre CSI driver
provisions as Managed Lustre instances in the cluster's VPC, and an example claim."""

from typing import Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from gpukit.providers.gcp.gke.shared_storage.claims import class_name, example_claim
from gpukit.providers.gcp.gke.shared_storage.tables import LUSTRE_DRIVER
from gpukit.providers.gcp.gke.storage import DEFAULT_CLASS_ANNOTATION

TYPE_TOKEN = "gpukit:index:ManagedLustreClass"
RWX = "ReadWriteMany"


class ManagedLustreClassArgs(TypedDict):
    volume: str
    size_gb: int
    tier: str
    """The tier: MB/s per TiB, "125" | "250" | "500" | "1000" (components/addons/storage/backends.py)."""
    network: pulumi.Input[str]
    """The cluster's VPC, as its full name (the driver needs it for a Shared VPC)."""


def lustre_parameters(tier: str, network: str) -> dict[str, str]:
    """Managed Lustre CSI driver reference, StorageClass: `network` (optional, the default network
    otherwise: gpukit always names the cluster's), `perUnitStorageThroughput` 125 | 250 | 500 | 1000."""
    return {"network": network, "perUnitStorageThroughput": tier}


class ManagedLustreClass(pulumi.ComponentResource):
    """Needs `opts.providers` with the cluster's kubernetes provider."""

    def __init__(
        self, name: str, args: ManagedLustreClassArgs, opts: Optional[pulumi.ResourceOptions] = None
    ):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        tier = args["tier"]
        storage_class = k8s.storage.v1.StorageClass(
            f"{name}-class",
            # Never a default: a claim without a class must not get a billed shared instance.
            metadata={"name": class_name(args["volume"]), "annotations": {DEFAULT_CLASS_ANNOTATION: "false"}},
            provisioner=LUSTRE_DRIVER,
            parameters=pulumi.Output.from_input(args["network"]).apply(lambda n: lustre_parameters(tier, n)),
            reclaim_policy="Retain",
            # An instance is zonal: without WaitForFirstConsumer the driver makes it in the zone of its
            # own controller (CSI driver reference, allowedTopologies), maybe not one with the GPUs.
            volume_binding_mode="WaitForFirstConsumer",
            opts=pulumi.ResourceOptions(parent=self),
        )
        example_claim(f"{name}-claim", args["volume"], args["size_gb"], RWX, self, depends_on=[storage_class])
        self.register_outputs({})
