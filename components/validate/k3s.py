"""Meaning checks every k3s cluster gets (versions), and those of k3s on cloud VMs whatever the cloud:
the server pool, the networks k3s keeps for itself, and who may reach the API. The checks of one cloud
(its network, its pool shapes) and of existing hosts live with their substrate in providers/.
"""

import ipaddress
import re

from gpukit.components.api_access import unreachable_private_api
from gpukit.components.catalog.instances import CpuArch, MachineCatalog
from gpukit.components.catalog.k3s import (
    ARCHES,
    BINARY_SHA256,
    K3S_VERSIONS,
    binary_sha256,
    checksum_list_url,
    k3s_minor,
    k3s_version_for,
)
from gpukit.components.errors import Problem
from gpukit.components.spec import Capacity, ClusterSpec, NodePoolSpec, NodeRole
from gpukit.components.validate.common import CLUSTER, POOLS

_K3S_VERSION_RE = re.compile(r"v(\d+\.\d+)\.\d+\+k3s\d+")
_SHA256_RE = re.compile(r"[0-9a-f]{64}")
# The release asset names of CPU architectures (catalog spelling -> k3s's).
K3S_ARCH = {CpuArch.X86_64: "amd64", CpuArch.ARM64: "arm64"}
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


def machine_arches(pools: list[NodePoolSpec] | None, catalog: MachineCatalog) -> set[str]:
    """The k3s architectures of the pools' machine types (those the catalog knows)."""
    arches = set()
    for pool in pools or []:
        machine = catalog.machines.get(pool.get("instance_type", ""))
        if machine is not None:
            arches.add(K3S_ARCH[machine.arch])
    return arches


def validate_k3s_versions(
    cluster: ClusterSpec, problems: list[Problem], arches: set[str] | None = None
) -> None:
    """kubernetesVersion, k3sVersion and the binary's sums, for k3s on any provider. `arches`: the
    architectures the machines run (None: not known before install, SSH hosts: amd64 or arm64)."""
    before = len(problems)
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
        match = _K3S_VERSION_RE.fullmatch(version)
        if match is None:
            problems.append(Problem(f"{CLUSTER}.k3sVersion", f"must look like v1.35.7+k3s1; got {version!r}"))
        elif match.group(1) != minor:
            problems.append(
                Problem(
                    f"{CLUSTER}.k3sVersion",
                    f"is k3s {k3s_minor(version)}, but kubernetesVersion is {minor!r}",
                )
            )
    if len(problems) == before:
        _validate_sums(cluster, problems, arches)


def _validate_sums(cluster: ClusterSpec, problems: list[Problem], arches: set[str] | None) -> None:
    """No machine runs a k3s binary gpukit cannot check: the stack's sums are well formed, and every
    architecture in use has one (the stack's, or gpukit's pin)."""
    key = f"{CLUSTER}.k3sSha256"
    given = cluster.get("k3s_sha256") or {}
    for arch, value in given.items():
        if arch not in ARCHES:
            problems.append(Problem(f"{key}.{arch}", f"must be one of {', '.join(ARCHES)}; got {arch!r}"))
        elif not _SHA256_RE.fullmatch(str(value)):
            problems.append(Problem(f"{key}.{arch}", "must be a SHA-256: 64 lowercase hexadecimal digits"))
    version = k3s_version_for(cluster["kubernetes_version"], cluster.get("k3s_version"))
    # SSH hosts: their architecture shows only on the host; one sum is enough to plan (install.sh
    # refuses a host whose architecture has none, before running anything).
    wanted = sorted(arches) if arches is not None else []
    missing = [arch for arch in wanted if binary_sha256(version, arch, given) is None]
    if arches is None and not any(binary_sha256(version, arch, given) for arch in ARCHES):
        missing = ["amd64"]
    for arch in missing:
        pinned = ", ".join(BINARY_SHA256) or "none"
        problems.append(
            Problem(
                f"{key}.{arch}",
                f"gpukit has no SHA-256 pinned for k3s {version} on {arch} (pinned: {pinned}), and it "
                f"installs no binary it cannot check: give the sum from {checksum_list_url(version, arch)} "
                f"(the line of the k3s binary), or use a pinned release",
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
    elif unreachable := unreachable_private_api(
        cluster["api_access_cidrs"], cluster.get("network", {}).get("cidr")
    ):
        problems.append(Problem(f"{CLUSTER}.apiAccessCidrs", unreachable))
    if pools is not None:
        _validate_servers(pools, catalog, problems)
        validate_schedulable(pools, problems)


def validate_schedulable(pools: list[NodePoolSpec], problems: list[Problem]) -> None:
    """`schedulable` says whether servers take workloads: it belongs on the server pool only."""
    for i, pool in enumerate(pools):
        if "schedulable" in pool and pool.get("role") != NodeRole.SERVER:
            problems.append(
                Problem(
                    f"{POOLS}[{i}].schedulable",
                    "only the server pool (role: server) takes it; agents always run workloads",
                )
            )


def _validate_against_k3s_networks(cluster: ClusterSpec, problems: list[Problem]) -> None:
    cidr = cluster.get("network", {}).get("cidr")
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
