"""The NFS server gpukit sets up for shared volumes on k3s: what it exports, to whom, and the script
that makes it so on a host (k3s over SSH) or a VM (k3s on EC2 / Compute Engine). Pure: the scripts are
golden-tested, shellcheck-clean and executed against stub commands (tests/scripts/test_nfs_server.py).

Export options (exports(5)): `rw,sync` (a write is on disk before the client hears it is: a
checkpoint the trainer saw saved survives a server crash), `root_squash` (a client's root is nobody
on the server, so root in a pod cannot take over the server's files), `sec=sys` (the client's uid
and gid are trusted: NFS has no encryption or strong authentication without Kerberos, which gpukit
does not set up: traffic between nodes and server is plain text on the cluster's network),
`no_subtree_check` (the default since nfs-utils 1.1; said, so exportfs does not warn).
"""

import ipaddress
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gpukit.components.addons.storage.volume import PlannedVolume
from gpukit.components.k3s.host_scripts import render_script
from gpukit.components.spec import StorageKind

NFS_SCRIPTS = Path(__file__).parent / "scripts"
"""The NFS server's scripts (shellchecked whole), rendered by components/k3s/host_scripts.py."""

EXPORT_OPTIONS = "rw,sync,root_squash,sec=sys,no_subtree_check"
EXPORT_ROOT = "/srv/gpukit-nfs"
"""Where a server gpukit sets up keeps its volumes: one directory per volume."""
EXPORTS_FILE = "/etc/exports.d/gpukit.exports"
"""exportfs reads /etc/exports and /etc/exports.d/*.exports (exportfs(8)); gpukit owns this file
whole and leaves /etc/exports to the host's owner."""
NFS_PORT = 2049
"""NFS v4 uses this one TCP port (RFC 7530 section 3.1); nothing else needs to reach the server."""
V4_ONLY_MARK = "# gpukit: NFSv4 only (the nodes mount nfsvers=4.1): no NFSv2/v3, MOUNT or rpcbind listeners"
"""The first line of the block gpukit appends to /etc/nfs.conf once (nfs-server.sh)."""
SQUASHED_OWNER = "65534:65534"
"""nobody:nogroup (Debian, Ubuntu) and nobody:nobody (RHEL family): root_squash maps a client's root
here, so the CSI controller (root) creates the claims' subdirectories as this owner."""
# An absolute path of plain segments: letters, digits, `.`, `_`, `-` (no spaces, quotes, `$`, `*`):
# an exports line has no quoting that every nfs-utils reads the same way.
_PATH_RE = re.compile(r"(/[A-Za-z0-9._-]+)+")


# A DNS name as client_spec writes it: lowercase letter-digit-hyphen labels, no trailing dot (exports(5)
# would read `*`, `?`, `[` as wildcards and `@` as a netgroup).
_CLIENT_NAME_RE = re.compile(
    r"(?=.{1,253}\Z)[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*"
)


def client_problem(client: str) -> str | None:
    """Why `client` cannot be an exports client, or None: only an IP address or network in canonical
    form (`192.0.2.10/32`, `2001:db8::1/128`, `10.0.0.0/16`) or a lowercase DNS name is written.

    Defence in depth behind validation: exports(5) splits a line at whitespace and reads `(...)` as
    options, so a client holding either (an IPv6 zone id may hold anything) would add an export of its
    own, `*(rw,no_root_squash)` for one."""
    if "%" in client:  # a zone id: str() of a scoped address or network keeps it
        return "must not carry an IPv6 zone id"
    if _CLIENT_NAME_RE.fullmatch(client) and not client.replace(".", "").isdigit():
        return None
    try:
        network = ipaddress.ip_network(client, strict=True)
    except ValueError:
        return "must be an IP address, a network in CIDR notation or a lowercase DNS name"
    if client not in {str(network), str(network.network_address)}:
        return f"must be written in canonical form ({network})"
    return None


def export_path_problem(path: str) -> str | None:
    """Why `path` cannot be an NFS export path, or None."""
    if not _PATH_RE.fullmatch(path):
        return (
            "must be an absolute path of letters, digits, '.', '_' and '-' between '/' "
            "(like /srv/nfs/checkpoints)"
        )
    if any(part in {".", ".."} for part in path.split("/")):
        return "must not hold '.' or '..' segments"
    return None


def served_by_vm(volume: PlannedVolume) -> bool:
    """Whether gpukit makes a VM to serve a volume on k3s over a cloud: an NFS volume naming no export
    (the clouds' storage variants price that VM; build.py starts it)."""
    return volume.kind is StorageKind.NFS and "server" not in (volume.spec.get("nfs") or {})


def volume_directory(volume: str) -> str:
    """The directory of a volume on a server gpukit sets up."""
    return f"{EXPORT_ROOT}/{volume}"


def client_spec(address: str) -> str:
    """One node as an exports client: an IP as a single-address network (/32, /128), a DNS name as
    itself (exportfs resolves it); a CIDR (a cloud's node subnets) as given."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        pass
    else:
        return f"{ip}/{ip.max_prefixlen}"
    try:
        return str(ipaddress.ip_network(address, strict=True))
    except ValueError:
        return address.lower()


@dataclass(frozen=True)
class NfsExport:
    directory: str
    """Absolute path on the server (export_path_problem says none)."""
    clients: tuple[str, ...]
    """Node addresses or networks, as client_spec writes them."""


def exports(directories: Iterable[str], node_addresses: Sequence[str]) -> tuple[NfsExport, ...]:
    """Every directory exported to every node (each once, in the order given), and to nothing else."""
    clients = tuple(dict.fromkeys(client_spec(a) for a in node_addresses))
    if not clients:
        raise ValueError("an NFS export needs at least one client")
    return tuple(NfsExport(d, clients) for d in dict.fromkeys(directories))


def exports_file(table: Iterable[NfsExport]) -> str:
    """The text of EXPORTS_FILE: one line per directory, every client with gpukit's options."""
    lines = ["# Written by gpukit: shared volumes of this k3s cluster, exported to its nodes only."]
    for export in table:
        if (problem := export_path_problem(export.directory)) is not None:
            raise ValueError(f"export {export.directory!r} {problem}")
        for client in export.clients:
            if (problem := client_problem(client)) is not None:
                raise ValueError(f"exports client {client!r} of {export.directory} {problem}")
        lines.append(f"{export.directory} " + " ".join(f"{c}({EXPORT_OPTIONS})" for c in export.clients))
    return "\n".join(lines) + "\n"


def nfs_server_script(table: Sequence[NfsExport]) -> str:
    """Install the distribution's NFS server, create each directory, export them (nfs-server.sh)."""
    return render_script(
        NFS_SCRIPTS / "nfs-server.sh",
        EXPORT_DIRS=" ".join(e.directory for e in table),
        EXPORTS=exports_file(table),
        EXPORTS_FILE=EXPORTS_FILE,
        SQUASHED_OWNER=SQUASHED_OWNER,
        V4_ONLY_MARK=V4_ONLY_MARK,
    )


def nfs_unexport_script() -> str:
    """What runs when the server leaves the stack: stop exporting gpukit's directories, keep the data."""
    return render_script(NFS_SCRIPTS / "nfs-unexport.sh", EXPORTS_FILE=EXPORTS_FILE)
