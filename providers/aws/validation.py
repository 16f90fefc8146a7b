"""Meaning checks that only apply to EKS: the AWS network (new VPC or reuse) and principals."""

import re

from gpukit.components.errors import Problem
from gpukit.components.spec import DEFAULT_ZONE_COUNT, ClusterSpec
from gpukit.components.validate.common import CLUSTER, check_cidr

_VPC_ID_RE = re.compile(r"^vpc-[0-9a-f]{8,17}$")
_SUBNET_ID_RE = re.compile(r"^subnet-[0-9a-f]{8,17}$")
_ARN_RE = re.compile(r"^arn:aws[a-z-]*:(iam|sts)::\d{12}:[a-z-]+/.+$")


def validate_eks_cluster(cluster: ClusterSpec, problems: list[Problem]) -> None:
    validate_aws_network(cluster, problems)
    for i, arn in enumerate(cluster.get("admin_principal_arns", [])):
        if not _ARN_RE.match(arn):
            problems.append(
                Problem(
                    f"{CLUSTER}.adminPrincipalArns[{i}]",
                    f"must be an IAM role or user ARN (arn:aws:iam::123456789012:role/name); got {arn!r}",
                )
            )


def validate_aws_network(
    cluster: ClusterSpec,
    problems: list[Problem],
    *,
    vpc_prefixes: tuple[int, int] = (16, 20),
    min_subnets: int = 2,
    who: str = "EKS",
) -> None:
    """A new VPC (cidr) or a reused one (vpcId + subnetIds), for EKS and for k3s on EC2."""
    network = cluster["network"]
    key = f"{CLUSTER}.network"
    cidr, vpc_id, subnet_ids = network.get("cidr"), network.get("vpc_id"), network.get("subnet_ids")
    if cidr is not None and vpc_id is not None:
        problems.append(Problem(key, "set either cidr (new VPC) or vpcId + subnetIds (reuse), not both"))
    elif cidr is None and vpc_id is None:
        problems.append(Problem(key, "needs cidr (new VPC) or vpcId + subnetIds (reuse an existing VPC)"))
    if cidr is not None:
        # Private subnets are an eighth of the VPC each (providers/aws/subnets.py). EKS: the VPC CNI
        # gives every pod a VPC address, so a VPC smaller than /20 leaves nodes short of pod addresses.
        check_cidr(f"{key}.cidr", cidr, problems, prefixes=vpc_prefixes)
    zone_count = network.get("zone_count", DEFAULT_ZONE_COUNT)
    if not 2 <= zone_count <= 6:
        problems.append(Problem(f"{key}.zoneCount", f"must be 2 to 6; got {zone_count}"))
    if vpc_id is not None:
        for field, camel in (("zone_count", "zoneCount"), ("nat_gateways", "natGateways")):
            if field in network:
                problems.append(
                    Problem(
                        f"{key}.{camel}",
                        "only valid for a new VPC (cidr); a reused VPC keeps its own zones and NAT",
                    )
                )
        if not _VPC_ID_RE.match(vpc_id):
            problems.append(Problem(f"{key}.vpcId", f"must look like vpc-0123456789abcdef0; got {vpc_id!r}"))
        if not subnet_ids:
            problems.append(Problem(f"{key}.subnetIds", "required with vpcId: the private subnets to use"))
    if subnet_ids is not None:
        if vpc_id is None:
            problems.append(Problem(f"{key}.subnetIds", "only valid with vpcId"))
        if len(subnet_ids) < min_subnets:
            problems.append(
                Problem(
                    f"{key}.subnetIds",
                    f"{who} needs subnets in {min_subnets} zones or more; got {len(subnet_ids)}",
                )
            )
        for i, subnet in enumerate(subnet_ids):
            if not _SUBNET_ID_RE.match(subnet):
                problems.append(
                    Problem(
                        f"{key}.subnetIds[{i}]", f"must look like subnet-0123456789abcdef0; got {subnet!r}"
                    )
                )
        for subnet in sorted({s for s in subnet_ids if subnet_ids.count(s) > 1}):
            problems.append(
                Problem(f"{key}.subnetIds", f"{subnet!r} is listed {subnet_ids.count(subnet)} times")
            )
