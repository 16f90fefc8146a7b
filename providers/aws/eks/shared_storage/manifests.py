"""The Kubernetes objects of a shared volume on EKS, as plain dicts from pure functions.

Values that only exist at deploy time (a file system's id, DNS and mount names) are passed in as they
are: Pulumi resolves Outputs nested in resource inputs, so nothing is formatted inside an `apply`.
"""

from typing import Any

from gpukit.components.addons.storage.static import NO_PROVISIONER, RECLAIM, RWX, static_volume
from gpukit.components.addons.storage.static import static_storage_class as shared_static_storage_class
from gpukit.providers.aws.eks.shared_storage.facts import (
    EFS_CSI,
    EFS_DIRECTORY_PERMS,
    EXAMPLE_CLAIM_NAMESPACE,
    FSX_CSI,
    LUSTRE_MOUNT_OPTIONS,
    S3_CSI,
    STORAGE_CLASS_PREFIX,
)

__all__ = ["NO_PROVISIONER", "ROX", "RWX"]
ROX = "ReadOnlyMany"
"""Kubernetes access modes (https://kubernetes.io/docs/concepts/storage/persistent-volumes/#access-modes)."""
S3_READ_ONLY = "read-only"
"""Mountpoint's `--read-only` flag: "forbid all mutating actions on your S3 bucket" (awslabs/mountpoint-s3
doc/CONFIGURATION.md, "File modifications and deletions"); the CSI driver takes Mountpoint's flags as the
PersistentVolume's mountOptions without the dashes, like `region <r>` (mountpoint-s3-csi-driver
docs/CONFIGURATION.md, "Mountpoint-specific configuration ... should be specified as `mountOptions`")."""


def storage_class_name(volume: str) -> str:
    return f"{STORAGE_CLASS_PREFIX}{volume}"


EFS_MOUNT_OPTIONS = ("iam",)


def efs_storage_class(volume: str, file_system_id: Any) -> dict[str, Any]:
    """Dynamic provisioning through EFS access points: each claim gets its own directory, owned by one
    POSIX identity, with permissions 700 (aws-efs-csi-driver docs/parameters.md). Mounts use TLS: the
    driver's encryptInTransit defaults to true and only an explicit "false" turns it off (pkg/driver/
    node.go @a4fc6760, `encryptInTransit := true`; docs/parameters.md "Encryption In Transit").
    Regional EFS serves every zone: Immediate binding. Mounts use IAM authorization (efs-utils `iam`,
    passed through as a mount option: pkg/driver/node.go appends the volume's mount flags), signed with
    the node's role, the only principal the file system policy admits (policies.efs_file_system_policy).
    A class's mount options are copied into each PersistentVolume it provisions."""
    return {
        "metadata": {"name": storage_class_name(volume)},
        "provisioner": EFS_CSI.driver,
        "parameters": {
            "provisioningMode": "efs-ap",
            "fileSystemId": file_system_id,
            "directoryPerms": EFS_DIRECTORY_PERMS,
        },
        "reclaim_policy": RECLAIM,
        "volume_binding_mode": "Immediate",
        "mount_options": list(EFS_MOUNT_OPTIONS),
    }


def static_storage_class(volume: str) -> dict[str, Any]:
    return shared_static_storage_class(storage_class_name(volume))


def _static_volume(
    volume: str, size_gb: int, csi: dict[str, Any], mount_options: list[str], access_mode: str = RWX
) -> dict[str, Any]:
    return static_volume(
        storage_class_name(volume),
        EXAMPLE_CLAIM_NAMESPACE,
        size_gb,
        csi=csi,
        mount_options=mount_options,
        access_mode=access_mode,
    )


def lustre_volume(
    volume: str, size_gb: int, file_system_id: Any, dns_name: Any, mount_name: Any
) -> dict[str, Any]:
    """The FSx for Lustre file system as a PersistentVolume (aws-fsx-csi-driver examples/kubernetes/
    static_provisioning: volumeHandle is the file system id, volumeAttributes dnsname and mountname)."""
    csi = {
        "driver": FSX_CSI.driver,
        "volume_handle": file_system_id,
        "volume_attributes": {"dnsname": dns_name, "mountname": mount_name},
    }
    return _static_volume(volume, size_gb, csi, list(LUSTRE_MOUNT_OPTIONS))


def s3_volume(
    volume: str, size_gb: int, bucket: Any, region: str, *, read_only: bool = False
) -> dict[str, Any]:
    """A bucket as a PersistentVolume (mountpoint-s3-csi-driver docs/CONFIGURATION.md "Static
    Provisioning": bucketName, a unique volumeHandle, capacity ignored but required; region as a mount
    option). Mountpoint speaks HTTPS to S3; no allow-delete/allow-overwrite: new files only, the
    read-mostly use it is for (Mountpoint SEMANTICS.md). `read_only` (datasets): ReadOnlyMany and
    Mountpoint's read-only flag, so no pod writes the bucket whatever it mounts the claim as. `bucket`:
    its name, or from Python a pulumi.Output of it (the resource takes either)."""
    csi = {
        "driver": S3_CSI.driver,
        "volume_handle": f"s3-{volume}",
        "volume_attributes": {"bucketName": bucket},
    }
    if read_only:
        return _static_volume(volume, size_gb, csi, [f"region {region}", S3_READ_ONLY], ROX)
    return _static_volume(volume, size_gb, csi, [f"region {region}"])


def example_claim(volume: str, size_gb: int, *, read_only: bool = False) -> dict[str, Any]:
    """The claim bound to a statically provisioned volume; pods in its namespace mount it by name."""
    name = storage_class_name(volume)
    return {
        "metadata": {"name": name, "namespace": EXAMPLE_CLAIM_NAMESPACE},
        "spec": {
            "access_modes": [ROX if read_only else RWX],
            "storage_class_name": name,
            "volume_name": name,
            "resources": {"requests": {"storage": f"{size_gb}Gi"}},
        },
    }
