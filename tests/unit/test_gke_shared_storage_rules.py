"""GKE shared-storage facts and checks, without Pulumi: tier choice, add-on flags, bucket names, and the
bad configurations refused with their keys (volumes as validated specs: snake_case keys)."""

import re
from typing import Any

import pytest

from gpukit.components.addons.storage.backends import backend
from gpukit.components.errors import Problem
from gpukit.components.spec import StorageKind
from gpukit.providers.gcp.gke.shared_storage.filestore import instance_name, volume_handle
from gpukit.providers.gcp.gke.shared_storage.tables import (
    FILESTORE_API_TIER,
    FILESTORE_SHARE,
    FILESTORE_ZONAL_TIERS,
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
    """One table of tiers (components/addons/storage/backends.py): the GKE build adds only the API name, for
    exactly the tiers validation accepts."""
    tiers = {t.name for t in backend(StorageKind.FILESTORE).tiers}
    assert set(FILESTORE_API_TIER) == tiers
    # pulumi-gcp filestore.Instance `tier`: the API's uppercase names; the -large tiers are the same tier.
    assert FILESTORE_API_TIER == {
        "basic-hdd": "BASIC_HDD",
        "basic-ssd": "BASIC_SSD",
        "zonal": "ZONAL",
        "zonal-large": "ZONAL",
        "regional": "REGIONAL",
        "regional-large": "REGIONAL",
        "enterprise": "ENTERPRISE",
    }


def test_zonal_filestore_tiers_are_exactly_those_not_highly_available() -> None:
    """A tier that lives in one zone is the one the backend table marks as not surviving a zone's loss."""
    tiers = backend(StorageKind.FILESTORE).tiers
    assert {t.name for t in tiers if not t.highly_available} == FILESTORE_ZONAL_TIERS
    assert {"basic-hdd", "basic-ssd", "zonal", "zonal-large"} == FILESTORE_ZONAL_TIERS


def test_filestore_share_and_instance_names_fit_the_api() -> None:
    assert len(FILESTORE_SHARE) <= 16  # filestore.Instance file_shares name: 16 characters or less
    instance_id = re.compile(r"[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?")
    long_cluster = "a" * 40
    for cluster, volume in [("train", "checkpoints"), (long_cluster, "v" * 24)]:
        name = instance_name(cluster, volume)
        assert instance_id.fullmatch(name), name
    assert instance_name("train", "checkpoints") == "train-checkpoints"
    assert volume_handle("us-central1-b", "train-checkpoints", "shared") == (
        "modeInstance/us-central1-b/train-checkpoints/shared"
    )


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
