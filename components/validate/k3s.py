"""Meaning checks every k3s cluster gets (versions), and those of k3s on cloud VMs whatever the cloud:
the server pool, the networks k3s keeps for itself, and who may reach the API. The checks of one cloud
(its network, its pool shapes) and of existing hosts live with their substrate in providers/.
"""

import ipaddress
import re

from gpukit.components.catalog.instances import MachineCatalog
from gpukit.components.catalog.k3s import K3S_VERSIONS, k3s_minor
from gpukit.components.errors import Problem
from gpukit.components.spec import Capacity, ClusterSpec, NodePoolSpec, NodeRole
from gpukit.components.validate.common import CLUSTER, POOLS

_K3S_VERSION_RE = re.compile(r"^v(\d+\.\d+)\.\d+\+k3s\d+$")
# k3s's own networks (its defaults, which gpukit keeps: `--cluster-cidr`, `--service-cidr`,
# k3s-io/docs docs/cli/server.md). Flannel routes 10.42.0.0/16 over VXLAN between nodes, so a VPC that
# overlaps either range makes pod or service traffic leave for the wrong place.
K3S_NETWORKS = {
    "pod": ipaddress.IPv4Network("10.42.0.0/16"),
    "service": ipaddress.IPv4Network("10.43.0.0/16"),
}
# Embedded etcd needs a majority: 1 server (no HA) or 3 (survives one loss). 2 survives nothing and
# doubles the chance of losing quorum; more than 3 is beyond what gpukit's examples need.
SERVER_COUNTS = (1, 3)


def validate_k3s_versions(cluster: ClusterSpec, problems: list[Problem]) -> None:
    """kubernetesVersion and k3sVersion, for k3s on any provider."""
    minor = cluster["kubernetes_version"]
    if minor not in K3S_VERSIONS:
        problems.append(
            Problem(
                f"{CLUSTER}.kubernetesVersion",
                f"must be one of {', '.join(K3S_VERSIONS)} for k3s; got {minor!r}",
            )
        )
    version = cluster.get("k3s_version")
    if version is not None:
        match = _K3S_VERSION_RE.match(version)
        if match is None:
            problems.append(Problem(f"{CLUSTER}.k3sVersion", f"must look like v1.35.7+k3s1; got {version!r}"))
        elif match.group(1) != minor:
            problems.append(
                Problem(
                    f"{CLUSTER}.k3sVersion",
                    f"is k3s {k3s_minor(version)}, but kubernetesVersion is {minor!r}",
                )
            )


def validate_k3s_cloud(
    cluster: ClusterSpec, pools: list[NodePoolSpec] | None, catalog: MachineCatalog, problems: list[Problem]
) -> None:
    """k3s on cloud VMs, after the cloud's own network checks; `pools` None when they did not parse."""
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
    if pools is not None:
        _validate_servers(pools, catalog, problems)


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


def _validate_servers(pools: list[NodePoolSpec], catalog: MachineCatalog, problems: list[Problem]) -> None:
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
        if "gpu" in pool or _has_gpus(pool, catalog):
            problems.append(
                Problem(
                    f"{key}.instanceType",
                    f"servers run the control plane: use a machine type without GPUs; got "
                    f"{pool.get('instance_type')!r} (put GPUs in an agent pool)",
                )
            )


def _has_gpus(pool: NodePoolSpec, catalog: MachineCatalog) -> bool:
    machine = catalog.machines.get(pool.get("instance_type", ""))
    return machine is not None and machine.has_gpu
