"""Meaning checks for k3s on cloud VMs (provider aws or gcp): network, servers, pool shapes."""

import ipaddress
from typing import Any

from gpukit.components.api_access import public_cidrs
from gpukit.components.catalog.clouds import instance_type, instance_types
from gpukit.components.catalog.instances import CpuArch, UnknownInstanceTypeError
from gpukit.components.errors import Problem
from gpukit.components.spec import Capacity, ClusterSpec, NodePoolSpec, NodeRole, Provider
from gpukit.components.validate.common import CLUSTER, POOLS, check_cidr
from gpukit.components.validate.k3s import validate_k3s_versions
from gpukit.providers.aws.validation import validate_aws_network
from gpukit.providers.gcp.catalog import region_zones
from gpukit.providers.gcp.validation import validate_gcp_project, validate_gke_pool

# k3s's own networks (its defaults, which gpukit keeps: `cluster-cidr`, `service-cidr`, gpu-facts.md
# §4.2). Flannel routes 10.42.0.0/16 over VXLAN between nodes, so a VPC that overlaps either range
# makes pod or service traffic leave for the wrong place.
K3S_NETWORKS = {
    "pod": ipaddress.IPv4Network("10.42.0.0/16"),
    "service": ipaddress.IPv4Network("10.43.0.0/16"),
}
# Embedded etcd needs a majority: 1 server (no HA) or 3 (survives one loss). 2 survives nothing and
# doubles the chance of losing quorum; more than 3 is beyond what gpukit's examples need.
SERVER_COUNTS = (1, 3)
# New networks: AWS cuts the VPC in eighths and the last eighth in eight public /28s at least
# (providers/aws/subnets.py); a GCE subnet is the whole range, /29 at the smallest, /24 is useful.
VPC_PREFIXES = {Provider.AWS: (16, 22), Provider.GCP: (16, 24)}


def validate_k3s_cloud(args: Any, pools_ok: bool, problems: list[Problem]) -> None:
    cluster: ClusterSpec = args["cluster"]
    provider = cluster["provider"]
    validate_k3s_versions(cluster, problems)
    if provider == Provider.AWS:
        validate_aws_network(cluster, problems, vpc_prefixes=VPC_PREFIXES[provider], min_subnets=1, who="k3s")
        _validate_public_subnets(cluster, problems)
    else:
        validate_gcp_project(cluster, problems)
        _validate_gcp_network(cluster, problems)
    _validate_against_k3s_networks(cluster, problems)
    if not cluster["api_access_cidrs"]:
        # Unlike EKS and GKE, whose private endpoints answer inside the VPC, the k3s API admits only
        # the nodes and these ranges: with none, nothing outside the cluster (Pulumi, which installs
        # the GPU Operator, or kubectl) could ever reach it.
        problems.append(
            Problem(
                f"{CLUSTER}.apiAccessCidrs",
                "k3s on cloud VMs needs at least one range: the machines that run pulumi and kubectl "
                "must reach the API (private ranges such as 10.0.0.0/8 keep it internal)",
            )
        )
    if not pools_ok:
        return
    pools = args["node_pools"]
    _validate_servers(pools, provider, problems)
    for i, pool in enumerate(pools):
        if provider == Provider.AWS:
            _validate_alternatives(i, pool, problems)
        else:
            validate_gke_pool(i, pool, cluster, problems)
            _validate_server_zones(i, pool, cluster, problems)


def _validate_public_subnets(cluster: ClusterSpec, problems: list[Problem]) -> None:
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


def _validate_server_zones(i: int, pool: NodePoolSpec, cluster: ClusterSpec, problems: list[Problem]) -> None:
    """Servers are spread over the region's zones: gpukit must know them, or the pool must name them."""
    region = cluster["region"]
    if pool.get("role") != NodeRole.SERVER or pool.get("zones") or not region or region_zones(region):
        return
    problems.append(
        Problem(
            f"{POOLS}[{i}].zones",
            f"gpukit has no zone list for {region}: name the zones to spread the servers over "
            f"([{region}-a, {region}-b, {region}-c])",
        )
    )


