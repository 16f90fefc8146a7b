"""Plan findings about where a single-zone FSx for Lustre file system lives (pure).

A Lustre file system lives in one subnet, so one zone. Its zone is an argument Pulumi cannot change in
place: a new zone replaces the file system, and the new one is empty. When the config does not pin the
zone, gpukit computes it from the GPU pools (context.py lustre_zone), so a change to an unrelated pool
(a larger maxNodes elsewhere) can move it. And pods in a zone other than the file system's read it across
zones, which AWS bills as data transfer between Availability Zones.
"""

from gpukit.components.addons.storage.volume import PlannedVolume
from gpukit.components.findings import Finding, Severity
from gpukit.components.spec import StorageKind
from gpukit.components.substrate import ResolvedCluster

SHARED = "gpukit:storage.shared"
LUSTRE_ZONE_UNKNOWN = "one zone (first node subnet)"
"""What the plan shows when no GPU pool pins a zone: the zone is the first node subnet's, known at
`pulumi up` only."""


def lustre_zone_findings(cluster: ResolvedCluster, volumes: list[PlannedVolume]) -> list[Finding]:
    """A warning per fsx-lustre volume whose zone gpukit chose (naming the key that pins it), and a note
    per GPU pool that pins zones without the volume's (its pods read across zones)."""
    configured = cluster.args.get("storage", {}).get("shared", [])
    index = {v["name"]: i for i, v in enumerate(configured)}
    findings: list[Finding] = []
    for volume in volumes:
        if volume.kind is not StorageKind.FSX_LUSTRE:
            continue
        key = f"{SHARED}[{index[volume.name]}].zone"
        zone = volume.zones[0] if volume.zones else LUSTRE_ZONE_UNKNOWN
        if "zone" not in volume.spec:
            findings.append(_unpinned(key, volume.name, zone))
        if zone == LUSTRE_ZONE_UNKNOWN:
            continue
        for i, pool in enumerate(cluster.pools):
            if pool.is_gpu and pool.zones and zone not in pool.zones:
                findings.append(
                    Finding(
                        Severity.INFO,
                        f"gpukit:nodePools[{i}].zones",
                        f"pool {pool.name} runs in {', '.join(pool.zones)}, not in {zone} where FSx for "
                        f"Lustre volume {volume.name} lives: its pods read the volume across zones, with "
                        "more latency, and AWS bills data transfer between Availability Zones (not in the "
                        "plan's costs)",
                        fix=f"add {zone} to the pool's zones, or set {key} to a zone the pool runs in",
                    )
                )
    return findings


def _unpinned(key: str, name: str, zone: str) -> Finding:
    if zone == LUSTRE_ZONE_UNKNOWN:
        where = "the first node subnet's zone, known only at `pulumi up` (no GPU pool pins a zone)"
        fix = f"pin a GPU pool's zones and set {key} to one of them"
    else:
        where = f"{zone}, the zone of the GPU pool with the most GPUs at maxNodes"
        fix = f"set `{key}: {zone}`"
    return Finding(
        Severity.WARNING,
        key,
        f"FSx for Lustre volume {name} is placed in {where}; a change to the pools can move it, and a "
        "change of its zone (or of the volume's name) replaces the file system: the new one is empty and "
        "the data on the old one is lost",
        fix=fix,
    )


def efs_iam_findings(cluster: ResolvedCluster, volumes: list[PlannedVolume]) -> list[Finding]:
    """A note per efs volume: its file system admits the node roles only, through access points, with
    IAM authorization (policies.efs_file_system_policy). A claim that an earlier gpukit provisioned kept
    its class's mount options of then, without `iam`, and EFS refuses its next mount until the option
    is added: the plan cannot see a cluster's claims, so it says what to check."""
    configured = cluster.args.get("storage", {}).get("shared", [])
    index = {v["name"]: i for i, v in enumerate(configured)}
    return [
        Finding(
            Severity.INFO,
            f"{SHARED}[{index[volume.name]}]",
            f"EFS volume {volume.name} admits only the nodes' IAM roles, through access points, mounting "
            "with IAM authorization (`iam`); on a cluster whose claims an earlier gpukit provisioned, add "
            f"`iam` to their PersistentVolumes' mountOptions (class shared-{volume.name}), or EFS refuses "
            'their next mount (docs/shared-storage.md, "Who may mount EFS")',
        )
        for volume in volumes
        if volume.kind is StorageKind.EFS
    ]
