"""Meaning checks of the AWS substrates: the VPC (new or reused) for EKS and k3s on EC2, EKS's versions,
principals and driver mode, and k3s on EC2's public subnets and alternative instance types."""

import ipaddress
import re

from gpukit.components.api_access import (
    INTERNAL_RANGES,
    NON_PUBLIC_RANGES,
    public_cidrs,
    unreachable_private_api,
)
from gpukit.components.catalog.instances import CpuArch, UnknownInstanceTypeError
from gpukit.components.errors import Problem
from gpukit.components.spec import (
    DEFAULT_ZONE_COUNT,
    Capacity,
    ClusterSpec,
    DriverMode,
    GpuOperatorSpec,
    NodeImage,
    NodePoolSpec,
    SharingMode,
)
from gpukit.components.validate.common import CLUSTER, POOLS, check_cidr
from gpukit.providers.aws.catalog import AWS_CATALOG
from gpukit.providers.aws.offerings import (
    AZ_ID_RE,
    EKS_UNSUPPORTED_AZ_IDS,
    az_id_prefix,
    offered_zone_ids,
)

# Kubernetes minors EKS can create: those in standard support in 2026-11 (1.34 released 2025-10,
# 1.35 in 2026-01, 1.36 in 2026-06; EKS gives each 14 months of standard support, EKS user guide
# "Understand the Kubernetes version lifecycle on EKS"). Older minors cost $0.60 per cluster-hour in
# extended support and are refused for new clusters.
EKS_KUBERNETES_VERSIONS = ("1.34", "1.35", "1.36")
# k3s on EC2, new VPC: the VPC is cut in eighths and the last eighth in eight public subnets of a /28
# at least (providers/aws/subnets.py).
K3S_VPC_PREFIXES = (16, 22)

# Whole values (fullmatch): `$` would let a trailing newline through.
_VPC_ID_RE = re.compile(r"vpc-[0-9a-f]{8,17}")
_SUBNET_ID_RE = re.compile(r"subnet-[0-9a-f]{8,17}")
# IAM principals an EKS access entry takes: a role or a user, with an optional path (IAM user guide,
# "IAM identifiers": arn:aws:iam::account:role/path/name; names are letters, digits and +=,.@_-).
_IAM_NAME = r"[\w+=,.@-]+"
_PRINCIPAL_RE = re.compile(
    # The commercial partition only: gpukit builds in its regions (regions.py) and writes arn:aws: ARNs.
    rf"arn:(?P<partition>aws):iam::(?P<account>\d{{12}}):(?P<kind>role|user)/"
    rf"(?:{_IAM_NAME}/)*(?P<name>{_IAM_NAME})"
)
IAM_NAME_MAX = 64
_ASSUMED_ROLE_RE = re.compile(
    rf"arn:(?P<partition>aws[a-z-]*):sts::(?P<account>\d{{12}}):assumed-role/(?P<role>{_IAM_NAME})/.+"
)
_ANY_ARN_RE = re.compile(r"arn:aws[a-z-]*:(?P<service>[a-z]+)::(?P<account>\d{12}):(?P<rest>.+)")
# CloudWatch Logs retention periods (AWS CloudFormation AWS::Logs::LogGroup RetentionInDays: "Possible
# values are: 1, 3, 5, 7, 14, 30, ... 3653", as quoted in aws-cdk logs.generated.ts).
LOG_RETENTION_DAYS: tuple[int, ...] = (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731)
LOG_RETENTION_DAYS += (1096, 1827, 2192, 2557, 2922, 3288, 3653)
CONTROL_PLANE_LOGS = ["api", "audit", "authenticator", "controllerManager", "scheduler"]
"""The EKS control-plane log types gpukit turns on: all five (EKS user guide, "Send control plane logs
to CloudWatch Logs")."""
DEFAULT_LOG_RETENTION_DAYS = 30


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
    validate_public_access_ranges(cluster.get("api_access_cidrs", []), problems)
    unreachable = unreachable_private_api(
        cluster.get("api_access_cidrs", []), cluster.get("network", {}).get("cidr")
    )
    if unreachable:
        problems.append(Problem(f"{CLUSTER}.apiAccessCidrs", unreachable))
    validate_admin_principals(cluster.get("admin_principal_arns", []), problems)
    days = cluster.get("log_retention_days", DEFAULT_LOG_RETENTION_DAYS)
    if days not in LOG_RETENTION_DAYS:
        problems.append(
            Problem(
                f"{CLUSTER}.logRetentionDays",
                f"must be a retention CloudWatch Logs takes: {', '.join(map(str, LOG_RETENTION_DAYS))}; "
                f"got {days}",
            )
        )


