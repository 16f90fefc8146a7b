"""Meaning checks on typed cluster args: each problem names the stack config key to edit.

Runs on `GpuClusterArgs` whether they came from a stack file or from Python code, so a component
used from another infra repo rejects bad input the same way `gpukit plan` does.
"""

import ipaddress
import re
from collections import Counter
from typing import Any

from components.catalog.aws_instances import AWS_INSTANCE_TYPES, UnknownInstanceTypeError, aws_instance_type
from components.catalog.drivers import CUDA_MIN_DRIVER
from components.errors import Problem
from components.spec import (
    DEFAULT_ZONE_COUNT,
    ClusterSpec,
    GpuOperatorSpec,
    NodePoolSpec,
    Platform,
    Provider,
    WorkloadsSpec,
)

# Platforms gpukit builds today, with the issue that tracks the others.
BUILT_PLATFORMS = (Platform.EKS,)
PLANNED_PLATFORMS = {Platform.GKE: "GKE GPU node pools", Platform.K3S: "k3s on GPU VMs and SSH hosts"}

# Kubernetes minors each platform can create today. EKS: the minors in standard support in 2026-11
# (1.34 released 2025-10, 1.35 in 2026-01, 1.36 in 2026-06; EKS gives each 14 months of standard
# support, per the EKS user guide "Understand the Kubernetes version lifecycle on EKS"). Older minors
# cost $0.60 per cluster-hour in extended support and are refused for new clusters.
SUPPORTED_KUBERNETES_VERSIONS: dict[Platform, tuple[str, ...]] = {
    Platform.EKS: ("1.34", "1.35", "1.36"),
}

# Chart versions whose values gpukit renders and has checked against the chart's values.yaml.
SUPPORTED_GPU_OPERATOR_CHARTS = ("v26.7.0",)

_NAME_RE = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_CLUSTER_NAME_MAX = 32  # keeps IAM role names (64 chars) room for gpukit's suffixes
_POOL_NAME_MAX = 24
_VPC_ID_RE = re.compile(r"^vpc-[0-9a-f]{8,17}$")
_SUBNET_ID_RE = re.compile(r"^subnet-[0-9a-f]{8,17}$")
_ARN_RE = re.compile(r"^arn:aws[a-z-]*:(iam|sts)::\d{12}:[a-z-]+/.+$")
_MIN_DISK_GB, _MAX_DISK_GB = 20, 16384

CLUSTER = "gpukit:cluster"
POOLS = "gpukit:nodePools"


def _check_name(key: str, name: str, limit: int, problems: list[Problem]) -> None:
    if len(name) > limit or not _NAME_RE.match(name):
        problems.append(
            Problem(
                key,
                f"must be lowercase letters, digits and '-', start with a letter, "
                f"at most {limit} characters; got {name!r}",
            )
        )


def _check_cidr(key: str, cidr: str, problems: list[Problem]) -> ipaddress.IPv4Network | None:
    try:
        network = ipaddress.ip_network(cidr, strict=True)
    except ValueError as err:
        problems.append(Problem(key, f"must be an IPv4 CIDR like 10.40.0.0/16; got {cidr!r} ({err})"))
        return None
    if not isinstance(network, ipaddress.IPv4Network):
        problems.append(Problem(key, f"must be an IPv4 CIDR; got {cidr!r}"))
        return None
    return network


