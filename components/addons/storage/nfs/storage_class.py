"""The StorageClass of one NFS shared volume on k3s, and a ReadWriteMany claim against it. Pure.

Parameters are the NFS CSI driver's (kubernetes-csi/csi-driver-nfs v4.13.4 docs/driver-parameters.md):
`server` and `share` name the export; the driver makes one subdirectory of it per claim.
"""

from typing import Any

from gpukit.components.addons.storage.nfs.chart import PROVISIONER
from gpukit.components.admission import MANAGED_LABELS

MOUNT_OPTIONS = ("nfsvers=4.1", "hard")
"""NFS v4.1 only (one TCP port, 2049, no rpcbind or mountd on the wire); `hard`: while the server is
away, I/O waits for it instead of failing, so a checkpoint write never half-succeeds (nfs(5))."""
RECLAIM_POLICY = "Retain"
"""Deleting a claim keeps its directory and data on the server (and its PersistentVolume, Released):
a shared volume holds checkpoints and datasets that outlive one job, and an uninstalled chart or a
mistyped `kubectl delete pvc` must not wipe them. An admin deletes the directory when done."""
MOUNT_PERMISSIONS = "0777"
"""The driver chmods each claim's new subdirectory to this (driver-parameters.md `mountPermissions`).
The controller creates it as root, which the server squashes to nobody (root_squash), so without it
the directory would be nobody's 0755 and pods (whatever their uid) could not write. File modes guard
nothing here anyway, and neither does RBAC on claims: the exports admit the nodes' addresses, a pod's
egress leaves with its node's address, and with sec=sys the server trusts the uid a client sends, so
any pod can reach the server on 2049 with a userspace NFS client. gpukit's NetworkPolicy on pod egress
keeps them off (components/addons/storage/isolation.py); the mounts themselves are the node plugin's, on
the host network, which such a policy does not touch."""


def storage_class_name(volume: str) -> str:
    """The class a claim names: `shared-<volume>` (the same for every backend)."""
    return f"shared-{volume}"


def nfs_storage_class(volume: str, server: str, share: str) -> dict[str, Any]:
    """A StorageClass for the export `server`:`share`."""
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": storage_class_name(volume), "labels": dict(MANAGED_LABELS)},
        "provisioner": PROVISIONER,
        "parameters": {"server": server, "share": share, "mountPermissions": MOUNT_PERMISSIONS},
        "reclaimPolicy": RECLAIM_POLICY,
        "volumeBindingMode": "Immediate",
        "mountOptions": list(MOUNT_OPTIONS),
    }


def example_claim(volume: str, size_gb: int, namespace: str = "default") -> dict[str, Any]:
    """A ReadWriteMany claim of the whole volume, as the plan and docs show it (NFS does not enforce the
    requested size: every claim shares the export's disk)."""
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": volume, "namespace": namespace},
        "spec": {
            "accessModes": ["ReadWriteMany"],
            "storageClassName": storage_class_name(volume),
            "resources": {"requests": {"storage": f"{size_gb}Gi"}},
        },
    }
