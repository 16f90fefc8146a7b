"""What a substrate's storage variant hands back to the storage add-on for each volume it built."""

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pulumi


@dataclass(frozen=True)
class StorageServer:
    """A server behind a volume that trusts its clients by address (isolation.py keeps pods off it)."""

    address: "pulumi.Input[str]"
    dedicated: bool = True
    """It serves nothing but the volume (gpukit's NFS VM, a Filestore instance): pods are kept off the
    whole address. Otherwise (an SSH host of the cluster, the user's own NAS) only off its NFS port, as
    the host may also serve what pods need (a k3s server's API on 6443)."""


@dataclass
class BuiltVolume:
    name: str
    """The volume's `name` from the config."""
    storage_class: str
    """The StorageClass created (PlannedVolume.storage_class): what a claim names."""
    resources: list["pulumi.Resource"] = field(default_factory=list)
    """What a workload depending on the volume waits for (the StorageClass, and the PersistentVolume where
    the backend is provisioned statically)."""
    servers: list[StorageServer] = field(default_factory=list)
    """The addresses of the servers behind the volume that trust clients by address (an NFS export, a
    Filestore instance): pods are kept off them where the CNI enforces NetworkPolicy (isolation.py).
    Empty where a client needs more than an address: IAM credentials (EFS with IAM authorization, S3,
    Cloud Storage) or a kernel client only privileged pods could load (Lustre)."""