def _validate_cluster(cluster: ClusterSpec, problems: list[Problem]) -> None:
    _check_name(f"{CLUSTER}.name", cluster["name"], _CLUSTER_NAME_MAX, problems)
    platform = cluster["platform"]
    provider = cluster.get("provider")
    if platform in PLANNED_PLATFORMS:
        problems.append(
            Problem(
                f"{CLUSTER}.platform",
                f"{platform.value!r} ({PLANNED_PLATFORMS[platform]}) is not built yet in this version of "
                f"gpukit; built: {', '.join(p.value for p in BUILT_PLATFORMS)}",
            )
        )
    implied = {Platform.EKS: Provider.AWS, Platform.GKE: Provider.GCP}.get(platform)
    if provider is not None and implied is not None and provider != implied:
        problems.append(
            Problem(
                f"{CLUSTER}.provider",
                f"platform {platform.value} implies provider {implied.value}; remove the key or set it to "
                f"{implied.value}, got {provider.value!r}",
            )
        )
    if platform == Platform.K3S and provider is None:
        problems.append(Problem(f"{CLUSTER}.provider", "required for platform k3s: one of aws, gcp, ssh"))

    versions = SUPPORTED_KUBERNETES_VERSIONS.get(platform)
    if versions and cluster["kubernetes_version"] not in versions:
        problems.append(
            Problem(
                f"{CLUSTER}.kubernetesVersion",
                f"must be one of {', '.join(versions)} for {platform.value}; "
                f"got {cluster['kubernetes_version']!r}",
            )
        )
    _validate_network(cluster, problems)
    for i, cidr in enumerate(cluster["api_access_cidrs"]):
        _check_cidr(f"{CLUSTER}.apiAccessCidrs[{i}]", cidr, problems)
    for i, arn in enumerate(cluster.get("admin_principal_arns", [])):
        if not _ARN_RE.match(arn):
            problems.append(
                Problem(
                    f"{CLUSTER}.adminPrincipalArns[{i}]",
                    f"must be an IAM role or user ARN (arn:aws:iam::123456789012:role/name); got {arn!r}",
                )
            )


def _validate_network(cluster: ClusterSpec, problems: list[Problem]) -> None:
    network = cluster["network"]
    key = f"{CLUSTER}.network"
    cidr, vpc_id, subnet_ids = network.get("cidr"), network.get("vpc_id"), network.get("subnet_ids")
    if cidr is not None and vpc_id is not None:
        problems.append(Problem(key, "set either cidr (new VPC) or vpcId + subnetIds (reuse), not both"))
    elif cidr is None and vpc_id is None:
        problems.append(Problem(key, "needs cidr (new VPC) or vpcId + subnetIds (reuse an existing VPC)"))
    if cidr is not None:
        parsed = _check_cidr(f"{key}.cidr", cidr, problems)
        # Private subnets are an eighth of the VPC each (providers/aws/subnets.py); the VPC CNI gives
        # every pod a VPC address, so a VPC smaller than /20 leaves nodes short of pod addresses.
        if parsed is not None and not 16 <= parsed.prefixlen <= 20:
            problems.append(Problem(f"{key}.cidr", f"prefix must be /16 to /20; got /{parsed.prefixlen}"))
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
            problems.append(Problem(f"{key}.subnetIds", "required with vpcId: two private subnets or more"))
    if subnet_ids is not None:
        if vpc_id is None:
            problems.append(Problem(f"{key}.subnetIds", "only valid with vpcId"))
        if len(subnet_ids) < 2:
            problems.append(
                Problem(f"{key}.subnetIds", f"EKS needs subnets in two zones or more; got {len(subnet_ids)}")
            )
        for i, subnet in enumerate(subnet_ids):
            if not _SUBNET_ID_RE.match(subnet):
                problems.append(
                    Problem(
                        f"{key}.subnetIds[{i}]", f"must look like subnet-0123456789abcdef0; got {subnet!r}"
                    )
                )
        for subnet, count in Counter(subnet_ids).items():
            if count > 1:
                problems.append(Problem(f"{key}.subnetIds", f"{subnet!r} is listed {count} times"))


