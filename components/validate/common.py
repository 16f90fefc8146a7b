"""Shared pieces of the meaning checks: key prefixes and value checks used by every platform."""

import ipaddress
import re

from gpukit.components.errors import Problem

CLUSTER = "gpukit:cluster"
POOLS = "gpukit:nodePools"
NAME_RE = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
"""A whole name (matched with fullmatch: `$` would let a trailing newline through)."""


def check_name(key: str, name: str, limit: int, problems: list[Problem]) -> None:
    if len(name) > limit or not NAME_RE.fullmatch(name):
        problems.append(
            Problem(
                key,
                f"must be lowercase letters, digits and '-', start with a letter, "
                f"at most {limit} characters; got {name!r}",
            )
        )


def check_cidr(
    key: str, cidr: str, problems: list[Problem], prefixes: tuple[int, int] | None = None
) -> ipaddress.IPv4Network | None:
    """An IPv4 CIDR, optionally with its prefix length in `prefixes` (inclusive).

    Refused rather than guessed at: a bare address (`203.0.113.5`; Python would read it as a /32, a
    cloud API may not, and a user who meant a /24 gets one address), a range with host bits set
    (`10.0.0.1/16`: the message names the network it lies in), and IPv6 (gpukit's clusters and
    networks are IPv4-only; EKS takes no IPv6 access ranges for IPv4 clusters, EKS API reference,
    VpcConfigRequest.publicAccessCidrs).
    """
    if "/" not in cidr:
        hint = f", a bare address: for that one address write {cidr}/32" if _is_ipv4_address(cidr) else ""
        problems.append(Problem(key, f"must be an IPv4 CIDR like 10.40.0.0/16; got {cidr!r}{hint}"))
        return None
    try:
        loose = ipaddress.ip_network(cidr, strict=False)
    except ValueError as err:
        problems.append(Problem(key, f"must be an IPv4 CIDR like 10.40.0.0/16; got {cidr!r} ({err})"))
        return None
    if not isinstance(loose, ipaddress.IPv4Network):
        problems.append(
            Problem(
                key, f"must be an IPv4 CIDR (gpukit's clusters are IPv4-only; IPv6 is refused); got {cidr!r}"
            )
        )
        return None
    try:
        ipaddress.ip_network(cidr, strict=True)
    except ValueError:
        problems.append(
            Problem(
                key,
                f"{cidr!r} has host bits set: the network it lies in is {loose}; write that (or "
                f"{cidr.split('/', maxsplit=1)[0]}/32 for the one address)",
            )
        )
        return None
    network = loose
    if str(network) != cidr:
        # Python also reads a netmask (`/255.255.255.0`), a host mask (`/0.0.0.255`) and a zero-padded
        # prefix (`/024`), and would pass the text on as written: the cloud APIs take CIDR notation only
        # (EKS VpcConfigRequest.publicAccessCidrs, GKE masterAuthorizedNetworksConfig cidrBlock, EC2
        # CreateVpc CidrBlock), so the one spelling they all read is asked for.
        problems.append(Problem(key, f"must be written in CIDR notation as {network}; got {cidr!r}"))
        return None
    if prefixes is not None and not prefixes[0] <= network.prefixlen <= prefixes[1]:
        problems.append(
            Problem(key, f"prefix must be /{prefixes[0]} to /{prefixes[1]}; got /{network.prefixlen}")
        )
        return None
    return network


def _is_ipv4_address(text: str) -> bool:
    try:
        return isinstance(ipaddress.ip_address(text), ipaddress.IPv4Address)
    except ValueError:
        return False


def check_cidr_list(key: str, cidrs: list[str], problems: list[Problem]) -> None:
    """Each range of a list (`key[i]`), and no range listed twice (the same network in two spellings
    counts as one)."""
    seen: dict[ipaddress.IPv4Network, int] = {}
    for i, cidr in enumerate(cidrs):
        network = check_cidr(f"{key}[{i}]", cidr, problems)
        if network is None:
            continue
        if network in seen:
            problems.append(
                Problem(f"{key}[{i}]", f"{cidr!r} is already listed at {key}[{seen[network]}]; remove one")
            )
        else:
            seen[network] = i
