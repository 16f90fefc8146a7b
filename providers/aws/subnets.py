"""Subnet layout of a new VPC: pure, so the address plan is tested without AWS."""

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass

MAX_ZONES = 6


@dataclass(frozen=True)
class ZoneSubnets:
    zone: str
    private_cidr: str
    public_cidr: str


def subnet_layout(vpc_cidr: str, zones: list[str], region_zones: Sequence[str]) -> list[ZoneSubnets]:
    """Carve a VPC into one large private and one small public subnet per zone.

    The VPC is cut in eighths: the first six are private subnets (nodes and pods: the VPC CNI gives
    every pod a VPC address, so these get almost all of the space), the last eighth is cut in eight
    again for public subnets (NAT gateways and internet-facing load balancers only).
    A /16 gives /19 private (8,187 usable addresses) and /22 public subnets.
    Each zone takes its fixed slot among `region_zones` (zone_slot).
    """
    if not 1 <= len(zones) <= MAX_ZONES:
        raise ValueError(f"need 1 to {MAX_ZONES} zones, got {len(zones)}")
    vpc = ipaddress.IPv4Network(vpc_cidr)
    eighths = list(vpc.subnets(prefixlen_diff=3))
    public_pool = list(eighths[-1].subnets(prefixlen_diff=3))
    return [
        ZoneSubnets(zone, str(eighths[slot]), str(public_pool[slot]))
        for zone in zones
        for slot in [zone_slot(zone, region_zones)]
    ]


def zone_slot(zone: str, region_zones: Sequence[str]) -> int:
    """A zone's fixed place in the layout: its index among the region's zones by name (every zone the
    account sees there, whatever its state).

    Fixed per zone, not per position in the VPC's own list: when the VPC's zone set changes (a pool
    pins a zone the VPC lacked), the zones it keeps keep their subnets, instead of later zones' subnets
    moving into a neighbour's range, which EC2 refuses while the neighbour's subnet still exists. A VPC
    on the region's first zones by name (what gpukit picks when nothing is pinned) has the slots it
    always had, whatever the letters (ap-northeast-1's a, c, d are slots 0, 1, 2)."""
    ordered = sorted(region_zones)
    if zone not in ordered:
        raise ValueError(f"zone {zone!r} is not among the region's zones ({', '.join(ordered)})")
    slot = ordered.index(zone)
    if slot >= MAX_ZONES:
        raise ValueError(
            f"zone {zone!r} is the region's zone number {slot + 1} by name; gpukit lays out the first "
            f"{MAX_ZONES} only: pin another zone"
        )
    return slot
