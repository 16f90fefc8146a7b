"""Meaning checks of the Google Cloud substrates: the project, GKE's location, release channel, network
ranges and driver mode, GPU placement in zones (GKE and k3s), and k3s on Compute Engine's network."""

import re

from gpukit.components.catalog.instances import UnknownInstanceTypeError
from gpukit.components.catalog.lookup import suggest
from gpukit.components.config.schema import camel
from gpukit.components.errors import Problem
from gpukit.components.spec import (
    ClusterSpec,
    DriverMode,
    GpuOperatorSpec,
    NodePoolSpec,
    NodeRole,
    ReleaseChannel,
)
from gpukit.components.validate.common import CLUSTER, POOLS, check_cidr
from gpukit.components.validate.limits import node_count_problem
from gpukit.providers.gcp.catalog import (
    ACCELERATOR_ZONES,
    ATTACHABLE_COUNTS,
    ATTACHABLE_GPUS,
    GCP_CATALOG,
    accelerator_zones,
    region_zones,
    requires_gvnic,
)
from gpukit.providers.gcp.gke.compact_placement import validate_compact_placement
from gpukit.providers.gcp.gke.queued_provisioning import validate_queued_pool
from gpukit.providers.gcp.limits import GKE_LIMITS
from gpukit.providers.gcp.ranges import overlaps, subnet_ranges
from gpukit.providers.gcp.regions import GCP_REGIONS_SOURCE

# k3s on Compute Engine, new network: the subnet is the whole range (a /29 at the smallest; a /24 is
# what a cluster can use).
K3S_SUBNET_PREFIXES = (16, 24)
PROJECT_ID_RE = re.compile(r"[a-z][-a-z0-9]{4,28}[a-z0-9]")

# Kubernetes minors GKE offers for new clusters per release channel (GKE release notes, "Current
# versions", about 2026-09: Rapid 1.34-1.37, Regular 1.34-1.36, Stable 1.34-1.35). The channels move
# about every four months: update with the GKE release notes.
GKE_CHANNEL_VERSIONS: dict[ReleaseChannel, tuple[str, ...]] = {
    ReleaseChannel.RAPID: ("1.34", "1.35", "1.36", "1.37"),
    ReleaseChannel.REGULAR: ("1.34", "1.35", "1.36"),
    ReleaseChannel.STABLE: ("1.34", "1.35"),
}


def validate_gcp_project(cluster: ClusterSpec, problems: list[Problem]) -> None:
    project = cluster.get("project")
    if project is not None and not PROJECT_ID_RE.fullmatch(project):
        problems.append(
            Problem(
                "gcp:project", f"must be a project id (6-30 lowercase letters, digits, '-'); got {project!r}"
            )
        )


def validate_gke_cluster(cluster: ClusterSpec, pools: list[NodePoolSpec], problems: list[Problem]) -> None:
    validate_gcp_project(cluster, problems)
    region, zone = cluster["region"], cluster.get("zone")
    # No region (missing or unknown) is reported on gcp:region alone: zones cannot be judged without it.
    if zone is not None and region and zone not in region_zones(region):
        problems.append(
            Problem(
                f"{CLUSTER}.zone",
                f"must be a zone of region {region} ({region_zones(region)[0]} ...); got {zone!r}; "
                f"{_zone_hint(zone, region)}",
            )
        )
    channel = cluster.get("release_channel", ReleaseChannel.REGULAR)
    versions = GKE_CHANNEL_VERSIONS[channel]
    if cluster["kubernetes_version"] not in versions:
        problems.append(
            Problem(
                f"{CLUSTER}.kubernetesVersion",
                f"must be one of {', '.join(versions)} in GKE's {channel.value} channel; "
                f"got {cluster['kubernetes_version']!r}",
            )
        )
    _validate_network(cluster, pools, problems)
    for i, pool in enumerate(pools):
        _validate_pool_size(i, pool, cluster, problems)


def _zone_hint(zone: str, region: str) -> str:
    """Did-you-mean among the region's zones (the sourced list), or the list itself."""
    zones = region_zones(region)
    close = suggest(zone, zones)
    if close:
        return f"did you mean {', '.join(close)}?"
    return f"its zones: {', '.join(zones)} ({GCP_REGIONS_SOURCE})"


def _not_a_zone(zone: str, region: str) -> str:
    """The message for a pool zone that is not one of the region's."""
    return f"must be a zone of the cluster's region {region}; got {zone!r}; {_zone_hint(zone, region)}"


