"""Meaning checks on typed cluster args: each problem names the stack config key to edit.

Runs on `GpuClusterArgs` whether they came from a stack file or from Python code, so a component
used from another infra repo rejects bad input the same way `gpukit plan` does. Checks that belong
to one place live in validation_eks.py, validation_gke.py, validation_k3s.py (k3s versions, existing
hosts) and validation_k3s_cloud.py (k3s on aws and gcp).
"""

from collections import Counter
from typing import Any

from gpukit.components.catalog.clouds import can_attach_gpus, instance_type, instance_types
from gpukit.components.catalog.drivers import CUDA_MIN_DRIVER
from gpukit.components.catalog.instances import UnknownInstanceTypeError
from gpukit.components.config.schema import CLUSTER_FIELDS, POOL_FIELDS, Field, missing_problem
from gpukit.components.errors import Problem
from gpukit.components.spec import (
    IMPLIED_PROVIDER,
    ClusterSpec,
    GpuOperatorSpec,
    NodePoolSpec,
    Platform,
    Provider,
    WorkloadsSpec,
    cloud_of,
)
from gpukit.components.validate.common import CLUSTER, POOLS, check_cidr, check_name
from gpukit.components.validate.k3s import validate_k3s_cluster
from gpukit.components.validate.k3s_cloud import validate_k3s_cloud
from gpukit.providers.aws.validation import validate_eks_cluster
from gpukit.providers.gcp.validation import validate_gke_cluster, validate_gke_operator, validate_gke_pool

BUILT_PLATFORMS = (Platform.EKS, Platform.GKE, Platform.K3S)

# Kubernetes minors EKS can create: those in standard support in 2026-11 (1.34 released 2025-10,
# 1.35 in 2026-01, 1.36 in 2026-06; EKS gives each 14 months of standard support, EKS user guide
# "Understand the Kubernetes version lifecycle on EKS"). Older minors cost $0.60 per cluster-hour in
# extended support and are refused for new clusters. GKE's list depends on the release channel
# (validation_gke.py).
EKS_KUBERNETES_VERSIONS = ("1.34", "1.35", "1.36")

# Chart versions whose values gpukit renders and has checked against the chart's values.yaml.
SUPPORTED_GPU_OPERATOR_CHARTS = ("v26.7.0",)

_CLUSTER_NAME_MAX = 32  # keeps IAM role and service account names within their limits
_POOL_NAME_MAX = 24
_MIN_DISK_GB, _MAX_DISK_GB = 20, 16384

# Where a cluster runs: the platform, and for k3s whose machines (gpukit builds cloud VMs on aws and
# gcp; ssh joins existing hosts).
EKS, GKE, K3S_AWS, K3S_GCP, K3S_SSH = "eks", "gke", "k3s-aws", "k3s-gcp", "k3s-ssh"
K3S_ANY = (K3S_AWS, K3S_GCP, K3S_SSH)
_TARGET_WORDS = {
    EKS: "eks",
    GKE: "gke",
    K3S_AWS: "k3s on aws",
    K3S_GCP: "k3s on gcp",
    K3S_SSH: "k3s on existing hosts (provider ssh)",
}


def target_of(cluster: ClusterSpec) -> str:
    platform = cluster["platform"]
    if platform != Platform.K3S:
        return str(platform.value)
    return f"k3s-{cluster['provider'].value}"


def _where(targets: tuple[str, ...]) -> str:
    if set(targets) == set(K3S_ANY):
        return "platform k3s"
    return " and ".join(f"platform {t}" if t in (EKS, GKE) else _TARGET_WORDS[t] for t in targets)


# Keys that mean something in some places only: (section, attribute, config spelling, where).
PLATFORM_KEYS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("cluster", "admin_principal_arns", "adminPrincipalArns", (EKS,)),
    ("network", "vpc_id", "vpcId", (EKS, K3S_AWS)),
    ("network", "subnet_ids", "subnetIds", (EKS, K3S_AWS)),
    ("network", "public_subnet_ids", "publicSubnetIds", (K3S_AWS,)),
    ("network", "zone_count", "zoneCount", (EKS, K3S_AWS)),
    ("network", "nat_gateways", "natGateways", (EKS, K3S_AWS)),
    ("pool", "node_image", "nodeImage", (EKS,)),
    ("pool", "alternative_instance_types", "alternativeInstanceTypes", (K3S_AWS,)),
    ("cluster", "zone", "zone", (GKE,)),
    ("cluster", "release_channel", "releaseChannel", (GKE,)),
    ("cluster", "deletion_protection", "deletionProtection", (GKE,)),
    ("network", "pods_cidr", "podsCidr", (GKE,)),
    ("network", "services_cidr", "servicesCidr", (GKE,)),
    ("network", "network_id", "networkId", (GKE, K3S_GCP)),
    ("network", "subnetwork_id", "subnetworkId", (GKE, K3S_GCP)),
    ("network", "pods_range_name", "podsRangeName", (GKE,)),
    ("network", "services_range_name", "servicesRangeName", (GKE,)),
    ("pool", "zones", "zones", (GKE, K3S_GCP)),
    ("operator", "gke_driver_version", "gkeDriverVersion", (GKE,)),
    ("cluster", "k3s_version", "k3sVersion", K3S_ANY),
    ("cluster", "api_address", "apiAddress", (K3S_SSH,)),
    ("cluster", "traefik", "traefik", K3S_ANY),
    ("pool", "role", "role", K3S_ANY),
    ("pool", "hosts", "hosts", (K3S_SSH,)),
    ("top", "ssh_private_key", "sshPrivateKey", (K3S_SSH,)),
)


