"""k3s over SSH's shared storage, the storage add-on's variant there: NFS from an export the user names,
or from one of the cluster's own hosts, which gpukit makes an NFS server over SSH (nfs.py)."""

from gpukit.components.addons.base import BuildContext, ValidationScope
from gpukit.components.addons.storage.built import BuiltVolume
from gpukit.components.addons.storage.nfs.validation import NfsRules, shared_nfs_problems
from gpukit.components.addons.storage.nfs.variant import NfsStorage
from gpukit.components.addons.storage.volume import PlannedVolume
from gpukit.components.errors import Problem
from gpukit.providers.ssh.config import ssh_private_key


class SshNfs(NfsStorage):
    rules = NfsRules("k3s over ssh", hosts_serve=True)
    cloud_zones = False  # one's own hosts: no cloud bills traffic between them

    def problems(self, scope: ValidationScope) -> list[Problem]:
        """Checked against the pools' hosts, so only where the pools parsed."""
        if not scope.pools_ok:
            return []
        hosts = [h["address"] for p in scope.args["node_pools"] for h in p.get("hosts", [])]
        return shared_nfs_problems(scope.args.get("storage"), self.rules, hosts)

    def build(self, ctx: BuildContext, volumes: list[PlannedVolume]) -> list[BuiltVolume]:
        """NFS servers on the hosts volumes name (over SSH, like the k3s install), then the driver."""
        # Lazy: the builders import Pulumi, which planning needs only once the program runs.
        import pulumi

        from gpukit.components.addons.storage.nfs.build import built_volumes
        from gpukit.providers.ssh.k3s.nfs import build_ssh_nfs

        driver = build_ssh_nfs(
            ctx.name,
            volumes,
            ctx.cluster.pools,
            pulumi.Output.secret(ssh_private_key(ctx.cluster)),
            ctx.handle.kubernetes,
            parent=ctx.parent,
            ready=ctx.handle.system_ready,
        )
        return built_volumes(volumes, driver)
