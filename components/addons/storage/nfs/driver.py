"""K3sNfsDriver: the NFS CSI driver release on a k3s cluster and one StorageClass per NFS shared volume.

The chart and its values: chart.py; each class: storage_class.py. The export behind a class is made
elsewhere (host_server.py on an SSH host, providers/<cloud>/k3s/nfs_server.py on a small VM) or
is the user's own; `after` holds what must be ready before claims can be provisioned.
"""

import functools
from collections.abc import Sequence
from typing import Any, Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from gpukit.components.addons.storage.nfs.chart import (
    CHART,
    CHART_REPOSITORY,
    CHART_VERSION,
    NAMESPACE,
    RELEASE_NAME,
    nfs_driver_values,
)
from gpukit.components.addons.storage.nfs.storage_class import nfs_storage_class

TYPE_TOKEN = "gpukit:index:K3sNfsDriver"


def _storage_class(volume: str, share: str, server: str) -> dict[str, Any]:
    return nfs_storage_class(volume, server, share)


class NfsVolumeArgs(TypedDict):
    volume: str
    """The shared volume's name: its class is `shared-<volume>`."""
    server: pulumi.Input[str]
    """The NFS server's address (IP or DNS name) as the nodes reach it."""
    share: str
    """The exported directory on the server."""


class K3sNfsDriverArgs(TypedDict):
    volumes: list[NfsVolumeArgs]
    after: Sequence[pulumi.Resource]
    """What the classes wait for: the NFS servers gpukit sets up (empty for the user's own exports)."""


class K3sNfsDriver(pulumi.ComponentResource):
    """Pass the cluster's Kubernetes provider through `opts.providers`."""

    storage_classes: list[pulumi.Output[str]]
    servers: dict[str, pulumi.Input[str]]
    """Each volume's NFS server, as its class names it."""

    def __init__(self, name: str, args: K3sNfsDriverArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(TYPE_TOKEN, name, {}, opts)
        release = k8s.helm.v3.Release(
            f"{name}-release",
            name=RELEASE_NAME,
            chart=CHART,
            version=CHART_VERSION,
            repository_opts={"repo": CHART_REPOSITORY},
            namespace=NAMESPACE,
            values=nfs_driver_values(),
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.storage_classes = []
        self.servers = {volume["volume"]: volume["server"] for volume in args["volumes"]}
        for volume in args["volumes"]:
            manifest = pulumi.Output.from_input(volume["server"]).apply(
                functools.partial(_storage_class, volume["volume"], volume["share"])
            )
            storage_class = k8s.storage.v1.StorageClass(
                f"{name}-{volume['volume']}",
                metadata=manifest["metadata"],
                provisioner=manifest["provisioner"],
                parameters=manifest["parameters"],
                reclaim_policy=manifest["reclaimPolicy"],
                volume_binding_mode=manifest["volumeBindingMode"],
                mount_options=manifest["mountOptions"],
                opts=pulumi.ResourceOptions(parent=self, depends_on=[release, *args["after"]]),
            )
            self.storage_classes.append(storage_class.metadata.apply(lambda m: m.name or ""))
        self.register_outputs({"storage_classes": self.storage_classes})
