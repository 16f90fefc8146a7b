"""The shared-storage tables and pure functions: tiers, `kind: auto`, validation, names and prices."""

import pytest

import gpukit  # noqa: F401  (installs the substrate registry)
from gpukit.components.addons.storage.backends import BACKENDS, Tier, kinds_for
from gpukit.components.addons.storage.choice import choose_backend, pick_tier
from gpukit.components.addons.storage.naming import storage_class_name
from gpukit.components.addons.storage.plan import planned_volumes
from gpukit.components.addons.storage.rates import is_regional, regional_rate
from gpukit.components.addons.storage.report import shared_storage_lines
from gpukit.components.addons.storage.validate import validate_storage
from gpukit.components.addons.storage.variant import STORAGE, StorageVariant, storage_variant
from gpukit.components.addons.storage.volume import HOURS_PER_MONTH, PlannedVolume
from gpukit.components.errors import Problem
from gpukit.components.resolve.config import resolve_config
from gpukit.components.spec import SharedVolumeSpec, StorageKind, StorageRole
from gpukit.components.substrate import registry
from harness import example_config

ALL = frozenset(StorageKind) - {StorageKind.AUTO}


def test_every_concrete_kind_has_a_row_and_every_substrate_a_backend() -> None:
    assert set(BACKENDS) == ALL
    for substrate in registry():
        assert kinds_for(substrate.name), substrate.name
        # A substrate builds only kinds its table row says it can serve.
        assert all(substrate.name in BACKENDS[k].substrates for k in storage_variant(substrate).kinds)


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
    tier, why = pick_tier(BACKENDS[StorageKind.S3], 100, 50)
    assert tier is None and why == "no sourced throughput figure to promise 50 MB/s"


def test_auto_checkpoints_on_eks_take_efs_and_say_why() -> None:
    choice = choose_backend("eks", StorageRole.CHECKPOINTS, 1200, None, "us-west-2")
    assert choice.backend is BACKENDS[StorageKind.EFS]
    assert choice.reason == "checkpoints on eks: efs (Amazon EFS, tier elastic)"


def test_auto_moves_to_lustre_for_throughput_efs_cannot_show() -> None:
    choice = choose_backend("eks", StorageRole.CHECKPOINTS, 2400, 2000, "us-west-2")
    assert choice.backend is BACKENDS[StorageKind.FSX_LUSTRE]
    assert choice.tier is not None and choice.tier.name == "1000"
    assert "passed over efs: gives at most 1,073 MB/s at 2400 GiB, 2000 asked" in choice.reason


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
    """A substrate as validation sees it: eks that builds every AWS backend (its storage variant's kinds)."""

    def __init__(self, name: str, kinds: frozenset[StorageKind], title: str) -> None:
        variant = StorageVariant()
        variant.kinds = kinds
        self.name, self.title, self.addon_variants = name, title, {STORAGE: variant}


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
        (
            _volume(kind=StorageKind.S3, bucket="ckpts"),
            "gpukit:storage.shared[0].role",
            "s3 cannot hold checkpoints (a bucket mount takes no appends or in-place writes): it serves "
            "datasets, model-cache; name another kind (or `kind: auto`); "
            "got role 'checkpoints' with kind 's3'",
        ),
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


def _planned(kind: StorageKind, tier: str, region: str, size_gb: int = 1000) -> PlannedVolume:
    volume: SharedVolumeSpec = {
        "name": "data",
        "kind": kind,
        "role": StorageRole.DATASETS,
        "size_gb": size_gb,
    }
    if BACKENDS[kind].needs_bucket:
        volume["bucket"] = "team-data"
    row = BACKENDS[kind]
    found = row.tier(tier)
    assert found is not None
    return PlannedVolume(volume, row, found, "", region=region)


