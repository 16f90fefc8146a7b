"""k3s on EC2's shared storage, the storage add-on's variant there: NFS, from an export the user names
or from a small EC2 VM gpukit makes for the volume (nfs_server.py), priced here for the plan."""

from gpukit.components.addons.storage.nfs.validation import NfsRules, VmDisk
from gpukit.components.addons.storage.nfs.variant import CloudNfs
from gpukit.components.addons.storage.rates import server_disk_rate
from gpukit.components.addons.storage.volume import VolumeServer
from gpukit.components.substrate import ResolvedCluster
from gpukit.providers.aws.catalog import AWS_CATALOG
from gpukit.providers.aws.k3s.nfs_vm_facts import (
    NFS_DISK_MAX_GB,
    NFS_DISK_MIN_GB,
    NFS_DISK_TYPE,
    NFS_VM_INSTANCE_TYPE,
)


class Ec2Nfs(CloudNfs):
    rules = NfsRules("k3s over aws", vm_disk=VmDisk(NFS_DISK_TYPE, NFS_DISK_MIN_GB, NFS_DISK_MAX_GB))

    def vm_server(self, cluster: ResolvedCluster) -> VolumeServer:
        """The VM gpukit makes for an NFS volume naming no export (nfs_server.py)."""
        machine = AWS_CATALOG.machine(NFS_VM_INSTANCE_TYPE)
        disk_rate = server_disk_rate(NFS_DISK_TYPE, cluster.spec["region"])
        return VolumeServer(
            NFS_VM_INSTANCE_TYPE,
            AWS_CATALOG.quote(machine, cluster.spec["region"]).per_node,
            NFS_DISK_TYPE,
            None if disk_rate is None else disk_rate.usd_per_gb_month,
        )
