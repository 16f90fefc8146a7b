"""GkeStorage: gpukit's default pd-balanced StorageClass, a Hyperdisk one for families that need it,
and GKE's own default class switched off, so the cluster has exactly one default.

Kubernetes (1.26+) tolerates two default classes by picking the newest for claims without a class; a
second default still confuses every tool that looks for "the" default, and which class wins changes
whenever either is re-created. gpukit leaves exactly one.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

TYPE_TOKEN = "gpukit:index:GkeStorage"
PD_CSI_PROVISIONER = "pd.csi.storage.gke.io"
DEFAULT_STORAGE_CLASS = "pd-balanced"
HYPERDISK_STORAGE_CLASS = "hyperdisk-balanced"
DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"
# Pulumi patch resources fail on fields another manager owns unless forced (pulumi-kubernetes
# StorageClassPatch docs: "Conflicts will result in an error by default, but can be forced using the
# pulumi.com/patchForce annotation"); the GKE add-on manager owns standard-rwo's annotation.
PATCH_FORCE_ANNOTATION = "pulumi.com/patchForce"


@dataclass(frozen=True)
class ShippedStorageClass:
    name: str
    provisioner: str
    default: bool
    """Carries is-default-class "true" on a new cluster."""
    addon_mode: str
    """`addonmanager.kubernetes.io/mode`: Reconcile reverts edits, EnsureExists only re-creates a
    deleted class (kubernetes cluster/addons/addon-manager/README.md)."""


# The classes a new GKE Standard cluster (1.34+, the PD CSI driver on) ships with. Sources: `kubectl get
# storageclass` of new GKE clusters in public repositories (several, 2024-2026: `standard-rwo (default)`
# pd.csi.storage.gke.io, `premium-rwo` pd.csi.storage.gke.io, `standard` kubernetes.io/gce-pd, none
# other marked default); standard-rwo's labels and annotations as GKE writes them (copied in
# appvia/terraform-google-wayfinder manifests/storageclass-encrypted.yml.tpl: is-default-class "true",
# addonmanager.kubernetes.io/mode EnsureExists). `standard` was the default on older GKE versions
# (before standard-rwo); gpukit only creates clusters on 1.34 and later (validation.py).
GKE_SHIPPED_STORAGE_CLASSES: tuple[ShippedStorageClass, ...] = (
    ShippedStorageClass("standard-rwo", PD_CSI_PROVISIONER, True, "EnsureExists"),
    ShippedStorageClass("premium-rwo", PD_CSI_PROVISIONER, False, "EnsureExists"),
    ShippedStorageClass("standard", "kubernetes.io/gce-pd", False, "EnsureExists"),
)


def classes_to_undefault(shipped: Iterable[ShippedStorageClass]) -> list[str]:
    """GKE's default classes gpukit patches to non-default. A Reconcile-mode class cannot be patched
    (the add-on manager would revert it), so none may be default: that would be a second default."""
    names = []
    for sc in shipped:
        if sc.default:
            if sc.addon_mode != "EnsureExists":
                raise ValueError(f"{sc.name} is reconciled by GKE's add-on manager: a patch would not hold")
            names.append(sc.name)
    return names


def default_classes(
    created: dict[str, bool], shipped: Iterable[ShippedStorageClass], patched: Iterable[str]
) -> list[str]:
    """Every class that is default once the plan is applied: gpukit's own (`created`: name -> default)
    and GKE's, less those gpukit patched to non-default. A cluster must end with exactly one."""
    undefaulted = set(patched)
    found = [name for name, default in created.items() if default]
    found += [
        sc.name for sc in shipped if sc.default and sc.name not in undefaulted and sc.name not in created
    ]
    return sorted(found)


# The PD CSI driver labels each disk it creates with the StorageClass parameter `labels`,
# `key1=value1,key2=value2` (kubernetes-sigs/gcp-compute-persistent-disk-csi-driver README.md,
# "CreateVolume Parameters"). Disks made for claims are the driver's, not Pulumi's: the provider's
# default labels never reach them, and they can outlive the cluster.
DISK_LABELS_PARAMETER = "labels"


def disk_label_parameters(labels: dict[str, str]) -> dict[str, str]:
    """StorageClass parameters that label every disk the class provisions with `labels`."""
    if not labels:
        return {}
    return {DISK_LABELS_PARAMETER: ",".join(f"{k}={v}" for k, v in sorted(labels.items()))}


class GkeStorageArgs(TypedDict):
    hyperdisk: bool
    """Some pool's machines attach Hyperdisk only (A3 Ultra, A4, G4): add a Hyperdisk class."""
    disk_labels: dict[str, str]
    """Labels for every disk a claim provisions (an ephemeral stack's expiry; empty otherwise)."""


def _storage_class(
    name: str,
    disk_type: str,
    default: bool,
    *,
    labels: dict[str, str],
    parent: pulumi.Resource,
    after: Sequence[pulumi.Resource],
) -> k8s.storage.v1.StorageClass:
    annotations = {DEFAULT_CLASS_ANNOTATION: "true" if default else "false"}
    return k8s.storage.v1.StorageClass(
        name,
        metadata={"name": disk_type, "annotations": annotations},
        provisioner=PD_CSI_PROVISIONER,
        parameters={"type": disk_type, **disk_label_parameters(labels)},
        reclaim_policy="Delete",
        # Bound where the pod lands: a disk made first could sit in a zone without the pod's GPUs.
        volume_binding_mode="WaitForFirstConsumer",
        allow_volume_expansion=True,
        opts=pulumi.ResourceOptions(parent=parent, depends_on=list(after)),
    )


def storage_summary(created: dict[str, bool], patched: list[str], hyperdisk: bool) -> str:
    """The plan's storage line."""
    (default,) = default_classes(created, GKE_SHIPPED_STORAGE_CLASSES, patched)
    text = f"{default} (Persistent Disk CSI, WaitForFirstConsumer, expandable, the only default"
    text += f"; GKE's {', '.join(patched)} set to non-default)" if patched else ")"
    if hyperdisk:
        text += (
            f"; {HYPERDISK_STORAGE_CLASS} for pods on Hyperdisk-only machines (A3 Ultra, A4, G4), "
            "which cannot attach Persistent Disk: their claims must name it"
        )
    return text


class GkeStorage(pulumi.ComponentResource):
    """Needs `opts.providers` with the cluster's kubernetes provider."""

    summary: str

    def __init__(self, name: str, args: GkeStorageArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        created = {DEFAULT_STORAGE_CLASS: True}
        if args["hyperdisk"]:
            created[HYPERDISK_STORAGE_CLASS] = False
        patched = classes_to_undefault(GKE_SHIPPED_STORAGE_CLASSES)
        # GKE's default off first: there is never a moment with two defaults.
        patches = [
            k8s.storage.v1.StorageClassPatch(
                f"{name}-{class_name}-not-default",
                metadata={
                    "name": class_name,
                    "annotations": {DEFAULT_CLASS_ANNOTATION: "false", PATCH_FORCE_ANNOTATION: "true"},
                },
                opts=pulumi.ResourceOptions(parent=self),
            )
            for class_name in patched
        ]
        for class_name, default in created.items():
            _storage_class(
                f"{name}-{class_name}",
                class_name,
                default,
                labels=args["disk_labels"],
                parent=self,
                after=patches,
            )
        self.summary = storage_summary(created, patched, args["hyperdisk"])
        self.register_outputs({})
