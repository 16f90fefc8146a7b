"""What shared volumes cost beyond their hourly rate, which the plan's totals cannot hold: charges by
use (GB moved between zones) and what outlives the stack (a server's final snapshot). Said as plan
findings, so a budget is not read as the whole bill."""

from collections.abc import Sequence

from gpukit.components.addons.storage.variant import StorageVariant
from gpukit.components.addons.storage.volume import PlannedVolume
from gpukit.components.findings import Finding, Severity
from gpukit.components.spec import StorageKind
from gpukit.components.substrate import ResolvedCluster


def spans_zones(cluster: ResolvedCluster, variant: StorageVariant) -> bool:
    """Whether the cluster's nodes may sit in several zones of a cloud: a pool pinned to none goes
    wherever the network reaches (several zones on every cloud substrate), pinned pools to theirs.
    Hosts over SSH sit in no cloud zone (their variant says so)."""
    if not variant.cloud_zones:
        return False
    zones = [cluster.substrate.pool_zones(cluster, p) for p in cluster.pools]
    return any(not z for z in zones) or len({z for found in zones for z in found}) > 1


def usage_findings(
    volumes: Sequence[PlannedVolume], multi_zone: bool, noted: frozenset[StorageKind] = frozenset()
) -> list[Finding]:
    """Per volume: cross-zone reads and writes of a single-zone volume in a cluster of several zones
    (EC2 and Compute Engine bill traffic between zones per GB, each way; not for the kinds in `noted`,
    whose storage variant says it pool by pool), and the snapshot a volume server's data disk leaves
    when the stack deletes it (billed per GB-month until deleted)."""
    found = []
    for i, volume in enumerate(volumes):
        key = f"gpukit:storage.shared[{i}]"
        if not volume.highly_available and multi_zone and volume.kind not in noted:
            found.append(
                Finding(
                    Severity.INFO,
                    key,
                    f"{volume.name} lives in one zone: pods in the cluster's other zones read and write it "
                    "across zones, billed per GB each way by the cloud (not in the plan's totals)",
                    fix=f"pin the GPU pools that use {volume.name} to its zone",
                )
            )
        if volume.server is not None:
            found.append(
                Finding(
                    Severity.INFO,
                    key,
                    f"`pulumi destroy` keeps a final snapshot of {volume.name}'s {volume.size_gb} GiB data "
                    "disk, billed per GB-month until you delete it (not in the plan's totals)",
                )
            )
    return found
