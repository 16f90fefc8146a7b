"""The NFS CSI driver (kubernetes-csi/csi-driver-nfs) on k3s: the pinned chart and its values. Pure.

The driver mounts an NFS export into pods and provisions one subdirectory of the export per claim
(its controller mounts the export and creates it). Nothing here knows where the export comes from:
an export the user names, a host of the cluster (k3s over SSH) or a small VM (k3s on EC2 / Compute
Engine) all end in the same driver and StorageClass (storage_class.py).

Chart facts: github.com/kubernetes-csi/csi-driver-nfs, tag v4.13.4, charts/v4.13.4/csi-driver-nfs
(values.yaml vendored under tests/reference/csi-driver-nfs-4.13.4, charts/README.md for the repo URL).
"""

from typing import Any

from gpukit.components.autoscaler.k3s_values import server_placement

CHART = "csi-driver-nfs"
CHART_VERSION = "4.13.4"
# The GitHub Pages mirror of the chart index (charts/README.md, "available since 4.13.0, not affected
# by raw.githubusercontent.com rate limits").
CHART_REPOSITORY = "https://kubernetes-csi.github.io/csi-driver-nfs"
RELEASE_NAME = "csi-driver-nfs"
# kube-system: the controller and node pods use the host's network and the node pods run privileged
# (they mount), which Pod Security allows only where gpukit exempts it (host_scripts.py
# POD_SECURITY_EXEMPT_NAMESPACES); it is also a namespace whose pods may tolerate the servers' taint
# (host_scripts.server_policy).
NAMESPACE = "kube-system"
PROVISIONER = "nfs.csi.k8s.io"
"""The chart's default `driver.name`: the StorageClass's provisioner."""

# The chart's own controller tolerations (values.yaml `controller.tolerations`), kept: setting the
# key replaces the list, and these let it run on control-plane nodes of any distribution.
_CHART_CONTROLLER_TOLERATIONS = [
    {"key": "node-role.kubernetes.io/master", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node-role.kubernetes.io/controlplane", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node-role.kubernetes.io/control-plane", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "CriticalAddonsOnly", "operator": "Exists", "effect": "NoSchedule"},
]


def nfs_driver_values() -> dict[str, Any]:
    """Chart values. The controller runs on the servers (the only machines always there: agent pools
    may be at zero), like the Cluster Autoscaler: their label, and tolerations of their
    CriticalAddonsOnly=true:NoExecute taint (the chart's default tolerates it as NoSchedule only).
    The node plugin keeps the chart's `tolerations: [{operator: Exists}]`: it must run on every node,
    GPU nodes included, or their pods cannot mount.

    One controller replica: the chart's controller binds a fixed host port, so two replicas need two
    servers and an anti-affinity (charts/README.md "High-availability controller"); a controller down
    for a while delays new claims only, never mounts of existing volumes.
    No snapshot controller or snapshotter sidecar: k3s ships no VolumeSnapshot CRDs, and an NFS
    "snapshot" is a tarball on the same server, no protection against losing it. The chart's own
    StorageClass stays off: gpukit makes one per volume (storage_class.py)."""
    placement = server_placement()
    tolerations = list(_CHART_CONTROLLER_TOLERATIONS)
    tolerations += [t for t in placement["tolerations"] if t not in tolerations]
    return {
        "driver": {"name": PROVISIONER},
        "controller": {
            "replicas": 1,
            "nodeSelector": placement["nodeSelector"],
            "tolerations": tolerations,
            "enableSnapshotter": False,
        },
        "externalSnapshotter": {"enabled": False},
        "storageClass": {"create": False},
    }
