"""Where a GKE cluster and its pools live: the cluster's location and each pool's zones."""

from gpukit.components.pools import PoolFacts
from gpukit.components.spec import ClusterSpec
from gpukit.providers.gcp.catalog import accelerator_zones


def cluster_location(cluster: ClusterSpec) -> str:
    """A zone for a zonal cluster, else the region (a regional cluster: control plane in 3 zones)."""
    return cluster.get("zone") or cluster["region"]


def pool_zones(cluster: ClusterSpec, pool: PoolFacts) -> list[str]:
    """The zones a pool's nodes go to.

    Configured zones win. Otherwise a GPU pool goes to every zone of the cluster's location that
    offers its accelerator (so min-0 pools can scale where the GPUs are), and a CPU pool to the
    cluster's zone, or, for a regional cluster, to GKE's default (empty list: all cluster zones).
    Assumes validated input: validation refuses GPU pools with no known zone.
    """
    if pool.zones:
        return list(pool.zones)
    zone = cluster.get("zone")
    if pool.is_gpu and pool.instance.accelerator_type:
        offered = accelerator_zones(pool.instance.accelerator_type, cluster["region"]) or []
        found = [z for z in offered if zone is None or z == zone]
        # A fabric pool sits in one zone (components/pools.py fabric_conflicts); unpinned with an
        # explicit `interconnect: auto`, the first that offers its GPU (the plan says which).
        return found[:1] if pool.fabric is not None else found
    return [zone] if zone else []


def initial_node_count(pool: PoolFacts) -> int:
    """The node pool's initialNodeCount, which GKE starts in each of the pool's zones when it creates the
    pool (pulumi-gcp container.NodePool initial_node_count: "In regional or multi-zonal clusters, this is
    the number of nodes per zone"): one where minNodes asks for nodes, none for a pool that scales from
    zero."""
    return 1 if pool.min_nodes > 0 else 0