# Reserved ranges no client reaches the public endpoint from (loopback, link-local, multicast, ...:
# api_access.NON_PUBLIC_RANGES less private space, which goes to the private endpoint, and less the
# documentation ranges, the example stacks' placeholders for an office range). EKS refuses them: a
# public access CIDR "cannot include reserved addresses" (EKS user guide, "Configure network access to
# cluster API server endpoint").
_UNREACHABLE_RANGES = tuple(
    r
    for r in NON_PUBLIC_RANGES
    if not any(r.subnet_of(i) for i in INTERNAL_RANGES)
    and str(r) not in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24")
)


def validate_public_access_ranges(cidrs: list[str], problems: list[Problem]) -> None:
    for i, cidr in enumerate(cidrs):
        try:
            network = ipaddress.IPv4Network(cidr)
        except ValueError:
            continue  # reported by the common CIDR checks
        reserved = next((r for r in _UNREACHABLE_RANGES if network.subnet_of(r)), None)
        if reserved is not None:
            problems.append(
                Problem(
                    f"{CLUSTER}.apiAccessCidrs[{i}]",
                    f"{cidr} lies in reserved range {reserved}, which EKS refuses in public access CIDRs "
                    "and no client reaches the API from; list your office/VPN ranges",
                )
            )


def validate_admin_principals(arns: list[str], problems: list[Problem]) -> None:
    """EKS access entries take IAM roles and users (EKS user guide, "Create access entries": not
    STS sessions, groups or the root user)."""
    key = f"{CLUSTER}.adminPrincipalArns"
    for i, arn in enumerate(arns):
        if principal := _PRINCIPAL_RE.fullmatch(arn):
            # IAM user guide, "IAM and AWS STS quotas": role and user names are at most 64 characters,
            # so a longer one names no principal and its access entry would fail.
            if len(principal["name"]) > IAM_NAME_MAX:
                problems.append(
                    Problem(
                        f"{key}[{i}]",
                        f"the {principal['kind']} name {principal['name']!r} is longer than IAM's "
                        f"{IAM_NAME_MAX} characters; got {arn!r}",
                    )
                )
            continue
        if assumed := _ASSUMED_ROLE_RE.fullmatch(arn):
            reason = (
                "is an STS session (assumed-role) ARN, which access entries refuse; use the role's IAM ARN, "
                f"arn:{assumed['partition']}:iam::{assumed['account']}:role/{assumed['role']} "
                "(with its path, if it has one)"
            )
        elif (other := _ANY_ARN_RE.fullmatch(arn)) and other["rest"] == "root":
            reason = "is the account root, which access entries refuse; name an IAM role or user"
        elif other and other["rest"].startswith("group/"):
            reason = "is an IAM group, which access entries refuse; name the group's roles or users"
        else:
            reason = "must be an IAM role or user ARN (arn:aws:iam::123456789012:role/name or :user/name)"
        problems.append(Problem(f"{key}[{i}]", f"{reason}; got {arn!r}"))
    for arn in sorted({a for a in arns if arns.count(a) > 1}):
        problems.append(Problem(key, f"{arn!r} is listed {arns.count(arn)} times (one access entry each)"))
    # One role or user under two paths: IAM names are unique in an account whatever the path, so both
    # ARNs would be one principal (and one access entry) at most.
    by_principal: dict[str, list[str]] = {}
    for arn in dict.fromkeys(a for a in arns if _PRINCIPAL_RE.fullmatch(a)):
        by_principal.setdefault(principal_key(arn), []).append(arn)
    for same in (arns_ for arns_ in by_principal.values() if len(arns_) > 1):
        problems.append(
            Problem(
                key,
                f"{' and '.join(map(repr, same))} name the same IAM principal (names are unique in an "
                "account whatever the path); keep the one with its real path",
            )
        )


