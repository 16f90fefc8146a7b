"""k3s on Compute Engine's shared storage, the storage add-on's variant there: NFS, from an export the
user names or from a small VM gpukit makes for the volume (nfs_server.py), in the servers' first zone,
priced here for the plan."""

from gpukit.components.addons.storage.nfs.validation import NfsRules, VmDisk
from gpukit.components.addons.storage.nfs.variant import CloudNfs
from gpukit.components.addons.storage.volume import VolumeServer
from gpukit.components.spec import NodeRole
from gpukit.components.substrate import ResolvedCluster
from gpukit.providers.gcp.catalog import GCP_CATALOG
from gpukit.providers.gcp.k3s.nfs_vm_facts import (
    NFS_DISK_MAX_GB,
    NFS_DISK_MIN_GB,
    NFS_DISK_TYPE,
    NFS_VM_MACHINE_TYPE,
    PD_BALANCED_USD_PER_GB_MONTH,
    nfs_zone,
)


class GceNfs(CloudNfs):
    rules = NfsRules("k3s over gcp", vm_disk=VmDisk(NFS_DISK_TYPE, NFS_DISK_MIN_GB, NFS_DISK_MAX_GB))

    def vm_server(self, cluster: ResolvedCluster) -> VolumeServer:
        """The VM gpukit makes for an NFS volume naming no export (nfs_server.py), in the servers' first
        zone; its disk is priced where a pd-balanced price is sourced (nfs_vm_facts.py)."""
        region = cluster.spec["region"]
        servers = [p for p in cluster.pools if p.role is NodeRole.SERVER]
        zones = cluster.substrate.pool_zones(cluster, servers[0]) if servers else []
        return VolumeServer(
            NFS_VM_MACHINE_TYPE,
            GCP_CATALOG.quote(GCP_CATALOG.machine(NFS_VM_MACHINE_TYPE), region).per_node,
            NFS_DISK_TYPE,
            PD_BALANCED_USD_PER_GB_MONTH.get(region),
            nfs_zone(zones) if zones else "",
        )
