"""Each shared volume of a validated cluster, planned: its backend and tier (chosen for `kind: auto`
among what the substrate's storage variant builds), the zones it serves and the machine that serves it
where gpukit runs one (both the variant's to say)."""

from gpukit.components.addons.storage.backends import BACKENDS
from gpukit.components.addons.storage.choice import Choice, choose_backend, pick_tier
from gpukit.components.addons.storage.variant import storage_variant
from gpukit.components.addons.storage.volume import PlannedVolume
from gpukit.components.spec import SharedVolumeSpec, StorageKind
from gpukit.components.substrate import ResolvedCluster, Substrate


def volume_choice(volume: SharedVolumeSpec, substrate: Substrate, region: str) -> Choice:
    """The backend and tier a volume gets on `substrate`: `auto` chosen among what the substrate builds,
    a named kind taken as named (with its named tier, or the first that fits)."""
    kind = volume["kind"]
    size, wanted = volume["size_gb"], volume.get("throughput_mbps")
    if kind is StorageKind.AUTO:
        return choose_backend(
            substrate.name,
            volume["role"],
            size,
            wanted,
            region,
            bucket="bucket" in volume,
            usable=storage_variant(substrate).kinds,
        )
    named = BACKENDS[kind]
    if "tier" in volume:
        tier = named.tier(volume["tier"])
        return Choice(named, tier, "" if tier is not None else f"no tier {volume['tier']!r}")
    tier, why_not = pick_tier(named, size, wanted)
    return Choice(named, tier, why_not)


def planned_volumes(cluster: ResolvedCluster) -> list[PlannedVolume]:
    """Every shared volume of a validated cluster, in config order."""
    region = cluster.spec.get("region", "")
    variant = storage_variant(cluster.substrate)
    found: list[PlannedVolume] = []
    for volume in cluster.args.get("storage", {}).get("shared", []):
        choice = volume_choice(volume, cluster.substrate, region)
        if choice.backend is None or choice.tier is None:  # validation refuses these: never reached
            raise ValueError(f"shared volume {volume['name']!r} was not validated: {choice.reason}")
        reason = choice.reason if volume["kind"] is StorageKind.AUTO else ""
        planned = PlannedVolume(volume, choice.backend, choice.tier, reason)
        zones = tuple(variant.volume_zones(cluster, planned))
        server = variant.volume_server(cluster, planned)
        found.append(PlannedVolume(volume, choice.backend, choice.tier, reason, zones, region, server))
    return found
