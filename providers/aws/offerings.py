"""Where EC2 instance types are offered, by Availability Zone ID, and how an EKS pool spreads over zones.

Pure data and functions, tested without Pulumi.

AZ IDs, not AZ names: in the older regions each account maps the names (`us-east-1a`) to physical
zones differently, while an AZ ID (`use1-az1`) is the same zone in every account (AWS Regions and
Availability Zones guide, "AZ IDs"). Offerings are per physical zone, so they are keyed by AZ ID,
and `nodePools.zones` takes AZ IDs.

Sources:
- AZ ID prefix per region: aws/aws-parallelcluster `tests/integration-tests/conftest_networking.py`
  ZONE_ID_MAPPING @451cc532 (Apache-2.0); the AZ ID format ("first three letters of the Region
  code, followed by the number at the end of the Region code, followed by -az, followed by a
  number", abbreviated for compound directions such as `apne1`, `apse2`): AWS Regions and
  Availability Zones guide, "AWS Availability Zones".
- AZ IDs of a region (used by the plan's fake of getAvailabilityZones only): the same "AWS
  Availability Zones" page lists use1-az1 to use1-az6, use2-az1 to use2-az3, usw2-az1 to usw2-az4.
- Instance type offerings per AZ ID: OFFERINGS below. No public source found for gpukit's GPU types
  gives the AZ IDs that offer them per region (the EC2 API answers it per account:
  `aws ec2 describe-instance-type-offerings --location-type availability-zone-id`), so the table is
  empty and every EKS GPU pool names its zones (`nodePools.zones`), as G4 pools on GKE do. A row
  added here must carry its source; a pool whose type and region have a row may then leave `zones`
  out and goes to the offering zones of the cluster's VPC.
"""

import re
from collections.abc import Sequence

# Region -> the prefix of its AZ IDs (aws-parallelcluster ZONE_ID_MAPPING, see above).
AZ_ID_PREFIXES: dict[str, str] = {
    "af-south-1": "afs1",
    "ap-east-1": "ape1",
    "ap-northeast-1": "apne1",
    "ap-northeast-2": "apne2",
    "ap-northeast-3": "apne3",
    "ap-south-1": "aps1",
    "ap-southeast-1": "apse1",
    "ap-southeast-2": "apse2",
    "ca-central-1": "cac1",
    "cn-north-1": "cnn1",
    "cn-northwest-1": "cnnw1",
    "eu-central-1": "euc1",
    "eu-north-1": "eun1",
    "eu-west-1": "euw1",
    "eu-west-2": "euw2",
    "eu-west-3": "euw3",
    "eu-south-1": "eus1",
    "me-south-1": "mes1",
    "sa-east-1": "sae1",
    "us-east-1": "use1",
    "us-east-2": "use2",
    "us-west-1": "usw1",
    "us-west-2": "usw2",
    "us-gov-east-1": "usge1",
    "us-gov-west-1": "usgw1",
}

# Region -> its AZ IDs ("AWS Availability Zones" page). Only the plan's fakes read it: a real run asks
# EC2 (getAvailabilityZones), and validation never assumes an account has every zone.
REGION_AZ_IDS: dict[str, tuple[str, ...]] = {
    "us-east-1": tuple(f"use1-az{i}" for i in range(1, 7)),
    "us-east-2": tuple(f"use2-az{i}" for i in range(1, 4)),
    "us-west-2": tuple(f"usw2-az{i}" for i in range(1, 5)),
}

# AZ IDs where EKS refuses a cluster's subnets (UnsupportedAvailabilityZoneException): the Amazon EKS
# User Guide, "View Amazon EKS networking requirements for VPC and subnets" (network-reqs.html), lists
# use1-az3 (us-east-1), usw1-az2 (us-west-1) and cac1-az3 (ca-central-1). A new VPC for EKS skips
# them, pools may not pin them, and reused subnets there fail `pulumi up` before the cluster is made.
EKS_UNSUPPORTED_AZ_IDS = frozenset({"use1-az3", "usw1-az2", "cac1-az3"})


def unsupported_subnets(subnets_by_zone_id: dict[str, list[str]]) -> str:
    """Why EKS would refuse these reused subnets (AZ ID -> subnet ids, as EC2 answers), or "" if not."""
    refused = [
        f"{subnet} ({zone_id})"
        for zone_id, subnets in sorted(subnets_by_zone_id.items())
        if zone_id in EKS_UNSUPPORTED_AZ_IDS
        for subnet in subnets
    ]
    if not refused:
        return ""
    return (
        f"gpukit:cluster.network.subnetIds: EKS does not support the zones of {', '.join(refused)} "
        f"(its networking requirements list {', '.join(sorted(EKS_UNSUPPORTED_AZ_IDS))}): "
        "name subnets in other zones"
    )


# (region, instance type) -> the AZ IDs that offer it. Every row needs a source (see the module doc).
OFFERINGS: dict[tuple[str, str], tuple[str, ...]] = {}

# An AZ ID: letters and a digit (the region), -az and a number. Local and Wavelength zones
# (`usw2-lax1-az1`) do not match: EKS managed node groups do not run there.
AZ_ID_RE = re.compile(r"(?P<prefix>[a-z]+[0-9]+)-az[0-9]+")


def az_id_prefix(region: str) -> str | None:
    return AZ_ID_PREFIXES.get(region)


def offered_zone_ids(region: str, instance_type: str) -> tuple[str, ...] | None:
    """The AZ IDs that offer `instance_type` in `region`, or None where gpukit has no sourced row."""
    return OFFERINGS.get((region, instance_type))


def zones_not_offering(
    types: Sequence[str], zone_ids: Sequence[str], offered: dict[str, set[str]]
) -> list[tuple[str, str]]:
    """(zone, type) pairs where a group's zone does not offer one of its instance types, from EC2's
    answer (`offered`: type -> AZ IDs, as getInstanceTypeOfferings lists them)."""
    return [(zone, t) for zone in zone_ids for t in types if zone not in offered.get(t, set())]


def split_evenly(total: int, parts: int) -> list[int]:
    """`total` nodes over `parts` groups, as evenly as possible, the first groups taking the rest.

    A pool's minNodes and maxNodes are its totals; split this way, every group's min stays at or below
    its max whenever the pool's does, and the groups' sums are the pool's numbers.
    """
    base, rest = divmod(total, parts)
    return [base + (1 if i < rest else 0) for i in range(parts)]


def pick_vpc_zones(
    available: list[tuple[str, str]],
    zone_count: int,
    pinned: list[str],
    excluded: frozenset[str] = frozenset(),
) -> list[tuple[str, str]]:
    """The zones (name, AZ ID) of a new VPC, in name order: every pinned AZ ID first, then the
    region's zones in name order up to `zone_count`, never one of `excluded` (EKS_UNSUPPORTED_AZ_IDS
    for an EKS cluster's VPC; validation refuses pinning them).

    Without pins this is the first `zone_count` zones by name, as before pools could pin zones, so a
    stack that pins nothing keeps its subnets. Pinned AZ IDs the account does not have are left out
    (the caller reports them).
    """
    available = [(name, zone_id) for name, zone_id in available if zone_id not in excluded]
    by_id = {zone_id: name for name, zone_id in available}
    chosen: list[tuple[str, str]] = []
    for zone_id in pinned:
        if zone_id in by_id and (by_id[zone_id], zone_id) not in chosen:
            chosen.append((by_id[zone_id], zone_id))
    for name, zone_id in sorted(available):
        if len(chosen) >= zone_count:
            break
        if (name, zone_id) not in chosen:
            chosen.append((name, zone_id))
    return sorted(chosen)
