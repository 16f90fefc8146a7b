"""What a k3s-on-cloud build keeps for the add-ons' variants (ClusterHandle.substrate_state): light on
purpose (no Pulumi import at run time), since the storage add-on's NFS variant, which checks for it,
loads with every `gpukit` command."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import pulumi


class NfsVm(Protocol):
    """A VM gpukit made as one volume's NFS server (providers/<cloud>/k3s/nfs_server.py), for a shared
    volume the storage add-on builds (components/addons/storage/nfs/variant.py)."""

    @property
    def address(self) -> "pulumi.Output[str]":
        """Its private address, stable for its life and its replacements'."""
        ...

    @property
    def ready(self) -> "list[pulumi.Resource]":
        """What the volume's StorageClass waits for: the VM and its attached data disk."""
        ...


@dataclass(frozen=True)
class K3sCloudState:
    """What a k3s-on-cloud build keeps for the storage add-on's NFS variant (ClusterHandle.substrate_state):
    how to start an NFS VM in the cluster's network, and the component its volumes go under (the
    cluster's, where they have always been: their URNs stay)."""

    component: "pulumi.ComponentResource"
    make_nfs_vm: Callable[[str, int], NfsVm]
    """`make_nfs_vm(volume, size_gb)`: the cloud adapter's `nfs_server`, in the cluster's network."""
