"""NFS shared volumes on any k3s cluster: wherever each export comes from (the user's, an SSH host's,
a cloud VM's), the same driver release and StorageClasses (K3sNfsDriver). Each provider's part makes
its servers and hands over one NfsVolumeArgs per volume."""

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pulumi

from gpukit.components.k3s.nfs_driver import K3sNfsDriver, NfsVolumeArgs
from gpukit.components.storage.built import BuiltVolume

if TYPE_CHECKING:
    from gpukit.components.storage.plan import PlannedVolume


def build_nfs_driver(
    name: str,
    volumes: list[NfsVolumeArgs],
    after: Sequence[pulumi.Resource],
    kubernetes: pulumi.ProviderResource,
    parent: pulumi.Resource,
    *,
    ready: Sequence[pulumi.Resource] = (),
) -> K3sNfsDriver:
    """The driver and classes on the cluster's API (`kubernetes`), once `ready` (the cluster's API) and
    `after` (the servers gpukit sets up) are."""
    return K3sNfsDriver(
        f"{name}-nfs",
        {"volumes": volumes, "after": list(after)},
        opts=pulumi.ResourceOptions(
            parent=parent, providers={"kubernetes": kubernetes}, depends_on=list(ready)
        ),
    )


def built_volumes(volumes: Sequence["PlannedVolume"], driver: K3sNfsDriver) -> list[BuiltVolume]:
    """What GpuCluster gets back: each volume's class (made by `driver`, which a workload waits for)."""
    return [BuiltVolume(v.name, v.storage_class, [driver]) for v in volumes]