def _platform_key_problems(args: Any, target: str) -> list[Problem]:
    problems = []
    sections: dict[str, list[tuple[str, dict[str, Any]]]] = {
        "cluster": [(CLUSTER, args["cluster"])],
        "network": [(f"{CLUSTER}.network", args["cluster"].get("network", {}))],
        "pool": [(f"{POOLS}[{i}]", p) for i, p in enumerate(args["node_pools"])],
        "operator": [("gpukit:gpuOperator", args["gpu_operator"])],
        "top": [("gpukit:", args)],
    }
    for section, attr, camel, allowed in PLATFORM_KEYS:
        if target in allowed:
            continue
        for prefix, values in sections[section]:
            if attr in values:
                joiner = "" if prefix.endswith(":") else "."
                problems.append(
                    Problem(
                        f"{prefix}{joiner}{camel}",
                        f"only for {_where(allowed)}; this cluster is {_TARGET_WORDS[target]}",
                    )
                )
    return problems


def _validate_cluster(cluster: ClusterSpec, problems: list[Problem]) -> bool:
    """Common cluster checks; False when the platform itself is unusable (skip the rest)."""
    check_name(f"{CLUSTER}.name", cluster["name"], _CLUSTER_NAME_MAX, problems)
    platform = cluster["platform"]
    provider = cluster.get("provider")
    if platform == Platform.K3S:
        if provider is None:
            problems.append(Problem(f"{CLUSTER}.provider", "required for platform k3s: one of aws, gcp, ssh"))
            return False
        if provider != Provider.SSH:
            _check_api_cidrs(cluster, problems)
        return True
    implied = IMPLIED_PROVIDER[platform]
    if provider is not None and provider != implied:
        problems.append(
            Problem(
                f"{CLUSTER}.provider",
                f"platform {platform.value} implies provider {implied.value}; remove the key or set it to "
                f"{implied.value}, got {provider.value!r}",
            )
        )
    if platform == Platform.EKS and cluster["kubernetes_version"] not in EKS_KUBERNETES_VERSIONS:
        problems.append(
            Problem(
                f"{CLUSTER}.kubernetesVersion",
                f"must be one of {', '.join(EKS_KUBERNETES_VERSIONS)} for eks; "
                f"got {cluster['kubernetes_version']!r}",
            )
        )
    _check_api_cidrs(cluster, problems)
    return True


def _check_api_cidrs(cluster: ClusterSpec, problems: list[Problem]) -> None:
    for i, cidr in enumerate(cluster.get("api_access_cidrs", [])):
        check_cidr(f"{CLUSTER}.apiAccessCidrs[{i}]", cidr, problems)


def _presence_problems(args: Any, target: str, pools_ok: bool) -> list[Problem]:
    """Keys required for cloud machines are refused for existing hosts, and the other way round."""
    problems: list[Problem] = []
    cloud = target != K3S_SSH
    targets: list[tuple[str, Any, tuple[Field, ...]]] = [(CLUSTER, args["cluster"], CLUSTER_FIELDS)]
    if pools_ok:
        targets += [(f"{POOLS}[{i}]", p, POOL_FIELDS) for i, p in enumerate(args["node_pools"])]
    for prefix, values, fields in targets:
        for field in fields:
            if not (field.cloud or field.cloud_only):
                continue
            present = field.attr in values
            if cloud and not present and field.cloud:
                problems.append(missing_problem(f"{prefix}.{field.key}", field))
            elif not cloud and present:
                problems.append(
                    Problem(
                        f"{prefix}.{field.key}",
                        "only for clusters on cloud machines (eks, gke, k3s on aws or gcp); this cluster "
                        "is k3s on existing hosts",
                    )
                )
    return problems


def _is_cloud_pool(pool: NodePoolSpec) -> bool:
    return all(attr in pool for attr in ("instance_type", "min_nodes", "max_nodes"))


