"""Whether an NFS volume on k3s stays on a private network. Pure.

NFS as gpukit sets it up (and as most exports are) is `sec=sys`: file data, names and the uid/gid the
client claims travel in plain text, and the server believes the uid (exports(5), exports.py). So
an NFS server, and every node it exports to, must sit on an address the internet does not route:

- an IP address counts as private when Python's `ipaddress` says it is not `is_global` (IANA's
  special-purpose registries): RFC 1918 (10/8, 172.16/12, 192.168/16), shared/CGNAT 100.64/10 (carrier
  and overlay networks such as Tailscale's), link-local 169.254/16 and fe80::/10, IPv6 unique local
  fc00::/7, and the documentation and benchmarking ranges. A global address (`is_global`) is refused;
- a DNS name cannot be judged offline (it resolves at mount time, on the nodes): gpukit says so in a
  preflight warning naming the key, and the user keeps the name on a private address.
"""

import ipaddress
from collections.abc import Mapping, Sequence
from typing import Any

from gpukit.components.findings import Finding, Severity

PLAIN_TEXT = (
    "NFS traffic (sec=sys) is plain text and trusts the uid the client sends, so it must stay on a "
    "private network"
)
PRIVATE_RANGES = (
    "private means not `is_global` in Python's ipaddress: 10/8, 172.16/12, 192.168/16, 100.64/10 "
    "(CGNAT), link-local, IPv6 fc00::/7"
)


def is_public(address: str) -> bool | None:
    """True for a global (internet-routed) IP address, False for any other IP, None for a DNS name (which
    cannot be judged offline). An IPv4-mapped IPv6 address is judged as its IPv4 address."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global


def is_nfs_on_k3s(volume: Mapping[str, Any]) -> bool:
    """A shared volume that is NFS on k3s: `nfs`, or `auto`, which picks NFS there (k3s has no other
    backend)."""
    return getattr(volume.get("kind"), "value", volume.get("kind")) in {"nfs", "auto"}


def nfs_volumes(storage: Mapping[str, Any] | None) -> list[tuple[str, Mapping[str, str]]]:
    """(config key, nfs) of each `gpukit:storage.shared` volume that is NFS on k3s."""
    return [
        (f"gpukit:storage.shared[{i}]", volume.get("nfs") or {})
        for i, volume in enumerate((storage or {}).get("shared", []))
        if is_nfs_on_k3s(volume)
    ]


def nfs_address_findings(storage: Mapping[str, Any] | None, hosts: Sequence[str]) -> list[Finding]:
    """A warning for each NFS volume whose server, or (for `nfs.host`) a node the server exports to, is
    a DNS name: whether it is private is known only when it resolves. `hosts`: the cluster's SSH host
    addresses (empty on clouds, where the VM gpukit makes and the node subnets are private)."""
    findings: list[Finding] = []
    for key, nfs in nfs_volumes(storage):
        server, host = nfs.get("server"), nfs.get("host")
        if server is not None and is_public(server) is None:
            findings.append(
                Finding(
                    Severity.WARNING,
                    f"{key}.nfs.server",
                    f"{server!r} is a DNS name, which gpukit cannot check offline: {PLAIN_TEXT}; the "
                    "name must resolve, on every node, to a private address of the server",
                    fix=f"set {key}.nfs.server to the server's private IP address, or make sure {server} "
                    "resolves to one",
                )
            )
        if host is not None:
            named = [a for a in dict.fromkeys([host, *hosts]) if is_public(a) is None]
            if named:
                findings.append(
                    Finding(
                        Severity.WARNING,
                        f"{key}.nfs.host",
                        f"the NFS server on {host} exports to the cluster's hosts, and {', '.join(named)} "
                        f"{'is a DNS name' if len(named) == 1 else 'are DNS names'} gpukit cannot check "
                        f"offline: {PLAIN_TEXT}; each must resolve to a private address",
                        fix="give the hosts (nodePools[*].hosts[*].address) their private IP addresses, "
                        "or make sure their names resolve to private ones",
                    )
                )
    return findings
