"""Who may reach a cluster's API, from `apiAccessCidrs`: decides internal vs internet-facing endpoints.

Pure, shared by the providers (AWS load balancer scheme, GCE external addresses) and validation.
"Internal" means every range is private address space that only reaches the network through a VPC,
peering or VPN: RFC 1918 and the shared (CGNAT) range that VPN clients often get. Python's
`ip_network(...).is_private` is not used: it also counts the documentation ranges (203.0.113.0/24,
the example stacks' placeholder for an office range) as private.
"""

import ipaddress

INTERNAL_RANGES = tuple(
    ipaddress.IPv4Network(c) for c in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10")
)


def is_internal(cidr: str) -> bool:
    """Whether `cidr` lies inside private address space (a malformed CIDR counts as not internal)."""
    try:
        network = ipaddress.ip_network(cidr, strict=False)
    except ValueError:
        return False
    return isinstance(network, ipaddress.IPv4Network) and any(network.subnet_of(r) for r in INTERNAL_RANGES)


def public_cidrs(cidrs: list[str]) -> list[str]:
    """The ranges that can only be served from a public (internet-facing) endpoint."""
    return [c for c in cidrs if not is_internal(c)]


def needs_public_endpoint(cidrs: list[str]) -> bool:
    """An internet-facing API endpoint is needed: some allowed client is outside private space.

    An empty list means no client outside the cluster: the endpoint stays internal.
    """
    return bool(public_cidrs(cidrs))