def _pool_zone_count(pool: NodePoolSpec, cluster: ClusterSpec) -> int:
    """How many zones a GKE pool's nodes spread over: its own, the zonal cluster's, or the region's."""
    if pool.get("zones"):
        return len(set(pool["zones"]))
    if cluster.get("zone"):
        return 1
    return len(region_zones(cluster["region"])) or 1


def _validate_pool_size(i: int, pool: NodePoolSpec, cluster: ClusterSpec, problems: list[Problem]) -> None:
    """GKE's maxNodes is the whole pool's (total_max_node_count): at most the per-zone limit times the
    pool's zones."""
    if "max_nodes" not in pool or not cluster["region"]:
        return
    found = node_count_problem(
        f"{POOLS}[{i}].maxNodes",
        pool["max_nodes"],
        GKE_LIMITS.nodes_per_pool_zone,
        _pool_zone_count(pool, cluster),
    )
    if found is not None:
        problems.append(found)


# A reused network and subnetwork: a name, or a self link (pulumi-gcp container.Cluster network /
# subnetwork, "The name or self_link of the Google Compute Engine network/subnetwork"). Names are
# Compute Engine names (RFC 1035, 1-63 characters; names.py); a subnetwork is regional, and the
# cluster's nodes go to one in the cluster's own region.
_GCE_NAME = r"[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?"
_SELF_LINK = r"(?:https://www\.googleapis\.com/compute/v1/)?projects/[a-z][-a-z0-9.:]{4,61}[a-z0-9]/"
_NETWORK_RE = re.compile(rf"(?:{_SELF_LINK}global/networks/)?{_GCE_NAME}")
_SUBNETWORK_RE = re.compile(rf"(?:{_SELF_LINK}regions/(?P<region>[a-z0-9-]+)/subnetworks/)?{_GCE_NAME}")
_RANGE_NAME_RE = re.compile(_GCE_NAME)


def validate_reused_network(cluster: ClusterSpec, problems: list[Problem]) -> None:
    """The shape of a reused network's ids (a typo or an id from another region is refused here, not
    by the API mid-deployment)."""
    network, key, region = cluster["network"], f"{CLUSTER}.network", cluster.get("region")
    shapes = (
        ("network_id", _NETWORK_RE, "a network name or projects/P/global/networks/NAME"),
        ("subnetwork_id", _SUBNETWORK_RE, "a subnetwork name or projects/P/regions/REGION/subnetworks/NAME"),
        ("pods_range_name", _RANGE_NAME_RE, "a secondary range name"),
        ("services_range_name", _RANGE_NAME_RE, "a secondary range name"),
    )
    for attr, pattern, shape in shapes:
        value = network.get(attr)
        if not isinstance(value, str):
            continue
        match = pattern.fullmatch(value)
        if match is None:
            problems.append(
                Problem(
                    f"{key}.{camel(attr)}",
                    f"must be {shape} (names: 1-63 lowercase letters, digits and '-', a letter first); "
                    f"got {value!r}",
                )
            )
        elif attr == "subnetwork_id" and region and match["region"] not in (None, region):
            problems.append(
                Problem(
                    f"{key}.subnetworkId",
                    f"is in region {match['region']}, but the cluster is in {region} (gcp:region): name a "
                    f"subnetwork of {region}; got {value!r}",
                )
            )