def test_regional_rates_price_only_the_sourced_regions() -> None:
    bucket = regional_rate(StorageKind.GCS_FUSE, "standard", "us-central1")
    assert bucket is not None and bucket.usd_per_gb_month == pytest.approx(0.020)
    hdd = regional_rate(StorageKind.FILESTORE, "basic-hdd", "us-west1")
    assert hdd is not None and hdd.usd_per_gb_month == pytest.approx(0.000274 * 730)
    # A price sourced in one region is never carried to another, nor to another tier.
    assert regional_rate(StorageKind.GCS_FUSE, "standard", "europe-west4") is None
    assert regional_rate(StorageKind.FILESTORE, "basic-hdd", "us-central1") is None
    assert regional_rate(StorageKind.FILESTORE, "zonal", "us-central1") is None
    lustre = BACKENDS[StorageKind.MANAGED_LUSTRE].tiers
    assert all(regional_rate(StorageKind.MANAGED_LUSTRE, t.name, "us-central1") is None for t in lustre)


def test_every_gke_tier_is_priced_per_region() -> None:
    for kind in (StorageKind.FILESTORE, StorageKind.GCS_FUSE, StorageKind.MANAGED_LUSTRE):
        assert all(is_regional(kind, t.name) for t in BACKENDS[kind].tiers), kind


def test_a_filestore_in_a_priced_region_costs_its_provisioned_size_per_hour() -> None:
    planned = _planned(StorageKind.FILESTORE, "basic-hdd", "us-west1", 1024)
    assert planned.usd_per_gb_month == pytest.approx(0.20002)
    # Filestore bills provisioned capacity: 1 TiB at $0.000274/GiB-hour, the pricing page's own example.
    assert planned.usd_per_hour == pytest.approx(1024 * 0.000274)
    lines = "\n".join(shared_storage_lines([planned]))
    assert "$0.2806/h" in lines and "$0.2000/GiB-month" in lines


def test_a_bucket_shows_its_rate_per_stored_gib_and_stays_out_of_the_totals() -> None:
    planned = _planned(StorageKind.GCS_FUSE, "standard", "us-central1")
    assert planned.usd_per_gb_month == pytest.approx(0.020)
    assert planned.usd_per_hour is None  # the bucket exists already and bills the bytes it holds
    lines = "\n".join(shared_storage_lines([planned]))
    assert "per stored GiB" in lines
    assert "bucket team-data bills the bytes it stores, not sizeGb: $0.0200/GiB-month" in lines


def test_a_volume_in_an_unpriced_region_says_which_region() -> None:
    planned = _planned(StorageKind.FILESTORE, "zonal", "us-central1", 2560)
    assert planned.usd_per_gb_month is None and planned.usd_per_hour is None
    assert "no sourced price in us-central1" in "\n".join(shared_storage_lines([planned]))
    elsewhere = _planned(StorageKind.GCS_FUSE, "standard", "us-east1")
    assert elsewhere.usd_per_gb_month is None
    assert "no sourced price in us-east1" in "\n".join(shared_storage_lines([elsewhere]))


def test_efs_is_priced_only_where_its_price_was_sourced() -> None:
    """EFS Standard's $0.30/GiB-month was sourced for us-east-1 and us-west-2: eu-west-1 gets no price
    (never us-east-1's), and the plan names the region."""
    priced = _planned(StorageKind.EFS, "elastic", "us-west-2", 200)
    assert priced.usd_per_gb_month == pytest.approx(0.30)
    assert priced.usd_per_hour == pytest.approx(0.30 * 200 / HOURS_PER_MONTH)
    unpriced = _planned(StorageKind.EFS, "elastic", "eu-west-1", 200)
    assert unpriced.usd_per_gb_month is None and unpriced.usd_per_hour is None
    assert "no sourced price in eu-west-1" in "\n".join(shared_storage_lines([unpriced]))


def test_the_k3s_nfs_vm_disk_is_priced_only_where_gp3_was_sourced() -> None:
    config = example_config("k3s-aws")
    (home,) = planned_volumes(resolve_config(config))
    assert home.server is not None and home.server.disk_usd_per_gb_month == pytest.approx(0.08)
    config["aws:region"] = "eu-west-1"
    (away,) = planned_volumes(resolve_config(config))
    assert away.server is not None and away.server.disk_usd_per_gb_month is None
    assert away.usd_per_hour is None  # a lower bound in the totals, never us-east-1's disk price
    assert "no sourced price in eu-west-1" in "\n".join(shared_storage_lines([away]))
