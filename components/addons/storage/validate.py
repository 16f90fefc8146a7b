"""Meaning checks on `gpukit:storage`, the same on every substrate: names, a backend the substrate can
use and gpukit builds there, the region, size, tier and throughput against the backend's table row,
and the keys only some backends take. Each problem names the key, the allowed values and what was
given."""

from collections import Counter

from gpukit.components.addons.storage.backends import BACKENDS, Backend, kinds_for
from gpukit.components.addons.storage.choice import pick_tier
from gpukit.components.addons.storage.naming import VOLUME_NAME_MAX
from gpukit.components.addons.storage.plan import volume_choice
from gpukit.components.addons.storage.variant import storage_variant
from gpukit.components.errors import Problem
from gpukit.components.spec import SharedVolumeSpec, StorageKind, StorageRole, StorageSpec
from gpukit.components.substrate import Substrate
from gpukit.components.validate.common import check_name

STORAGE = "gpukit:storage"
SHARED = f"{STORAGE}.shared"


def _names(kinds: list[StorageKind] | frozenset[StorageKind]) -> str:
    return ", ".join(k.value for k in sorted(kinds, key=lambda k: list(BACKENDS).index(k))) or "none yet"


def _where(backend: Backend) -> str:
    return ", ".join(sorted(backend.substrates))


def _kind_problem(key: str, backend: Backend, substrate: Substrate, region: str) -> Problem | None:
    kind = backend.kind.value
    if substrate.name not in backend.substrates:
        return Problem(
            key,
            f"{kind} ({backend.title}) is for {_where(backend)}; this cluster is {substrate.title}, where "
            f"the backends are: {_names(kinds_for(substrate.name))}",
        )
    built = storage_variant(substrate).kinds
    if backend.kind not in built:
        return Problem(
            key,
            f"gpukit does not build {kind} on {substrate.name} yet (it builds: {_names(built)}); "
            f"got {kind!r}",
        )
    if backend.regions is not None and region not in backend.regions:
        listed = f"regions listed by {backend.regions_source}" if backend.regions_source else "regions"
        return Problem(
            key,
            f"{kind} is not offered in {region} as far as gpukit knows ({listed}: "
            f"{', '.join(sorted(backend.regions))}); pick one of them in gcp:region, or another kind",
        )
    return None


def _volume_problems(key: str, volume: SharedVolumeSpec, substrate: Substrate, region: str) -> list[Problem]:
    problems: list[Problem] = []
    size, wanted = volume["size_gb"], volume.get("throughput_mbps")
    if size < 1:
        problems.append(Problem(f"{key}.sizeGb", f"must be at least 1 GiB; got {size}"))
    if wanted is not None and wanted < 1:
        problems.append(Problem(f"{key}.throughputMbps", f"must be at least 1 MB/s; got {wanted}"))
    if problems:
        return problems
    kind = volume["kind"]
    if kind is StorageKind.AUTO:
        if "tier" in volume:
            return [
                Problem(
                    f"{key}.tier",
                    "tiers are a backend's: name the backend in `kind` to pick one, or leave `tier` out "
                    f"(auto takes the first tier that fits); got {volume['tier']!r}",
                )
            ]
        choice = volume_choice(volume, substrate, region)
        if choice.backend is None:
            return [
                Problem(
                    f"{key}.kind",
                    f"auto finds no backend for {volume['role'].value} on {substrate.name} "
                    f"({choice.reason}); name a backend, or change sizeGb or throughputMbps",
                )
            ]
        backend = choice.backend
    else:
        backend = BACKENDS[kind]
        refused = _kind_problem(f"{key}.kind", backend, substrate, region)
        if refused is not None:
            return [refused]
        if volume["role"] not in backend.roles:
            return [_role_problem(key, volume, backend)]
        problems += _tier_problems(key, volume, backend)
    problems += _backend_key_problems(key, volume, backend)
    return problems


def _role_problem(key: str, volume: SharedVolumeSpec, backend: Backend) -> Problem:
    """A backend named for a role it cannot serve: a bucket mount (s3, gcs-fuse) takes no appends or
    in-place writes, so saving a checkpoint there fails (Mountpoint for S3 implements no file behaviour
    S3's object APIs cannot do efficiently, no random writes: github.com/awslabs/mountpoint-s3
    doc/SEMANTICS.md, as docs/shared-storage.md cites; Cloud Storage FUSE: the GKE helper's finding
    this check replaces)."""
    role, kind = volume["role"].value, backend.kind.value
    roles = ", ".join(r.value for r in StorageRole if r in backend.roles)
    why = " (a bucket mount takes no appends or in-place writes)" if backend.needs_bucket else ""
    return Problem(
        f"{key}.role",
        f"{kind} cannot hold {role}{why}: it serves {roles}; name another kind (or `kind: auto`); "
        f"got role {role!r} with kind {kind!r}",
    )


