"""GKE's checks of `gpukit:storage.shared[]` beyond the neutral ones (components/addons/storage/
validate.py checks sizes, tiers, throughput, regions and each kind's roles against the backend table):
Cloud Storage bucket names, and no private services access on a network gpukit does not own. Each problem
names the volume's key."""

from collections.abc import Mapping, Sequence
from typing import Any

from gpukit.components.errors import Problem
from gpukit.providers.gcp.gke.shared_storage.tables import (
    BUCKET_SHAPE,
    FILESTORE,
    GCS_FUSE,
    MANAGED_LUSTRE,
    bucket_name_ok,
)

REUSED_NETWORK_KEY = "gpukit:cluster.network.networkId"


def _gcs_fuse(key: str, volume: Mapping[str, Any], problems: list[Problem]) -> None:
    bucket = volume.get("bucket")
    # A pulumi.Output (GpuCluster from Python) names the user's own bucket: it exists, so it is a name.
    if isinstance(bucket, str) and not bucket_name_ok(bucket):
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


def validate_gke_private_access(
    network: Mapping[str, Any], kinds: Sequence[str | None], problems: list[Problem]
) -> None:
    """Filestore and Managed Lustre need a private services access connection on the cluster's VPC, and a
    VPC has one connection to servicenetworking.googleapis.com, shared by every producer service on it
    (Cloud SQL, Memorystore, ...). On a network gpukit creates it makes that connection itself; on a
    reused one (`networkId`) it may exist already: creating a second with another range fails, and
    replacing or deleting it would touch every other service's peering (Managed Lustre "Configure a VPC
    network"; pulumi-gcp servicenetworking.Connection: "invoking this method with a different range when
    connection is already established will not reallocate already provisioned service producer
    subnetworks"). gpukit refuses the volume there rather than guess. `kinds` are the volumes' resolved
    kinds, in config order (None: not resolvable, refused elsewhere)."""
    if "network_id" not in network:
        return
    for i, kind in enumerate(kinds):
        if kind in (FILESTORE, MANAGED_LUSTRE):
            problems.append(
                Problem(
                    f"gpukit:storage.shared[{i}].kind",
                    f"{kind} needs a private services access connection on the cluster's VPC, and "
                    f"{REUSED_NETWORK_KEY} reuses a network that gpukit does not own: it may already have "
                    "one (a VPC has a single connection to servicenetworking.googleapis.com, shared with "
                    "Cloud SQL and other services), which gpukit must neither duplicate nor delete. Use "
                    "kind gcs-fuse on this network, or let gpukit create the network (gpukit:cluster.network"
                    ".cidr instead of networkId); got kind "
                    f"{kind!r} with networkId",
                )
            )
