"""GcsFuseVolume: a Cloud Storage bucket mounted through the GKE Cloud Storage FUSE CSI driver: the bucket
(the user's, or one gpukit creates locked down), a Kubernetes service account with access to that bucket
only (Workload Identity Federation for GKE, no key), a static PersistentVolume and its claim.

Pods that mount the claim run as that service account and carry the annotation
`gke-gcsfuse/volumes: "true"`: without it GKE injects no FUSE sidecar and the volume never mounts.
"""

import hashlib
from typing import Optional, TypedDict

import pulumi
import pulumi_gcp as gcp
import pulumi_kubernetes as k8s

from gpukit.components.names import fit_name
from gpukit.providers.gcp.gke.shared_storage.claims import CLAIM_NAMESPACE, class_name, example_claim
from gpukit.providers.gcp.gke.shared_storage.tables import GCS_FUSE_DRIVER, bucket_role, workload_principal

TYPE_TOKEN = "gpukit:index:GcsFuseVolume"
BUCKET_NAME_MAX = 63


def created_bucket_name(cluster_name: str, volume: str, project: str) -> str:
    """`<cluster>-<volume>-<6 hex of the project>`: bucket names are global, so two projects with the
    same cluster and volume names still get two names."""
    return fit_name(
        f"{cluster_name}-{volume}", f"-{hashlib.sha256(project.encode()).hexdigest()[:6]}", BUCKET_NAME_MAX
    )


def service_account_name(volume: str) -> str:
    return class_name(volume)


class GcsFuseVolumeArgs(TypedDict):
    cluster_name: str
    project: str
    project_number: pulumi.Input[str]
    region: str
    volume: str
    role: str
    """datasets (read-only) or model-cache (read and write)."""
    size_gb: int
    bucket: Optional[str]
    """An existing bucket to mount; None: gpukit creates one."""


class GcsFuseVolume(pulumi.ComponentResource):
    """Needs `opts.providers` with the stack's gcp provider and the cluster's kubernetes provider."""

    bucket_name: pulumi.Output[str]

    def __init__(self, name: str, args: GcsFuseVolumeArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        volume, project = args["volume"], args["project"]
        bucket_name: pulumi.Input[str]
        if args["bucket"] is not None:
            bucket_name = args["bucket"]
        else:
            bucket = gcp.storage.Bucket(
                f"{name}-bucket",
                name=created_bucket_name(args["cluster_name"], volume, project),
                # Cloud Storage stores location names upper-case; the cluster's region keeps reads local.
                location=args["region"].upper(),
                # IAM only, no per-object ACLs; never public, whatever a later ACL or IAM grant says
                # (Cloud Storage "Uniform bucket-level access", "Public access prevention").
                uniform_bucket_level_access=True,
                public_access_prevention="enforced",
                force_destroy=False,  # `pulumi destroy` stops at a bucket that still holds data
                opts=child,
            )
            bucket_name = bucket.name
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
