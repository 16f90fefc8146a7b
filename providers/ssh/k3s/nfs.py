"""NFS shared volumes on k3s over SSH: the hosts the volumes name become NFS servers (one
K3sNfsHostServer per host, all its volumes at once), exporting to every host of the cluster; volumes
naming an export of the user's get the driver and class only."""

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import pulumi

from gpukit.components.addons.storage.nfs.build import build_nfs_driver
from gpukit.components.addons.storage.nfs.driver import K3sNfsDriver, NfsVolumeArgs
from gpukit.components.addons.storage.nfs.exports import volume_directory
from gpukit.components.addons.storage.nfs.host_server import K3sNfsHostServer
from gpukit.components.addresses import same_host
from gpukit.components.k3s.names import node_name
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import HostSpec
from gpukit.providers.ssh.k3s.hosts import connection


def nfs_volume_target(volume: str, nfs: Mapping[str, str], hosts: Sequence[HostSpec]) -> NfsVolumeArgs:
    """Where the nodes mount a volume: the user's export, or its directory on the host that serves it
    (at the host's address as the config gives it, the one the nodes already reach it at)."""
    if "host" not in nfs:
        return {"volume": volume, "server": nfs["server"], "share": nfs["path"]}
    host = server_host(nfs["host"], hosts)
    return {"volume": volume, "server": host["address"], "share": volume_directory(volume)}


def server_host(address: str, hosts: Sequence[HostSpec]) -> HostSpec:
    """The configured host an `nfs.host` names (validation made sure there is one)."""
    return next(h for h in hosts if same_host(h["address"]) == same_host(address))


def hosts_of(pools: Sequence[PoolFacts]) -> list[HostSpec]:
    return [host for pool in pools for host in pool.hosts]


def nfs_host_servers(
    name: str,
    volumes: Sequence[tuple[str, Mapping[str, str]]],
    pools: Sequence[PoolFacts],
    private_key: pulumi.Input[str],
    parent: pulumi.Resource,
) -> list[K3sNfsHostServer]:
    """One server per host that `volumes` (name, nfs) name, serving each of its volumes' directories
    to every host of the cluster (servers and agents: the driver's controller runs on the servers)."""
    hosts = hosts_of(pools)
    served: dict[str, list[str]] = {}
    for volume, nfs in volumes:
        if "host" in nfs:
            served.setdefault(server_host(nfs["host"], hosts)["address"], []).append(volume)
    node_pool = {host["address"]: pool.name for pool in pools for host in pool.hosts}
    return [
        K3sNfsHostServer(
            f"{name}-nfs-{node_name(node_pool[address], address)}",
            {
                "volumes": names,
                "node_addresses": [h["address"] for h in hosts],
                "connection": connection(server_host(address, hosts), private_key),  # type: ignore[typeddict-item]
            },
            opts=pulumi.ResourceOptions(parent=parent),
        )
        for address, names in served.items()
    ]


class SharedVolume(Protocol):
    """What this needs of a planned shared volume (components/addons/storage/plan.py PlannedVolume)."""

    @property
    def name(self) -> str: ...

    @property
    def spec(self) -> Mapping[str, Any]: ...


def build_ssh_nfs(
    name: str,
    volumes: Sequence[SharedVolume],
    pools: Sequence[PoolFacts],
    private_key: pulumi.Input[str],
    kubernetes: pulumi.ProviderResource,
    *,
    parent: pulumi.Resource,
    ready: Sequence[pulumi.Resource] = (),
) -> K3sNfsDriver:
    """The NFS servers on the hosts the volumes name, then the driver and one class per volume."""
    pairs = [(v.name, dict(v.spec.get("nfs") or {})) for v in volumes]
    servers = nfs_host_servers(name, pairs, pools, private_key, parent)
    hosts = hosts_of(pools)
    targets = [nfs_volume_target(volume, nfs, hosts) for volume, nfs in pairs]
    return build_nfs_driver(name, targets, [s.setup for s in servers], kubernetes, parent, ready=ready)
