"""Meaning checks of the AWS substrates: the VPC (new or reused) for EKS and k3s on EC2, EKS's versions,
principals and driver mode, and k3s on EC2's public subnets and alternative instance types."""

import re

from gpukit.components.api_access import public_cidrs
from gpukit.components.catalog.instances import CpuArch, UnknownInstanceTypeError
from gpukit.components.errors import Problem
from gpukit.components.spec import (
    DEFAULT_ZONE_COUNT,
    Capacity,
    ClusterSpec,
    DriverMode,
    GpuOperatorSpec,
    NodePoolSpec,
)
from gpukit.components.validate.common import CLUSTER, POOLS, check_cidr
from gpukit.providers.aws.catalog import AWS_CATALOG

# Kubernetes minors EKS can create: those in standard support in 2026-11 (1.34 released 2025-10,
# 1.35 in 2026-01, 1.36 in 2026-06; EKS gives each 14 months of standard support, EKS user guide
# "Understand the Kubernetes version lifecycle on EKS"). Older minors cost $0.60 per cluster-hour in
# extended support and are refused for new clusters.
EKS_KUBERNETES_VERSIONS = ("1.34", "1.35", "1.36")
# k3s on EC2, new VPC: the VPC is cut in eighths and the last eighth in eight public subnets of a /28
# at least (providers/aws/subnets.py).
K3S_VPC_PREFIXES = (16, 22)

_VPC_ID_RE = re.compile(r"^vpc-[0-9a-f]{8,17}$")
_SUBNET_ID_RE = re.compile(r"^subnet-[0-9a-f]{8,17}$")
_ARN_RE = re.compile(r"^arn:aws[a-z-]*:(iam|sts)::\d{12}:[a-z-]+/.+$")


def validate_eks_cluster(cluster: ClusterSpec, problems: list[Problem]) -> None:
    if cluster["kubernetes_version"] not in EKS_KUBERNETES_VERSIONS:
        problems.append(
            Problem(
                f"{CLUSTER}.kubernetesVersion",
                f"must be one of {', '.join(EKS_KUBERNETES_VERSIONS)} for eks; "
                f"got {cluster['kubernetes_version']!r}",
            )
        )
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


def validate_eks_operator(operator: GpuOperatorSpec) -> list[Problem]:
    if operator["driver"] != DriverMode.OPERATOR:
        return []
    return [
        Problem(
            "gpukit:gpuOperator.driver",
            "'operator' on eks needs an Ubuntu EKS node image, not built yet; use 'preinstalled' "
            "(the AL2023 and Bottlerocket NVIDIA images ship the driver and toolkit)",
        )
    ]


def validate_public_subnets(cluster: ClusterSpec, problems: list[Problem]) -> None:
    network = cluster["network"]
    key = f"{CLUSTER}.network.publicSubnetIds"
    public = public_cidrs(cluster["api_access_cidrs"])
    if "public_subnet_ids" in network and "vpc_id" not in network:
        problems.append(Problem(key, "only valid with vpcId; a new VPC gets public subnets of its own"))
    elif "vpc_id" in network and public and not network.get("public_subnet_ids"):
        problems.append(
            Problem(
                key,
                f"required with vpcId when apiAccessCidrs has public ranges ({', '.join(public)}): the API "
                "load balancer is internet-facing and lives in public subnets",
            )
        )


def validate_alternatives(i: int, pool: NodePoolSpec, problems: list[Problem]) -> None:
    alternatives = pool.get("alternative_instance_types")
    if alternatives is None:
        return
    key = f"{POOLS}[{i}].alternativeInstanceTypes"
    if pool.get("capacity") != Capacity.SPOT:
        problems.append(
            Problem(key, "only for capacity: spot pools (the group spreads spot requests over every type)")
        )
        return
    try:
        primary = AWS_CATALOG.machine(pool.get("instance_type", ""))
    except UnknownInstanceTypeError:
        return  # reported by the common pool checks
    for name in sorted({n for n in alternatives if alternatives.count(n) > 1 or n == primary.name}):
        problems.append(Problem(key, f"{name!r} is listed twice (instanceType counts as one)"))
    for j, name in enumerate(alternatives):
        try:
            machine = AWS_CATALOG.machine(name)
        except UnknownInstanceTypeError as err:
            hint = f"; did you mean {', '.join(err.suggestions)}?" if err.suggestions else ""
            problems.append(Problem(f"{key}[{j}]", f"unknown aws instance type {name!r}{hint}"))
            continue
        same = (machine.gpu_model, machine.gpu_count, machine.arch) == (
            primary.gpu_model,
            primary.gpu_count,
            primary.arch,
        )
        if not same:
            problems.append(
                Problem(
                    f"{key}[{j}]",
                    f"{name} has {_shape(machine.gpu_count, machine.gpu_model, machine.arch)}, but "
                    f"{primary.name} has {_shape(primary.gpu_count, primary.gpu_model, primary.arch)}: every "
                    "type of a pool needs the same GPUs and architecture (labels, taints and the driver "
                    "are per pool)",
                )
            )


def _shape(count: int, model: str | None, arch: CpuArch) -> str:
    return f"{count}x {model} ({arch.value})" if model else f"no GPUs ({arch.value})"
