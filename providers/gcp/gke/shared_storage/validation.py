"""GKE's checks of `gpukit:storage.shared[]`: what only GKE knows (Filestore tiers and sizes, the regions
with Managed Lustre, Cloud Storage bucket names). Each problem names the volume's key."""

from collections.abc import Mapping, Sequence
from typing import Any

from gpukit.components.errors import Problem
from gpukit.providers.gcp.gke.shared_storage.tables import (
    BUCKET_SHAPE,
    FILESTORE,
    FILESTORE_TIERS,
    GCS_FUSE,
    LUSTRE_LOCATIONS_URL,
    LUSTRE_REGIONS,
    LUSTRE_TIERS,
    MANAGED_LUSTRE,
    bucket_name_ok,
    choose_filestore_tier,
    choose_lustre_tier,
    filestore_tier,
    lustre_tier,
)


def _filestore(key: str, volume: Mapping[str, Any], problems: list[Problem]) -> None:
    size, wanted = volume.get("size_gb"), volume.get("throughput_mbps")
    name = volume.get("tier")
    if name is not None:
        tier = filestore_tier(str(name))
        if tier is None:
            names = ", ".join(t.name for t in FILESTORE_TIERS)
            problems.append(Problem(f"{key}.tier", f"filestore has tiers {names}; got {name!r}"))
        elif isinstance(size, int) and not tier.holds(size):
            step = f" in steps of {tier.step_gb}" if tier.step_gb > 1 else ""
            problems.append(
                Problem(
                    f"{key}.sizeGb",
                    f"filestore {tier.name} holds {tier.min_gb} to {tier.max_gb} GiB{step}; got {size}",
                )
            )
        elif isinstance(size, int) and isinstance(wanted, int) and tier.read_mibps(size) < wanted:
            problems.append(
                Problem(
                    f"{key}.throughputMbps",
                    f"filestore {tier.name} reads about {tier.read_mibps(size):.0f} MiB/s at {size} GiB "
                    f"(Filestore performance estimates); {wanted} MB/s was asked: pick a larger size or "
                    "another tier",
                )
            )
    elif isinstance(size, int) and choose_filestore_tier(size, wanted) is None:
        ranges = "; ".join(f"{t.name} {t.min_gb}-{t.max_gb} GiB" for t in FILESTORE_TIERS)
        asked = f" reading {wanted} MB/s" if wanted else ""
        problems.append(Problem(f"{key}.sizeGb", f"no Filestore tier holds {size} GiB{asked} ({ranges})"))


def _lustre(key: str, volume: Mapping[str, Any], region: str, problems: list[Problem]) -> None:
    if region not in LUSTRE_REGIONS:
        problems.append(
            Problem(
                "gcp:region",
                f"{key} is managed-lustre, which Google offers in {', '.join(sorted(LUSTRE_REGIONS))} "
                f"({LUSTRE_LOCATIONS_URL}); got {region!r}: use filestore there",
            )
        )
    size, wanted, name = volume.get("size_gb"), volume.get("throughput_mbps"), volume.get("tier")
    if name is not None:
        tier = lustre_tier(str(name))
        if tier is None:
            names = ", ".join(t.name for t in LUSTRE_TIERS)
            problems.append(
                Problem(f"{key}.tier", f"managed-lustre has tiers {names} (MB/s per TiB); got {name!r}")
            )
        elif isinstance(size, int) and not tier.holds(size):
            problems.append(
                Problem(
                    f"{key}.sizeGb",
                    f"managed-lustre {tier.name} holds {tier.min_gb} to {tier.max_gb} GiB in steps of "
                    f"{tier.min_gb}; got {size}",
                )
            )
    elif isinstance(size, int) and choose_lustre_tier(size, wanted) is None:
        ranges = "; ".join(f"{t.name}: multiples of {t.min_gb} up to {t.max_gb} GiB" for t in LUSTRE_TIERS)
        problems.append(Problem(f"{key}.sizeGb", f"no Managed Lustre tier holds {size} GiB ({ranges})"))


def _gcs_fuse(key: str, volume: Mapping[str, Any], problems: list[Problem]) -> None:
    bucket = volume.get("bucket")
    if bucket is not None and not (isinstance(bucket, str) and bucket_name_ok(bucket)):
        problems.append(
            Problem(f"{key}.bucket", f"a Cloud Storage bucket name is {BUCKET_SHAPE}; got {bucket!r}")
        )
    if getattr(volume.get("role"), "value", volume.get("role")) == "checkpoints":
        problems.append(
            Problem(
                f"{key}.role",
                "gcs-fuse cannot hold checkpoints (no appends or random writes through Cloud Storage FUSE); "
                "use filestore or managed-lustre",
            )
        )


def validate_gke_shared(volumes: Sequence[Mapping[str, Any]], region: str, problems: list[Problem]) -> None:
    """Appends a problem for every shared volume GKE cannot build as declared: `volumes` are the validated
    specs (snake_case keys, components/spec.py SharedVolumeSpec) with `kind` resolved from auto; the
    problems name the config's camelCase keys."""
    for i, volume in enumerate(volumes):
        key = f"gpukit:storage.shared[{i}]"
        kind = getattr(volume.get("kind"), "value", volume.get("kind"))
        if kind == FILESTORE:
            _filestore(key, volume, problems)
        elif kind == MANAGED_LUSTRE:
            _lustre(key, volume, region, problems)
        elif kind == GCS_FUSE:  # role is a StorageRole or its value
            _gcs_fuse(key, volume, problems)
