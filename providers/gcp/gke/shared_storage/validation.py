"""GKE's checks of `gpukit:storage.shared[]` beyond the neutral ones (components/storage/validate.py checks
sizes, tiers, throughput, regions and each kind's roles against the backend table): Cloud Storage bucket
names. Each problem names the volume's key."""

from collections.abc import Mapping, Sequence
from typing import Any

from gpukit.components.errors import Problem
from gpukit.providers.gcp.gke.shared_storage.tables import BUCKET_SHAPE, GCS_FUSE, bucket_name_ok


def _gcs_fuse(key: str, volume: Mapping[str, Any], problems: list[Problem]) -> None:
    bucket = volume.get("bucket")
    if bucket is not None and not (isinstance(bucket, str) and bucket_name_ok(bucket)):
        problems.append(
            Problem(f"{key}.bucket", f"a Cloud Storage bucket name is {BUCKET_SHAPE}; got {bucket!r}")
        )


def validate_gke_shared(volumes: Sequence[Mapping[str, Any]], problems: list[Problem]) -> None:
    """Appends a problem for every shared volume GKE cannot build as declared: `volumes` are the validated
    specs (snake_case keys, components/spec.py SharedVolumeSpec) with `kind` resolved from auto; the
    problems name the config's camelCase keys."""
    for i, volume in enumerate(volumes):
        key = f"gpukit:storage.shared[{i}]"
        kind = getattr(volume.get("kind"), "value", volume.get("kind"))
        if kind == GCS_FUSE:
            _gcs_fuse(key, volume, problems)
