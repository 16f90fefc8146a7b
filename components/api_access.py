"""Who may reach a cluster's API, from `apiAccessCidrs`: decides internal vs internet-facing endpoints.

Pure, shared by the providers (AWS load balancer scheme, GCE external addresses) and validation.
"Internal" means every range is private address space that only reaches the network through a VPC,
peering or VPN: RFC 1918 and the shared (CGNAT) range that VPN clients often get. Python's
`ip_network(...).is_private` is not used: it also counts the documentation ranges (203.0.113.0/24,
the example stacks' placeholder for an office range) as private.
"""

import ipaddress
from collections.abc import Iterable

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


# IPv4 space that is not the public internet: the IANA IPv4 Special-Purpose Address Registry
# (RFC 6890 and its updates: https://www.iana.org/assignments/iana-ipv4-special-registry), plus
# multicast (224.0.0.0/4, RFC 5771) and the limited broadcast inside 240.0.0.0/4. No client on the
# internet has an address in these ranges, so a set of ranges that leaves only these out still admits
# everyone: "0.0.0.0/1 + 128.0.0.0/1" is 0.0.0.0/0 written twice.
NON_PUBLIC_RANGES = tuple(
    ipaddress.IPv4Network(c)
    for c in (
        "0.0.0.0/8",  # "this network" (RFC 791)
        "10.0.0.0/8",  # private (RFC 1918)
        "100.64.0.0/10",  # shared address space (RFC 6598)
        "127.0.0.0/8",  # loopback (RFC 1122)
        "169.254.0.0/16",  # link-local (RFC 3927)
        "172.16.0.0/12",  # private (RFC 1918)
        "192.0.0.0/24",  # IETF protocol assignments (RFC 6890)
        "192.0.2.0/24",  # documentation TEST-NET-1 (RFC 5737)
        "192.88.99.0/24",  # deprecated 6to4 relay anycast (RFC 7526)
        "192.168.0.0/16",  # private (RFC 1918)
        "198.18.0.0/15",  # benchmarking (RFC 2544)
        "198.51.100.0/24",  # documentation TEST-NET-2 (RFC 5737)
        "203.0.113.0/24",  # documentation TEST-NET-3 (RFC 5737)
        "224.0.0.0/4",  # multicast (RFC 5771)
        "240.0.0.0/4",  # reserved (RFC 1112), with the limited broadcast address
    )
)
_EVERYTHING = ipaddress.IPv4Network("0.0.0.0/0")
# The documentation ranges (RFC 5737): examples use them as "your office range here" placeholders; no
# real client has such an address, and EKS refuses reserved addresses in publicAccessCidrs (EKS user
# guide, "Configure network access to cluster API server endpoint").
DOCUMENTATION_RANGES = tuple(
    ipaddress.IPv4Network(c) for c in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24")
)


def is_documentation_range(cidr: str) -> bool:
    """Whether `cidr` lies inside an RFC 5737 documentation range (a placeholder, not a client)."""
    found = _networks([cidr])
    return bool(found) and any(found[0].subnet_of(r) for r in DOCUMENTATION_RANGES)


def _networks(cidrs: Iterable[str]) -> list[ipaddress.IPv4Network]:
    """The well-formed IPv4 ranges among `cidrs` (host bits ignored; anything else is skipped: the
    config checks report it)."""
    found = []
    for cidr in cidrs:
        try:
            network = ipaddress.ip_network(cidr, strict=False)
        except ValueError:
            continue
        if isinstance(network, ipaddress.IPv4Network):
            found.append(network)
    return found


def covers_public_internet(cidrs: Iterable[str]) -> bool:
    """Whether the ranges together admit every public IPv4 address, however they are written
    (`0.0.0.0/0`; `0.0.0.0/1` + `128.0.0.0/1`; or any ranges that leave out only non-public space).

    Decided on the values, not the text: the ranges and the non-public ones are merged, and the
    public internet is covered exactly when the merge is the whole IPv4 space.
    """
    merged = list(ipaddress.collapse_addresses([*_networks(cidrs), *NON_PUBLIC_RANGES]))
    return merged == [_EVERYTHING]


def unreachable_private_api(cidrs: list[str], new_network_cidr: str | None) -> str | None:
    """Why `pulumi up` could never reach an API kept private inside a network the stack creates, or
    None. A private API answers only inside its network (or what routes into it); a network made by
    the same `pulumi up` has no VPN, peering or route in yet, so the in-cluster half of the stack
    (the GPU stack, storage classes) would wait on an address the deployer cannot reach. What the
    message says is the way out: a range the deployer comes from, or a network it routes into."""
    if new_network_cidr is None or needs_public_endpoint(cidrs):
        return None
    given = f"only private ranges ({', '.join(cidrs)})" if cidrs else "[]"
    return (
        f"{given} keeps the API inside the network this stack creates ({new_network_cidr}), which nothing "
        "outside it routes to: `pulumi up` could not reach the API to install the GPU stack. Add the "
        "public range you deploy from (your office or CI runner, as /32), or reuse a network your "
        "deployer routes into (network.vpcId/networkId)"
    )