def principal_key(principal: str) -> str:
    """A resource-name-safe key that stays with one principal wherever it sits in adminPrincipalArns:
    `<account>-<role|user>-<name>`. IAM role and user names are unique in an account whatever their
    path (IAM user guide, "IAM identifiers"), so the path is left out; the ARN itself holds `::`, which a
    Pulumi URN cannot."""
    found = _PRINCIPAL_RE.fullmatch(principal)
    if found is None:  # refused by validate_admin_principals before anything is built
        raise ValueError(f"not an IAM role or user ARN: {principal!r}")
    return f"{found['account']}-{found['kind']}-{found['name']}"


def principal_is_caller(principal: str, caller_arn: str) -> bool:
    """Whether an admin principal is the deployer itself, whose access entry EKS already makes
    (bootstrap_cluster_creator_admin_permissions): a second entry for it would fail.

    An assumed-role caller (arn:aws:sts::A:assumed-role/R/session) is role R of account A; the STS ARN
    drops the role's path, so a role matches on account and name."""
    if principal == caller_arn:
        return True
    wanted = _PRINCIPAL_RE.fullmatch(principal)
    assumed = _ASSUMED_ROLE_RE.fullmatch(caller_arn)
    return bool(
        wanted
        and assumed
        and wanted["kind"] == "role"
        and (wanted["account"], wanted["name"]) == (assumed["account"], assumed["role"])
    )


def validate_eks_pools(cluster: ClusterSpec, pools: list[NodePoolSpec], problems: list[Problem]) -> None:
    """Zones (AZ IDs, offered, enough nodes for one group each) and spot alternatives of EKS pools."""
    region = cluster.get("region", "")
    pinned: list[str] = []
    for i, pool in enumerate(pools):
        validate_alternatives(i, pool, problems, same_size=True)
        mode = pool["sharing"]["mode"] if "sharing" in pool else SharingMode.NONE
        if mode is not SharingMode.NONE and pool.get("node_image") == NodeImage.BOTTLEROCKET:
            # Bottlerocket NVIDIA images run their own device plugin and gpukit keeps the GPU
            # Operator's off those nodes (providers/aws/eks/node_group.py), so the Operator's
            # device-plugin config and MIG manager, which carry the setting, never reach them.
            problems.append(
                Problem(
                    f"{POOLS}[{i}].sharing",
                    "GPU sharing runs through the GPU Operator's device plugin, which does not run on "
                    "Bottlerocket nodes; use nodeImage al2023 for this pool or remove sharing; got "
                    f"nodeImage bottlerocket with mode {mode.value}",
                )
            )
        pinned += [z for z in pool.get("zones", []) if z not in pinned]
        _validate_eks_zones(i, pool, region, problems)
        for j, name in enumerate(pool.get("alternative_instance_types", [])):
            offered = offered_zone_ids(region, name)
            missing = [z for z in pool.get("zones", []) if offered is not None and z not in offered]
            if missing:
                problems.append(
                    Problem(
                        f"{POOLS}[{i}].alternativeInstanceTypes[{j}]",
                        f"{name} is not offered in {', '.join(missing)} (zones that offer it: "
                        f"{', '.join(offered or ())}); every type of a group must be offered in its zone",
                    )
                )
    network = cluster.get("network", {})
    zone_count = network.get("zone_count", DEFAULT_ZONE_COUNT)
    if "cidr" in network and len(pinned) > zone_count:
        problems.append(
            Problem(
                f"{CLUSTER}.network.zoneCount",
                f"the pools pin {len(pinned)} zones ({', '.join(pinned)}) but the new VPC has {zone_count}; "
                f"raise zoneCount to {len(pinned)} (6 at most) or pin fewer zones",
            )
        )


