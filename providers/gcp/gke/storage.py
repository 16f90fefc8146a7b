"""GkeStorage: a default pd-balanced StorageClass, and a Hyperdisk one for families that need it."""

from typing import Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

TYPE_TOKEN = "gpukit:index:GkeStorage"
PD_CSI_PROVISIONER = "pd.csi.storage.gke.io"
DEFAULT_STORAGE_CLASS = "pd-balanced"
HYPERDISK_STORAGE_CLASS = "hyperdisk-balanced"


class GkeStorageArgs(TypedDict):
    hyperdisk: bool
    """Some pool's machines attach Hyperdisk only (A3 Ultra, A4, G4): add a Hyperdisk class."""


def _storage_class(
    name: str, disk_type: str, default: bool, parent: pulumi.Resource
) -> k8s.storage.v1.StorageClass:
    annotations = {"storageclass.kubernetes.io/is-default-class": "true" if default else "false"}
    return k8s.storage.v1.StorageClass(
        name,
        metadata={"name": disk_type, "annotations": annotations},
        provisioner=PD_CSI_PROVISIONER,
        parameters={"type": disk_type},
        reclaim_policy="Delete",
        # Bound where the pod lands: a disk made first could sit in a zone without the pod's GPUs.
        volume_binding_mode="WaitForFirstConsumer",
        allow_volume_expansion=True,
        opts=pulumi.ResourceOptions(parent=parent),
    )


class GkeStorage(pulumi.ComponentResource):
    """Needs `opts.providers` with the cluster's kubernetes provider.

    GKE's own `standard-rwo` class is also pd-balanced and marked default; with two defaults,
    Kubernetes (1.26+) gives new claims the newest one, which is this one, so claims without a class
    behave the same either way and gpukit's class is what the plan states.
    """

    summary: str

    def __init__(self, name: str, args: GkeStorageArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        _storage_class(f"{name}-pd-balanced", DEFAULT_STORAGE_CLASS, True, self)
        self.summary = (
            f"{DEFAULT_STORAGE_CLASS} (Persistent Disk CSI, WaitForFirstConsumer, expandable, default)"
        )
        if args["hyperdisk"]:
            _storage_class(f"{name}-hyperdisk-balanced", HYPERDISK_STORAGE_CLASS, False, self)
            self.summary += (
                f"; {HYPERDISK_STORAGE_CLASS} for pods on Hyperdisk-only machines (A3 Ultra, A4, G4), "
                "which cannot attach Persistent Disk: their claims must name it"
            )
        self.register_outputs({})
