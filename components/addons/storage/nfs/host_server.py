"""K3sNfsHostServer: one host, reached over SSH like the cluster's other hosts (its pinned host key
included), becomes the NFS server of the shared volumes that name it (exports.py says what it
runs). Not highly available: while the host is down, every pod using its volumes waits on I/O."""

from typing import Optional, TypedDict

import pulumi
import pulumi_command as command

from gpukit.components.addons.storage.nfs.exports import (
    exports,
    nfs_server_script,
    nfs_unexport_script,
    volume_directory,
)
from gpukit.components.k3s.host_scripts import fingerprint, remote_command

TYPE_TOKEN = "gpukit:index:K3sNfsHostServer"


class K3sNfsHostServerArgs(TypedDict):
    volumes: list[str]
    """The shared volumes this host serves: each is the directory volume_directory(name)."""
    node_addresses: list[str]
    """Every node's address: the only clients the exports admit."""
    connection: command.remote.ConnectionArgs
    """How to run a command on the host (as for its k3s install: key secret, host key pinned)."""


class K3sNfsHostServer(pulumi.ComponentResource):
    setup: command.remote.Command

    def __init__(self, name: str, args: K3sNfsHostServerArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        table = exports([volume_directory(v) for v in args["volumes"]], args["node_addresses"])
        script = nfs_server_script(table)
        # The script's fingerprint in the command: a changed export list re-runs it (its update).
        self.setup = command.remote.Command(
            f"{name}-setup",
            connection=args["connection"],
            create=f"{remote_command(script)} # gpukit {fingerprint(script)}",
            delete=remote_command(nfs_unexport_script()),
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.register_outputs({})
