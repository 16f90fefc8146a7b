"""EksS3Volume: an existing S3 bucket mounted through Mountpoint for Amazon S3, as a statically
provisioned PersistentVolume with its StorageClass and an example claim (the driver provisions only
statically: EKS user guide s3-csi.adoc, "Considerations")."""

from typing import NotRequired, Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from gpukit.providers.aws.eks.shared_storage.manifests import example_claim, s3_volume, static_storage_class

TYPE_TOKEN = "gpukit:index:EksS3Volume"


class EksS3VolumeArgs(TypedDict):
    volume: str
    bucket: pulumi.Input[str]
    """An existing bucket gpukit neither creates nor deletes (its encryption and bucket policy are the
    owner's); from Python, the user's own bucket's name as an Output."""
    region: str
    size_gb: int
    """Required by Kubernetes, ignored by the driver (mountpoint-s3-csi-driver docs/CONFIGURATION.md)."""
    read_only: NotRequired[bool]
    """Mount it read-only (ReadOnlyMany, Mountpoint's read-only flag): datasets volumes."""
    wait_for: NotRequired[list[pulumi.Resource]]


class EksS3Volume(pulumi.ComponentResource):
    """Needs `opts.providers` with the cluster's kubernetes provider."""

    storage_class: pulumi.Output[str]

    def __init__(self, name: str, args: EksS3VolumeArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        volume = args["volume"]
        in_cluster = pulumi.ResourceOptions(parent=self, depends_on=args.get("wait_for", []))
        storage_class = k8s.storage.v1.StorageClass(
            f"{name}-sc", **static_storage_class(volume), opts=in_cluster
        )
        persistent_volume = k8s.core.v1.PersistentVolume(
            f"{name}-pv",
            **s3_volume(
                volume,
                args["size_gb"],
                args["bucket"],
                args["region"],
                read_only=args.get("read_only", False),
            ),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[storage_class, *args.get("wait_for", [])]),
        )
        k8s.core.v1.PersistentVolumeClaim(
            f"{name}-claim",
            **example_claim(volume, args["size_gb"], read_only=args.get("read_only", False)),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[persistent_volume]),
        )
        self.storage_class = storage_class.metadata["name"]
        self.register_outputs({"storage_class": self.storage_class})