def _validate_pool(i: int, pool: NodePoolSpec, cloud: Provider, problems: list[Problem]) -> None:
    key = f"{POOLS}[{i}]"
    check_name(f"{key}.name", pool["name"], _POOL_NAME_MAX, problems)
    if not _is_cloud_pool(pool):
        return  # host pools (provider ssh) are checked in validation_k3s.py; missing keys are reported
    for field, camel in (("min_nodes", "minNodes"), ("max_nodes", "maxNodes")):
        if pool[field] < 0:  # type: ignore[literal-required]
            problems.append(Problem(f"{key}.{camel}", f"must be >= 0; got {pool[field]}"))  # type: ignore[literal-required]
    if pool["max_nodes"] == 0:
        problems.append(Problem(f"{key}.maxNodes", "must be >= 1 (a pool that can never have a node)"))
    if pool["min_nodes"] > pool["max_nodes"] >= 0:
        problems.append(
            Problem(f"{key}.minNodes", f"must be <= maxNodes ({pool['max_nodes']}); got {pool['min_nodes']}")
        )
    disk = pool.get("disk_size_gb")
    if disk is not None and not _MIN_DISK_GB <= disk <= _MAX_DISK_GB:
        problems.append(
            Problem(f"{key}.diskSizeGb", f"must be {_MIN_DISK_GB} to {_MAX_DISK_GB} GiB; got {disk}")
        )
    try:
        machine = instance_type(cloud, pool["instance_type"])
    except UnknownInstanceTypeError as err:
        hint = (
            f"did you mean {', '.join(err.suggestions)}?"
            if err.suggestions
            else (f"see components/catalog for the {cloud.value} types gpukit knows")
        )
        problems.append(
            Problem(
                f"{key}.instanceType",
                f"unknown {cloud.value} instance type {pool['instance_type']!r}; {hint}",
            )
        )
        return
    gpu = pool.get("gpu")
    if gpu is None or can_attach_gpus(cloud, machine):
        if gpu is not None and gpu["count"] < 1:
            problems.append(Problem(f"{key}.gpu.count", f"must be >= 1; got {gpu['count']}"))
        return
    if not machine.has_gpu:
        problems.append(
            Problem(f"{key}.gpu", f"{machine.name} has no GPUs and takes none attached; remove the key")
        )
    elif (gpu["model"], gpu["count"]) != (machine.gpu_model, machine.gpu_count):
        problems.append(
            Problem(
                f"{key}.gpu",
                f"{machine.name} comes with {machine.gpu_count}x {machine.gpu_model}; got "
                f"{gpu['count']}x {gpu['model']} (leave the key out, or match the machine)",
            )
        )


def _hosts_system_pods(pool: NodePoolSpec, cloud: Provider) -> bool:
    if not _is_cloud_pool(pool):
        return False
    machine = instance_types(cloud).get(pool["instance_type"])
    return machine is not None and not machine.has_gpu and "gpu" not in pool and pool["min_nodes"] >= 1


def _validate_pools(pools: list[NodePoolSpec], cloud: Provider, problems: list[Problem]) -> None:
    if not pools:
        problems.append(Problem(POOLS, "needs at least one pool"))
        return
    for i, pool in enumerate(pools):
        _validate_pool(i, pool, cloud, problems)
    names = Counter(p["name"] for p in pools)
    for i, pool in enumerate(pools):
        if names[pool["name"]] > 1:
            problems.append(Problem(f"{POOLS}[{i}].name", f"duplicate pool name {pool['name']!r}"))
    if cloud != Provider.SSH and not any(_hosts_system_pods(p, cloud) for p in pools):
        problems.append(
            Problem(
                POOLS,
                "no pool can host system pods (CoreDNS, the GPU Operator, the autoscaler): add a pool of a "
                "non-GPU instance type with minNodes >= 1",
            )
        )


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
    if platform == Platform.GKE:
        validate_gke_operator(operator, problems)


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

    `sections` limits the checks to config sections whose structure parsed cleanly. Pool and
    operator checks need a usable cluster section (they depend on its platform).
    """
    problems: list[Problem] = []
    cluster = args["cluster"]
    platform = cluster.get("platform")
    cluster_ok = "cluster" in sections and _validate_cluster(cluster, problems)
    pools_ok = "nodePools" in sections
    # Pools need only the platform to be checked; a broken cluster section must not hide them.
    if platform in BUILT_PLATFORMS and (
        cluster_ok or ("provider" not in cluster and platform != Platform.K3S)
    ):
        cloud = cloud_of(cluster)
        if pools_ok:
            _validate_pools(args["node_pools"], cloud, problems)
        if cluster_ok:
            target = target_of(cluster)
            problems.extend(_platform_key_problems(args, target))
            presence = _presence_problems(args, target, pools_ok)
            problems.extend(presence)
            if platform == Platform.EKS and not presence:
                validate_eks_cluster(cluster, problems)
            elif platform == Platform.GKE and not presence:
                validate_gke_cluster(cluster, args["node_pools"] if pools_ok else [], problems)
                for i, pool in enumerate(args["node_pools"] if pools_ok else []):
                    validate_gke_pool(i, pool, cluster, problems)
            elif target == K3S_SSH:
                validate_k3s_cluster(args, pools_ok, problems)
            elif not presence:
                validate_k3s_cloud(args, pools_ok, problems)
        if "gpuOperator" in sections:
            _validate_operator(args["gpu_operator"], platform, problems)
    if "workloads" in sections:
        _validate_workloads(args.get("workloads", {}), problems)
    return problems
