"""GKE shared-storage facts and checks, without Pulumi: tier choice, add-on flags, bucket names, and the
bad configurations refused with their keys (volumes as validated specs: snake_case keys)."""

from typing import Any

import pytest

from gpukit.components.errors import Problem
from gpukit.providers.gcp.gke.shared_storage.tables import (
    bucket_name_ok,
    choose_filestore_tier,
    choose_lustre_tier,
    storage_addons,
    storage_apis,
)
from gpukit.providers.gcp.gke.shared_storage.validation import validate_gke_shared


def problems(volume: dict[str, Any]) -> list[Problem]:
    found: list[Problem] = []
    validate_gke_shared([volume], found)
    return found


def test_addons_only_for_declared_backends() -> None:
    assert storage_addons(set()) == {}
    assert storage_addons({"filestore"}) == {"gcp_filestore_csi_driver_config": {"enabled": True}}
    assert set(storage_addons({"gcs-fuse", "managed-lustre"})) == {
        "gcs_fuse_csi_driver_config",
        "lustre_csi_driver_config",
    }
    assert storage_apis({"filestore", "managed-lustre"}) == (
        "file.googleapis.com",
        "servicenetworking.googleapis.com",
        "lustre.googleapis.com",
    )


def test_filestore_tier_follows_size_and_throughput() -> None:
    assert choose_filestore_tier(500, None).name == "basic-hdd"  # type: ignore[union-attr]
    assert choose_filestore_tier(4096, 600).name == "basic-ssd"  # type: ignore[union-attr]
    assert choose_filestore_tier(2048, 400).name == "zonal"  # type: ignore[union-attr]
    assert choose_filestore_tier(20480, 5000).name == "zonal-large"  # type: ignore[union-attr]
    assert choose_filestore_tier(50, None) is None


def test_lustre_tier_is_the_cheapest_that_gives_the_throughput() -> None:
    assert choose_lustre_tier(72000, None).name == "125"  # type: ignore[union-attr]
    assert choose_lustre_tier(36000, 8000).name == "250"  # type: ignore[union-attr]
    assert choose_lustre_tier(9000, 8000).name == "1000"  # type: ignore[union-attr]
    assert choose_lustre_tier(10000, None) is None  # not a multiple of any tier's step


@pytest.mark.parametrize(
    "name,ok",
    [
        ("datasets-01", True),
        ("ab", False),
        ("a" * 64, False),
        ("goog-data", False),
        ("my-google-data", False),
        ("Data", False),
        ("data-", False),
        ("team.example.com", True),
        ("team..com", False),
    ],
)
def test_bucket_names(name: str, ok: bool) -> None:
    assert bucket_name_ok(name) is ok


BAD = [
    (
        {"name": "d", "kind": "gcs-fuse", "role": "datasets", "size_gb": 100, "bucket": "goog-datasets"},
        "gpukit:storage.shared[0].bucket",
        "not starting with 'goog'",
    ),
    (
        {"name": "d", "kind": "gcs-fuse", "role": "datasets", "size_gb": 100, "bucket": "my-google-data"},
        "gpukit:storage.shared[0].bucket",
        "not containing 'google'",
    ),
]


@pytest.mark.parametrize("volume,key,words", BAD)
def test_bad_volume_is_refused_naming_its_key(volume: dict[str, Any], key: str, words: str) -> None:
    (problem,) = problems(volume)
    assert problem.key == key
    assert words in problem.message


def test_good_volumes_pass() -> None:
    assert problems({"name": "c", "kind": "filestore", "role": "checkpoints", "size_gb": 2048}) == []
    assert (
        problems({"name": "d", "kind": "gcs-fuse", "role": "datasets", "size_gb": 10, "bucket": "my-data"})
        == []
    )
