"""Subnet layout of a new VPC: pure, so the address plan is tested without AWS."""

import ipaddress
from dataclasses import dataclass

MAX_ZONES = 6


@dataclass(frozen=True)
class ZoneSubnets:
    zone: str
    private_cidr: str
    public_cidr: str


def subnet_layout(vpc_cidr: str, zones: list[str]) -> list[ZoneSubnets]:
    """Carve a VPC into one large private and one small public subnet per zone.

    The VPC is cut in eighths: the first six are private subnets (nodes and pods: the VPC CNI gives
    every pod a VPC address, so these get almost all of the space), the last eighth is cut in eight
    again for public subnets (NAT gateways and internet-facing load balancers only).
    A /16 gives /19 private (8,187 usable addresses) and /22 public subnets.
    """
    if not 1 <= len(zones) <= MAX_ZONES:
        raise ValueError(f"need 1 to {MAX_ZONES} zones, got {len(zones)}")
    vpc = ipaddress.IPv4Network(vpc_cidr)
    eighths = list(vpc.subnets(prefixlen_diff=3))
    public_pool = list(eighths[-1].subnets(prefixlen_diff=3))
    return [
        ZoneSubnets(zone, str(eighths[slot]), str(public_pool[slot]))
        for zone in zones
        for slot in [zone_slot(zone)]
    ]


def zone_slot(zone: str) -> int:
    """A zone's fixed place in the layout, from its letter (`us-east-1c` -> 2).

    Fixed per zone, not per position in the list: when the VPC's zone set changes (a pool pins a zone
    the VPC lacked), the zones it keeps keep their subnets, instead of every later zone's subnet
    moving to a neighbour's range, which EC2 refuses while the neighbour's subnet still exists. A zone
    set of a, b, c (the default: the first zones by name) has the slots it always had."""
    letter = zone[-1:]
    if len(letter) != 1 or letter not in ZONE_LETTERS:
        raise ValueError(f"zone {zone!r} has no subnet slot: gpukit lays out zones a to f")
    return ZONE_LETTERS.index(letter)


ZONE_LETTERS = "abcdef"
