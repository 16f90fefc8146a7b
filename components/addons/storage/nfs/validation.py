"""Meaning checks of an `nfs` shared volume on k3s, under the rules each k3s substrate's storage variant
declares (NfsRules): where its export may come from. Pure.

- an export the user names (`server`, `path`): any k3s; `server` an IP address or DNS name the nodes
  reach, never a public (global) address (components/addons/storage/nfs/network.py: NFS is plain text), `path`
  an absolute path of plain characters (exports.export_path_problem);
- `host`: k3s over SSH only, and one of the cluster's own hosts (gpukit logs in to it like the others);
  neither it nor any host it exports to on a public (global) address;
- neither: on k3s over aws and gcp a small VM gpukit makes serves the volume from a disk of its own,
  whose size range `vm_disk` gives (sizeGb outside it is refused); over SSH refused (name a host or
  an export), as on any provider that passes no `vm_disk`.

Which substrates take `nfs` at all is the backend table's (components/addons/storage/backends.py).
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpukit.components.addons.storage.nfs.exports import export_path_problem
from gpukit.components.addons.storage.nfs.network import PLAIN_TEXT, PRIVATE_RANGES, is_nfs_on_k3s, is_public
from gpukit.components.addresses import address_problem, same_host, unusable
from gpukit.components.errors import Problem


@dataclass(frozen=True)
class VmDisk:
    """The data disk of the VM gpukit makes for an NFS volume on a cloud: its type and size range."""

    disk_type: str
    min_gb: int
    max_gb: int


@dataclass(frozen=True)
class NfsRules:
    """Where an NFS volume's export may come from on one k3s substrate (its storage variant says)."""

    where: str
    """The substrate, as messages name it: `k3s over aws`."""
    hosts_serve: bool = False
    """A host of the cluster may be the server (`nfs.host`): k3s over SSH, where gpukit logs in to it."""
    vm_disk: VmDisk | None = None
    """The disk of the VM gpukit makes for a volume naming no export (None: it makes none here)."""


def nfs_problems(
    key: str,
    nfs: Mapping[str, str] | None,
    rules: NfsRules,
    hosts: Sequence[str],
    *,
    size_gb: int | None = None,
) -> list[Problem]:
    """Problems with volume `key`'s `nfs` under `rules`; `hosts`: the addresses of the cluster's SSH hosts
    (empty elsewhere)."""
    vm_disk = rules.vm_disk
    problems: list[Problem] = []
    given = dict(nfs or {})
    server, path, host = given.get("server"), given.get("path"), given.get("host")
    if server is not None:
        why = address_problem(server) or unusable(server)
        if why is None and is_public(server):
            why = f"is a public (global) address: {PLAIN_TEXT} ({PRIVATE_RANGES})"
        if why is not None:
            problems.append(
                Problem(
                    f"{key}.nfs.server",
                    f"must be the NFS server's IP address or DNS name as the nodes "
                    f"reach it; {server!r} {why}",
                )
            )
    if path is not None and (why := export_path_problem(path)) is not None:
        problems.append(Problem(f"{key}.nfs.path", f"{why}; got {path!r}"))
    if host is not None:
        if not rules.hosts_serve:
            problems.append(
                Problem(
                    f"{key}.nfs.host",
                    f"only on k3s over SSH (a host of the cluster becomes the server); on {rules.where} name "
                    f"an export with server and path; got host {host!r}",
                )
            )
        elif same_host(host) not in {same_host(h) for h in hosts}:
            listed = ", ".join(hosts) or "none"
            problems.append(
                Problem(
                    f"{key}.nfs.host",
                    f"must be the address of one of the cluster's hosts (nodePools[*].hosts[*].address: "
                    f"{listed}): gpukit sets the server up over SSH with that host's pinned key; "
                    f"got {host!r}",
                )
            )
        elif public := [a for a in dict.fromkeys([host, *hosts]) if is_public(a)]:
            problems.append(
                Problem(
                    f"{key}.nfs.host",
                    f"the NFS server on {host} would export to the cluster's hosts over public (global) "
                    f"addresses ({', '.join(public)}): {PLAIN_TEXT} ({PRIVATE_RANGES}); give the hosts "
                    f"private addresses, or name an export on a private network with server and path; "
                    f"got host {host!r}",
                )
            )
    if host is None and server is None and path is None:
        if vm_disk is None:
            host_choice = (
                "{host: <one of the cluster's host addresses>} for a server gpukit sets up there, or "
                if rules.hosts_serve
                else ""
            )
            problems.append(
                Problem(
                    f"{key}.nfs",
                    f"required on {rules.where}: {host_choice}{{server, path}} of an export the nodes reach",
                )
            )
        elif size_gb is not None and size_gb >= 1 and not vm_disk.min_gb <= size_gb <= vm_disk.max_gb:
            # (below 1 GiB the neutral check already said so)
            problems.append(
                Problem(
                    f"{key}.sizeGb",
                    f"the VM gpukit makes for this NFS volume keeps it on one {vm_disk.disk_type} disk, "
                    f"which takes {vm_disk.min_gb:,} to {vm_disk.max_gb:,} GiB; got {size_gb:,} (or name an "
                    "export with nfs: {server, path})",
                )
            )
    return problems


def shared_nfs_problems(
    storage: Mapping[str, Any] | None, rules: NfsRules, hosts: Sequence[str]
) -> list[Problem]:
    """nfs_problems for every volume of `gpukit:storage.shared` that is NFS on k3s (`nfs`, or `auto`,
    which picks NFS: k3s has no other backend)."""
    problems: list[Problem] = []
    for i, volume in enumerate((storage or {}).get("shared", [])):
        if is_nfs_on_k3s(volume):
            problems += nfs_problems(
                f"gpukit:storage.shared[{i}]",
                volume.get("nfs"),
                rules,
                hosts,
                size_gb=volume.get("size_gb"),
            )
    return problems