def _validate_network(cluster: ClusterSpec, pools: list[NodePoolSpec], problems: list[Problem]) -> None:
    network = cluster["network"]
    key = f"{CLUSTER}.network"
    reuse = ("network_id", "subnetwork_id", "pods_range_name", "services_range_name")
    if "cidr" in network and "network_id" in network:
        problems.append(
            Problem(key, "set either cidr (new network) or networkId + subnetworkId (reuse), not both")
        )
        return
    if "network_id" in network:
        validate_reused_network(cluster, problems)
        for attr in reuse:
            if attr not in network:
                problems.append(
                    Problem(f"{key}.{camel(attr)}", "required when reusing a network (networkId)")
                )
        for attr in ("pods_cidr", "services_cidr"):
            if attr in network:
                problems.append(
                    Problem(
                        f"{key}.{camel(attr)}",
                        "only for a new network (cidr); a reused subnetwork keeps its own ranges "
                        "(podsRangeName, servicesRangeName)",
                    )
                )
        return
    if "cidr" not in network:
        problems.append(
            Problem(key, "needs cidr (new network) or networkId + subnetworkId + range names (reuse)")
        )
        return
    nodes = check_cidr(f"{key}.cidr", network["cidr"], problems, prefixes=(16, 20))
    pods = network.get("pods_cidr")
    services = network.get("services_cidr")
    ok = nodes is not None
    for name, value in (("podsCidr", pods), ("servicesCidr", services)):
        if value is not None and check_cidr(f"{key}.{name}", value, problems) is None:
            ok = False
    if not ok:
        return
    ranges = subnet_ranges(network["cidr"], pods, services)
    named = {"nodes": ranges.nodes, "pods": ranges.pods, "services": ranges.services}
    for a, b in overlaps(ranges):
        problems.append(Problem(key, f"the {a} range {named[a]} and the {b} range {named[b]} overlap"))
    wanted = sum(p["max_nodes"] for p in pools)
    if wanted > ranges.max_nodes:
        problems.append(
            Problem(
                f"{key}.podsCidr" if pods else f"{key}.cidr",
                f"the pod range {ranges.pods} holds {ranges.max_nodes} nodes (a /24 each) "
                "but the pools' maxNodes "
                f"add up to {wanted}; use a larger range",
            )
        )


def validate_gke_pool(
    i: int, pool: NodePoolSpec, cluster: ClusterSpec, problems: list[Problem], *, gke: bool = True
) -> None:
    """Zones and GPUs of a pool on Google Cloud; `gke`: also GKE's compact placement (k3s on Compute
    Engine refuses that key, so its pools are not judged on it)."""
    key = f"{POOLS}[{i}]"
    region, cluster_zone = cluster["region"], cluster.get("zone")
    if not region:
        return  # the missing or malformed gcp:region is reported already; zones cannot be checked
    if cluster_zone is not None and cluster_zone not in region_zones(region):
        cluster_zone = None  # reported as gpukit:cluster.zone; do not judge pools against it
    zones = pool.get("zones", [])
    for zone in sorted({z for z in zones if zones.count(z) > 1}):
        problems.append(Problem(f"{key}.zones", f"{zone!r} is listed {zones.count(zone)} times"))
    for j, zone in enumerate(zones):
        if zone not in region_zones(region):
            problems.append(Problem(f"{key}.zones[{j}]", _not_a_zone(zone, region)))
        elif cluster_zone is not None and zone != cluster_zone:
            problems.append(
                Problem(
                    f"{key}.zones[{j}]",
                    f"the cluster is zonal in {cluster_zone}: pools can only use it; got {zone!r}",
                )
            )
    try:
        machine = GCP_CATALOG.machine(pool["instance_type"])
    except UnknownInstanceTypeError:
        return  # reported by the common pool checks
    gpu = pool.get("gpu")
    attachable = gpu is not None and GCP_CATALOG.can_attach_gpus(machine)
    attached = (
        ATTACHABLE_GPUS[gpu["model"]][0] if gpu and attachable and gpu["model"] in ATTACHABLE_GPUS else None
    )
    if gke:
        validate_compact_placement(key, pool, cluster, machine, attached, problems)
        validate_queued_pool(key, pool, problems)
    if gpu is not None and attachable:
        if gpu["count"] < 1:
            return  # reported by the common pool checks
        if gpu["model"] not in ATTACHABLE_GPUS:
            problems.append(
                Problem(
                    f"{key}.gpu.model",
                    f"{machine.name} takes attached {', '.join(ATTACHABLE_GPUS)} GPUs; got {gpu['model']!r}",
                )
            )
            return
        if gpu["count"] not in ATTACHABLE_COUNTS:
            problems.append(
                Problem(
                    f"{key}.gpu.count",
                    f"{gpu['model']} attaches in counts of {', '.join(map(str, ATTACHABLE_COUNTS))}; "
                    f"got {gpu['count']}",
                )
            )
            return
        accelerator = ATTACHABLE_GPUS[gpu["model"]][0]
    elif machine.accelerator_type:
        accelerator = machine.accelerator_type
    else:
        return
    _validate_gpu_zones(key, pool, accelerator, region, cluster_zone, problems)


