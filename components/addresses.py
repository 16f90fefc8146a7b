"""Host addresses of k3s on existing hosts: which are well-formed, which cannot work, which are one host."""

import ipaddress
import re

_HOSTNAME_RE = re.compile(
    r"(?=.{1,253}\Z)([a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)*"
)


def address_ok(address: str) -> bool:
    """An IP address or a DNS name (a dotted-decimal string that is no IP address is neither)."""
    try:
        ipaddress.ip_address(address)
    except ValueError:
        return bool(_HOSTNAME_RE.fullmatch(address)) and not address.replace(".", "").isdigit()
    return True


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
