"""Shared pieces of the meaning checks: key prefixes and value checks used by every platform."""

import ipaddress
import re

from gpukit.components.errors import Problem

CLUSTER = "gpukit:cluster"
POOLS = "gpukit:nodePools"
NAME_RE = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")


def check_name(key: str, name: str, limit: int, problems: list[Problem]) -> None:
    if len(name) > limit or not NAME_RE.match(name):
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
    """An IPv4 CIDR, optionally with its prefix length in `prefixes` (inclusive)."""
    try:
        network = ipaddress.ip_network(cidr, strict=True)
    except ValueError as err:
        problems.append(Problem(key, f"must be an IPv4 CIDR like 10.40.0.0/16; got {cidr!r} ({err})"))
        return None
    if not isinstance(network, ipaddress.IPv4Network):
        problems.append(Problem(key, f"must be an IPv4 CIDR; got {cidr!r}"))
        return None
    if prefixes is not None and not prefixes[0] <= network.prefixlen <= prefixes[1]:
        problems.append(
            Problem(key, f"prefix must be /{prefixes[0]} to /{prefixes[1]}; got /{network.prefixlen}")
        )
        return None
    return network
