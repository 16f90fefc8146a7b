"""EKS-only checks on `gpukit:storage.shared`, before anything is built: what the provider-neutral
checks (components/storage) cannot know. Pure; each problem names its key, the rule and the value."""

import ipaddress
import re
from collections.abc import Mapping, Sequence
from typing import Any

from gpukit.components.errors import Problem
from gpukit.components.spec import StorageKind
from gpukit.providers.aws.eks.shared_storage.facts import (
    S3_BUCKET_MAX,
    S3_BUCKET_MIN,
    S3_BUCKET_PREFIXES,
    S3_BUCKET_SOURCE,
    S3_BUCKET_SUFFIXES,
)

SHARED = "gpukit:storage.shared"
# Lowercase letters, digits, dots and hyphens, beginning and ending with a letter or digit (S3 user
# guide, bucketnamingrules.html); length, adjacent dots, IP form and reserved affixes are checked apart
# so the message says which rule failed.
_BUCKET = re.compile(r"[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?")


def bucket_name_problem(name: str) -> str | None:
    """Why S3 refuses `name` as a general purpose bucket name, or None."""
    if not S3_BUCKET_MIN <= len(name) <= S3_BUCKET_MAX:
        return f"takes {S3_BUCKET_MIN}-{S3_BUCKET_MAX} characters; got {name!r} ({len(name)})"
    if not _BUCKET.fullmatch(name):
        return (
            "takes lowercase letters, digits, '.' and '-', beginning and ending with a letter or digit; "
            f"got {name!r}"
        )
    if ".." in name:
        return f"must not contain two adjacent periods; got {name!r}"
    try:
        ipaddress.IPv4Address(name)
    except ValueError:
        pass
    else:
        return f"must not be formatted as an IP address; got {name!r}"
    for prefix in S3_BUCKET_PREFIXES:
        if name.startswith(prefix):
            return f"must not start with {prefix!r} (reserved); got {name!r}"
    for suffix in S3_BUCKET_SUFFIXES:
        if name.endswith(suffix):
            return f"must not end with {suffix!r} (reserved); got {name!r}"
    return None


def zone_problem(zone: Any, pinned: Sequence[str]) -> str | None:
    """Why `zone` cannot hold a single-zone file system, or None. It must be a zone a node pool pins: the
    cluster has a node subnet there (a new VPC gets one in every pinned zone; a reused one is checked
    for them at `pulumi up`), so nodes reach the file system without crossing zones."""
    if not isinstance(zone, str):
        return f"must be an AZ ID such as use1-az4; got {zone!r}"
    if zone in pinned:
        return None
    if not pinned:
        return (
            "must be a zone a node pool pins, and no pool pins one: set the GPU pools' `zones` (AZ IDs), "
            f"then pick one of them; got {zone!r}"
        )
    return f"must be a zone the node pools pin ({', '.join(pinned)}); got {zone!r}"


def validate_eks_storage(
    cluster_name: str, storage: Mapping[str, Any], pools: Sequence[Mapping[str, Any]] | None = None
) -> list[Problem]:
    """The bucket names of s3 volumes and the zones of fsx-lustre volumes (kinds, sizes and tiers:
    components/addons/storage/validate.py; `zone` on a backend that takes none is refused there). The EFS
    creation token `<cluster>-<volume>` needs no check: 32 + 1 + 24 = 57 characters at most, under
    EFS's 64 (the plan fakes hold every token to 64). `pools`: None when the pools are invalid (their
    zones are then not checked against)."""
    problems: list[Problem] = []
    pinned = list(dict.fromkeys(z for pool in pools or [] for z in pool.get("zones", []) or []))
    for i, volume in enumerate(storage.get("shared", []) or []):
        key = f"{SHARED}[{i}]"
        if (
            "zone" in volume
            and pools is not None
            and volume.get("kind") in (StorageKind.FSX_LUSTRE, StorageKind.AUTO)
        ):
            why_zone = zone_problem(volume["zone"], pinned)
            if why_zone is not None:
                problems.append(Problem(f"{key}.zone", why_zone))
        bucket = volume.get("bucket")
        if isinstance(bucket, str):
            why = bucket_name_problem(bucket)
            if why is not None:
                problems.append(Problem(f"{key}.bucket", f"an S3 bucket name {why} ({S3_BUCKET_SOURCE})"))
    return problems
