"""Where a zonal Filestore instance lives (pure): the volume's `zone`, else the first zone of the GPU pools,
and the checks and plan warnings about that choice.

A basic or zonal instance lives in one zone; its `location` is an argument Pulumi cannot change in place: a
new zone replaces the instance, and the new one is empty. When the config does not pin the zone gpukit
computes it from the GPU pools, so a change to the pools can move it; the plan says so and names the key
that pins it (as EKS does for FSx for Lustre: providers/aws/eks/shared_storage/findings.py). Regional and
enterprise instances take the region and serve every zone of it.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from gpukit.components.errors import Problem
from gpukit.components.findings import Finding, Severity
from gpukit.components.pools import PoolFacts
from gpukit.components.spec import ClusterSpec
from gpukit.providers.gcp.gke.shared_storage.tables import FILESTORE, FILESTORE_ZONAL_TIERS
from gpukit.providers.gcp.placement import pool_zones

SHARED = "gpukit:storage.shared"


def gpu_pool_zones(cluster: ClusterSpec, pools: Sequence[PoolFacts]) -> tuple[str, ...]:
    """The zones the GPU pools run in, the pool with the most GPUs at max nodes first (then config order,
    then each pool's own zone order): where a single-zone instance serves the most GPUs in its zone."""
    ranked = sorted((p for p in pools if p.is_gpu), key=lambda p: -p.gpus_at_max)
    return tuple(dict.fromkeys(z for pool in ranked for z in pool_zones(cluster, pool)))


def cluster_zones(cluster: ClusterSpec, pools: Sequence[PoolFacts]) -> tuple[str, ...]:
    """Every zone a node pool of the cluster runs in (as far as known before `pulumi up`), in order."""
    zones = [z for pool in pools for z in pool_zones(cluster, pool)]
    if cluster.get("zone"):
        zones.append(cluster["zone"])
    return tuple(dict.fromkeys(zones))


def filestore_zone(volume: Mapping[str, Any], cluster: ClusterSpec, pools: Sequence[PoolFacts]) -> str | None:
    """The zone of a zonal-tier Filestore volume: its `zone`, else the first GPU pool zone, else the first
    zone of the cluster; None where none is known (validation refuses that)."""
    if "zone" in volume:
        return str(volume["zone"])
    return next(iter(gpu_pool_zones(cluster, pools) or cluster_zones(cluster, pools)), None)


def validate_filestore_zones(
    volumes: Sequence[Mapping[str, Any]],
    tiers: Sequence[str | None],
    cluster: ClusterSpec,
    pools: Sequence[PoolFacts],
    problems: list[Problem],
) -> None:
    """`tiers`: each volume's chosen Filestore tier (None: not a Filestore volume, or refused elsewhere)."""
    zones = cluster_zones(cluster, pools)
    for i, (volume, tier) in enumerate(zip(volumes, tiers, strict=True)):
        if tier is None:
            continue
        key = f"{SHARED}[{i}].zone"
        zonal = tier in FILESTORE_ZONAL_TIERS
        if "zone" in volume and not zonal:
            problems.append(
                Problem(
                    key,
                    f"{FILESTORE} tier {tier} lives in the cluster's region and serves every zone of it: "
                    f"remove the key, or pick a zonal tier ({', '.join(sorted(FILESTORE_ZONAL_TIERS))}); "
                    f"got {volume['zone']!r}",
                )
            )
        elif "zone" in volume and volume["zone"] not in zones:
            shown = ", ".join(zones) if zones else "none known: pin the pools' zones"
            problems.append(
                Problem(
                    key,
                    f"must be a zone the cluster's node pools run in ({shown}), so nodes mount the "
                    f"instance without crossing zones; got {volume['zone']!r}",
                )
            )
        elif zonal and "zone" not in volume and not zones:
            problems.append(
                Problem(
                    key,
                    f"{FILESTORE} tier {tier} lives in one zone and no node pool pins one: set this key to "
                    "a zone of the region and the pools' zones (gpukit:nodePools[i].zones) to include it, "
                    "or pick a regional tier (regional, enterprise)",
                )
            )


def filestore_zone_findings(volumes: Sequence[Any], configured: Sequence[Mapping[str, Any]]) -> list[Finding]:
    """A warning per zonal Filestore volume whose zone gpukit chose, naming the key that pins it.
    `volumes`: the plan's PlannedVolume list; `configured`: the config's shared volumes (for indexes)."""
    index = {v["name"]: i for i, v in enumerate(configured)}
    found: list[Finding] = []
    for volume in volumes:
        if volume.kind.value != FILESTORE or volume.tier.name not in FILESTORE_ZONAL_TIERS:
            continue
        if "zone" in volume.spec or not volume.zones:
            continue
        key = f"{SHARED}[{index[volume.name]}].zone"
        zone = volume.zones[0]
        found.append(
            Finding(
                Severity.WARNING,
                key,
                f"Filestore volume {volume.name} (tier {volume.tier.name}, one zone) is placed in {zone}, "
                "the first zone of the GPU pools; a change to the pools can move it, and a change of its "
                "zone (or of the volume's name) replaces the instance: the new one is empty and the data on "
                "the old one is lost",
                fix=f"set `{key}: {zone}`",
            )
        )
    return found