def _tier_problems(key: str, volume: SharedVolumeSpec, backend: Backend) -> list[Problem]:
    size, wanted = volume["size_gb"], volume.get("throughput_mbps")
    kind = backend.kind.value
    if "tier" in volume:
        tier = backend.tier(volume["tier"])
        if tier is None:
            allowed = ", ".join(t.name for t in backend.tiers)
            return [Problem(f"{key}.tier", f"{kind} tiers are {allowed}; got {volume['tier']!r}")]
        if not tier.holds(size):
            return [
                Problem(f"{key}.sizeGb", f"{kind} tier {tier.name} takes {tier.sizes_in_words()}; got {size}")
            ]
        given = tier.throughput_mbps(size)
        if wanted is not None and (given is None or given < wanted):
            shown = f"gives {given:,.0f} MB/s at {size} GiB" if given is not None else "has no sourced figure"
            return [Problem(f"{key}.throughputMbps", f"{kind} tier {tier.name} {shown}; got {wanted}")]
        return []
    if any(t.holds(size) for t in backend.tiers):
        tier, why_not = pick_tier(backend, size, wanted)  # the first tier that gives the throughput
        return [] if tier is not None else [Problem(f"{key}.throughputMbps", f"{kind} {why_not}")]
    sizes = "; ".join(f"tier {t.name}: {t.sizes_in_words()}" for t in backend.tiers)
    return [Problem(f"{key}.sizeGb", f"{kind} takes {sizes}; got {size}")]


def _backend_key_problems(key: str, volume: SharedVolumeSpec, backend: Backend) -> list[Problem]:
    problems: list[Problem] = []
    kind = backend.kind.value
    if backend.needs_bucket and "bucket" not in volume:
        problems.append(
            Problem(f"{key}.bucket", f"required for {kind}: the existing bucket the volume mounts")
        )
    if not backend.needs_bucket and "bucket" in volume:
        by_auto = ", chosen by auto" if volume["kind"] is StorageKind.AUTO else ""
        problems.append(
            Problem(
                f"{key}.bucket",
                f"only for s3 and gcs-fuse (the volume is {kind}{by_auto}); remove the key",
            )
        )
    if "zone" in volume and not backend.takes_zone:
        by_auto = ", chosen by auto" if volume["kind"] is StorageKind.AUTO else ""
        takers = ", ".join(b.kind.value for b in BACKENDS.values() if b.takes_zone)
        problems.append(
            Problem(
                f"{key}.zone",
                f"only for single-zone backends gpukit places ({takers}); the volume is {kind}{by_auto}, "
                f"which takes no zone: remove the key; got {volume['zone']!r}",
            )
        )
    nfs = volume.get("nfs")
    if nfs is not None and backend.kind is not StorageKind.NFS:
        problems.append(Problem(f"{key}.nfs", f"only for kind nfs; the volume is {kind}: remove the key"))
    elif nfs is not None:
        if "host" in nfs and ("server" in nfs or "path" in nfs):
            problems.append(
                Problem(f"{key}.nfs.host", "set host (a server gpukit makes) or server and path, not both")
            )
        elif ("server" in nfs) != ("path" in nfs):
            missing = "path" if "server" in nfs else "server"
            problems.append(
                Problem(f"{key}.nfs.{missing}", "required with server and path: an export is both")
            )
        path = nfs.get("path")
        if path is not None and not path.startswith("/"):
            problems.append(
                Problem(f"{key}.nfs.path", f"must be an absolute path like /srv/nfs; got {path!r}")
            )
    return problems


def validate_storage(storage: StorageSpec, substrate: Substrate, region: str) -> list[Problem]:
    """Every problem with `gpukit:storage` on `substrate` in `region`, in config order."""
    volumes = storage.get("shared", [])
    problems: list[Problem] = []
    names = Counter(v["name"] for v in volumes)
    for i, volume in enumerate(volumes):
        key = f"{SHARED}[{i}]"
        check_name(f"{key}.name", volume["name"], VOLUME_NAME_MAX, problems)
        if names[volume["name"]] > 1:
            problems.append(Problem(f"{key}.name", f"duplicate shared volume name {volume['name']!r}"))
        problems += _volume_problems(key, volume, substrate, region)
    return problems
