"""Bad GKE shared volumes (Filestore, Cloud Storage FUSE, Managed Lustre): each refused with exit 2, naming
the key to edit, building nothing (the checks of test_bad_configs_storage.py, from the gke-dev stack)."""

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpukit.cli import main
from harness import example_config
from tests.program.test_bad_configs import Config, Mutation, assert_refused, broken, top_set

SHARED = "gpukit:storage.shared"


def volume(**values: Any) -> dict[str, Any]:
    return {"name": "checkpoints", "kind": "filestore", "role": "checkpoints", "sizeGb": 2560, **values}


def shared(*volumes: dict[str, Any]) -> Mutation:
    return top_set("gpukit:storage", {"shared": list(volumes)})


def gke() -> Config:
    return example_config("gke-dev")


def gke_in(region: str) -> Callable[[], Config]:
    def make() -> Config:
        config = example_config("gke-dev")
        config["gcp:region"] = region
        return config

    return make


CASES: list[tuple[str, Callable[[], Config], Mutation, str, str]] = [
    (
        "filestore-below-tier-minimum",
        gke,
        shared(volume(tier="zonal", sizeGb=512)),
        f"{SHARED}[0].sizeGb",
        "filestore tier zonal takes 1024 to 9984 GiB in steps of 256; got 512",
    ),
    (
        "filestore-above-every-tier",
        gke,
        shared(volume(sizeGb=200000)),
        f"{SHARED}[0].sizeGb",
        "got 200000",
    ),
    (
        "filestore-unknown-tier",
        gke,
        shared(volume(tier="premium-plus")),
        f"{SHARED}[0].tier",
        "filestore tiers are basic-hdd, basic-ssd, zonal, zonal-large, regional, regional-large, enterprise",
    ),
    (
        "filestore-tier-too-slow",
        gke,
        shared(volume(tier="basic-hdd", sizeGb=1024, throughputMbps=500)),
        f"{SHARED}[0].throughputMbps",
        "filestore tier basic-hdd gives 100 MB/s at 1024 GiB; got 500",
    ),
    (
        "lustre-in-region-without-it",
        gke_in("us-east1"),
        shared(volume(kind="managed-lustre", sizeGb=9000, tier="1000")),
        f"{SHARED}[0].kind",
        "managed-lustre is not offered in us-east1 as far as gpukit knows (regions listed by "
        "https://cloud.google.com/managed-lustre/docs/locations: africa-south1",
    ),
    (
        "lustre-size-off-step",
        gke,
        shared(volume(kind="managed-lustre", sizeGb=20000, tier="1000")),
        f"{SHARED}[0].sizeGb",
        "managed-lustre tier 1000 takes 9000 to 1530000 GiB in steps of 9000; got 20000",
    ),
    (
        "bucket-name-goog-prefix",
        gke,
        shared(volume(name="datasets", kind="gcs-fuse", role="datasets", sizeGb=100, bucket="goog-datasets")),
        f"{SHARED}[0].bucket",
        "not starting with 'goog'",
    ),
    (
        "filestore-zone-on-regional-tier",
        gke,
        shared(volume(tier="regional", zone="us-central1-a")),
        f"{SHARED}[0].zone",
        "filestore tier regional lives in the cluster's region and serves every zone of it: remove the key",
    ),
    (
        "filestore-zone-on-enterprise-tier",
        gke,
        shared(volume(tier="enterprise", zone="us-central1-b")),
        f"{SHARED}[0].zone",
        "filestore tier enterprise lives in the cluster's region",
    ),
    (
        "filestore-zone-where-no-pool-runs",
        gke,
        shared(volume(tier="zonal", zone="us-central1-f")),
        f"{SHARED}[0].zone",
        "must be a zone the cluster's node pools run in (us-central1-a, us-central1-b, us-central1-c), so "
        "nodes mount the instance without crossing zones; got 'us-central1-f'",
    ),
    (
        "filestore-zone-in-another-region",
        gke,
        shared(volume(tier="basic-ssd", zone="europe-west4-a")),
        f"{SHARED}[0].zone",
        "got 'europe-west4-a'",
    ),
    (
        "zone-on-gcs-fuse-which-serves-every-zone",
        gke,
        shared(
            volume(name="datasets", kind="gcs-fuse", role="datasets", sizeGb=100, bucket="team-ds", zone="x")
        ),
        f"{SHARED}[0].zone",
        "only for single-zone backends gpukit places (fsx-lustre, filestore); the volume is gcs-fuse",
    ),
    (
        "checkpoints-on-a-bucket",
        gke,
        shared(volume(kind="gcs-fuse", sizeGb=100, bucket="team-ckpts")),
        f"{SHARED}[0].role",
        "gcs-fuse cannot hold checkpoints",
    ),
]


