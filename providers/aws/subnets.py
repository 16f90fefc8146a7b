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
    return [ZoneSubnets(zone, str(eighths[i]), str(public_pool[i])) for i, zone in enumerate(zones)]
