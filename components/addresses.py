"""Host addresses of k3s on existing hosts: which are well-formed, which cannot work, which are one host."""

import ipaddress
import re

_HOSTNAME_RE = re.compile(
    r"(?=.{1,253}\Z)([a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)*"
)


NOT_AN_ADDRESS = "is not an IP address or DNS name"
ZONE_ID = (
    "has an IPv6 zone (scope) id, the part after '%': a zone id is local to one host (it names one of "
    "that machine's network interfaces), so the other hosts, the API certificate and the NFS exports "
    "cannot use it; give the address without it"
)


def address_problem(address: str) -> str | None:
    """Why `address` is no IP address or DNS name another machine reaches a host at, or None.

    The one check every config address goes through (hosts, bastions, apiAddress, nfs.server). A zone
    id is refused: Python's ipaddress (3.9+) reads `fe80::1%<any text, spaces included>` as an IPv6
    address with a scope id, and `str()` gives that text back, so it would reach /etc/exports,
    tls-san and the StorageClass as written."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        # A dotted-decimal string that is no IP address (192.0.2.300) is no DNS name either.
        if _HOSTNAME_RE.fullmatch(address) and not address.replace(".", "").isdigit():
            return None
        return NOT_AN_ADDRESS
    if isinstance(ip, ipaddress.IPv6Address) and ip.scope_id is not None:
        return ZONE_ID
    return None


def address_refusal(address: str) -> str | None:
    """A problem message for a config address address_problem refuses (what it must be, what was
    given, and why where that is not plain), or None."""
    why = address_problem(address)
    if why is None:
        return None
    detail = "" if why == NOT_AN_ADDRESS else f", which {why}"
    return f"must be an IP address or DNS name; got {address!r}{detail}"


def _ip(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address as an IP (an IPv4-mapped IPv6 address as its IPv4 one), None for a name."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def unusable(address: str) -> str | None:
    """Why no other machine can reach `address` (loopback, unspecified, localhost), or None.

    Such an address would reach the machine that runs Pulumi, or nothing, and it becomes the node's
    address, the join URL and a certificate name, so it never works as a host's address."""
    ip = _ip(address)
    if ip is None:
        name = address.lower()
        if name == "localhost" or name.endswith(".localhost"):
            return "names the local machine (localhost)"
        return None
    if ip.is_loopback:
        return "is a loopback address"
    if ip.is_unspecified:
        return "is the unspecified address"
    return None


def same_host(address: str) -> str:
    """One spelling per host: IP addresses parsed (`2001:DB8:0::1` is `2001:db8::1`, `::ffff:192.0.2.1`
    is `192.0.2.1`), DNS names lowercased (they are case-insensitive)."""
    ip = _ip(address)
    return str(ip) if ip is not None else address.lower()
