"""How an EKS pool becomes managed node groups: GPU pools one per zone, CPU pools one over their zones.

One node group across zones breaks scale-from-zero for pods with zonal volumes (the autoscaler's
template node of a multi-zone group has one zone) and leaves balance-similar-node-groups nothing to
balance. So a GPU pool gets one group per zone, with identical labels and taints, which the
autoscaler balances (kubernetes/autoscaler FAQ, "balance-similar-node-groups"). Pure: tested without
Pulumi; the zones of a new VPC come from providers/aws/offerings.py pick_vpc_zones.
"""

from dataclasses import dataclass

from gpukit.components.pools import PoolFacts
from gpukit.providers.aws.offerings import offered_zone_ids, split_evenly


class ZoneError(ValueError):
    """A pool's zones cannot be served by the VPC (known only once EC2 has been asked)."""


@dataclass(frozen=True)
class GroupPlan:
    resource_suffix: str
    """Appended to the pool's component name: "" for a pool's only group, `-<AZ ID>` per zone."""
    name_prefix: str
    zone_ids: tuple[str, ...]
    """The zones whose private subnets the group uses (empty: every subnet of the VPC)."""
    min_size: int
    max_size: int


def group_plans(
    index: int,
    pool: PoolFacts,
    region: str,
    vpc_zone_ids: list[str],
    offered: dict[str, set[str]] | None = None,
) -> list[GroupPlan]:
    """The node groups of `gpukit:nodePools[index]`; `vpc_zone_ids` are the AZ IDs the VPC has private
    subnets in; `offered` what EC2 answered at `pulumi up` (instance type -> AZ IDs), for GPU pools that
    name no zones: they get a group in each VPC zone that offers every type of the pool (as many as
    `maxNodes` allows, one node each at least, in zone order; an EFA pool the first of them only)."""
    key = f"gpukit:nodePools[{index}]"
    for j, zone in enumerate(pool.zones):
        if zone not in vpc_zone_ids:
            raise ZoneError(
                f"{key}.zones[{j}]: the VPC has no private subnet in {zone} (its zones: "
                f"{', '.join(vpc_zone_ids) or 'none known'}); add a subnet there or pin another zone"
            )
    if not pool.is_gpu:
        return [GroupPlan("", f"{pool.name}-", tuple(pool.zones), pool.min_nodes, pool.max_nodes)]
    zones = list(pool.zones)
    if not zones:
        where = [
            offered[t] if offered is not None and t in offered else set(offered_zone_ids(region, t) or ())
            for t in pool.instance_type_names
        ]
        # An EFA pool stays in one zone (EFA traffic does not cross zones; providers/aws/efa.py).
        most = 1 if pool.fabric is not None else max(pool.max_nodes, 1)
        zones = [z for z in sorted(vpc_zone_ids) if all(z in w for w in where)][:most]
        if not zones:
            known = sorted(set.intersection(*where)) if where else []
            raise ZoneError(
                f"{key}.zones: none of the VPC's zones ({', '.join(vpc_zone_ids)}) offers "
                f"{', '.join(pool.instance_type_names)} (offered in: {', '.join(known) or 'no zone'}); "
                "pin zones that do, or add subnets there"
            )
    mins, maxes = split_evenly(pool.min_nodes, len(zones)), split_evenly(pool.max_nodes, len(zones))
    return [
        GroupPlan(f"-{zone}", f"{pool.name}-{zone}-", (zone,), low, high)
        for zone, low, high in zip(zones, mins, maxes, strict=True)
    ]