def _validate_gpu_zones(  # noqa: PLR0917 (a private helper of validate_gke_pool)
    key: str,
    pool: NodePoolSpec,
    accelerator: str,
    region: str,
    cluster_zone: str | None,
    problems: list[Problem],
) -> None:
    offered = accelerator_zones(accelerator, region)
    if offered is None:
        if not pool.get("zones"):
            problems.append(
                Problem(
                    f"{key}.zones",
                    f"gpukit has no zone list for {accelerator} in {region}; name the zones that offer it",
                )
            )
        return
    if not offered:
        regions = sorted(ACCELERATOR_ZONES.get(accelerator, {}))
        problems.append(
            Problem(
                f"{key}.instanceType",
                f"{pool['instance_type']} ({accelerator}) is not offered in {region}; regions that offer it: "
                f"{', '.join(regions)}",
            )
        )
        return
    for j, zone in enumerate(pool.get("zones", [])):
        if zone in region_zones(region) and zone not in offered:
            problems.append(
                Problem(
                    f"{key}.zones[{j}]",
                    f"{zone} does not offer {accelerator}; zones that do: {', '.join(offered)}",
                )
            )
    if cluster_zone is not None and not pool.get("zones") and cluster_zone not in offered:
        problems.append(
            Problem(
                f"{CLUSTER}.zone",
                f"{cluster_zone} does not offer {accelerator} (pool {pool['name']!r}); "
                f"zones that do: {', '.join(offered)}",
            )
        )


def validate_gvnic_image(pools: list[NodePoolSpec], driver: DriverMode, problems: list[Problem]) -> None:
    """gVNIC-only machines need Container-Optimized OS nodes on GKE ("GKE nodes must use a
    Container-Optimized OS node image": GKE docs, "Increase network traffic speed for GPU nodes",
    Requirements), but `driver: operator` runs GPU pools on Ubuntu (node_pool.image_type)."""
    if driver != DriverMode.OPERATOR:
        return
    for i, pool in enumerate(pools):
        try:
            machine = GCP_CATALOG.machine(pool.get("instance_type", ""))
        except UnknownInstanceTypeError:
            continue  # reported by the common pool checks
        if machine.has_gpu and requires_gvnic(machine):
            problems.append(
                Problem(
                    "gpukit:gpuOperator.driver",
                    f"'operator' runs GPU pools on Ubuntu nodes, but {machine.name} (pool "
                    f"{pool.get('name')!r}, {POOLS}[{i}]) networks through gVNIC only, which GKE supports on "
                    "Container-Optimized OS nodes only; use 'preinstalled' (GKE's driver on COS)",
                )
            )


def validate_gke_operator(operator: GpuOperatorSpec) -> list[Problem]:
    problems: list[Problem] = []
    if "gke_driver_version" in operator and operator["driver"] == DriverMode.OPERATOR:
        problems.append(
            Problem(
                "gpukit:gpuOperator.gkeDriverVersion",
                "only with driver: preinstalled (GKE installs that driver); with driver: operator the GPU "
                "Operator installs it",
            )
        )
    return problems


def validate_server_zones(i: int, pool: NodePoolSpec, cluster: ClusterSpec, problems: list[Problem]) -> None:
    """Servers, and agent pools (one zonal group per zone: the autoscaler's GCE provider scales zonal
    groups only), are spread over the region's zones: gpukit must know them, or the pool must name
    them. GPU pools find theirs in the accelerator's zones (checked with the pool)."""
    region = cluster["region"]
    if pool.get("zones") or not region or region_zones(region):
        return
    what = "servers" if pool.get("role") == NodeRole.SERVER else "pool's groups"
    problems.append(
        Problem(
            f"{POOLS}[{i}].zones",
            f"gpukit has no zone list for {region}: name the zones to spread the {what} over "
            f"([{region}-a, {region}-b, {region}-c])",
        )
    )


def validate_k3s_network(cluster: ClusterSpec, problems: list[Problem]) -> None:
    network = cluster["network"]
    key = f"{CLUSTER}.network"
    if "cidr" in network and "network_id" in network:
        problems.append(
            Problem(key, "set either cidr (new network) or networkId + subnetworkId (reuse), not both")
        )
    elif "network_id" in network:
        validate_reused_network(cluster, problems)
        if "subnetwork_id" not in network:
            problems.append(Problem(f"{key}.subnetworkId", "required when reusing a network (networkId)"))
    elif "subnetwork_id" in network:
        problems.append(Problem(f"{key}.subnetworkId", "only valid with networkId"))
    elif "cidr" not in network:
        problems.append(Problem(key, "needs cidr (new network) or networkId + subnetworkId (reuse)"))
    else:
        check_cidr(f"{key}.cidr", network["cidr"], problems, prefixes=K3S_SUBNET_PREFIXES)
