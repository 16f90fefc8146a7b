"""The VPC a cluster on AWS lives in: the one `network` names (reused), or a new AwsNetwork. Shared by
EKS and k3s on EC2."""

from dataclasses import dataclass
from typing import Optional

import pulumi

from gpukit.components.spec import DEFAULT_ZONE_COUNT, ClusterSpec, NatGateways
from gpukit.providers.aws.network import AwsNetwork


@dataclass(frozen=True)
class ClusterVpc:
    vpc_id: pulumi.Input[str]
    private_subnet_ids: pulumi.Input[list[str]]
    """Where the nodes go."""
    public_subnet_ids: Optional[pulumi.Input[list[str]]]
    """For internet-facing load balancers; a reused VPC has them only where the stack names them."""
    private_subnet_by_zone_id: Optional[dict[str, pulumi.Input[str]]] = None
    """A new VPC's private subnet per AZ ID (a reused VPC's zones are looked up: reused_subnet_zones)."""


def reused_subnet_zones(subnet_ids: list[str], opts: pulumi.InvokeOptions) -> dict[str, list[str]]:
    """AZ ID -> the reused VPC's private subnets there, asked of EC2 (the stack names only subnet ids,
    and which zone a subnet is in cannot be known offline)."""
    import pulumi_aws as aws

    zones: dict[str, list[str]] = {}
    for subnet_id in subnet_ids:
        zones.setdefault(aws.ec2.get_subnet(id=subnet_id, opts=opts).availability_zone_id, []).append(
            subnet_id
        )
    return zones


def cluster_vpc(
    name: str,
    spec: ClusterSpec,
    opts: pulumi.ResourceOptions,
    pinned_zone_ids: Optional[list[str]] = None,
    excluded_zone_ids: frozenset[str] = frozenset(),
) -> ClusterVpc:
    network = spec["network"]
    if "vpc_id" in network:
        return ClusterVpc(network["vpc_id"], network["subnet_ids"], network.get("public_subnet_ids"))
    vpc = AwsNetwork(
        f"{name}-network",
        {
            "cluster_name": spec["name"],
            "cidr": network["cidr"],
            "zone_count": network.get("zone_count", DEFAULT_ZONE_COUNT),
            "nat_gateways": network.get("nat_gateways", NatGateways.SINGLE),
            "pinned_zone_ids": pinned_zone_ids or [],
            "excluded_zone_ids": sorted(excluded_zone_ids),
            "region": spec.get("region", ""),
        },
        opts=opts,
    )
    return ClusterVpc(
        vpc.vpc_id, vpc.private_subnet_ids, vpc.public_subnet_ids, dict(vpc.private_subnet_by_zone_id)
    )