def _validate_pool(i: int, pool: NodePoolSpec, problems: list[Problem]) -> None:
    key = f"{POOLS}[{i}]"
    _check_name(f"{key}.name", pool["name"], _POOL_NAME_MAX, problems)
    for field in ("min_nodes", "max_nodes"):
        if pool[field] < 0:
            camel = "minNodes" if field == "min_nodes" else "maxNodes"
            problems.append(Problem(f"{key}.{camel}", f"must be >= 0; got {pool[field]}"))
    if pool["max_nodes"] == 0:
        problems.append(Problem(f"{key}.maxNodes", "must be >= 1 (a pool that can never have a node)"))
    if pool["min_nodes"] > pool["max_nodes"] >= 0:
        problems.append(
            Problem(
                f"{key}.minNodes",
                f"must be <= maxNodes ({pool['max_nodes']}); got {pool['min_nodes']}",
            )
        )
    disk = pool.get("disk_size_gb")
    if disk is not None and not _MIN_DISK_GB <= disk <= _MAX_DISK_GB:
        problems.append(
            Problem(f"{key}.diskSizeGb", f"must be {_MIN_DISK_GB} to {_MAX_DISK_GB} GiB; got {disk}")
        )
    try:
        aws_instance_type(pool["instance_type"])
    except UnknownInstanceTypeError as err:
        hint = (
            f"did you mean {', '.join(err.suggestions)}?"
            if err.suggestions
            else ("see components/catalog/aws_instances.py for the types gpukit knows")
        )
        problems.append(
            Problem(f"{key}.instanceType", f"unknown instance type {pool['instance_type']!r}; {hint}")
        )


def _validate_pools(pools: list[NodePoolSpec], problems: list[Problem]) -> None:
    if not pools:
        problems.append(Problem(POOLS, "needs at least one pool"))
        return
    for i, pool in enumerate(pools):
        _validate_pool(i, pool, problems)
    names = Counter(p["name"] for p in pools)
    for i, pool in enumerate(pools):
        if names[pool["name"]] > 1:
            problems.append(Problem(f"{POOLS}[{i}].name", f"duplicate pool name {pool['name']!r}"))
    hosts_system = [p for p in pools if p["instance_type"] in _known_cpu_types() and p["min_nodes"] >= 1]
    if not hosts_system:
        problems.append(
            Problem(
                POOLS,
                "no pool can host system pods (CoreDNS, the GPU Operator, the autoscaler): add a pool of a "
                "non-GPU instance type with minNodes >= 1",
            )
        )


def _known_cpu_types() -> set[str]:
    return {name for name, t in AWS_INSTANCE_TYPES.items() if not t.has_gpu}


def _validate_operator(operator: GpuOperatorSpec, platform: Platform, problems: list[Problem]) -> None:
    key = "gpukit:gpuOperator"
    if operator["chart_version"] not in SUPPORTED_GPU_OPERATOR_CHARTS:
        problems.append(
            Problem(
                f"{key}.chartVersion",
                f"must be one of {', '.join(SUPPORTED_GPU_OPERATOR_CHARTS)} (the charts gpukit's values are "
                f"checked against); got {operator['chart_version']!r}",
            )
        )
    if platform == Platform.EKS and operator["driver"].value == "operator":
        problems.append(
            Problem(
                f"{key}.driver",
                "'operator' on eks needs an Ubuntu EKS node image, not built yet; use 'preinstalled' "
                "(the AL2023 and Bottlerocket NVIDIA images ship the driver and toolkit)",
            )
        )


def _validate_workloads(workloads: WorkloadsSpec, problems: list[Problem]) -> None:
    cuda = workloads.get("cuda_version")
    if cuda is not None and cuda not in CUDA_MIN_DRIVER:
        problems.append(
            Problem(
                "gpukit:workloads.cudaVersion",
                f"must be a CUDA release gpukit knows ({', '.join(CUDA_MIN_DRIVER)}); got {cuda!r}",
            )
        )


SECTIONS = ("cluster", "nodePools", "gpuOperator", "workloads")


def validate_cluster_args(args: Any, sections: tuple[str, ...] = SECTIONS) -> list[Problem]:
    """Every meaning problem in `args` (a GpuClusterArgs), in config order.

    `sections` limits the checks to config sections whose structure parsed cleanly.
    """
    problems: list[Problem] = []
    if "cluster" in sections:
        _validate_cluster(args["cluster"], problems)
    if "nodePools" in sections:
        _validate_pools(args["node_pools"], problems)
    if "gpuOperator" in sections and "cluster" in sections:
        _validate_operator(args["gpu_operator"], args["cluster"]["platform"], problems)
    if "workloads" in sections:
        _validate_workloads(args.get("workloads", {}), problems)
    return problems
