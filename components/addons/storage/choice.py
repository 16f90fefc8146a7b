"""`kind: auto` and a volume without `tier`: which backend and tier a volume gets, and why, as pure
functions of the table (components/addons/storage/backends.py)."""

from dataclasses import dataclass

from gpukit.components.addons.storage.backends import BACKENDS, Backend, Tier
from gpukit.components.spec import StorageKind, StorageRole

# Datasets and model caches are read-mostly: an existing bucket where one is named, else the shared file
# system, else Lustre where more throughput is asked for than it can be shown to give.
_READ_MOSTLY = (
    StorageKind.S3,
    StorageKind.GCS_FUSE,
    StorageKind.EFS,
    StorageKind.FILESTORE,
    StorageKind.FSX_LUSTRE,
    StorageKind.MANAGED_LUSTRE,
    StorageKind.NFS,
)

AUTO_ORDER: dict[StorageRole, tuple[StorageKind, ...]] = {
    # Checkpoints need full POSIX writes and must survive a node: the highly available file system
    # first, Lustre where more throughput is asked for than the file system can be shown to give.
    StorageRole.CHECKPOINTS: (
        StorageKind.EFS,
        StorageKind.FILESTORE,
        StorageKind.FSX_LUSTRE,
        StorageKind.MANAGED_LUSTRE,
        StorageKind.NFS,
    ),
    StorageRole.DATASETS: _READ_MOSTLY,
    StorageRole.MODEL_CACHE: _READ_MOSTLY,
}


@dataclass(frozen=True)
class Choice:
    backend: Backend | None
    """None: no backend fits; `reason` says why each was passed over."""
    tier: Tier | None
    reason: str
    """One line for the plan: why this backend (or why none)."""


def pick_tier(backend: Backend, size_gb: int, throughput_mbps: int | None) -> tuple[Tier | None, str]:
    """The first tier (cheapest first) that holds `size_gb` and is shown to give `throughput_mbps`;
    None and why not otherwise."""
    sized = [t for t in backend.tiers if t.holds(size_gb)]
    if not sized:
        sizes = "; ".join(f"{t.name}: {t.sizes_in_words()}" for t in backend.tiers)
        return None, f"{size_gb} GiB is not a size it makes ({sizes})"
    if throughput_mbps is None:
        return sized[0], ""
    for tier in sized:
        given = tier.throughput_mbps(size_gb)
        if given is not None and given >= throughput_mbps:
            return tier, ""
    shown = [g for t in sized if (g := t.throughput_mbps(size_gb)) is not None]
    if not shown:
        return None, f"no sourced throughput figure to promise {throughput_mbps} MB/s"
    return None, f"gives at most {max(shown):,.0f} MB/s at {size_gb} GiB, {throughput_mbps} asked"


def choose_backend(
    substrate_name: str,
    role: StorageRole,
    size_gb: int,
    throughput_mbps: int | None,
    region: str,
    *,
    bucket: bool = False,
    usable: frozenset[StorageKind] | None = None,
) -> Choice:
    """The backend `kind: auto` gives a volume, with the one-line reason the plan prints.

    Tries the role's order (AUTO_ORDER) among the backends that serve the substrate (and, with `usable`,
    that it builds), skipping those that need a bucket when none is named, lack the region, or cannot
    hold the size or be shown to give the throughput."""
    passed: list[str] = []
    for kind in AUTO_ORDER[role]:
        candidate = BACKENDS[kind]
        if substrate_name not in candidate.substrates or role not in candidate.roles:
            continue
        if usable is not None and kind not in usable:
            passed.append(f"{kind.value}: not built on {substrate_name} yet")
            continue
        if candidate.needs_bucket and not bucket:
            continue  # a bucket backend only where the volume names a bucket: said in the docs
        if candidate.regions is not None and region not in candidate.regions:
            passed.append(f"{kind.value}: not offered in {region}")
            continue
        tier, why_not = pick_tier(candidate, size_gb, throughput_mbps)
        if tier is None:
            passed.append(f"{kind.value}: {why_not}")
            continue
        wanted = f" at {throughput_mbps} MB/s" if throughput_mbps is not None else ""
        reason = (
            f"{role.value} on {substrate_name}{wanted}: {kind.value} ({candidate.title}, tier {tier.name})"
        )
        if passed:
            reason += f"; passed over {'; '.join(passed)}"
        return Choice(candidate, tier, reason)
    why = "; ".join(passed) if passed else f"no backend serves {role.value} on {substrate_name}"
    return Choice(None, None, why)
