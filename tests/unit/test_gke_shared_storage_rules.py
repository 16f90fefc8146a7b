"""GKE shared-storage facts and checks, without Pulumi: tier choice, add-on flags, bucket names, and the
bad configurations refused with their keys (volumes as validated specs: snake_case keys)."""

from typing import Any

import pytest

from gpukit.components.errors import Problem
from gpukit.components.spec import StorageKind
from gpukit.components.storage.backends import backend
from gpukit.providers.gcp.gke.shared_storage.tables import (
    FILESTORE_CSI_TIER,
    bucket_name_ok,
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


def test_every_filestore_tier_of_the_backend_table_has_its_api_tier() -> None:
    """One table of tiers (components/storage/backends.py): the GKE build adds only the API name, for
    exactly the tiers validation accepts."""
    tiers = {t.name for t in backend(StorageKind.FILESTORE).tiers}
    assert set(FILESTORE_CSI_TIER) == tiers
    assert set(FILESTORE_CSI_TIER.values()) == {"basic_hdd", "basic_ssd", "zonal", "regional", "enterprise"}


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