@pytest.mark.parametrize(
    ("make", "key", "fragment"),
    [
        pytest.param(broken(base, mutation), key, fragment, id=case)
        for case, base, mutation, key, fragment in CASES
    ],
)
def test_bad_gke_storage_config_is_refused(
    make: Callable[[], Config], key: str, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert_refused(make(), key, fragment, tmp_path, capsys)


def test_lustre_regions_of_the_locations_page_are_accepted() -> None:
    """australia-southeast2: in Managed Lustre's locations table, missing from the first copy gpukit read."""
    from gpukit.components.addons.storage.backends import backend
    from gpukit.components.spec import StorageKind

    assert {"australia-southeast2", "us-central1", "northamerica-northeast1"} <= (
        backend(StorageKind.MANAGED_LUSTRE).regions or frozenset()
    )


def gke_on_reused_network() -> Config:
    config = example_config("gke-dev")
    config["gpukit:cluster"]["network"] = {
        "networkId": "projects/acme-ml-dev/global/networks/shared-vpc",
        "subnetworkId": "projects/acme-ml-dev/regions/us-central1/subnetworks/gke",
        "podsRangeName": "gke-pods",
        "servicesRangeName": "gke-services",
    }
    return config


REUSED_NETWORK_CASES: list[tuple[str, Mutation, str]] = [
    ("filestore-on-reused-network", shared(volume()), "filestore needs a private services access connection"),
    (
        "lustre-on-reused-network",
        shared(volume(kind="managed-lustre", sizeGb=9000, tier="1000")),
        "managed-lustre needs a private services access connection",
    ),
    ("auto-filestore-on-reused-network", shared(volume(kind="auto")), "gpukit:cluster.network.networkId"),
]


@pytest.mark.parametrize(
    ("mutation", "fragment"), [pytest.param(m, f, id=case) for case, m, f in REUSED_NETWORK_CASES]
)
def test_private_access_backends_are_refused_on_a_reused_network(
    mutation: Mutation, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A reused VPC may already hold the one servicenetworking connection other services share: gpukit
    neither duplicates nor deletes it."""
    assert_refused(broken(gke_on_reused_network, mutation)(), f"{SHARED}[0].kind", fragment, tmp_path, capsys)


def test_gcs_fuse_is_still_accepted_on_a_reused_network(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = broken(
        gke_on_reused_network,
        shared(volume(name="datasets", kind="gcs-fuse", role="datasets", sizeGb=100, bucket="team-datasets")),
    )()
    path = tmp_path / "Pulumi.good.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    code = main(["plan", "--config", str(path)])
    _, err = capsys.readouterr()
    assert code == 0, err


def plan_text(config: Config, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    path = tmp_path / "Pulumi.train.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    assert main(["plan", "--config", str(path)]) == 0
    return " ".join(capsys.readouterr().out.split())


def test_plan_warns_that_driver_made_lustre_instances_outlive_destroy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Managed Lustre instances are the CSI driver's (Retain): the plan says so, never silently."""
    config = broken(gke, shared(volume(kind="managed-lustre", sizeGb=18000, tier="500")))()
    out = plan_text(config, tmp_path, capsys)
    assert "warning: gpukit:storage.shared[0]: checkpoints: the managed-lustre instance" in out
    assert "outlives `pulumi destroy`, keeps billing" in out


def test_filestore_is_pulumis_own_and_its_unpinned_zone_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Filestore is provisioned statically: no outlives-destroy warning; the zone gpukit chose (the
    GPU pools' first: the H100 pool's, the most GPUs at max) is shown with the key that pins it."""
    config = example_config("gke-train")
    del config["gpukit:storage"]["shared"][0]["zone"]  # the example pins it
    out = plan_text(config, tmp_path, capsys)
    assert "outlives `pulumi destroy`" not in out
    assert (
        "warning: gpukit:storage.shared[0].zone: Filestore volume checkpoints (tier zonal, one zone) is "
        in out
    )
    assert "fix: set `gpukit:storage.shared[0].zone: us-central1-a`" in out


def test_a_pinned_filestore_zone_is_used_without_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = broken(gke, shared(volume(tier="zonal", zone="us-central1-c")))()
    out = plan_text(config, tmp_path, capsys)
    assert "shared[0].zone" not in out
    assert "us-central1-c" in out.split("Shared storage")[1].split("Preflight")[0]
