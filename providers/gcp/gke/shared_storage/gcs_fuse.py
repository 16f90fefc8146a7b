"""GcsFuseVolume: the user's existing Cloud Storage bucket (`bucket`, required by validation; gpukit neither
creates nor deletes it) mounted through the GKE Cloud Storage FUSE CSI driver: a Kubernetes service
account with access to that bucket only (Workload Identity Federation for GKE, no key), a static
PersistentVolume and its claim.

Pods that mount the claim run as that service account and carry the annotation
`gke-gcsfuse/volumes: "true"`: without it GKE injects no FUSE sidecar and the volume never mounts.
"""

from typing import Optional, TypedDict

import pulumi
import pulumi_gcp as gcp
import pulumi_kubernetes as k8s

from gpukit.providers.gcp.gke.shared_storage.claims import CLAIM_NAMESPACE, class_name, example_claim
from gpukit.providers.gcp.gke.shared_storage.tables import GCS_FUSE_DRIVER, bucket_role, workload_principal

TYPE_TOKEN = "gpukit:index:GcsFuseVolume"


def service_account_name(volume: str) -> str:
    return class_name(volume)


class GcsFuseVolumeArgs(TypedDict):
    project: str
    project_number: pulumi.Input[str]
    volume: str
    role: str
    """datasets (read-only) or model-cache (read and write)."""
    size_gb: int
    bucket: pulumi.Input[str]
    """The existing bucket to mount (from Python, the user's own bucket's name as an Output)."""


class GcsFuseVolume(pulumi.ComponentResource):
    """Needs `opts.providers` with the stack's gcp provider and the cluster's kubernetes provider."""

    bucket_name: pulumi.Output[str]

    def __init__(self, name: str, args: GcsFuseVolumeArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        volume, project = args["volume"], args["project"]
        bucket_name = args["bucket"]
        read_only = args["role"] == "datasets"
        account = service_account_name(volume)
        k8s.core.v1.ServiceAccount(
            f"{name}-ksa", metadata={"name": account, "namespace": CLAIM_NAMESPACE}, opts=child
        )
        grant = gcp.storage.BucketIAMMember(
            f"{name}-access",
            bucket=bucket_name,
            role=bucket_role(args["role"]),
            member=pulumi.Output.from_input(args["project_number"]).apply(
                lambda number: workload_principal(number, project, CLAIM_NAMESPACE, account)
            ),
            opts=child,
        )
        access_mode = "ReadOnlyMany" if read_only else "ReadWriteMany"
        persistent_volume = k8s.core.v1.PersistentVolume(
            f"{name}-pv",
            metadata={"name": class_name(volume)},
            spec={
                "access_modes": [access_mode],
                # Cloud Storage ignores the size; Kubernetes needs one to match the claim.
                "capacity": {"storage": f"{args['size_gb']}Gi"},
                "storage_class_name": class_name(volume),
                "persistent_volume_reclaim_policy": "Retain",
                # Directories made by other tools (gcloud storage cp) show up too (GKE Cloud Storage FUSE
                # static provisioning example: mountOptions implicit-dirs).
                "mount_options": ["implicit-dirs"],
                "csi": {"driver": GCS_FUSE_DRIVER, "volume_handle": bucket_name, "read_only": read_only},
                "claim_ref": {"namespace": CLAIM_NAMESPACE, "name": class_name(volume)},
            },
            opts=child,
        )
        example_claim(
            f"{name}-claim",
            volume,
            args["size_gb"],
            access_mode,
            self,
            volume_name=persistent_volume.metadata.apply(lambda m: m["name"]),
            depends_on=[grant],
        )
        self.bucket_name = pulumi.Output.from_input(bucket_name)
        self.register_outputs({"bucket_name": self.bucket_name})
