"""Bad `gpukit:storage.shared` configs on EKS (efs, fsx-lustre, s3): each is refused with exit 2, names
the exact key, and builds nothing (checked like test_bad_configs.py)."""

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpukit.cli import EXIT_INVALID, main
from gpukit.program import build
from harness import eks_config, record
from tests.program.test_bad_configs import Config, Mutation, assert_refused, broken

SHARED = "gpukit:storage.shared"


def volume(**fields: Any) -> Mutation:
    def mutate(config: Config) -> None:
        config["gpukit:storage"] = {
            "shared": [{"name": "data", "role": "datasets", "sizeGb": 1200, **fields}]
        }

    return mutate


CASES: list[tuple[str, Mutation, str, str]] = [
    (
        "fsx-size-off-the-2400-step",
        volume(kind="fsx-lustre", sizeGb=3000),
        f"{SHARED}[0].sizeGb",
        "got 3000",
    ),
    (
        "fsx-below-the-smallest-size",
        volume(kind="fsx-lustre", sizeGb=600),
        f"{SHARED}[0].sizeGb",
        "1200",
    ),
    (
        "fsx-throughput-tier-that-does-not-exist",
        volume(kind="fsx-lustre", tier="200"),
        f"{SHARED}[0].tier",
        "125, 250, 500, 1000",
    ),
    (
        "fsx-tier-too-slow-for-the-throughput-asked",
        volume(kind="fsx-lustre", sizeGb=1200, tier="125", throughputMbps=1000),
        f"{SHARED}[0].throughputMbps",
        "got 1000",
    ),
    (
        "efs-throughput-beyond-what-efs-promises",
        volume(kind="efs", throughputMbps=5000),
        f"{SHARED}[0].throughputMbps",
        "5000",
    ),
    (
        "fsx-with-a-tier-but-an-elastic-size",
        volume(kind="fsx-lustre", sizeGb=100, tier="250"),
        f"{SHARED}[0].sizeGb",
        "got 100",
    ),
    (
        "s3-bucket-with-capitals-and-underscore",
        volume(kind="s3", bucket="My_Datasets"),
        f"{SHARED}[0].bucket",
        "'My_Datasets'",
    ),
    (
        "s3-bucket-formatted-as-an-ip-address",
        volume(kind="s3", bucket="192.168.5.4"),
        f"{SHARED}[0].bucket",
        "IP address",
    ),
    (
        "s3-bucket-with-a-reserved-suffix",
        volume(kind="s3", bucket="datasets-s3alias"),
        f"{SHARED}[0].bucket",
        "-s3alias",
    ),
    (
        "s3-without-a-bucket",
        volume(kind="s3"),
        f"{SHARED}[0].bucket",
        "required for s3",
    ),
    (
        "zone-on-efs-which-serves-every-zone",
        volume(kind="efs", zone="usw2-az1"),
        f"{SHARED}[0].zone",
        "fsx-lustre",
    ),
    (
        "fsx-zone-no-pool-pins",
        volume(kind="fsx-lustre", sizeGb=2400, zone="usw2-az4"),
        f"{SHARED}[0].zone",
        "usw2-az1, usw2-az2",
    ),
    (
        "gke-backend-on-eks",
        volume(kind="filestore"),
        f"{SHARED}[0].kind",
        "efs, fsx-lustre, s3",
    ),
]


@pytest.mark.parametrize("case", [pytest.param(case[1:], id=case[0]) for case in CASES])
def test_bad_eks_storage_config_is_refused(
    case: tuple[Mutation, str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mutation, key, fragment = case
    assert_refused(broken(eks_config, mutation)(), key, fragment, tmp_path, capsys)


GOOD: list[tuple[str, Callable[[Config], Any]]] = [
    ("efs", volume(kind="efs")),
    ("fsx", volume(kind="fsx-lustre", sizeGb=2400, tier="500")),
    ("fsx-pinned", volume(kind="fsx-lustre", sizeGb=2400, zone="usw2-az2")),
    ("s3", volume(kind="s3", bucket="my-datasets-2026")),
]


@pytest.mark.parametrize("mutation", [pytest.param(m, id=n) for n, m in GOOD])
def test_the_valid_volumes_the_cases_break_are_accepted(
    mutation: Mutation, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each case fails because of its one change: the same volume, valid, plans and builds."""
    config = broken(eks_config, mutation)()
    path = tmp_path / "Pulumi.good.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    code = main(["plan", "--config", str(path)])
    _, err = capsys.readouterr()
    assert code != EXIT_INVALID, err
    assert record(lambda: build(config)).resources