def _validate_gcp_network(cluster: ClusterSpec, problems: list[Problem]) -> None:
    network = cluster["network"]
    key = f"{CLUSTER}.network"
    if "cidr" in network and "network_id" in network:
        problems.append(
            Problem(key, "set either cidr (new network) or networkId + subnetworkId (reuse), not both")
        )
    elif "network_id" in network:
        if "subnetwork_id" not in network:
            problems.append(Problem(f"{key}.subnetworkId", "required when reusing a network (networkId)"))
    elif "subnetwork_id" in network:
        problems.append(Problem(f"{key}.subnetworkId", "only valid with networkId"))
    elif "cidr" not in network:
        problems.append(Problem(key, "needs cidr (new network) or networkId + subnetworkId (reuse)"))
    else:
        check_cidr(f"{key}.cidr", network["cidr"], problems, prefixes=VPC_PREFIXES[Provider.GCP])


def _validate_against_k3s_networks(cluster: ClusterSpec, problems: list[Problem]) -> None:
    cidr = cluster["network"].get("cidr")
    if cidr is None:
        return
    try:
        vpc = ipaddress.ip_network(cidr, strict=True)
    except ValueError:
        return  # reported by the CIDR checks
    for kind, k3s_range in K3S_NETWORKS.items():
        if vpc.overlaps(k3s_range):
            problems.append(
                Problem(
                    f"{CLUSTER}.network.cidr",
                    f"{cidr} overlaps k3s's {kind} network {k3s_range}; pick a range outside 10.42.0.0/15",
                )
            )


def _validate_servers(pools: list[NodePoolSpec], provider: Provider, problems: list[Problem]) -> None:
    servers = [(i, p) for i, p in enumerate(pools) if p.get("role") == NodeRole.SERVER]
    if not servers:
        problems.append(
            Problem(
                POOLS, "no server pool: give one pool role: server (minNodes = maxNodes = 1, or 3 for HA)"
            )
        )
        return
    if len(servers) > 1:
        names = ", ".join(repr(p["name"]) for _, p in servers)
        problems.append(
            Problem(
                POOLS, f"one pool role: server, got {len(servers)} ({names}); put every server in one pool"
            )
        )
    for i, pool in servers:
        key = f"{POOLS}[{i}]"
        if "min_nodes" not in pool or "max_nodes" not in pool:
            continue  # reported as missing
        if pool["min_nodes"] != pool["max_nodes"]:
            problems.append(
                Problem(
                    f"{key}.maxNodes",
                    f"servers are fixed instances, not an autoscaling group: set minNodes = maxNodes; got "
                    f"{pool['min_nodes']} and {pool['max_nodes']}",
                )
            )
        elif pool["min_nodes"] not in SERVER_COUNTS:
            problems.append(
                Problem(
                    f"{key}.minNodes",
                    f"{pool['min_nodes']} servers: embedded etcd needs 1, or 3 for HA (a majority must "
                    "survive, so 2 servers tolerate no failure)",
                )
            )
        if pool.get("capacity") == Capacity.SPOT:
            problems.append(
                Problem(
                    f"{key}.capacity",
                    "servers must be on-demand: a spot reclaim would take the control plane (and etcd) away",
                )
            )
        if "gpu" in pool or _has_gpus(pool, provider):
            problems.append(
                Problem(
                    f"{key}.instanceType",
                    f"servers run the control plane: use a machine type without GPUs; got "
                    f"{pool.get('instance_type')!r} (put GPUs in an agent pool)",
                )
            )


def _has_gpus(pool: NodePoolSpec, provider: Provider) -> bool:
    machine = instance_types(provider).get(pool.get("instance_type", ""))
    return machine is not None and machine.has_gpu


def _validate_alternatives(i: int, pool: NodePoolSpec, problems: list[Problem]) -> None:
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
        primary = instance_type(Provider.AWS, pool.get("instance_type", ""))
    except UnknownInstanceTypeError:
        return  # reported by the common pool checks
    for name in sorted({n for n in alternatives if alternatives.count(n) > 1 or n == primary.name}):
        problems.append(Problem(key, f"{name!r} is listed twice (instanceType counts as one)"))
    for j, name in enumerate(alternatives):
        try:
            machine = instance_type(Provider.AWS, name)
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
