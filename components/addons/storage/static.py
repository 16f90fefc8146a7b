"""The Kubernetes objects of a statically provisioned shared volume, as plain dicts from pure functions:
a StorageClass no provisioner serves, and a PersistentVolume reserved for one claim. EKS (FSx for Lustre,
Mountpoint for S3) and GKE (Filestore) build them from here.

Values that only exist at deploy time (a file system's id or address) are passed in as they are: Pulumi
resolves Outputs nested in resource inputs, so nothing is formatted inside an `apply`.
"""

from typing import Any

RWX = "ReadWriteMany"
NO_PROVISIONER = "kubernetes.io/no-provisioner"
"""The StorageClass of statically provisioned volumes: it names the class claims use, and no
provisioner makes volumes for it (Kubernetes docs, "Storage Classes", Local: "kubernetes.io/
no-provisioner"). A claim for it binds only to a volume gpukit made, never to a new file system."""
# Retain: deleting a claim by mistake must not delete checkpoints or datasets. The file systems
# themselves are Pulumi's: they go with the stack (or the volume's config entry), not with a claim.
RECLAIM = "Retain"


def static_storage_class(class_name: str) -> dict[str, Any]:
    return {
        "metadata": {"name": class_name},
        "provisioner": NO_PROVISIONER,
        "reclaim_policy": RECLAIM,
        "volume_binding_mode": "Immediate",
    }


def static_volume(
    class_name: str,
    claim_namespace: str,
    size_gb: int,
    *,
    csi: dict[str, Any],
    mount_options: list[str],
    access_mode: str = RWX,
) -> dict[str, Any]:
    """A PersistentVolume reserved for the example claim (claimRef: no other claim can take it). The
    volume, its class and its claim share one name."""
    return {
        "metadata": {"name": class_name},
        "spec": {
            "capacity": {"storage": f"{size_gb}Gi"},
            "volume_mode": "Filesystem",
            "access_modes": [access_mode],
            "persistent_volume_reclaim_policy": RECLAIM,
            "storage_class_name": class_name,
            "mount_options": mount_options,
            "claim_ref": {"namespace": claim_namespace, "name": class_name},
            "csi": csi,
        },
    }