def _validate_eks_zones(i: int, pool: NodePoolSpec, region: str, problems: list[Problem]) -> None:
    key = f"{POOLS}[{i}]"
    zones = pool.get("zones")
    try:
        machine = AWS_CATALOG.machine(pool.get("instance_type", ""))
    except UnknownInstanceTypeError:
        machine = None  # reported by the common pool checks
    offered = offered_zone_ids(region, machine.name) if machine else None
    if zones is None:
        # Left out: Karpenter picks zones that offer the type among the cluster's subnets; managed
        # node groups get the VPC's zones that EC2 says offer it, asked at `pulumi up` (the plan says so).
        return
    if not zones:
        problems.append(Problem(f"{key}.zones", "must name one zone at least, or be left out"))
    prefix = az_id_prefix(region)
    for j, zone in enumerate(zones):
        shape = AZ_ID_RE.fullmatch(zone)
        if shape is None:
            hint = f"like {prefix}-az1" if prefix else "like usw2-az1"
            problems.append(
                Problem(
                    f"{key}.zones[{j}]",
                    f"must be an AZ ID {hint} (the same zone in every account; zone names such as "
                    f"{region or 'us-west-2'}a map differently per account); got {zone!r}",
                )
            )
        elif prefix is not None and shape["prefix"] != prefix:
            problems.append(
                Problem(
                    f"{key}.zones[{j}]",
                    f"must be an AZ ID of the cluster's region {region} ({prefix}-az<N>); got {zone!r}",
                )
            )
        elif zone in EKS_UNSUPPORTED_AZ_IDS:
            problems.append(
                Problem(
                    f"{key}.zones[{j}]",
                    f"EKS does not support {zone} (its networking requirements list "
                    f"{', '.join(sorted(EKS_UNSUPPORTED_AZ_IDS))}): pin another zone of {region}; "
                    f"got {zone!r}",
                )
            )
        elif offered is not None and machine is not None and zone not in offered:
            problems.append(
                Problem(
                    f"{key}.zones[{j}]",
                    f"{zone} does not offer {machine.name}; zones that do: {', '.join(offered)}",
                )
            )
    for zone in sorted({z for z in zones if zones.count(z) > 1}):
        problems.append(Problem(f"{key}.zones", f"{zone!r} is listed {zones.count(zone)} times"))
    max_nodes = pool.get("max_nodes", 0)
    if machine is not None and machine.has_gpu and zones and max_nodes < len(set(zones)):
        problems.append(
            Problem(
                f"{key}.maxNodes",
                f"a GPU pool is one node group per zone and each group needs a maxNodes of 1 or more: "
                f"{len(set(zones))} zones need maxNodes {len(set(zones))} or more; got {max_nodes}",
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
        if not _VPC_ID_RE.fullmatch(vpc_id):
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
            if not _SUBNET_ID_RE.fullmatch(subnet):
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


def validate_alternatives(
    i: int, pool: NodePoolSpec, problems: list[Problem], *, same_size: bool = False
) -> None:
    """Alternatives share the primary type's GPU model, GPU count and architecture; with `same_size`
    (EKS) also its vCPUs and memory: the Cluster Autoscaler builds a group's template node from one
    type, so a smaller alternative would break its fit decisions."""
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
        elif same_size and (machine.vcpu, machine.memory_gib) != (primary.vcpu, primary.memory_gib):
            problems.append(
                Problem(
                    f"{key}[{j}]",
                    f"{name} has {machine.vcpu} vCPUs and {machine.memory_gib} GiB, but {primary.name} has "
                    f"{primary.vcpu} vCPUs and {primary.memory_gib} GiB: on EKS every type of a pool needs "
                    "the same size (the autoscaler's template node is built from one type)",
                )
            )


def _shape(count: int, model: str | None, arch: CpuArch) -> str:
    return f"{count}x {model} ({arch.value})" if model else f"no GPUs ({arch.value})"
