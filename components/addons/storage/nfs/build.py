"""NFS shared volumes on any k3s cluster: wherever each export comes from (the user's, an SSH host's,
a cloud VM's), the same driver release and StorageClasses (K3sNfsDriver). Each provider's part makes
its servers and hands over one NfsVolumeArgs per volume."""

from collections.abc import Callable, Sequence

import pulumi

from gpukit.components.addons.storage.built import BuiltVolume, StorageServer
from gpukit.components.addons.storage.nfs.driver import K3sNfsDriver, NfsVolumeArgs
from gpukit.components.addons.storage.nfs.exports import served_by_vm, volume_directory
from gpukit.components.addons.storage.volume import PlannedVolume
from gpukit.components.k3s.cloud_state import NfsVm


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


def _own_vm(volume: PlannedVolume) -> bool:
    """The volume's server is a VM gpukit makes for it (not an SSH host's `nfs.host`, not `nfs.server`)."""
    return served_by_vm(volume) and "host" not in (volume.spec.get("nfs") or {})


def built_volumes(volumes: Sequence[PlannedVolume], driver: K3sNfsDriver) -> list[BuiltVolume]:
    """What the storage add-on gets back: each volume's class (made by `driver`, which a workload waits
    for) and its export's server, which admits the nodes' addresses and so any pod's. Only the VM gpukit
    makes for a volume serves nothing else (an SSH host may be a k3s server, an export the user's NAS)."""
    return [
        BuiltVolume(
            v.name,
            v.storage_class,
            [driver],
            [StorageServer(driver.servers[v.name], dedicated=_own_vm(v))],
        )
        for v in volumes
    ]


def build_cloud_nfs(
    name: str,
    volumes: Sequence[PlannedVolume],
    make_vm: Callable[[str, int], NfsVm],
    kubernetes: pulumi.ProviderResource,
    parent: pulumi.Resource,
    *,
    ready: Sequence[pulumi.Resource] = (),
) -> list[BuiltVolume]:
    """NFS volumes on k3s over a cloud: an export the user names, else a VM `make_vm(volume, size_gb)`
    serving the volume's directory; then the driver and one class per volume."""
    targets: list[NfsVolumeArgs] = []
    after: list[pulumi.Resource] = []
    for volume in volumes:
        if not served_by_vm(volume):
            nfs = volume.spec["nfs"]
            targets.append({"volume": volume.name, "server": nfs["server"], "share": nfs["path"]})
            continue
        vm = make_vm(volume.name, volume.size_gb)
        targets.append({"volume": volume.name, "server": vm.address, "share": volume_directory(volume.name)})
        after += vm.ready
    driver = build_nfs_driver(name, targets, after, kubernetes, parent, ready=ready)
    return built_volumes(volumes, driver)
