"""The shared-storage tables and pure functions: tiers, `kind: auto`, validation, names and prices."""

import pytest

import gpukit  # noqa: F401  (installs the substrate registry)
from gpukit.components.errors import Problem
from gpukit.components.spec import SharedVolumeSpec, StorageKind, StorageRole
from gpukit.components.storage.backends import BACKENDS, Tier, kinds_for
from gpukit.components.storage.choice import choose_backend, pick_tier
from gpukit.components.storage.naming import storage_class_name
from gpukit.components.storage.plan import HOURS_PER_MONTH, PlannedVolume
from gpukit.components.storage.validate import validate_storage
from gpukit.components.substrate import registry

ALL = frozenset(StorageKind) - {StorageKind.AUTO}


def test_every_concrete_kind_has_a_row_and_every_substrate_a_backend() -> None:
    assert set(BACKENDS) == ALL
    for substrate in registry():
        assert kinds_for(substrate.name), substrate.name
        # A substrate builds only kinds its table row says it can serve.
        assert all(substrate.name in BACKENDS[k].substrates for k in substrate.shared_storage_kinds)


def test_fsx_lustre_sizes_are_1200_then_steps_of_2400() -> None:
    tier = BACKENDS[StorageKind.FSX_LUSTRE].tiers[0]
    assert [s for s in (1200, 2400, 3600, 4800, 7200) if tier.holds(s)] == [1200, 2400, 4800, 7200]
    assert not tier.holds(1000)
    assert tier.throughput_mbps(2400) == pytest.approx(125 * 2400 / 1024)


def test_pick_tier_takes_the_first_that_gives_the_throughput() -> None:
    fsx = BACKENDS[StorageKind.FSX_LUSTRE]
    tier, _ = pick_tier(fsx, 2400, 1000)
    assert tier is not None and tier.name == "500"  # 250 gives 586 MB/s at 2400 GiB, 500 gives 1172
    none, why = pick_tier(fsx, 2400, 5000)
    assert none is None and "gives at most 2,344 MB/s at 2400 GiB, 5000 asked" in why


def test_an_unsourced_throughput_is_never_promised() -> None:
    tier, why = pick_tier(BACKENDS[StorageKind.EFS], 100, 50)
    assert tier is None and why == "no sourced throughput figure to promise 50 MB/s"


def test_auto_checkpoints_on_eks_take_efs_and_say_why() -> None:
    choice = choose_backend("eks", StorageRole.CHECKPOINTS, 1200, None, "us-west-2")
    assert choice.backend is BACKENDS[StorageKind.EFS]
    assert choice.reason == "checkpoints on eks: efs (Amazon EFS, tier elastic)"


def test_auto_moves_to_lustre_for_throughput_efs_cannot_show() -> None:
    choice = choose_backend("eks", StorageRole.CHECKPOINTS, 2400, 1000, "us-west-2")
    assert choice.backend is BACKENDS[StorageKind.FSX_LUSTRE]
    assert choice.tier is not None and choice.tier.name == "500"
    assert "passed over efs: no sourced throughput figure to promise 1000 MB/s" in choice.reason


def test_auto_takes_a_bucket_only_for_read_mostly_roles_that_name_one() -> None:
    assert (
        choose_backend("gke", StorageRole.DATASETS, 100, None, "", bucket=True).backend
        is BACKENDS[StorageKind.GCS_FUSE]
    )
    no_bucket = choose_backend("gke", StorageRole.DATASETS, 1024, None, "")
    assert no_bucket.backend is BACKENDS[StorageKind.FILESTORE]
    checkpoints = choose_backend("eks", StorageRole.CHECKPOINTS, 100, None, "", bucket=True)
    assert checkpoints.backend is BACKENDS[StorageKind.EFS]


def test_auto_on_k3s_is_nfs_and_only_among_what_the_substrate_builds() -> None:
    assert choose_backend("k3s-ssh", StorageRole.DATASETS, 500, None, "").backend is BACKENDS[StorageKind.NFS]
    nothing = choose_backend("eks", StorageRole.CHECKPOINTS, 1200, None, "", usable=frozenset())
    assert nothing.backend is None
    assert nothing.reason == "efs: not built on eks yet; fsx-lustre: not built on eks yet"


def test_storage_class_name_is_shared_dash_volume() -> None:
    assert storage_class_name("checkpoints") == "shared-checkpoints"


def test_hourly_price_is_the_monthly_rate_over_730_hours() -> None:
    tier = Tier("priced", 1, None, usd_per_gb_month=0.30)
    volume: SharedVolumeSpec = {
        "name": "data",
        "kind": StorageKind.EFS,
        "role": StorageRole.DATASETS,
        "size_gb": 1000,
    }
    planned = PlannedVolume(volume, BACKENDS[StorageKind.EFS], tier, "")
    assert planned.usd_per_hour == pytest.approx(300 / HOURS_PER_MONTH)
    assert planned.storage_class == "shared-data"


def _volume(**values: object) -> SharedVolumeSpec:
    base = {"name": "ckpt", "kind": StorageKind.FSX_LUSTRE, "role": StorageRole.CHECKPOINTS, "size_gb": 2400}
    return {**base, **values}  # type: ignore[return-value]


class _Builds:
    """A substrate as validation sees it: eks that builds every AWS backend."""

    def __init__(self, name: str, kinds: frozenset[StorageKind], title: str) -> None:
        self.name, self.shared_storage_kinds, self.title = name, kinds, title


EKS_BUILDS = _Builds("eks", frozenset({StorageKind.EFS, StorageKind.FSX_LUSTRE, StorageKind.S3}), "EKS")


def _problems(*volumes: SharedVolumeSpec) -> list[Problem]:
    return validate_storage({"shared": list(volumes)}, EKS_BUILDS, "us-west-2")  # type: ignore[arg-type]


def test_a_valid_volume_has_no_problem() -> None:
    assert _problems(_volume(), _volume(name="data", kind=StorageKind.AUTO, role=StorageRole.DATASETS)) == []


@pytest.mark.parametrize(
    ("volume", "key", "fragment"),
    [
        (_volume(size_gb=3000), "gpukit:storage.shared[0].sizeGb", "1200, 2400 to no sourced maximum GiB"),
        (_volume(tier="2000"), "gpukit:storage.shared[0].tier", "fsx-lustre tiers are 125, 250, 500, 1000"),
        (_volume(tier="125", throughput_mbps=500), "gpukit:storage.shared[0].throughputMbps", "gives 293"),
        (_volume(kind=StorageKind.FILESTORE), "gpukit:storage.shared[0].kind", "is for gke"),
        (
            _volume(kind=StorageKind.S3, role=StorageRole.DATASETS),
            "gpukit:storage.shared[0].bucket",
            "required",
        ),
        (_volume(bucket="b"), "gpukit:storage.shared[0].bucket", "only for s3 and gcs-fuse"),
        (_volume(nfs={"server": "10.0.0.5"}), "gpukit:storage.shared[0].nfs", "only for kind nfs"),
        (_volume(name="Bad_Name"), "gpukit:storage.shared[0].name", "lowercase letters"),
    ],
)
def test_each_problem_names_its_key(volume: SharedVolumeSpec, key: str, fragment: str) -> None:
    problems = _problems(volume)
    assert any(p.key == key and fragment in p.message for p in problems), problems


def test_duplicate_names_are_refused_on_each() -> None:
    problems = _problems(_volume(), _volume())
    assert [p.key for p in problems] == ["gpukit:storage.shared[0].name", "gpukit:storage.shared[1].name"]
