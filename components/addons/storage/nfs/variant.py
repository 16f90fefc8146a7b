"""NFS shared volumes on k3s, the storage add-on's variant for every k3s substrate: the NFS CSI driver
and a StorageClass per volume, whichever server the volume names.

- `NfsStorage`: what every k3s shares (an export the user names, `nfs: {server, path}`, on any k3s);
- `CloudNfs`: k3s on a cloud, where a volume naming no export gets a small VM gpukit makes in the
  cluster's network (the cloud's adapter starts it: K3sCloudState, components/k3s/cloud_flow.py);
  each cloud's subclass prices that VM (providers/<cloud>/k3s/nfs_variant.py);
- k3s over SSH serves a volume from one of the cluster's hosts (providers/ssh/k3s/nfs.py SshNfs).
"""

from gpukit.components.addons.base import BuildContext, ValidationScope
from gpukit.components.addons.storage.built import BuiltVolume
from gpukit.components.addons.storage.nfs.exports import served_by_vm
from gpukit.components.addons.storage.nfs.network import nfs_address_findings
from gpukit.components.addons.storage.nfs.validation import NfsRules, shared_nfs_problems
from gpukit.components.addons.storage.variant import StorageVariant
from gpukit.components.addons.storage.volume import PlannedVolume, VolumeServer
from gpukit.components.errors import Problem
from gpukit.components.findings import Finding
from gpukit.components.k3s.cloud_state import K3sCloudState
from gpukit.components.spec import StorageKind
from gpukit.components.substrate import ResolvedCluster


class NfsStorage(StorageVariant):
    """NFS on any k3s: the checks, zones and findings every k3s shares; each substrate's subclass builds
    (an export the user names is served the same way everywhere: build_nfs_driver)."""

    kinds = frozenset({StorageKind.NFS})
    # k3s runs kube-router's network policy controller unless started with --disable-network-policy,
    # which gpukit never sets (k3s docs, "Networking Services": "Network Policy Controller").
    network_policy = "k3s's embedded network policy controller"
    rules: NfsRules
    """Where a volume's export may come from here (components/addons/storage/nfs/validation.py)."""

    def problems(self, scope: ValidationScope) -> list[Problem]:
        return shared_nfs_problems(scope.args.get("storage"), self.rules, [])

    def volume_zones(self, cluster: ResolvedCluster, volume: PlannedVolume) -> list[str]:
        """Where a volume lives, for the plan: the SSH host that serves it, the user's own export, or the
        zone of the VM gpukit makes (where the plan knows it)."""
        nfs = volume.spec.get("nfs") or {}
        if "host" in nfs:
            return [f"host {nfs['host']}"]
        if "server" in nfs:
            return ["your server"]
        server = self.volume_server(cluster, volume)
        if server is None:
            return []
        # One zone, the VM's and its disk's (chosen at `pulumi up` where the plan does not know it yet).
        return [server.zone or "the VM's zone"]

    def findings(self, cluster: ResolvedCluster, volumes: list[PlannedVolume]) -> list[Finding]:
        """NFS servers and nodes named by DNS: whether they are private is known only once they resolve."""
        hosts = [host["address"] for pool in cluster.pools for host in pool.hosts]
        return nfs_address_findings(cluster.args.get("storage"), hosts)


class CloudNfs(NfsStorage):
    """NFS on k3s over a cloud: an export the user names, else a VM gpukit makes for the volume, which
    each cloud's subclass describes and prices (`vm_server`)."""

    def volume_server(self, cluster: ResolvedCluster, volume: PlannedVolume) -> VolumeServer | None:
        return self.vm_server(cluster) if served_by_vm(volume) else None

    def vm_server(self, cluster: ResolvedCluster) -> VolumeServer:
        """The VM gpukit makes for one volume here: its machine, prices and zone."""
        raise NotImplementedError(f"{type(self).__name__} prices no NFS VM")

    def build(self, ctx: BuildContext, volumes: list[PlannedVolume]) -> list[BuiltVolume]:
        """The VMs and the driver go under the substrate's cluster component, with the network they are
        in (where they always were: their URNs stay)."""
        # Lazy: the builders import Pulumi; this module loads with the registry, for every command.
        from gpukit.components.addons.storage.nfs.build import build_cloud_nfs

        state = ctx.handle.substrate_state
        if not isinstance(state, K3sCloudState):
            raise TypeError(f"a k3s-on-cloud build keeps a K3sCloudState; got {type(state).__name__}")
        return build_cloud_nfs(
            ctx.name,
            volumes,
            state.make_nfs_vm,
            ctx.handle.kubernetes,
            state.component,
            ready=ctx.handle.system_ready,
        )
